/**
 * The planner's parts on small cases with known answers: option curves, the min cut with lower bounds, the 1F1B and
 * GPipe graphs, and the frontier against brute force over every clock combination.
 */
import { describe, expect, it } from 'vitest';
import {
  Dag,
  graphFrontier,
  makeCurve,
  pipelineGraph,
  slowestWithin,
  splitAt,
  sweep,
  type ClockOption,
} from '../../src/engines/plan/index.js';
import { FlowNetwork } from '../../src/engines/plan/max-flow.js';
import { stageSchedule } from '../../src/engines/generate/schedule.js';
import { extrinsicSaving } from '../../src/engines/plan/extrinsic.js';

const opt = (clockMHz: number, timeS: number, energyJ: number): ClockOption => ({ clockMHz, timeS, energyJ });

describe('option curves', () => {
  const c = makeCurve(
    'x',
    [opt(1000, 2, 10), opt(1200, 1.6, 11), opt(1300, 1.7, 12), opt(1400, 1.5, 13), opt(1500, 1, 20), opt(900, 3, 12)],
    1,
  );
  it('keeps only options no faster option beats on effective energy (e − P·t), fastest first', () => {
    // effective: 1500: 19, 1400: 11.5, 1200: 9.4, 1300: 10.3 (beaten by 1200), 1000: 8, 900: 9 (beaten by 1000)
    expect(c.options.map((o) => o.clockMHz)).toEqual([1500, 1400, 1200, 1000]);
    expect(c.maxClock.clockMHz).toBe(1500);
    expect(c.byClock.map((o) => o.clockMHz)).toEqual([900, 1000, 1200, 1300, 1400, 1500]);
  });
  it('takes the lower convex hull for the solver, with non-increasing slopes', () => {
    expect(Array.from(c.hullTimeS)).toEqual([1, 1.6, 2]); // 1.5 s (11.5 J) lies above the chord 1 → 1.6 s
    for (let k = 1; k < c.hullSlope.length; k++) expect(c.hullSlope[k]!).toBeLessThanOrEqual(c.hullSlope[k - 1]!);
  });
  it('splits a relaxed duration between two hull clocks', () => {
    const s = splitAt(c, 1.75);
    expect([c.options[s.first]!.clockMHz, c.options[s.second]!.clockMHz]).toEqual([1200, 1000]);
    expect(s.share).toBeCloseTo(0.625, 12);
    expect(splitAt(c, 1.6).share).toBe(1);
  });
  it('rounds a duration down to the slowest option that fits', () => {
    expect(c.options[slowestWithin(c, 1.99)]!.clockMHz).toBe(1200);
    expect(c.options[slowestWithin(c, 0.5)]!.clockMHz).toBe(1500);
  });
  it('refuses options without a positive time', () => {
    expect(() => makeCurve('stage 0 forward', [opt(1000, 0, 1)], 0)).toThrow(
      /stage 0 forward at 1000 MHz: expected a positive time/,
    );
  });
});

describe('min cut with lower bounds', () => {
  it('finds the cut value Σ upper bounds forward − Σ lower bounds backward', () => {
    // s → a → b → t and s → b: arcs (a→b) [0, 5], (s→a) [0, 3], (s→b) [0, 4], (b→t) [0, 100]
    const n = new FlowNetwork();
    n.reset(4, 4);
    n.addArc(0, 1, 0, 3);
    n.addArc(1, 2, 0, 5);
    n.addArc(0, 2, 0, 4);
    n.addArc(2, 3, 0, 100);
    const side = new Uint8Array(4);
    expect(n.minCut(0, 3, side)).toBeCloseTo(7, 9);
    expect(Array.from(side)).toEqual([1, 0, 0, 0]);
  });
  it('says when lower bounds cannot be met and when every cut is infinite', () => {
    const n = new FlowNetwork();
    n.reset(3, 2);
    n.addArc(0, 1, 10, 20);
    n.addArc(1, 2, 0, 5);
    expect(n.minCut(0, 2, new Uint8Array(3))).toBeNull();
    n.reset(2, 1);
    n.addArc(0, 1, 0, Infinity);
    expect(n.minCut(0, 1, new Uint8Array(2))).toBe(Infinity);
  });
});

describe('pipeline graphs', () => {
  const unit = makeCurve('u', [opt(1, 1, 1)], 0);
  const twice = makeCurve('b', [opt(1, 2, 1)], 0);
  const curves = Array.from({ length: 4 }, () => ({ forward: unit, backward: twice }));
  it("run each stage's computations in the generator's order", () => {
    for (const schedule of ['1f1b', 'gpipe'] as const) {
      const g = pipelineGraph(schedule, 4, 6, curves);
      expect(g.ops).toHaveLength(4 * 6 * 2);
      for (let s = 0; s < 4; s++) {
        const mine = g.ops.filter((o) => o.stage === s).map((o) => `${o.pass[0]!.toUpperCase()}${o.microBatch}`);
        expect(mine).toEqual(stageSchedule(schedule, 4, s, 6).map((x) => `${x.pass}${x.microBatch}`));
      }
    }
  });
  it('take (m + s − 1)·(f + b) with uniform stages, 1F1B and GPipe alike', () => {
    for (const schedule of ['1f1b', 'gpipe'] as const) {
      const g = pipelineGraph(schedule, 4, 6, curves);
      expect(g.dag.makespan(Float64Array.from(g.dag.curveOf, (c) => c.timeS[0]!))).toBeCloseTo((6 + 4 - 1) * 3, 12);
    }
  });
  it('add message delays as ops after the computations', () => {
    const g = pipelineGraph('1f1b', 4, 6, curves, { activationS: [0.5, 0.5, 0.5], gradientS: [0.25, 0.25, 0.25] });
    expect(g.dag.size).toBe(48 + 2 * 3 * 6);
    expect(g.dag.curveOf.slice(48).every((c) => c.lag)).toBe(true);
    expect(g.dag.makespan(Float64Array.from(g.dag.curveOf, (c) => c.timeS[0]!))).toBeGreaterThan(27);
  });
  it('refuse a cycle', () => {
    expect(() => new Dag([unit, unit], [[1], [0]])).toThrow(/cycle/);
  });
});

/** Time and energy of every combination of options. */
function allPlans(dag: Dag, blockingW: number, lanes: number): { t: number; e: number }[] {
  const n = dag.size;
  const choice = new Int32Array(n);
  const out: { t: number; e: number }[] = [];
  const d = new Float64Array(n);
  const visit = (i: number) => {
    if (i === n) {
      let e = 0;
      let busy = 0;
      for (let k = 0; k < n; k++) {
        const o = dag.curveOf[k]!.byClock[choice[k]!]!;
        d[k] = o.timeS;
        e += o.energyJ;
        busy += o.timeS;
      }
      const t = dag.makespan(d);
      out.push({ t, e: e + blockingW * (lanes * t - busy) });
      return;
    }
    for (let k = 0; k < dag.curveOf[i]!.byClock.length; k++) {
      choice[i] = k;
      visit(i + 1);
    }
  };
  visit(0);
  return out;
}

describe('frontier against brute force', () => {
  // A pseudo-random family of small graphs: 2 stages × 2 micro-batches, 4 clocks per computation (4⁸ plans).
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const curveAt = (label: string, base: number) =>
    makeCurve(
      label,
      [1000, 1200, 1400, 1600].map((f) =>
        opt(
          f,
          base * (0.6 + 400 / f) * (1 + 0.05 * rand()),
          base * (0.2 + (f / 1000) ** 2) * 100 * (1 + 0.05 * rand()),
        ),
      ),
      50,
    );
  for (let trial = 0; trial < 4; trial++) {
    it(`meets every deadline, never beats the optimum, stays above the bound (graph ${trial + 1})`, () => {
      const curves = [0, 1].map((s) => ({
        forward: curveAt(`s${s}f`, 1 + rand()),
        backward: curveAt(`s${s}b`, 2 + rand()),
      }));
      const g = pipelineGraph('1f1b', 2, 2, curves);
      const f = graphFrontier(g.dag, { blockingPowerW: 50, lanes: 2, points: 12 });
      const plans = allPlans(g.dag, 50, 2);
      for (const p of f.points) {
        const optimum = Math.min(...plans.filter((q) => q.t <= p.deadlineS + 1e-12).map((q) => q.e));
        expect(p.timeS).toBeLessThanOrEqual(p.deadlineS * (1 + 1e-12));
        expect(p.energyJ).toBeGreaterThanOrEqual(optimum * (1 - 1e-9));
        expect(p.lowerBoundJ).toBeLessThanOrEqual(optimum * (1 + 1e-9));
        expect(p.energyJ / optimum - 1).toBeLessThan(0.05);
      }
    });
  }
  it('sweeps the relaxation to the shortest time the options allow, convex and decreasing in effective energy', () => {
    const curves = [0, 1, 2].map((s) => ({ forward: curveAt(`s${s}f`, 1), backward: curveAt(`s${s}b`, 2) }));
    const g = pipelineGraph('gpipe', 3, 4, curves);
    const r = sweep(g.dag);
    const fastest = g.dag.makespan(Float64Array.from(g.dag.curveOf, (c) => c.hullTimeS[0]!));
    expect(r.fastestS).toBeCloseTo(fastest, 9);
    for (let k = 1; k < r.points.length; k++) {
      expect(r.points[k]!.timeS).toBeLessThan(r.points[k - 1]!.timeS);
      expect(r.points[k]!.costJ).toBeGreaterThanOrEqual(r.points[k - 1]!.costJ - 1e-9);
    }
  });
});

describe('extrinsic saving', () => {
  it('waits out the straggler at blocking power and picks the cheapest plan that finishes by then', () => {
    const frontier = [
      { timeS: 10, energyJ: 100 },
      { timeS: 11, energyJ: 90 },
      { timeS: 12, energyJ: 95 },
    ];
    const e = extrinsicSaving(frontier, { timeS: 10, energyJ: 120 }, frontier[0]!, 12, 2, 5)!;
    // waiting costs 2 lanes × 5 W: baseline 120 + 20 = 140; intrinsic 100 + 20 = 120; the 11 s plan 90 + 10 = 100; the
    // 12 s plan 95
    expect(e.baselineEnergyJ).toBe(140);
    expect(e.plannedTimeS).toBe(12);
    expect(e.plannedEnergyJ).toBe(95);
    expect(e.savingPct).toBeCloseTo((100 * 45) / 140, 12);
    expect(e.extrinsicSavingPct).toBeCloseTo((100 * 25) / 120, 12);
    expect(extrinsicSaving(frontier, { timeS: 10, energyJ: 120 }, frontier[0]!, 9, 2, 5)).toBeNull();
  });
});

/**
 * Against Perseus' own emulation (SOSP'24, A40, 8 stages, 1F1B): intrinsic savings, the frontier at every iteration
 * time of Perseus' frontier files, the lowest-energy end, and EnvPipe's results. 12 micro-batches run from vendored
 * files; 24, 48 and 96 from ../shared.
 */
import { describe, expect, it } from 'vitest';
import { makeCurve, measuredStageOptions, pipelineGraph, quantizeOptions, type PlanRecord } from '../../src/engines/plan/index.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { describeShared } from '../helpers/shared.js';
import { A40_BLOCKING_W, bestWithin, envPipeEnergyJ, frontierFile, interpolate, MODELS, PERSEUS_INTRINSIC, planFor, readFrontier, stageProfile, type Model } from './perseus.js';

/** Largest deviation of tracewatt's frontier from Perseus' (%), over Perseus' iteration times no faster than the all-max-clock one. */
function deviations(r: PlanRecord, model: Model, microBatches: number) {
  const perseus = readFrontier(frontierFile(model, microBatches));
  let oneClock = -Infinity;
  let twoClock = -Infinity;
  let compared = 0;
  for (const p of perseus) {
    if (p.timeS < r.baseline.timeS) continue;
    compared++;
    oneClock = Math.max(oneClock, 100 * (bestWithin(r.frontier, p.timeS) / p.energyJ - 1));
    twoClock = Math.max(twoClock, 100 * (interpolate(r.splitFrontier, p.timeS) / p.energyJ - 1));
  }
  return { oneClock, twoClock, compared, perseusPoints: perseus.length };
}

function checkCase(model: Model, index: number, microBatches: number) {
  let r: PlanRecord;
  it('plans', async () => {
    r = await planFor(model, microBatches);
    expect(r.frontier.length).toBeGreaterThan(20);
  });
  it(`removes at least Perseus' intrinsic bloat (${PERSEUS_INTRINSIC[model][index]} %) less 0.5 points, with one and with two clocks per computation`, () => {
    const target = PERSEUS_INTRINSIC[model][index]!;
    expect(r.intrinsic.savingPct).toBeGreaterThanOrEqual(target - 0.5);
    expect(r.intrinsic.split.savingPct).toBeGreaterThanOrEqual(r.intrinsic.savingPct);
    expect(Math.abs(r.intrinsic.timeChangePct)).toBeLessThan(1e-3);
  });
  it('never plans an iteration faster than the all-max-clock one', () => {
    for (const p of r.frontier) {
      expect(p.deadlineS).toBeGreaterThanOrEqual(r.baseline.timeS);
      expect(p.timeS).toBeGreaterThanOrEqual(r.baseline.timeS * (1 - 1e-4));
      expect(p.timeS).toBeLessThanOrEqual(p.deadlineS * (1 + 1e-9));
      // The two-clock plan at the deadline is the lower bound of every one-clock plan that meets it.
      expect(p.energyJ).toBeGreaterThanOrEqual(p.splitEnergyJ * (1 - 1e-9));
    }
  });
  it("is within 0.5 % of Perseus' frontier or below at every one of its iteration times, with one and with two clocks per computation", () => {
    const d = deviations(r, model, microBatches);
    expect(d.compared).toBeGreaterThan(0.9 * d.perseusPoints - 1000);
    expect(d.twoClock).toBeLessThanOrEqual(0.5);
    expect(d.oneClock).toBeLessThanOrEqual(0.5);
  });
  it("saves at least what Perseus' frontier saves less 0.5 points when a straggler sets the iteration time (Figure 8, slowdowns 1.00–1.50)", () => {
    // Same per-pipeline formula on Perseus' frontier: its cheapest point that finishes by T′, then blocking power on
    // every stage until T′, against the all-max-clock pipeline waiting until T′.
    const perseus = readFrontier(frontierFile(model, microBatches));
    const waitW = r.lanes * r.blockingPowerW;
    expect(r.extrinsicCurve).toHaveLength(51);
    for (const c of r.extrinsicCurve) {
      const deadlineS = c.slowdownFactor * r.baseline.timeS;
      const best = Math.min(...perseus.filter((p) => p.timeS <= deadlineS).map((p) => p.energyJ + waitW * (deadlineS - p.timeS)));
      const perseusPct = 100 * (1 - best / (r.baseline.energyJ + waitW * (deadlineS - r.baseline.timeS)));
      expect(c.savingPct).toBeGreaterThanOrEqual(perseusPct - 0.5);
    }
  });
  it("gives Perseus' published intrinsic figure from its own frontier file with its notebook's formula (baseline at the frontier's fastest time)", () => {
    // evaluation.ipynb: all-max-clock computation energy plus blocking power for the rest of the frontier's fastest
    // time. For BLOOM that time is 0.7 % shorter than the all-max-clock iteration, so its figure is not a saving at
    // the all-max-clock time; tracewatt's is (the README explains the difference).
    const fastest = readFrontier(frontierFile(model, microBatches))[0]!;
    const allMaxAt = (timeS: number) => r.baseline.energyJ + r.lanes * r.blockingPowerW * (timeS - r.baseline.timeS);
    expect(100 * (1 - fastest.energyJ / allMaxAt(fastest.timeS))).toBeCloseTo(PERSEUS_INTRINSIC[model][index]!, 1);
  });
  it("reproduces EnvPipe's result within 0.2 %", () => {
    expect(Math.abs(r.envPipe.energyJ / envPipeEnergyJ(model, microBatches) - 1)).toBeLessThan(0.002);
    expect(Math.abs(r.envPipe.timeChangePct)).toBeLessThan(1e-6);
  });
}

for (const model of MODELS) {
  describe(`${model}, 12 micro-batches (vendored Perseus frontier)`, () => checkCase(model, 0, 12));
  [24, 48, 96].forEach((mb, k) => describeShared(`${model}, ${mb} micro-batches (Perseus frontier in ../shared)`, () => checkCase(model, k + 1, mb)));
}

describe("Perseus' time convention (--time-quantum)", () => {
  it('floors computation times as its solver does: the fastest plan then takes exactly its frontier’s shortest time', async () => {
    for (const model of MODELS) {
      const file = stageProfile(model);
      const curves = quantizeOptions(measuredStageOptions(await readProfile(file), 8, file), 0.0001).map((s, i) => ({
        forward: makeCurve(`${i}f`, s.forward, A40_BLOCKING_W),
        backward: makeCurve(`${i}b`, s.backward, A40_BLOCKING_W),
      }));
      const g = pipelineGraph('1f1b', 8, 12, curves);
      const fastest = g.dag.makespan(Float64Array.from(g.dag.curveOf, (c) => c.hullTimeS[0]!));
      expect(fastest).toBeCloseTo(readFrontier(frontierFile(model, 12))[0]!.timeS, 9);
    }
  });
});

describe('the lowest-energy end (GPT-3, 12 micro-batches)', () => {
  it("saves at least Perseus' 19.4 % less 0.5 points at about Perseus' +9.2 % time", async () => {
    const r = await planFor('gpt3-175b', 12);
    expect(r.minEnergy.savingPct).toBeGreaterThanOrEqual(18.9);
    expect(Math.abs(r.minEnergy.timeChangePct - 9.2)).toBeLessThan(1);
  });
});

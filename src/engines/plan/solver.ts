/**
 * The continuous relaxation, solved exactly: every computation may take any duration between its hull's fastest
 * and slowest vertex at the effective energy of the lower convex hull of its options (a convex, piecewise-linear
 * cost). Starting from every computation at its cheapest (slowest) hull vertex, the iteration time is lowered step
 * by step; each step shortens the cheapest cut of the critical paths (max-flow/min-cut, Phillips & Dessouky) by as
 * much as keeps every slope and every critical path the same: until a computation reaches a hull vertex, another
 * path becomes critical, or the target time is reached. The result is the exact lower bound of the effective energy
 * at every iteration time (a convex, piecewise-linear curve) and, along it, the optimal durations, which `realize`
 * turns into clocks. Perseus uses the same min-cut step with unit time steps on an exponential fit of each curve.
 */
import { TracewattError } from '../../errors.js';
import { hullCostAt } from './curve.js';
import type { Dag } from './dag.js';
import { FlowNetwork } from './max-flow.js';

/**
 * One step of the sweep: from `timeS`, durations change at `rate` (−1 shorten, +1 lengthen, 0 keep) per second of
 * iteration time removed, for `stepS` seconds.
 */
export interface SweepStep {
  timeS: number;
  stepS: number;
  durationsS: Float64Array;
  rate: Int8Array;
  /** Effective energy at `timeS`, J. */
  costJ: number;
  /** Effective energy added per second of iteration time removed (the cut's value), J/s. */
  slopeJPerS: number;
}

export interface SweepResult {
  /** Iteration time with every computation at its slowest hull vertex, s. */
  slowestS: number;
  /** Where the sweep stopped: the target, or the shortest iteration time the options allow. */
  fastestS: number;
  /** Breakpoints of the lower bound: iteration time (s) and effective energy (J), slowest first. */
  points: { timeS: number; costJ: number }[];
  steps: number;
  /** Durations where the sweep stopped (optimal at `fastestS`), s. */
  durationsS: Float64Array;
}

export interface SweepOptions {
  /** Stop at this iteration time, s (default: as fast as the options allow). */
  stopAtS?: number;
  /** Called for every step, slowest first. */
  onStep?: (step: SweepStep) => void;
  /** Give up after this many steps (default 1,000,000). */
  maxSteps?: number;
}

/** Paths within this share of the iteration time of the longest count as critical (rounding accumulates over steps). */
const TIME_EPS = 1e-9;
/** Relative slack on an op's flow bounds. */
const SLOPE_EPS = 1e-7;
/** A step's end is accepted when the longest path is within this share of the target. */
const STEP_EPS = 1e-13;

export function sweep(dag: Dag, options: SweepOptions = {}): SweepResult {
  const n = dag.size;
  const curves = dag.curveOf;
  const d = new Float64Array(n);
  const seg = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = curves[i]!;
    seg[i] = c.hullTimeS.length - 1;
    d[i] = c.hullTimeS[seg[i]!]!;
  }
  const finish = new Float64Array(n);
  const tail = new Float64Array(n);
  const criticalId = new Int32Array(n);
  const rate = new Int8Array(n);
  const trial = new Float64Array(n);
  const slopeAcc = new Float64Array(n);
  const network = new FlowNetwork();
  // Flows of the last cut, kept as the next cut's starting flow: an op arc, its start and end arcs, and each
  // predecessor edge (indexed like dag.predList); -1 arc index = not in the network.
  const opFlow = new Float64Array(n);
  const startFlow = new Float64Array(n);
  const endFlow = new Float64Array(n);
  const edgeFlow = new Float64Array(dag.predList.length);
  const opArc = new Int32Array(n);
  const startArc = new Int32Array(n);
  const endArc = new Int32Array(n);
  const edgeArc = new Int32Array(dag.predList.length);
  let side = new Uint8Array(0);
  let cost = 0;
  for (let i = 0; i < n; i++) cost += curves[i]!.hullCostJ[seg[i]!]!;
  let time = dag.earliestFinish(d, finish);
  const slowestS = time;
  const stopAt = Math.max(0, options.stopAtS ?? 0);
  const maxSteps = options.maxSteps ?? 1_000_000;
  const points = [{ timeS: time, costJ: cost }];
  let steps = 0;

  const atVertex = (i: number) => d[i] === curves[i]!.hullTimeS[seg[i]!];
  const upper = (i: number) => {
    const c = curves[i]!;
    if (!atVertex(i)) return c.hullSlope[seg[i]!]!;
    return seg[i]! > 0 ? c.hullSlope[seg[i]! - 1]! : Infinity;
  };
  const lower = (i: number) => {
    const c = curves[i]!;
    if (!atVertex(i)) return c.hullSlope[seg[i]!]!;
    return seg[i]! < c.hullSlope.length ? c.hullSlope[seg[i]!]! : 0;
  };

  while (time > stopAt * (1 + TIME_EPS) && steps < maxSteps) {
    dag.earliestFinish(d, finish);
    dag.tails(d, tail);
    const eps = TIME_EPS * time;
    let critical = 0;
    let arcs = 0;
    for (let i = 0; i < n; i++) {
      const start = finish[i]! - d[i]!;
      criticalId[i] = start + tail[i]! >= time - eps ? critical++ : -1;
      if (criticalId[i]! >= 0) arcs += 3 + dag.predStart[i + 1]! - dag.predStart[i]!;
    }
    const source = 2 * critical;
    const sink = source + 1;
    network.reset(2 * critical + 2, arcs);
    opArc.fill(-1);
    startArc.fill(-1);
    endArc.fill(-1);
    edgeArc.fill(-1);
    for (let i = 0; i < n; i++) {
      const c = criticalId[i]!;
      if (c < 0) continue;
      // A little slack on the bounds: ops on segments of (almost) equal slope in series must carry the same flow,
      // which exact bounds make infeasible through rounding alone.
      opArc[i] = network.addArc(2 * c, 2 * c + 1, lower(i) * (1 - SLOPE_EPS), upper(i) * (1 + SLOPE_EPS), opFlow[i]!);
      const start = finish[i]! - d[i]!;
      if (start <= eps) startArc[i] = network.addArc(source, 2 * c, 0, Infinity, startFlow[i]!);
      if (finish[i]! >= time - eps) endArc[i] = network.addArc(2 * c + 1, sink, 0, Infinity, endFlow[i]!);
      for (let k = dag.predStart[i]!; k < dag.predStart[i + 1]!; k++) {
        const p = dag.predList[k]!;
        if (criticalId[p]! >= 0 && finish[p]! + tail[i]! >= time - eps)
          edgeArc[k] = network.addArc(2 * criticalId[p]! + 1, 2 * c, 0, Infinity, edgeFlow[k]!);
      }
    }
    if (side.length < 2 * critical + 2) side = new Uint8Array(4 * critical + 4);
    const cut = network.minCut(source, sink, side);
    if (cut === Infinity) break; // every critical path runs at its fastest hull vertex somewhere
    if (cut === null)
      throw new TracewattError(
        'PLAN_SOLVER',
        `plan solver: no feasible flow at iteration time ${time} s (numerical trouble)`,
      );
    const flowOf = (arc: number) => (arc < 0 ? 0 : network.flow(arc));
    for (let i = 0; i < n; i++) {
      opFlow[i] = flowOf(opArc[i]!);
      startFlow[i] = flowOf(startArc[i]!);
      endFlow[i] = flowOf(endArc[i]!);
    }
    for (let k = 0; k < edgeFlow.length; k++) edgeFlow[k] = flowOf(edgeArc[k]!);

    let stepS = time - stopAt;
    for (let i = 0; i < n; i++) {
      rate[i] = 0;
      const c = criticalId[i]!;
      if (c < 0) continue;
      const inSource = side[2 * c] === 1;
      const outSource = side[2 * c + 1] === 1;
      const h = curves[i]!.hullTimeS;
      if (inSource && !outSource) {
        rate[i] = -1;
        stepS = Math.min(stepS, d[i]! - (atVertex(i) ? h[seg[i]! - 1]! : h[seg[i]!]!));
      } else if (!inSource && outSource && seg[i]! < h.length - 1) {
        rate[i] = 1;
        stepS = Math.min(stepS, h[seg[i]! + 1]! - d[i]!);
      }
    }
    stepS = limitByOtherPaths(dag, d, rate, time, stepS, trial, slopeAcc, finish);
    if (!(stepS > eps)) {
      // A path within rounding of critical: the next pass sees it critical.
      if (stepS < 0) throw new TracewattError('PLAN_SOLVER', `plan solver: negative step at iteration time ${time} s`);
    }
    options.onStep?.({ timeS: time, stepS, durationsS: d, rate, costJ: cost, slopeJPerS: cut });
    for (let i = 0; i < n; i++) {
      const r = rate[i]!;
      if (r === 0) continue;
      const c = curves[i]!;
      const h = c.hullTimeS;
      if (r < 0) {
        const from = atVertex(i) ? seg[i]! - 1 : seg[i]!;
        cost += c.hullSlope[from]! * stepS;
        d[i] = d[i]! - stepS;
        seg[i] = from;
        if (d[i]! <= h[from]! + eps * 1e-3) d[i] = h[from]!;
      } else {
        cost -= c.hullSlope[seg[i]!]! * stepS;
        d[i] = d[i]! + stepS;
        if (d[i]! >= h[seg[i]! + 1]! - eps * 1e-3) {
          seg[i] = seg[i]! + 1;
          d[i] = h[seg[i]!]!;
        }
      }
    }
    time = dag.earliestFinish(d, finish);
    points.push({ timeS: time, costJ: cost });
    steps++;
  }
  // Re-sum the cost exactly at the end (the running sum only accumulates rounding).
  let exact = 0;
  for (let i = 0; i < n; i++) exact += hullCostAt(curves[i]!, d[i]!);
  points[points.length - 1]!.costJ = exact;
  return { slowestS, fastestS: time, points, steps, durationsS: d };
}

/**
 * Largest step ≤ `stepS` for which no path outside the cut grows longer than the critical ones: the makespan with
 * durations d + x·rate must stay at time − x. The makespan is convex and piecewise linear in x; each Newton step
 * lands where the currently longest path meets time − x.
 */
function limitByOtherPaths(
  dag: Dag,
  d: Float64Array,
  rate: Int8Array,
  time: number,
  stepS: number,
  trial: Float64Array,
  slope: Float64Array,
  finish: Float64Array,
): number {
  const n = dag.size;
  const eps = STEP_EPS * time;
  let x = stepS;
  for (let iter = 0; iter < 64; iter++) {
    let makespan = 0;
    let makespanSlope = 0;
    for (let k = 0; k < n; k++) {
      const i = dag.order[k]!;
      let start = 0;
      let startSlope = 0;
      for (let p = dag.predStart[i]!; p < dag.predStart[i + 1]!; p++) {
        const q = dag.predList[p]!;
        const f = finish[q]!;
        if (f > start + eps || (f >= start - eps && slope[q]! > startSlope)) {
          start = Math.max(start, f);
          startSlope = slope[q]!;
        }
      }
      trial[i] = d[i]! + x * rate[i]!;
      finish[i] = start + trial[i]!;
      slope[i] = startSlope + rate[i]!;
      if (finish[i]! > makespan + eps || (finish[i]! >= makespan - eps && slope[i]! > makespanSlope)) {
        makespan = Math.max(makespan, finish[i]!);
        makespanSlope = slope[i]!;
      }
    }
    if (makespan <= time - x + eps) return x;
    // The longest path: length L0 + makespanSlope·x; it meets time − x at (time − L0) / (makespanSlope + 1).
    const base = makespan - makespanSlope * x;
    const next = (time - base) / (makespanSlope + 1);
    if (!(next < x)) return x;
    x = Math.max(0, next);
  }
  return x;
}

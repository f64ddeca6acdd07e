/**
 * The iteration time–energy frontier of a computation graph: the relaxation swept from the slowest plan down to the
 * fastest one the options allow (every computation at its fastest option — faster than all-maximum clocks where a
 * computation was measured faster at a lower clock), realized as clock plans at evenly spaced iteration times and at
 * the all-maximum-clock time, with the lower bound beside every point. Iteration energy = Σ computation energy +
 * blocking power × (lanes × iteration time − Σ
 * computation time): each lane (a GPU, or a pipeline stage of a profile) draws blocking power whenever it is not
 * computing.
 */
import type { ClockOption } from './curve.js';
import type { Dag } from './dag.js';
import { Realizer } from './realize.js';
import { sweep, type SweepStep } from './solver.js';

/** Relative excess over the relaxation above which a plan is also tried with two hull clocks mixed. */
const MIX_WHEN = 0.003;
/** Mixing costs many longest-path passes: it is tried at every MIX_EVERY-th iteration time (and the fastest). */
const MIX_EVERY = 1;

export interface FrontierOptions {
  blockingPowerW: number;
  /** GPUs (or stages) that draw blocking power while they wait. */
  lanes: number;
  /** Plans between the fastest and the slowest iteration time (default 400), plus one at the all-max-clock time. */
  points?: number;
}

export interface PlanPoint {
  /** Iteration time the plan was made for, s. */
  deadlineS: number;
  /** Iteration time of the plan (≤ deadline), s. */
  timeS: number;
  /** Iteration energy, J. */
  energyJ: number;
  computeEnergyJ: number;
  blockingEnergyJ: number;
  /**
   * The relaxation's iteration energy at the deadline, J: what a plan that may split a computation between two
   * neighbouring hull clocks uses, and the lower bound of every one-clock plan that meets the deadline.
   */
  lowerBoundJ: number;
  /** Not beaten by another point on both time and energy. */
  pareto: boolean;
  choice: Int32Array;
  /** The relaxation's durations at the deadline (a two-clock plan: see splitAt), s. */
  relaxedS: Float64Array;
}

export interface BaselinePoint {
  timeS: number;
  energyJ: number;
  computeEnergyJ: number;
  blockingEnergyJ: number;
}

export interface GraphFrontier {
  baseline: BaselinePoint;
  points: PlanPoint[];
  /** Slowest useful iteration time (every computation at its lowest effective energy), s. */
  slowestS: number;
  /** Fastest iteration time the options allow (every computation at its fastest option), s. */
  fastestS: number;
  /** Solver steps (min cuts) taken. */
  solverSteps: number;
  /** Breakpoints of the relaxation: iteration time (s) and its lower bound on iteration energy (J). */
  lowerBound: { timeS: number; energyJ: number }[];
}

/** Iteration time and energy with `optionOf(i)` running op i. */
export function iterationEnergy(
  dag: Dag,
  optionOf: (i: number) => ClockOption,
  blockingPowerW: number,
  lanes: number,
): BaselinePoint {
  const d = new Float64Array(dag.size);
  let computeEnergyJ = 0;
  let busyS = 0;
  for (let i = 0; i < dag.size; i++) {
    const o = optionOf(i);
    d[i] = o.timeS;
    computeEnergyJ += o.energyJ;
    if (!dag.curveOf[i]!.lag) busyS += o.timeS;
  }
  const timeS = dag.makespan(d);
  const blockingEnergyJ = blockingPowerW * (lanes * timeS - busyS);
  return { timeS, energyJ: computeEnergyJ + blockingEnergyJ, computeEnergyJ, blockingEnergyJ };
}

/** Energy of a plan given by option indices. */
export function planEnergy(dag: Dag, choice: Int32Array, blockingPowerW: number, lanes: number): BaselinePoint {
  return iterationEnergy(dag, (i) => dag.curveOf[i]!.options[choice[i]!]!, blockingPowerW, lanes);
}

export function graphFrontier(dag: Dag, options: FrontierOptions): GraphFrontier {
  const { blockingPowerW, lanes } = options;
  const count = Math.max(2, options.points ?? 400);
  const baseline = baselineEnergy(dag, blockingPowerW, lanes);
  const realizer = new Realizer(dag);
  const collected: Omit<PlanPoint, 'lowerBoundJ' | 'pareto'>[] = [];
  let grid: number[] = [];
  let next = 0;
  const scratch = new Float64Array(dag.size);
  // The cheaper of the two realizations (rounding each computation, or mixing two hull clocks) of relaxed durations;
  // mixing (the slower one) only where rounding is more than MIX_WHEN above the relaxation.
  const best = (relaxedS: Float64Array, at: number, boundJ: number, tryMix: boolean) => {
    const rounded = realizer.realize(relaxedS, at);
    const one = { ...planEnergy(dag, rounded.choice, blockingPowerW, lanes), choice: rounded.choice };
    if (!tryMix || one.energyJ <= boundJ * (1 + MIX_WHEN)) return one;
    const mixed = realizer.mix(relaxedS, at);
    if (!mixed) return one;
    const two = { ...planEnergy(dag, mixed.choice, blockingPowerW, lanes), choice: mixed.choice };
    return two.energyJ < one.energyJ && two.timeS <= at * (1 + 1e-12) ? two : one;
  };
  const realizeAt = (step: SweepStep, at: number) => {
    const x = step.timeS - at;
    for (let i = 0; i < dag.size; i++) scratch[i] = step.durationsS[i]! + x * step.rate[i]!;
    const tryMix = (next - 1) % MIX_EVERY === 0 || next === grid.length;
    collected.push({
      deadlineS: at,
      ...best(scratch, at, step.costJ + x * step.slopeJPerS + blockingPowerW * lanes * at, tryMix),
      relaxedS: scratch.slice(),
    });
  };
  const fastestS = dag.makespan(Float64Array.from(dag.curveOf, (c) => c.timeS[0]!));
  const result = sweep(dag, {
    stopAtS: fastestS,
    onStep: (step) => {
      if (grid.length === 0) grid = withTime(evenGrid(step.timeS, fastestS, count), baseline.timeS);
      while (next < grid.length && grid[next]! >= step.timeS - step.stepS) realizeAt(step, grid[next++]!);
    },
  });
  if (grid.length === 0) grid = withTime([result.slowestS], baseline.timeS);
  // Times the sweep ended within rounding of (it stops at the fastest time): plan them with the final durations.
  for (; next < grid.length; next++) {
    const at = Math.max(grid[next]!, result.fastestS);
    const boundJ = result.points[result.points.length - 1]!.costJ + blockingPowerW * lanes * at;
    collected.push({
      deadlineS: grid[next]!,
      ...best(result.durationsS, at, boundJ, true),
      relaxedS: result.durationsS.slice(),
    });
  }
  const bound = result.points
    .map((p) => ({ timeS: p.timeS, energyJ: p.costJ + blockingPowerW * lanes * p.timeS }))
    .reverse();
  const points = markPareto(
    collected.map((p) => ({
      ...p,
      lowerBoundJ: boundAt(result.points, p.deadlineS, blockingPowerW, lanes),
      pareto: false,
    })),
  );
  return {
    baseline,
    points,
    slowestS: result.slowestS,
    fastestS: result.fastestS,
    solverSteps: result.steps,
    lowerBound: bound,
  };
}

/** Every computation at its highest clock. */
function baselineEnergy(dag: Dag, blockingPowerW: number, lanes: number): BaselinePoint {
  return iterationEnergy(dag, (i) => dag.curveOf[i]!.maxClock, blockingPowerW, lanes);
}

/** `count` iteration times from `from` down to `to`, both included. */
function evenGrid(from: number, to: number, count: number): number[] {
  if (!(from > to)) return [to];
  return Array.from({ length: count }, (_, k) => (k === count - 1 ? to : from - ((from - to) * k) / (count - 1)));
}

/** `grid` (slowest first) with `timeS` in its place, unless it is there already or beyond its ends. */
function withTime(grid: number[], timeS: number): number[] {
  if (grid.includes(timeS) || !(timeS < grid[0]!) || !(timeS > grid[grid.length - 1]!)) return grid;
  const k = grid.findIndex((t) => t < timeS);
  return [...grid.slice(0, k), timeS, ...grid.slice(k)];
}

/**
 * The least iteration energy of a two-clock plan that finishes by `timeS`: the relaxation at `timeS`, or at a faster
 * breakpoint where the relaxation is cheaper (past its lowest-energy time, waiting costs more than slowing saves). A
 * lower bound for every one-clock plan that meets `timeS`, its energy counted to its own end.
 */
function boundAt(
  points: { timeS: number; costJ: number }[],
  timeS: number,
  blockingPowerW: number,
  lanes: number,
): number {
  let least = relaxationAt(points, timeS, blockingPowerW, lanes);
  for (const p of points) if (p.timeS <= timeS) least = Math.min(least, p.costJ + blockingPowerW * lanes * p.timeS);
  return least;
}

/** The relaxation's iteration energy at `timeS` (its breakpoints are slowest first; convex, piecewise linear). */
function relaxationAt(
  points: { timeS: number; costJ: number }[],
  timeS: number,
  blockingPowerW: number,
  lanes: number,
): number {
  let cost = points[points.length - 1]!.costJ;
  if (timeS >= points[0]!.timeS) cost = points[0]!.costJ;
  else {
    for (let k = 0; k + 1 < points.length; k++) {
      const a = points[k]!;
      const b = points[k + 1]!;
      if (timeS <= a.timeS && timeS >= b.timeS) {
        cost =
          a.timeS === b.timeS
            ? Math.min(a.costJ, b.costJ)
            : a.costJ + ((b.costJ - a.costJ) * (a.timeS - timeS)) / (a.timeS - b.timeS);
        break;
      }
    }
  }
  return cost + blockingPowerW * lanes * timeS;
}

function markPareto<T extends { timeS: number; energyJ: number; pareto: boolean }>(points: T[]): T[] {
  const sorted = [...points].sort((a, b) => a.timeS - b.timeS || a.energyJ - b.energyJ);
  let best = Infinity;
  for (const p of sorted) {
    p.pareto = p.energyJ < best;
    if (p.pareto) best = p.energyJ;
  }
  return sorted;
}

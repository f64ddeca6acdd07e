/**
 * The time–energy options of one computation: measured (or modelled) time and energy at each clock, turned into what
 * the planner works with.
 *
 * Effective energy (Perseus): the energy a computation costs beyond what the GPU would draw anyway while blocked on
 * pipeline communication, e − P_blocking·t. An iteration's energy is then Σ effective energy + P_blocking × (stages ×
 * iteration time): every stage draws blocking power for the whole iteration except while it computes. Options that
 * another option beats on both time and effective energy are never worth running and are dropped (Pareto filter);
 * the solver works on the lower convex hull of the rest, the rounding step on all of them.
 */
import { InputError } from '../../errors.js';

export interface ClockOption {
  clockMHz: number;
  timeS: number;
  energyJ: number;
}

export interface Curve {
  /** What it is, e.g. "stage 3 backward" (for errors and plans). */
  label: string;
  /** Pareto options, fastest first: time strictly increasing, effective energy strictly decreasing. */
  options: ClockOption[];
  /** Every option given, by clock ascending (the EnvPipe baseline steps through them). */
  byClock: ClockOption[];
  timeS: Float64Array;
  /** Effective energy e − P_blocking·t of each option, J. */
  costJ: Float64Array;
  /** Lower convex hull of (timeS, costJ), fastest first. */
  hullTimeS: Float64Array;
  /** Index into `options` of each hull vertex. */
  hullOption: Int32Array;
  hullCostJ: Float64Array;
  /** Cost decrease per second of lengthening along hull segment k (k → k+1), J/s; non-increasing in k. */
  hullSlope: Float64Array;
  /** The option at the highest clock (the all-max-clock baseline runs this one). */
  maxClock: ClockOption;
  /** A fixed delay between computations (communication), not a computation: no energy, no busy time. */
  lag: boolean;
}

/**
 * Builds a curve from options at several clocks. Throws InputError for no options, non-finite or negative numbers.
 * `blockingPowerW` is subtracted to give effective energy.
 */
export function makeCurve(label: string, all: readonly ClockOption[], blockingPowerW: number): Curve {
  if (all.length === 0) throw new InputError(`${label}: no clock options`);
  for (const o of all) {
    if (
      !(o.timeS > 0) ||
      !Number.isFinite(o.timeS) ||
      !(o.energyJ >= 0) ||
      !Number.isFinite(o.energyJ) ||
      !Number.isFinite(o.clockMHz)
    ) {
      throw new InputError(
        `${label} at ${o.clockMHz} MHz: expected a positive time and a non-negative energy, got ${o.timeS} s ` +
          `and ${o.energyJ} J`,
      );
    }
  }
  const maxClock = all.reduce((a, b) =>
    b.clockMHz > a.clockMHz || (b.clockMHz === a.clockMHz && b.timeS < a.timeS) ? b : a,
  );
  const cost = (o: ClockOption) => o.energyJ - blockingPowerW * o.timeS;
  // Fastest first; among equal times the cheapest, then the highest clock (modelled options above a power cap tie,
  // and the highest clock is the one that really is fastest). Keep an option only if it is cheaper than every faster
  // one.
  const sorted = [...all].sort((a, b) => a.timeS - b.timeS || cost(a) - cost(b) || b.clockMHz - a.clockMHz);
  const options: ClockOption[] = [];
  let best = Infinity;
  for (const o of sorted) {
    if (cost(o) < best) {
      options.push(o);
      best = cost(o);
    }
  }
  const timeS = Float64Array.from(options, (o) => o.timeS);
  const costJ = Float64Array.from(options, cost);
  const hull: number[] = [];
  for (let i = 0; i < options.length; i++) {
    while (hull.length >= 2) {
      const a = hull[hull.length - 2]!;
      const b = hull[hull.length - 1]!;
      // b lies on or above the chord a→i: not a hull vertex.
      if ((costJ[b]! - costJ[a]!) * (timeS[i]! - timeS[a]!) >= (costJ[i]! - costJ[a]!) * (timeS[b]! - timeS[a]!))
        hull.pop();
      else break;
    }
    hull.push(i);
  }
  const hullTimeS = Float64Array.from(hull, (i) => timeS[i]!);
  const hullOption = Int32Array.from(hull);
  const hullCostJ = Float64Array.from(hull, (i) => costJ[i]!);
  const hullSlope = new Float64Array(Math.max(0, hull.length - 1));
  for (let k = 0; k + 1 < hull.length; k++)
    hullSlope[k] = (hullCostJ[k]! - hullCostJ[k + 1]!) / (hullTimeS[k + 1]! - hullTimeS[k]!);
  const byClock = [...all].sort((a, b) => a.clockMHz - b.clockMHz || a.timeS - b.timeS);
  return { label, options, byClock, timeS, costJ, hullTimeS, hullOption, hullCostJ, hullSlope, maxClock, lag: false };
}

/** A fixed delay (a message between stages): one option, no energy, not counted as busy time. */
export function lagCurve(label: string, timeS: number): Curve {
  if (!(timeS >= 0) || !Number.isFinite(timeS)) throw new InputError(`${label}: expected a delay ≥ 0 s, got ${timeS}`);
  const option = { clockMHz: 0, timeS, energyJ: 0 };
  return {
    label,
    options: [option],
    byClock: [option],
    timeS: Float64Array.of(timeS),
    costJ: Float64Array.of(0),
    hullTimeS: Float64Array.of(timeS),
    hullOption: Int32Array.of(0),
    hullCostJ: Float64Array.of(0),
    hullSlope: new Float64Array(0),
    maxClock: option,
    lag: true,
  };
}

/** Effective energy on the hull at duration `t` (clamped to the hull's span), J. */
export function hullCostAt(c: Curve, t: number): number {
  const n = c.hullTimeS.length;
  if (t <= c.hullTimeS[0]!) return c.hullCostJ[0]!;
  if (t >= c.hullTimeS[n - 1]!) return c.hullCostJ[n - 1]!;
  let k = 0;
  while (k + 1 < n && c.hullTimeS[k + 1]! <= t) k++;
  return c.hullCostJ[k]! - c.hullSlope[k]! * (t - c.hullTimeS[k]!);
}

/**
 * The relaxation's duration `t` as one or two hull vertices: a computation that runs its first `share` of work at
 * option `first` and the rest at `second` takes `t` (the hull between two vertices is their time-sharing).
 */
export function splitAt(c: Curve, t: number): { first: number; second: number; share: number } {
  const n = c.hullTimeS.length;
  if (t <= c.hullTimeS[0]! || n === 1) return { first: c.hullOption[0]!, second: c.hullOption[0]!, share: 1 };
  if (t >= c.hullTimeS[n - 1]!) return { first: c.hullOption[n - 1]!, second: c.hullOption[n - 1]!, share: 1 };
  let k = 0;
  while (k + 1 < n && c.hullTimeS[k + 1]! <= t) k++;
  if (t === c.hullTimeS[k]) return { first: c.hullOption[k]!, second: c.hullOption[k]!, share: 1 };
  // Work share at the faster vertex k: time = share·t_k + (1 − share)·t_{k+1}.
  const share = (c.hullTimeS[k + 1]! - t) / (c.hullTimeS[k + 1]! - c.hullTimeS[k]!);
  return { first: c.hullOption[k]!, second: c.hullOption[k + 1]!, share };
}

/** Index of the slowest option that takes at most `t` seconds (the fastest one when none does). */
export function slowestWithin(c: Curve, t: number): number {
  let lo = 0;
  let hi = c.timeS.length - 1;
  if (c.timeS[0]! > t) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (c.timeS[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

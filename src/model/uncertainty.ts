/**
 * How far to trust a prediction: a 10–90 % band around every predicted time, power and energy, learned from the
 * calibration's own leave-one-benchmark-out residuals (engines/calibrate/uncertainty.ts collects them).
 *
 * A residual is r = ln(predicted / measured). Its spread grows with the distance from the profiled clock(s) and
 * with the distance of the kernel from the calibration set in counter space, so for each way a kernel can be
 * predicted (the {@link BandMode}s) and each quantity the band is
 *
 *   [q10(x), q90(x)] · (1 + w·d),   one clock: q90 = −q10 = h(x) · inflation
 *
 * where x is the clock distance: |ln(f / f_ref)| from one profiled clock; from two or more, a·b with a, b the log
 * distances to the two profiled clocks that bracket f (or, outside them, the two nearest), as the error of a curve
 * drawn through two points grows (zero at either, largest between and far outside; files written before
 * `twoClockDistance` use a·b/(a+b) inside and the nearest distance outside). The table over distance bins
 * (interpolated linearly, held at the nearest bin's value below it — measurement jitter at a clock next to a
 * profiled one does not vanish — proportional beyond the last bin, never narrower farther away) holds, for one
 * profiled clock, h(x) = the 80 % quantile of |r| of left-out kernels at that distance: symmetric, because a bias
 * the calibration kernels share does not carry to the next kernel (the V100 microbenchmarks run slower than
 * predicted at low clocks, the RTX 8000 ones do not); for two clocks the 10 % and 90 % quantiles of r per side.
 * d is the mean standardised distance of the kernel's counters to its nearest calibration kernels (capped at the
 * largest distance a left-out kernel had: the widening is not extrapolated), w ≥ 0 the widening fitted on the
 * left-out kernels (least squares of |r| / mean|r| of its bin on d), and the inflation ({@link heldOutInflation})
 * how much wider than its own residuals the band must be to hold a benchmark it has not seen. Since measured =
 * predicted · e^(−r), the band of the measurement is [p50·e^(−q90), p50·e^(−q10)] with p50 the prediction itself.
 *
 * Two-clock times also carry the uncertainty of the roofline exponent p (model/multi-clock-time.ts): calibration
 * kernels differ in it (on the RTX 8000 microbenchmarks those whose error depends on p at all range from 2.25 to 8,
 * 10–90 %), the prediction uses one p for all. A kernel profiled at two or more clocks has its time band start from
 * its envelope over that range ({@link exponentEnvelope}) and widen by the quantiles of the left-out kernels'
 * residuals outside their own envelopes. A kernel whose two measurements fix it on one side of the roofline (pure
 * clock- or memory-bound) has no envelope; one in the transition has a wide one.
 *
 * Where a kernel profiled once needs more DRAM throughput than the calibration's memory ceiling at the target, the
 * band comes from the table of the left-out kernels that did ({@link UncertaintyModel.memoryCeiling}): at such a
 * clock the kernels still under the ceiling are mostly clock-bound and predicted within a few per cent, those above
 * it are off by 10–40 % (V100), so one table for both would be too wide for the first and too narrow for the
 * second. Without that table (older files, too few cases) the band reaches the clock-bound time.
 */

import { fitLine } from './line-fit.js';
import { fitMultiClock, multiClockDurationNs, type ClockTime } from './multi-clock-time.js';

export const BAND_MODES = ['one-clock-down', 'one-clock-up', 'two-clock-inside', 'two-clock-outside'] as const;
/**
 * How a kernel is predicted: from one profiled clock to a lower or higher one, or from two or more clocks, between or
 * outside them.
 */
export type BandMode = (typeof BAND_MODES)[number];

export const BAND_QUANTITIES = ['time', 'power', 'energy'] as const;
export type BandQuantity = (typeof BAND_QUANTITIES)[number];

/** Residual quantiles of one quantity against clock distance. */
export interface QuantityBand {
  /** Clock distances (ln units), ascending, starting at 0. */
  distance: number[];
  /** 10 % and 90 % quantiles of r = ln(predicted / measured) at each distance (q10 ≤ 0 ≤ q90). */
  q10: number[];
  q90: number[];
  /** w: the band is multiplied by 1 + w·(counter distance). */
  widening: number;
  /**
   * Factor the half-widths were multiplied by so that a benchmark left out of the tables lies in its band as often
   * as the tables' own residuals ({@link heldOutInflation}); absent in older files (their tables are asymmetric
   * quantiles, q10 and q90 of r, not ±h).
   */
  inflation?: number;
  /**
   * Largest clock distance among the cases: a prediction farther away is extrapolated (the band grows in proportion);
   * absent in older files.
   */
  maxDistance?: number;
  /**
   * Largest counter distance among the cases: farther kernels are widened as if at this distance (no extrapolation).
   */
  maxCounterDistance: number;
  /** Residuals the table was made from. */
  n: number;
}

export type BandTable = Record<BandQuantity, QuantityBand>;

/** The counter space of the calibration set: standardised utilizations at each kernel's highest clock. */
export interface CounterSpace {
  components: string[];
  /** Standard deviation of each component over the calibration kernels (1 where constant). */
  scale: number[];
  /** One row per calibration kernel, in units of `scale`. */
  points: number[][];
  /** Nearest neighbours averaged into the distance. */
  neighbours: number;
}

/**
 * How the clock distance x of a two-clock prediction is measured: `product` (a·b, ln² units, the two profiled
 * clocks bracketing the target or, outside them, the two nearest) or `harmonic` (a·b/(a+b) inside, the nearest
 * clock's log distance outside; files written before `twoClockDistance` existed).
 */
export type TwoClockMetric = 'product' | 'harmonic';

export interface UncertaintyModel {
  method: 'leave-one-benchmark-out';
  /** The two-clock distance the tables were made with; absent (read as `harmonic`) in older files. */
  twoClockDistance?: TwoClockMetric;
  /**
   * Two-clock times: the 10–90 % range of single calibration kernels' own roofline exponents (only kernels whose
   * error depends on the exponent). A kernel profiled at two or more clocks has its time band start from the
   * envelope of its curves over that range, and the `two-clock-*` time tables then hold the residuals outside the
   * envelope. Absent in older files (their time tables are plain residuals); null when too few kernels tell.
   */
  roofExponentRange?: ExponentRange | null;
  /** Benchmark groups (the part of a kernel's name before the first '/') and the folds they were left out in. */
  groups: number;
  folds: number;
  /** Kernels left out at least once with a residual. */
  kernels: number;
  /** Null for counter-free calibrations (every kernel is at distance 0). */
  counterSpace: CounterSpace | null;
  /**
   * 90 % of the left-out kernels were no farther than this from the kernels kept in their fold (counter space units);
   * absent in older files.
   */
  counterDistanceP90?: number;
  modes: Partial<Record<BandMode, BandTable>>;
  /**
   * One profiled clock, predicted lower, the kernel's DRAM activity above the calibration's memory ceiling at the
   * target: the residuals of the left-out calibration kernels that were (symmetric, like the one-clock tables).
   * Absent in older files, null when too few kernels crossed the ceiling: the band then reaches the clock-bound
   * time (model/predict-band.ts).
   */
  memoryCeiling?: BandTable | null;
  /**
   * The largest misfit |ln(P_measured / P_model)| of a left-out calibration kernel's power at its profiled clock
   * against the calibration fitted without it. A kernel whose profiled power is farther from the power model than
   * that is one the calibration cannot explain (a reading unlike its own sweep, or a kernel unlike any calibrated):
   * its power and energy bands reach the power model's own figure for its counters (model/predict-band.ts). Absent
   * in older files.
   */
  powerMisfitMax?: number;
}

export interface ExponentRange {
  p10: number;
  p90: number;
  /** Kernels whose exponent was identifiable (of all kernels with three or more clocks in range). */
  kernels: number;
}

/** Fewest identifiable kernels for an exponent range. */
const MIN_EXPONENT_KERNELS = 10;

/** The 10–90 % range of single kernels' exponents; null when fewer than 10 kernels tell. */
export function exponentRange(exponents: number[]): ExponentRange | null {
  if (exponents.length < MIN_EXPONENT_KERNELS) return null;
  const sorted = [...exponents].sort((a, b) => a - b);
  return { p10: quantile(sorted, 0.1), p90: quantile(sorted, 0.9), kernels: sorted.length };
}

/**
 * The time at `targetMHz` of a kernel profiled at `refs` (two or more clocks) over the exponent range, as ratios
 * to its time with the calibration's exponent: lo ≤ 1 ≤ hi.
 */
export function exponentEnvelope(
  refs: ClockTime[],
  targetMHz: number,
  exponent: number,
  range: ExponentRange,
): { lo: number; hi: number } {
  const at = (p: number) => multiClockDurationNs(fitMultiClock(refs, p), targetMHz);
  const mid = at(exponent);
  if (!(mid > 0)) return { lo: 1, hi: 1 };
  const ts = [at(range.p10), mid, at(range.p90)].map((t) => t / mid).filter((r) => Number.isFinite(r) && r > 0);
  return { lo: Math.min(...ts), hi: Math.max(...ts) };
}

/**
 * r = ln(predicted / measured) of a measurement against a band [lo, hi] of predictions: 0 inside, else to the nearest
 * edge.
 */
export function residualOutside(lo: number, hi: number, measured: number): number {
  if (measured < lo) return Math.log(lo / measured);
  if (measured > hi) return Math.log(hi / measured);
  return 0;
}

export interface Band {
  p10: number;
  p50: number;
  p90: number;
}

export interface ClockGeometry {
  mode: BandMode | 'profiled';
  /** x, ln units (0 at a profiled clock). */
  distance: number;
}

/** Where a target clock lies relative to the profiled clocks. */
export function clockGeometry(
  profiledMHz: number[],
  targetMHz: number,
  metric: TwoClockMetric = 'product',
): ClockGeometry {
  const refs = [...new Set(profiledMHz)].sort((a, b) => a - b);
  if (refs.some((r) => Math.abs(r - targetMHz) < 0.5)) return { mode: 'profiled', distance: 0 };
  const nearest = Math.min(...refs.map((r) => Math.abs(Math.log(targetMHz / r))));
  if (refs.length === 1) return { mode: targetMHz < refs[0]! ? 'one-clock-down' : 'one-clock-up', distance: nearest };
  const below = refs.filter((r) => r < targetMHz);
  const above = refs.filter((r) => r > targetMHz);
  const inside = below.length > 0 && above.length > 0;
  const mode = inside ? 'two-clock-inside' : 'two-clock-outside';
  if (metric === 'harmonic') {
    if (!inside) return { mode, distance: nearest };
    const a = Math.log(targetMHz / below[below.length - 1]!);
    const b = Math.log(above[0]! / targetMHz);
    return { mode, distance: (a * b) / (a + b) };
  }
  // The two profiled clocks that bracket the target (inside), or the two nearest to it (outside).
  const pair = inside
    ? [below[below.length - 1]!, above[0]!]
    : [...refs].sort((x, y) => Math.abs(Math.log(targetMHz / x)) - Math.abs(Math.log(targetMHz / y))).slice(0, 2);
  return { mode, distance: Math.abs(Math.log(targetMHz / pair[0]!)) * Math.abs(Math.log(targetMHz / pair[1]!)) };
}

/** The vector of a kernel's utilizations in the counter space's units. */
export function counterVector(
  space: Pick<CounterSpace, 'components' | 'scale'>,
  utilization: Record<string, number>,
): number[] {
  return space.components.map((c, i) => (utilization[c] ?? 0) / space.scale[i]!);
}

/** Mean distance to the nearest `neighbours` points of the space (0 for a counter-free space). */
export function counterDistance(space: CounterSpace | null, utilization: Record<string, number>): number {
  if (!space || space.points.length === 0 || space.components.length === 0) return 0;
  const v = counterVector(space, utilization);
  const dist = space.points.map((p) => Math.sqrt(p.reduce((s, x, i) => s + (x - v[i]!) ** 2, 0))).sort((a, b) => a - b);
  const k = Math.min(space.neighbours, dist.length);
  return dist.slice(0, k).reduce((s, x) => s + x, 0) / k;
}

/** Builds the counter space of a set of kernels (their utilizations at their highest clock). */
export function buildCounterSpace(utilizations: Record<string, number>[], neighbours = 3): CounterSpace | null {
  const components = [...new Set(utilizations.flatMap((u) => Object.keys(u)))].sort();
  if (components.length === 0 || utilizations.length === 0) return null;
  const scale = components.map((c) => {
    const xs = utilizations.map((u) => u[c] ?? 0);
    const m = xs.reduce((s, x) => s + x, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / xs.length);
    return sd > 1e-6 ? sd : 1;
  });
  // Four decimals in standard units: far below the spread that matters, and a small calibration file.
  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  const space = { components, scale: scale.map((x) => Number(x.toPrecision(6))), points: [] as number[][], neighbours };
  space.points = utilizations.map((u) => counterVector(space, u).map(round));
  return space;
}

function interpolate(xs: number[], ys: number[], x: number): number {
  const last = xs.length - 1;
  if (x >= xs[last]!) return xs[last]! > 0 ? (ys[last]! * x) / xs[last]! : ys[last]!;
  for (let i = 1; i <= last; i++) {
    if (x <= xs[i]!) {
      const width = xs[i]! - xs[i - 1]!;
      const w = width > 0 ? (x - xs[i - 1]!) / width : 1;
      return ys[i - 1]! + w * (ys[i]! - ys[i - 1]!);
    }
  }
  return ys[last]!;
}

/** The 10–90 % band of the measurement around a prediction `p50`. */
export function bandAround(table: QuantityBand, distance: number, counterDist: number, p50: number): Band {
  const k = 1 + table.widening * Math.min(counterDist, table.maxCounterDistance);
  const lo = interpolate(table.distance, table.q10, distance) * k;
  const hi = interpolate(table.distance, table.q90, distance) * k;
  return { p10: p50 * Math.exp(-hi), p50, p90: p50 * Math.exp(-lo) };
}

export interface ResidualCase {
  distance: number;
  counterDistance: number;
  /** ln(predicted / measured). */
  residual: number;
  /** The leave-one-benchmark-out fold the kernel was left out in (held-out inflation leaves each fold out again). */
  fold?: number;
}

function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const i = Math.floor(pos);
  const frac = pos - i;
  return i + 1 < sorted.length ? sorted[i]! + frac * (sorted[i + 1]! - sorted[i]!) : sorted[i]!;
}

/** Distance bins at most: one per profiled clock on a sweep of about ten clocks. */
const MAX_BINS = 12;

/** Largest widening considered: a kernel one standard unit away gets at most an 11× wider band. */
const MAX_WIDENING = 10;

/** Share of residuals a band is made to hold: the 10–90 % band. */
export const BAND_COVERAGE = 0.8;

export interface QuantityBandOptions {
  /** Fewest cases per distance bin (12). */
  minPerBin?: number;
  /** Factor on the band's half-width ({@link heldOutInflation}); 1 when not given. */
  inflation?: number;
  /** Counter-distance widening w to hold fixed instead of fitting it ({@link heldOutInflation}). */
  widening?: number;
  /** ±(80 % quantile of |r|) (the default), or the 10 % and 90 % quantiles of r on each side. */
  symmetric?: boolean;
}

/**
 * Distance bins of about equal counts, made of whole groups of equal distance (cases at one clock pair stay together).
 */
function distanceBins(cs: ResidualCase[], minPerBin: number): number[][] {
  const bins = Math.max(1, Math.min(MAX_BINS, Math.floor(cs.length / minPerBin)));
  const binOf: number[][] = [[]];
  for (let i = 0; i < cs.length; i++) {
    const current = binOf[binOf.length - 1]!;
    const newDistance = i > 0 && cs[i]!.distance !== cs[i - 1]!.distance;
    if (newDistance && current.length >= cs.length / bins) binOf.push([]);
    binOf[binOf.length - 1]!.push(i);
  }
  if (binOf.length > 1 && binOf[binOf.length - 1]!.length < minPerBin) binOf[binOf.length - 2]!.push(...binOf.pop()!);
  return binOf;
}

/**
 * Widening w: least squares of |r| / mean |r| of its bin on the counter distance d, as w = slope / intercept (0 when d
 * does not widen).
 */
function fitWidening(cs: ResidualCase[], binOf: number[][]): number {
  const ds = cs.map((c) => c.counterDistance);
  const dMax = ds.reduce((a, b) => Math.max(a, b), 0);
  const dMin = ds.reduce((a, b) => Math.min(a, b), Infinity);
  if (!(dMax - dMin > 1e-9)) return 0;
  const scaled: number[] = new Array(cs.length);
  for (const idx of binOf) {
    const m = idx.reduce((s, i) => s + Math.abs(cs[i]!.residual), 0) / idx.length;
    for (const i of idx) scaled[i] = m > 0 ? Math.abs(cs[i]!.residual) / m : 1;
  }
  const { slope, intercept } = fitLine(ds, scaled);
  return slope > 0 && intercept > 0 ? Math.min(MAX_WIDENING, slope / intercept) : 0;
}

const usableCases = (cases: ResidualCase[]) =>
  cases
    .filter((c) => Number.isFinite(c.residual) && Number.isFinite(c.distance) && c.distance > 0)
    .sort((a, b) => a.distance - b.distance);

/**
 * Fits one quantity's band from residual cases: distance bins of about equal counts (up to 12, at least
 * `minPerBin` cases each, never splitting cases at one distance), the widening w, and per bin the half-width h, the
 * 80 % quantile of |r| / (1 + w·d) times the inflation, made monotone in distance (a clock farther away is never
 * trusted more). The band is symmetric, q10 = −h and q90 = h: a bias the calibration kernels share (the V100
 * microbenchmarks run slower than predicted below 945 MHz, the RTX 8000 ones do not) is a fact of those kernels, not
 * of the next kernel, so it does not make one side narrower.
 */
export function fitQuantityBand(cases: ResidualCase[], options: QuantityBandOptions = {}): QuantityBand | null {
  const minPerBin = options.minPerBin ?? 12;
  const symmetric = options.symmetric ?? true;
  const cs = usableCases(cases);
  if (cs.length < minPerBin) return null;
  const binOf = distanceBins(cs, minPerBin);
  const widening = options.widening ?? fitWidening(cs, binOf);
  const inflation = options.inflation ?? 1;
  const dMax = cs.reduce((a, c) => Math.max(a, c.counterDistance), 0);
  const distance = [0];
  const q10 = [0];
  const q90 = [0];
  const tail = (1 - BAND_COVERAGE) / 2;
  for (const idx of binOf) {
    const z = idx.map((i) => cs[i]!.residual / (1 + widening * Math.min(cs[i]!.counterDistance, dMax)));
    const sorted = (symmetric ? z.map(Math.abs) : z).sort((a, b) => a - b);
    const lo = (symmetric ? -quantile(sorted, BAND_COVERAGE) : quantile(sorted, tail)) * inflation;
    const hi = (symmetric ? quantile(sorted, BAND_COVERAGE) : quantile(sorted, 1 - tail)) * inflation;
    const x = idx.reduce((s, i) => s + cs[i]!.distance, 0) / idx.length;
    const last = distance.length - 1;
    const l = Math.min(q10[last]!, lo);
    const h = Math.max(q90[last]!, hi);
    // Bins at one distance (many cases at the same clock pair) merge into one point.
    if (x <= distance[last]! + 1e-12 && last > 0) (q10[last] = l), (q90[last] = h);
    else distance.push(x), q10.push(l), q90.push(h);
  }
  // The floor: a clock next to a profiled one is off by at least the nearest bin's scatter (clock-to-clock jitter of
  // the measurement does not shrink with the distance), so the band is held flat from x = 0 to the first bin.
  if (distance.length > 1) (q10[0] = q10[1]!), (q90[0] = q90[1]!);
  return {
    distance,
    q10,
    q90,
    widening,
    inflation,
    maxDistance: cs[cs.length - 1]!.distance,
    maxCounterDistance: dMax,
    n: cs.length,
  };
}

/**
 * How far a residual r reaches towards its side of a band at (x, d): |r| / h on that side (h on the q90 side for r ≥
 * 0).
 */
function reachOf(table: QuantityBand, c: ResidualCase): number {
  const k = 1 + table.widening * Math.min(c.counterDistance, table.maxCounterDistance);
  const side =
    (c.residual >= 0
      ? interpolate(table.distance, table.q90, c.distance)
      : -interpolate(table.distance, table.q10, c.distance)) * k;
  return side > 0 ? Math.abs(c.residual) / side : c.residual === 0 ? 0 : Infinity;
}

/**
 * How much wider than its own residuals a band must be to hold a benchmark it has not seen: each fold is left out
 * again, the band is fitted on the other folds' residuals, and each left-out case is measured against it as the
 * ratio of its residual to the band's edge on its side. The inflation is the 80 % quantile of those ratios (the
 * smallest factor under which 80 % of the left-out cases lie in their band), never below 1; one at fewer than three
 * folds. The widening w is held at its value on all folds (a fold-by-fold w would add the noise of fitting it on
 * fewer benchmarks, which the band fitted on all of them does not have).
 */
export function heldOutInflation(
  cases: ResidualCase[],
  options: Pick<QuantityBandOptions, 'minPerBin' | 'symmetric'> = {},
): number {
  const cs = usableCases(cases);
  const folds = [...new Set(cs.map((c) => c.fold).filter((f): f is number => f !== undefined))];
  const all = fitQuantityBand(cs, options);
  if (folds.length < 3 || !all) return 1;
  const ratios: number[] = [];
  for (const fold of folds) {
    const band = fitQuantityBand(
      cs.filter((c) => c.fold !== fold),
      { ...options, widening: all.widening },
    );
    if (band) for (const c of cs) if (c.fold === fold) ratios.push(reachOf(band, c));
  }
  if (ratios.length === 0) return 1;
  return Math.max(
    1,
    quantile(
      ratios.sort((a, b) => a - b),
      BAND_COVERAGE,
    ),
  );
}

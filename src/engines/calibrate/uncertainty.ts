/**
 * The calibration's band model (model/uncertainty.ts), from leave-one-benchmark-out residuals: the kernels of one
 * benchmark (the part of a kernel's name before the first '/', e.g. `mixbench-cuda-alt`) are left out, the
 * calibration is fitted again on the others, and each left-out kernel is predicted at its other clocks the ways a
 * user predicts:
 *
 * - one-clock-down: from each of its clocks to every lower one, both at or above half its highest clock (the range
 *   the model is meant for; farther down the band is extrapolated in proportion to the distance);
 * - one-clock-up: from a clock ≥ half its highest to every higher clock;
 * - two-clock-inside / -outside: from its highest clock plus one other ≥ half of it, to every other clock.
 *
 * Two-clock time residuals are taken outside the left-out kernel's envelope over the roofline-exponent range of
 * the kernels kept in its fold (model/uncertainty.ts, `roofExponentRange`), so the tables add to the envelope.
 * One-clock-down cases whose DRAM activity is above the memory ceiling at the target make a table of their own
 * (`memoryCeiling`): whether such a kernel's time follows the memory floor or the SM clock is what the model does
 * not know, and how far off it is there is learned like every other band, from the left-out kernels that crossed
 * the ceiling at that clock distance (model/predict-band.ts).
 *
 * With more than {@link MAX_FOLDS} benchmarks they are dealt round-robin into that many folds. Each left-out
 * kernel's counter distance is measured against the kernels that remained, so a benchmark unlike the others
 * teaches how much wider the band must be far from the calibration set.
 *
 * The band model splits in two. The residual tables are the GPU's own: how far off the model is on this GPU's
 * calibration kernels at each clock distance and counter distance (the widening w). The band parameters (per mode
 * and quantity, the held-out inflation: how much wider than its own residuals a band must be to hold a benchmark
 * it has not seen) are what carries to another GPU: `accuracy --bands-from` fits them on one GPU's profiles and
 * measures the coverage on another's (engines/calibrate/accuracy-transfer.ts).
 */
import type { ClockPoint, KernelSeries } from '../../model/kernels.js';
import type { Calibration } from '../../model/calibration.js';
import { predictKernel, type KernelProfile } from '../../model/predict.js';
import { beyondMemoryCeiling, powerMisfit } from '../../model/predict-band.js';
import { kernelRoofExponents } from '../../model/multi-clock-time.js';
import {
  BAND_MODES,
  BAND_QUANTITIES,
  exponentEnvelope,
  exponentRange,
  residualOutside,
  buildCounterSpace,
  clockGeometry,
  counterDistance,
  fitQuantityBand,
  heldOutInflation,
  type BandMode,
  type BandQuantity,
  type BandTable,
  type CounterSpace,
  type ExponentRange,
  type ResidualCase,
  type UncertaintyModel,
} from '../../model/uncertainty.js';
import { calibrationSeries, fitCalibration, type CalibrateInput, type CalibrateOptions } from './calibrate.js';

export const MAX_FOLDS = 12;
/**
 * At most this many reference clocks (or second clocks) per left-out kernel: enough cases, bounded cost on long sweeps.
 */
const MAX_REFS_PER_KERNEL = 8;

/** The benchmark a kernel belongs to: its series key up to the first '/' (the whole key when it has none). */
export function benchmarkOf(key: string): string {
  const i = key.indexOf('/');
  return i < 0 ? key : key.slice(0, i);
}

/** Up to n items spread evenly over a list (all of them when it is short), first and last included. */
function evenlySpread<T>(xs: T[], n: number): T[] {
  if (xs.length <= n) return xs;
  return Array.from({ length: n }, (_, i) => xs[Math.round((i * (xs.length - 1)) / (n - 1))]!);
}

/**
 * Where a residual case goes: the table of its mode, or, for a kernel profiled once and predicted at a lower clock
 * where its DRAM activity is above the calibration's memory ceiling, the memory-ceiling table.
 */
export const MEMORY_CEILING = 'memory-ceiling';
export type ResidualTable = BandMode | typeof MEMORY_CEILING;
const RESIDUAL_TABLES: readonly ResidualTable[] = [...BAND_MODES, MEMORY_CEILING];

/**
 * Fewest folds (benchmarks) whose kernels crossed the memory ceiling for their table to replace the clock-bound
 * reach. A benchmark not seen lies inside the range of k others' with probability (k − 1)/(k + 1) when benchmarks
 * are exchangeable: at 5, two in three, and the spread within each benchmark carries an 80 % band the rest of the
 * way (the V100 microbenchmarks, six such benchmarks: 84–86 % at 705 MHz); at 3, one in two (the RTX 8000 ones,
 * four such benchmarks, three left when one is judged: 43–50 % of the judged benchmark's kernels in band).
 */
export const MIN_CEILING_FOLDS = 5;

export type Residuals = Record<ResidualTable, Record<BandQuantity, ResidualCase[]>>;

const usable = (p: ClockPoint) => p.durationNs !== null && p.durationNs > 0 && p.powerW !== null && p.powerW > 0;
const asProfile = (p: ClockPoint): KernelProfile => ({
  smClockMHz: p.smClockMHz,
  durationNs: p.durationNs!,
  powerW: p.powerW,
  utilization: p.utilization,
});

interface KernelContext {
  cal: Calibration;
  counterDist: number;
  range: ExponentRange | null;
  fold: number;
}

function addCases(out: Residuals, k: KernelContext, refs: ClockPoint[], targets: ClockPoint[]): void {
  const { cal, range } = k;
  const profiles = refs.map(asProfile);
  const refClocks = refs.map((r) => r.smClockMHz);
  const exponent = cal.time.roofExponent?.exponent ?? 1;
  for (const t of targets) {
    const geo = clockGeometry(refClocks, t.smClockMHz, 'product');
    if (geo.mode === 'profiled') continue;
    const pred = predictKernel(cal, profiles, t.smClockMHz);
    // Beyond the memory ceiling the kernel's time follows neither the SM clock nor the floor for sure: its own table.
    const ceiling =
      refs.length === 1 &&
      beyondMemoryCeiling(cal, refs[0]!.smClockMHz, refs[0]!.utilization.dram_active ?? 0, pred.effectiveClockMHz);
    const measuredEnergyJ = (t.powerW! * t.durationNs!) / 1e9;
    const add = (list: ResidualCase[], residual: number) => {
      if (Number.isFinite(residual))
        list.push({ distance: geo.distance, counterDistance: k.counterDist, residual, fold: k.fold });
    };
    const r = (predicted: number, measured: number) =>
      predicted > 0 && measured > 0 ? Math.log(predicted / measured) : NaN;
    const bucket = out[ceiling ? MEMORY_CEILING : geo.mode];
    // Two-clock times: the residual outside the kernel's envelope over the exponent range (the band starts from it).
    if (range && refs.length > 1 && pred.durationNs > 0) {
      const env = exponentEnvelope(
        profiles.map((q) => ({ smClockMHz: q.smClockMHz, durationNs: q.durationNs })),
        pred.effectiveClockMHz,
        exponent,
        range,
      );
      add(bucket.time, residualOutside(pred.durationNs * env.lo, pred.durationNs * env.hi, t.durationNs!));
    } else add(bucket.time, r(pred.durationNs, t.durationNs!));
    add(bucket.power, r(pred.powerW, t.powerW!));
    add(bucket.energy, r(pred.energyJ, measuredEnergyJ));
  }
}

/** Residual cases of one left-out kernel predicted with a calibration fitted without its benchmark. */
function kernelCases(out: Residuals, k: KernelContext, s: KernelSeries): boolean {
  const pts = s.points.filter(usable);
  if (pts.length < 2) return false;
  const top = pts[pts.length - 1]!;
  const lower = pts.slice(0, -1);
  addCases(out, k, [top], lower);
  const refs = evenlySpread(
    lower.filter((p) => p.smClockMHz >= top.smClockMHz / 2),
    MAX_REFS_PER_KERNEL,
  );
  for (const r of refs)
    addCases(
      out,
      k,
      [r],
      pts.filter((p) => p.smClockMHz > r.smClockMHz),
    );
  for (const q of refs)
    addCases(
      out,
      k,
      [top, q],
      pts.filter((p) => p !== top && p !== q),
    );
  return true;
}

/** The exponent range of a set of kernels (their usable clocks). */
function seriesExponentRange(series: KernelSeries[]): ExponentRange | null {
  const { exponents } = kernelRoofExponents(
    series.map((s) => s.points.filter(usable).map((p) => ({ smClockMHz: p.smClockMHz, durationNs: p.durationNs! }))),
  );
  return exponentRange(exponents);
}

export interface UncertaintyOptions extends Pick<CalibrateOptions, 'device'> {
  maxFolds?: number;
  /** Called before the first fold (done 0) and after each: the band model refits the calibration once per fold. */
  onFold?: (done: number, total: number) => void;
}

/** One leave-one-benchmark-out fold: the calibration fitted without its benchmarks, and the kernels it left out. */
export interface ResidualFold {
  calibration: Calibration;
  leftOut: KernelSeries[];
  /** Counter space of the kernels kept (what the left-out kernels' distances are measured against). */
  counterSpace: CounterSpace | null;
  range: ExponentRange | null;
}

/** Everything the band model is made from: the left-out kernels' residuals per mode and quantity, tagged by fold. */
export interface ResidualSet {
  groups: number;
  kernels: number;
  folds: ResidualFold[];
  roofExponentRange: ExponentRange | null;
  /** Counter space of every calibration kernel. */
  counterSpace: CounterSpace | null;
  /** 90th percentile of the left-out kernels' counter distances. */
  counterDistanceP90: number;
  /**
   * Each left-out kernel's power misfit at its highest clock against its fold's calibration (model/predict-band.ts
   * powerMisfit).
   */
  powerMisfits: { fold: number; misfit: number }[];
  residuals: Residuals;
}

const timedSeries = (inputs: CalibrateInput[]) =>
  calibrationSeries(inputs).filter((s) => s.points.filter(usable).length >= 2);

/** Benchmarks with kernels timed and powered at two or more clocks: a band model needs two (cheap, before the fits). */
export function timedBenchmarks(inputs: CalibrateInput[]): number {
  return new Set(timedSeries(inputs).map((s) => benchmarkOf(s.key))).size;
}

/**
 * Leave-one-benchmark-out residuals of a calibration's inputs. Null when fewer than two benchmarks have kernels
 * measured at two or more clocks.
 */
export function collectResiduals(inputs: CalibrateInput[], options: UncertaintyOptions = {}): ResidualSet | null {
  const series = timedSeries(inputs);
  const groups = [...new Set(series.map((s) => benchmarkOf(s.key)))].sort();
  if (groups.length < 2) return null;
  const nFolds = Math.min(options.maxFolds ?? MAX_FOLDS, groups.length);
  const foldOf = new Map(groups.map((g, i) => [g, i % nFolds]));
  const topUtilization = (s: KernelSeries) => s.points.filter(usable).at(-1)!.utilization;
  const residuals = Object.fromEntries(
    RESIDUAL_TABLES.map((m) => [m, { time: [], power: [], energy: [] }]),
  ) as unknown as Residuals;
  const allRange = seriesExponentRange(series);
  const folds: ResidualFold[] = [];
  const distances: number[] = [];
  const powerMisfits: ResidualSet['powerMisfits'] = [];
  let kernels = 0;
  options.onFold?.(0, nFolds);
  for (let fold = 0; fold < nFolds; fold++) {
    const leftOut = series.filter((s) => foldOf.get(benchmarkOf(s.key)) === fold);
    const kept = series.filter((s) => foldOf.get(benchmarkOf(s.key)) !== fold);
    const cal = fitCalibration(inputs, {
      device: options.device,
      excludeKernels: new Set(leftOut.map((s) => s.key)),
    }).calibration;
    const space = buildCounterSpace(kept.map(topUtilization));
    // The range as the kept kernels show it: the left-out benchmark does not widen its own envelope.
    const range = allRange && seriesExponentRange(kept);
    folds.push({ calibration: cal, leftOut, counterSpace: space, range });
    for (const s of leftOut) {
      const d = counterDistance(space, topUtilization(s));
      if (!kernelCases(residuals, { cal, counterDist: d, range, fold }, s)) continue;
      kernels++;
      distances.push(d);
      const top = s.points.filter(usable).at(-1)!;
      powerMisfits.push({ fold, misfit: powerMisfit(cal, top) });
    }
    options.onFold?.(fold + 1, nFolds);
  }
  const sorted = distances.sort((a, b) => a - b);
  const counterDistanceP90 = sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(0.9 * sorted.length))]! : 0;
  return {
    groups: groups.length,
    kernels,
    folds,
    roofExponentRange: allRange,
    counterSpace: buildCounterSpace(series.map(topUtilization)),
    counterDistanceP90,
    powerMisfits,
    residuals,
  };
}

/**
 * What carries from one GPU to another: per mode and quantity, the held-out inflation. The memory-ceiling table
 * takes the one-clock-down mode's: its cases come from few benchmarks (71 predictions on the RTX 8000
 * microbenchmarks), too few folds to tell an 80 % quantile of how far a left-out benchmark reaches (fitted on its
 * own it came out 1.34–1.44 on the RTX 8000 for power and energy, 1.02–1.05 on the V100), while how much wider a
 * band must be for a benchmark it has not seen is a property of benchmark-to-benchmark variation the
 * one-clock-down cases measure on every benchmark.
 */
export type BandParameters = Partial<Record<BandMode, Record<BandQuantity, { inflation: number }>>>;

/**
 * One-clock bands are symmetric (±h): the sign of the calibration kernels' shared bias does not carry to other
 * kernels (the V100 microbenchmarks run slower than predicted below 945 MHz, the RTX 8000 ones do not). Two-clock
 * bands keep a quantile per side, as before: their time residuals are taken outside each kernel's own envelope.
 */
const symmetricMode = (m: ResidualTable) => m === 'one-clock-down' || m === 'one-clock-up' || m === MEMORY_CEILING;

/**
 * The band parameters of a residual set: the inflation, by leaving each fold out again (model/uncertainty.ts
 * heldOutInflation).
 */
export function bandParameters(set: ResidualSet): BandParameters {
  const out: BandParameters = {};
  for (const m of BAND_MODES) {
    const symmetric = symmetricMode(m);
    if (BAND_QUANTITIES.some((q) => !fitQuantityBand(set.residuals[m][q], { symmetric }))) continue;
    out[m] = Object.fromEntries(
      BAND_QUANTITIES.map((q) => [q, { inflation: heldOutInflation(set.residuals[m][q], { symmetric }) }]),
    ) as Record<BandQuantity, { inflation: number }>;
  }
  return out;
}

/**
 * The band model of a residual set with band parameters (its own, or another GPU's). `excludeFold` leaves one
 * fold's residuals out of the tables (to judge that fold's kernels with a band they did not shape); its counter
 * space is then the fold's kept kernels.
 */
export function bandModel(set: ResidualSet, params: BandParameters, excludeFold?: number): UncertaintyModel | null {
  const keep = (cs: ResidualCase[]) => (excludeFold === undefined ? cs : cs.filter((c) => c.fold !== excludeFold));
  const table = (m: ResidualTable): BandTable | null => {
    const p = params[m === MEMORY_CEILING ? 'one-clock-down' : m];
    if (!p) return null;
    if (m === MEMORY_CEILING && new Set(keep(set.residuals[m].time).map((c) => c.fold)).size < MIN_CEILING_FOLDS)
      return null;
    const t = {} as BandTable;
    for (const q of BAND_QUANTITIES) {
      const band = fitQuantityBand(keep(set.residuals[m][q]), {
        inflation: p[q].inflation,
        symmetric: symmetricMode(m),
      });
      if (!band) return null;
      t[q] = band;
    }
    return t;
  };
  const modes: Partial<Record<BandMode, BandTable>> = {};
  for (const m of BAND_MODES) {
    const t = table(m);
    if (t) modes[m] = t;
  }
  if (Object.keys(modes).length === 0) return null;
  const fold = excludeFold === undefined ? null : set.folds[excludeFold]!;
  return {
    method: 'leave-one-benchmark-out',
    twoClockDistance: 'product',
    roofExponentRange: fold ? fold.range : set.roofExponentRange,
    groups: set.groups,
    folds: set.folds.length,
    kernels: set.kernels,
    counterSpace: fold ? fold.counterSpace : set.counterSpace,
    counterDistanceP90: set.counterDistanceP90,
    modes,
    memoryCeiling: table(MEMORY_CEILING),
    powerMisfitMax: set.powerMisfits.filter((m) => m.fold !== excludeFold).reduce((a, m) => Math.max(a, m.misfit), 0),
  };
}

/**
 * Fits the band model of a calibration from its inputs (leave-one-benchmark-out, the band parameters its own).
 * Null when fewer than two benchmarks have kernels measured at two or more clocks.
 */
export function fitUncertainty(inputs: CalibrateInput[], options: UncertaintyOptions = {}): UncertaintyModel | null {
  const set = collectResiduals(inputs, options);
  return set && bandModel(set, bandParameters(set));
}

/** Fits a calibration and its band model: what `tracewatt calibrate` writes. */
export function fitCalibrationWithBands(
  inputs: CalibrateInput[],
  options: CalibrateOptions & Pick<UncertaintyOptions, 'onFold'> = {},
): ReturnType<typeof fitCalibration> {
  const { onFold, ...fitOptions } = options;
  const fitted = fitCalibration(inputs, fitOptions);
  fitted.calibration.uncertainty = fitUncertainty(inputs, { device: options.device, onFold });
  return fitted;
}

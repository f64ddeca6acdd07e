/**
 * The calibration's band model (model/uncertainty.ts), from leave-one-benchmark-out residuals: the kernels of one
 * benchmark (the part of a kernel's name before the first '/', e.g. `mixbench-cuda-alt`) are left out, the
 * calibration is fitted again on the others, and each left-out kernel is predicted at its other clocks the ways a
 * user predicts:
 *
 * - one-clock-down: from its highest clock (as the time model is fitted) to every lower clock;
 * - one-clock-up: from a clock ≥ half its highest to every higher clock;
 * - two-clock-inside / -outside: from its highest clock plus one other ≥ half of it, to every other clock.
 *
 * Two-clock time residuals are taken outside the left-out kernel's envelope over the roofline-exponent range of
 * the kernels kept in its fold (model/uncertainty.ts, `roofExponentRange`), so the tables add to the envelope.
 *
 * With more than {@link MAX_FOLDS} benchmarks they are dealt round-robin into that many folds. Each left-out
 * kernel's counter distance is measured against the kernels that remained, so a benchmark unlike the others
 * teaches how much wider the band must be far from the calibration set.
 */
import type { ClockPoint, KernelSeries } from '../../model/kernels.js';
import type { Calibration } from '../../model/calibration.js';
import { predictKernel, type KernelProfile } from '../../model/predict.js';
import { kernelRoofExponents } from '../../model/multi-clock-time.js';
import {
  BAND_MODES,
  exponentEnvelope,
  exponentRange,
  residualOutside,
  buildCounterSpace,
  clockGeometry,
  counterDistance,
  fitQuantityBand,
  type BandMode,
  type BandTable,
  type ExponentRange,
  type ResidualCase,
  type UncertaintyModel,
} from '../../model/uncertainty.js';
import { calibrationSeries, fitCalibration, type CalibrateInput, type CalibrateOptions } from './calibrate.js';

export const MAX_FOLDS = 12;
/** At most this many reference clocks (or second clocks) per left-out kernel: enough cases, bounded cost on long sweeps. */
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

type Residuals = Record<BandMode, { time: ResidualCase[]; power: ResidualCase[]; energy: ResidualCase[] }>;

const usable = (p: ClockPoint) => p.durationNs !== null && p.durationNs > 0 && p.powerW !== null && p.powerW > 0;
const asProfile = (p: ClockPoint): KernelProfile => ({ smClockMHz: p.smClockMHz, durationNs: p.durationNs!, powerW: p.powerW, utilization: p.utilization });

function addCases(out: Residuals, cal: Calibration, refs: ClockPoint[], targets: ClockPoint[], counterDist: number, range: ExponentRange | null): void {
  const profiles = refs.map(asProfile);
  const refClocks = refs.map((r) => r.smClockMHz);
  const exponent = cal.time.roofExponent?.exponent ?? 1;
  for (const t of targets) {
    const geo = clockGeometry(refClocks, t.smClockMHz, 'product');
    if (geo.mode === 'profiled') continue;
    const pred = predictKernel(cal, profiles, t.smClockMHz);
    const measuredEnergyJ = (t.powerW! * t.durationNs!) / 1e9;
    const add = (list: ResidualCase[], residual: number) => {
      if (Number.isFinite(residual)) list.push({ distance: geo.distance, counterDistance: counterDist, residual });
    };
    const r = (predicted: number, measured: number) => (predicted > 0 && measured > 0 ? Math.log(predicted / measured) : NaN);
    const bucket = out[geo.mode];
    // Two-clock times: the residual outside the kernel's envelope over the exponent range (the band starts from it).
    if (range && refs.length > 1 && pred.durationNs > 0) {
      const env = exponentEnvelope(profiles.map((q) => ({ smClockMHz: q.smClockMHz, durationNs: q.durationNs })), pred.effectiveClockMHz, exponent, range);
      add(bucket.time, residualOutside(pred.durationNs * env.lo, pred.durationNs * env.hi, t.durationNs!));
    } else add(bucket.time, r(pred.durationNs, t.durationNs!));
    add(bucket.power, r(pred.powerW, t.powerW!));
    add(bucket.energy, r(pred.energyJ, measuredEnergyJ));
  }
}

/** Residual cases of one left-out kernel predicted with a calibration fitted without its benchmark. */
function kernelCases(out: Residuals, cal: Calibration, s: KernelSeries, counterDist: number, range: ExponentRange | null): boolean {
  const pts = s.points.filter(usable);
  if (pts.length < 2) return false;
  const top = pts[pts.length - 1]!;
  const lower = pts.slice(0, -1);
  addCases(out, cal, [top], lower, counterDist, range);
  const inRange = evenlySpread(lower.filter((p) => p.smClockMHz >= top.smClockMHz / 2), MAX_REFS_PER_KERNEL);
  for (const r of inRange) addCases(out, cal, [r], pts.filter((p) => p.smClockMHz > r.smClockMHz), counterDist, range);
  for (const q of inRange) addCases(out, cal, [top, q], pts.filter((p) => p !== top && p !== q), counterDist, range);
  return true;
}

/** The exponent range of a set of kernels (their usable clocks). */
function seriesExponentRange(series: KernelSeries[]): ExponentRange | null {
  const { exponents } = kernelRoofExponents(series.map((s) => s.points.filter(usable).map((p) => ({ smClockMHz: p.smClockMHz, durationNs: p.durationNs! }))));
  return exponentRange(exponents);
}

export interface UncertaintyOptions extends Pick<CalibrateOptions, 'device'> {
  maxFolds?: number;
}

/**
 * Fits the band model of a calibration from its inputs (leave-one-benchmark-out). Null when fewer than two
 * benchmarks have kernels measured at two or more clocks.
 */
export function fitUncertainty(inputs: CalibrateInput[], options: UncertaintyOptions = {}): UncertaintyModel | null {
  const series = calibrationSeries(inputs).filter((s) => s.points.filter(usable).length >= 2);
  const groups = [...new Set(series.map((s) => benchmarkOf(s.key)))].sort();
  if (groups.length < 2) return null;
  const folds = Math.min(options.maxFolds ?? MAX_FOLDS, groups.length);
  const foldOf = new Map(groups.map((g, i) => [g, i % folds]));
  const topUtilization = (s: KernelSeries) => s.points.filter(usable).at(-1)!.utilization;
  const residuals = Object.fromEntries(BAND_MODES.map((m) => [m, { time: [], power: [], energy: [] }])) as unknown as Residuals;
  const allRange = seriesExponentRange(series);
  let kernels = 0;
  for (let fold = 0; fold < folds; fold++) {
    const leftOut = series.filter((s) => foldOf.get(benchmarkOf(s.key)) === fold);
    const kept = series.filter((s) => foldOf.get(benchmarkOf(s.key)) !== fold);
    const cal = fitCalibration(inputs, { device: options.device, excludeKernels: new Set(leftOut.map((s) => s.key)) }).calibration;
    const space = buildCounterSpace(kept.map(topUtilization));
    // The range as the kept kernels show it: the left-out benchmark does not widen its own envelope.
    const range = allRange && seriesExponentRange(kept);
    for (const s of leftOut) if (kernelCases(residuals, cal, s, counterDistance(space, topUtilization(s)), range)) kernels++;
  }
  const modes: Partial<Record<BandMode, BandTable>> = {};
  for (const m of BAND_MODES) {
    const r = residuals[m];
    const time = fitQuantityBand(r.time);
    const power = fitQuantityBand(r.power);
    const energy = fitQuantityBand(r.energy);
    if (time && power && energy) modes[m] = { time, power, energy };
  }
  if (Object.keys(modes).length === 0) return null;
  return { method: 'leave-one-benchmark-out', twoClockDistance: 'product', roofExponentRange: allRange, groups: groups.length, folds, kernels, counterSpace: buildCounterSpace(series.map(topUtilization)), modes };
}

/** Fits a calibration and its band model: what `tracewatt calibrate` writes. */
export function fitCalibrationWithBands(inputs: CalibrateInput[], options: CalibrateOptions = {}): ReturnType<typeof fitCalibration> {
  const fitted = fitCalibration(inputs, options);
  fitted.calibration.uncertainty = fitUncertainty(inputs, { device: options.device });
  return fitted;
}

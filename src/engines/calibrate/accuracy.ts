/**
 * `tracewatt accuracy`: model against measurement, per SM clock.
 *
 * - reference mode: each kernel's measurements at the reference clock(s) are the only input; its measurements at
 *   every other clock are ground truth.
 * - fit mode (counter-free sweeps): per kernel/stage, t(f) and P(f) are fitted on the fit clocks and compared at all
 *   other clocks; the energy-optimal clock is compared with the measured one.
 * - calibration-only: leave-one-frequency-out (power model at a clock rebuilt from the other clocks through the V–f
 *   model) and leave-one-kernel-out (the kernel predicted from its highest clock by a calibration fitted without it).
 *
 * Errors are absolute percentage errors, averaged over kernels (MAPE); "total" errors compare the sums over kernels.
 */
import type { ProfileTable } from '../../vocab/kernel-sample.js';
import { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import type { Calibration } from '../../model/calibration.js';
import { groupKernels, type KernelSeries } from '../../model/kernels.js';
import { evaluatePower } from '../../model/power-model.js';
import type { KernelProfile, PowerScaling } from '../../model/predict.js';
import { describeRegime, predictKernelBand } from '../../model/predict-band.js';
import { capInForce } from '../../model/power-cap.js';
import { coefficientsAt } from '../../model/vf-model.js';
import { fitCalibration, type CalibrateInput } from './calibrate.js';
import {
  kernelRegimes,
  mean,
  nearClock,
  pctErr,
  regimeTable,
  tabulate,
  type AccuracyRow,
  type Comparison,
  type FitBandAccuracy,
  type KernelRegime,
  type RegimeRow,
} from './accuracy-table.js';
import { stageFitAccuracy, type EnergyOptimumSummary } from './accuracy-fit.js';
import { bandAdvice, type BandAdvice, type BandedKernel } from './advice.js';

export type { AccuracyRow, FitBandAccuracy, KernelRegime, RegimeRow } from './accuracy-table.js';
export type { EnergyOptimumSummary } from './accuracy-fit.js';

export interface AccuracyResult {
  kind: 'accuracy';
  schemaVersion: 1;
  label: string;
  mode: 'reference' | 'fit' | 'calibration-only';
  referenceClockMHz?: number;
  referenceClocksMHz?: number[];
  fitClocksMHz?: number[];
  scaling?: PowerScaling;
  frequencies: AccuracyRow[];
  /** Calibration-only mode: leave-one-frequency-out power errors. */
  leaveOneFrequencyOut?: { frequencyMHz: number; powerErrorPct: number; n: number }[];
  energyOptimal?: EnergyOptimumSummary;
  /** Fit mode: the band between the two highest fitted clocks, reported on its own. */
  upperFitBand?: FitBandAccuracy | null;
  /** What was assumed or overridden (e.g. a calibration cap set aside by a measured power above it). */
  notes: string[];
  /**
   * Reference mode, one reference clock: which kernels to profile at which second clock to narrow the total's band
   * most.
   */
  advice?: BandAdvice | null;
  /** Reference mode with a band model: coverage per band regime (model/predict-band.ts BandRegime). */
  regimes?: RegimeRow[];
  /** Reference mode with a band model: each prediction's regime and whether the measurement lay in its band. */
  kernelRegimes?: KernelRegime[];
  /** Same table with the other power scaling, for comparison (reference mode). */
  alternativeScaling?: { scaling: PowerScaling; frequencies: AccuracyRow[] };
  skipped: string[];
  estimate: true;
}

/** Each kernel's profiles at the reference clocks (kernels not measured at every one are skipped, and said so). */
function referenceProfiles(
  series: KernelSeries[],
  refs: number[],
  skipped: string[],
): { key: string; profiles: KernelProfile[]; series: KernelSeries }[] {
  const out = [];
  for (const s of series) {
    const refPts = s.points.filter((p) => nearClock(p.smClockMHz, refs) && p.durationNs !== null);
    if (refPts.length < refs.length) {
      skipped.push(`${s.key}: not measured at every reference clock`);
      continue;
    }
    out.push({
      key: s.key,
      series: s,
      profiles: refPts.map((p) => ({
        smClockMHz: p.smClockMHz,
        durationNs: p.durationNs!,
        powerW: p.powerW,
        utilization: p.utilization,
      })),
    });
  }
  return out;
}

/**
 * Each kernel predicted from its profiles at every other clock it was measured at, with its band and the band's regime.
 */
export function referenceComparisons(
  cal: Calibration,
  kernels: { key: string; profiles: KernelProfile[]; series: KernelSeries }[],
  refs: number[],
  scaling: PowerScaling,
  capW: number | null,
): Comparison[] {
  const out: Comparison[] = [];
  for (const { key, series: s, profiles } of kernels) {
    for (const p of s.points) {
      if (nearClock(p.smClockMHz, refs) || p.durationNs === null) continue;
      const pred = predictKernelBand(cal, profiles, p.smClockMHz, { scaling, capW });
      const b = pred.band;
      out.push({
        f: p.smClockMHz,
        tPred: pred.durationNs,
        tMeas: p.durationNs,
        pPred: pred.powerW,
        pMeas: p.powerW,
        tBand: b?.durationNs,
        eBand: b?.energyJ,
        kernel: key,
        ...(b ? { regime: describeRegime(b) } : {}),
      });
    }
  }
  return out;
}

export interface AccuracyOptions {
  referenceClocksMHz?: number[];
  fitClocksMHz?: number[];
  scaling?: PowerScaling;
  label?: string;
}

export function accuracy(cal: Calibration, table: ProfileTable, options: AccuracyOptions): AccuracyResult {
  const diagnostics = new Diagnostics();
  const series = groupKernels(table.samples, diagnostics);
  const skipped: string[] = [];
  const label = options.label ?? `${cal.device.name}: ${table.samples[0]?.source.file ?? 'profile'}`;
  if (options.fitClocksMHz?.length) {
    const r = stageFitAccuracy(cal, series, options.fitClocksMHz);
    return {
      kind: 'accuracy',
      schemaVersion: 1,
      label,
      mode: 'fit',
      fitClocksMHz: options.fitClocksMHz,
      ...r,
      estimate: true,
    };
  }
  const refs = options.referenceClocksMHz;
  if (!refs?.length)
    throw new InputError('accuracy needs --reference-frequency or --fit-frequencies (or --calibration-only)');
  const scaling = options.scaling ?? 'ratio';
  const other: PowerScaling = scaling === 'ratio' ? 'offset' : 'ratio';
  const refInputs = series.flatMap((s) =>
    s.points
      .filter((p) => nearClock(p.smClockMHz, refs) && p.powerW !== null)
      .map((p) => ({ powerW: p.powerW!, where: `${s.key} at ${p.smClockMHz} MHz` })),
  );
  const cap = capInForce(cal.powerCap, refInputs);
  const notes = cap.note ? [cap.note] : [];
  if (!cal.uncertainty)
    notes.push(
      `${cal.device.name}: the calibration has no band model (datasheet defaults, or written before bands ` +
        `existed: re-run tracewatt calibrate), so no coverage`,
    );
  const kernels = referenceProfiles(series, refs, skipped);
  const cmp = referenceComparisons(cal, kernels, refs, scaling, cap.powerW);
  if (cmp.length === 0)
    throw new InputError(
      `no kernel in the profile was measured at the reference clock(s) ${refs.join(', ')} MHz and at another clock`,
    );
  // Advice is about the predictions alone: every kernel at every clock measured for any of them.
  const clocks = [...new Set(cmp.map((c) => c.f))].sort((a, b) => a - b);
  const banded: BandedKernel[] = kernels.map((k) => ({
    kernel: k.key,
    profiledMHz: k.profiles.map((p) => p.smClockMHz),
    utilization: k.profiles.reduce((a, b) => (b.smClockMHz > a.smClockMHz ? b : a)).utilization,
    at: clocks.map((f) => {
      const prediction = predictKernelBand(cal, k.profiles, f, { scaling, capW: cap.powerW });
      return { prediction, energyJ: prediction.band?.energyJ ?? null };
    }),
  }));
  return {
    kind: 'accuracy',
    schemaVersion: 1,
    label,
    mode: 'reference',
    ...(refs.length === 1 ? { referenceClockMHz: refs[0] } : {}),
    referenceClocksMHz: refs,
    scaling,
    frequencies: tabulate(cmp),
    ...(cal.uncertainty ? { regimes: regimeTable(cmp), kernelRegimes: kernelRegimes(cmp) } : {}),
    advice: bandAdvice(cal, banded, clocks),
    alternativeScaling: {
      scaling: other,
      frequencies: tabulate(referenceComparisons(cal, kernels, refs, other, cap.powerW)),
    },
    notes,
    skipped,
    estimate: true,
  };
}

/** Leave-one-frequency-out and leave-one-kernel-out errors of a calibration, from its input profiles. */
export function calibrationOnlyAccuracy(
  inputs: CalibrateInput[],
  options: { maxKernels?: number; label?: string } = {},
): AccuracyResult {
  const full = fitCalibration(inputs).calibration;
  const series = groupKernels(inputs.flatMap((i) => i.table.samples));
  const lofo: { frequencyMHz: number; powerErrorPct: number; n: number }[] = [];
  for (const f of full.clocks.smClocksMHz) {
    const perClock = full.power.perClock.filter((m) => Math.abs(m.smClockMHz - f) >= 0.5);
    if (perClock.length === 0) continue;
    const errs: number[] = [];
    for (const s of series)
      for (const p of s.points)
        if (Math.abs(p.smClockMHz - f) < 0.5 && p.powerW !== null)
          errs.push(pctErr(evaluatePower(coefficientsAt(perClock, full.vf, f), p.utilization), p.powerW));
    lofo.push({ frequencyMHz: f, powerErrorPct: mean(errs), n: errs.length });
  }
  const cmp: Comparison[] = [];
  const candidates = series.filter((s) => s.points.filter((p) => p.durationNs !== null).length >= 2);
  const step = Math.max(1, Math.ceil(candidates.length / (options.maxKernels ?? candidates.length)));
  for (let i = 0; i < candidates.length; i += step) {
    const s = candidates[i]!;
    const cal = fitCalibration(inputs, { excludeKernels: new Set([s.key]) }).calibration;
    const pts = s.points.filter((p) => p.durationNs !== null);
    const top = pts[pts.length - 1]!;
    for (const p of pts.slice(0, -1)) {
      const pred = predictKernelBand(
        cal,
        { smClockMHz: top.smClockMHz, durationNs: top.durationNs!, powerW: top.powerW, utilization: top.utilization },
        p.smClockMHz,
      );
      cmp.push({ f: p.smClockMHz, tPred: pred.durationNs, tMeas: p.durationNs!, pPred: pred.powerW, pMeas: p.powerW });
    }
  }
  return {
    kind: 'accuracy',
    schemaVersion: 1,
    label: options.label ?? `${full.device.name}: calibration-only (leave-one-kernel-out from the highest clock)`,
    mode: 'calibration-only',
    frequencies: tabulate(cmp),
    leaveOneFrequencyOut: lofo,
    notes: [],
    skipped: [],
    estimate: true,
  };
}

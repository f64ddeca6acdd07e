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
import type { ProfileTable } from '../../formats/profiles/kernel-sample.js';
import { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import type { Calibration } from '../../model/calibration.js';
import { groupKernels, type KernelSeries } from '../../model/kernels.js';
import { evaluatePower } from '../../model/power-model.js';
import { predictKernel, type PowerScaling } from '../../model/predict.js';
import { energyOptimalClock, fitStage, predictStage } from '../../model/stage-fit.js';
import { coefficientsAt } from '../../model/vf-model.js';
import { fitCalibration, type CalibrateInput } from './calibrate.js';

export interface AccuracyRow {
  frequencyMHz: number;
  timeErrorPct: number;
  powerErrorPct: number | null;
  energyErrorPct: number;
  totalTimeErrorPct: number;
  totalEnergyErrorPct: number;
  n: number;
}

export interface EnergyOptimum {
  kernel: string;
  measuredClockMHz: number;
  predictedClockMHz: number;
  deviationMHz: number;
  /** Measured energy at the predicted optimum above the measured minimum, %: what choosing the predicted clock costs. */
  excessEnergyPct: number;
}

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
  energyOptimal?: { kernels: EnergyOptimum[]; meanDeviationMHz: number; maxDeviationMHz: number; meanExcessEnergyPct: number; maxExcessEnergyPct: number };
  /** Same table with the other power scaling, for comparison (reference mode). */
  alternativeScaling?: { scaling: PowerScaling; frequencies: AccuracyRow[] };
  skipped: string[];
  estimate: true;
}

interface Comparison {
  f: number;
  tPred: number;
  tMeas: number;
  pPred: number;
  pMeas: number | null;
}

const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / Math.max(1, xs.length);
const pctErr = (pred: number, meas: number) => 100 * Math.abs(pred / meas - 1);

function tabulate(cmp: Comparison[]): AccuracyRow[] {
  const byF = new Map<number, Comparison[]>();
  for (const c of cmp) byF.set(c.f, [...(byF.get(c.f) ?? []), c]);
  return [...byF.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([f, cs]) => {
      const withP = cs.filter((c) => c.pMeas !== null);
      const eMeas = withP.map((c) => c.pMeas! * c.tMeas);
      const ePred = withP.map((c) => c.pPred * c.tPred);
      return {
        frequencyMHz: f,
        timeErrorPct: mean(cs.map((c) => pctErr(c.tPred, c.tMeas))),
        powerErrorPct: withP.length ? mean(withP.map((c) => pctErr(c.pPred, c.pMeas!))) : null,
        energyErrorPct: mean(withP.map((_, i) => pctErr(ePred[i]!, eMeas[i]!))),
        totalTimeErrorPct: pctErr(cs.reduce((s, c) => s + c.tPred, 0), cs.reduce((s, c) => s + c.tMeas, 0)),
        totalEnergyErrorPct: withP.length ? pctErr(ePred.reduce((s, v) => s + v, 0), eMeas.reduce((s, v) => s + v, 0)) : 0,
        n: cs.length,
      };
    });
}

function nearClock(f: number, list: number[]): boolean {
  return list.some((g) => Math.abs(g - f) < 0.5);
}

function referenceComparisons(cal: Calibration, series: KernelSeries[], refs: number[], scaling: PowerScaling, skipped: string[]): Comparison[] {
  const out: Comparison[] = [];
  for (const s of series) {
    const refPts = s.points.filter((p) => nearClock(p.smClockMHz, refs) && p.durationNs !== null);
    if (refPts.length < refs.length) {
      skipped.push(`${s.key}: not measured at every reference clock`);
      continue;
    }
    const profiles = refPts.map((p) => ({ smClockMHz: p.smClockMHz, durationNs: p.durationNs!, powerW: p.powerW, utilization: p.utilization }));
    for (const p of s.points) {
      if (nearClock(p.smClockMHz, refs) || p.durationNs === null) continue;
      const pred = predictKernel(cal, profiles, p.smClockMHz, { scaling });
      out.push({ f: p.smClockMHz, tPred: pred.durationNs, tMeas: p.durationNs, pPred: pred.powerW, pMeas: p.powerW });
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
    const fit = options.fitClocksMHz;
    const cmp: Comparison[] = [];
    const optima: EnergyOptimum[] = [];
    for (const s of series) {
      const pts = s.points.filter((p) => p.durationNs !== null && p.powerW !== null);
      const fitPts = pts.filter((p) => nearClock(p.smClockMHz, fit));
      if (fitPts.length < Math.min(2, fit.length)) {
        skipped.push(`${s.key}: measured at ${fitPts.length} of the fit clocks`);
        continue;
      }
      // Additive time form (exponent 1): the calibration's roofline exponent made the stage energy worse (README).
      const sf = fitStage(fitPts.map((p) => ({ smClockMHz: p.smClockMHz, durationNs: p.durationNs!, powerW: p.powerW! })), cal.powerCap.powerW);
      for (const p of pts) {
        if (nearClock(p.smClockMHz, fit)) continue;
        const pr = predictStage(sf, p.smClockMHz);
        cmp.push({ f: p.smClockMHz, tPred: pr.durationNs, tMeas: p.durationNs!, pPred: pr.powerW, pMeas: p.powerW });
      }
      const clocks = pts.map((p) => p.smClockMHz);
      const measuredEnergy = (f: number) => {
        const q = pts.find((p) => p.smClockMHz === f)!;
        return q.powerW! * q.durationNs!;
      };
      const measured = energyOptimalClock(measuredEnergy, clocks);
      const predicted = energyOptimalClock((f) => predictStage(sf, f).energyJ, clocks);
      optima.push({
        kernel: s.key,
        measuredClockMHz: measured.smClockMHz,
        predictedClockMHz: predicted.smClockMHz,
        deviationMHz: Math.abs(measured.smClockMHz - predicted.smClockMHz),
        excessEnergyPct: pctErr(measuredEnergy(predicted.smClockMHz), measured.energyJ),
      });
    }
    if (cmp.length === 0) throw new InputError(`no kernel in the profile was measured at the fit clocks ${fit.join(', ')} MHz`);
    return {
      kind: 'accuracy',
      schemaVersion: 1,
      label,
      mode: 'fit',
      fitClocksMHz: fit,
      frequencies: tabulate(cmp),
      energyOptimal: {
        kernels: optima,
        meanDeviationMHz: mean(optima.map((o) => o.deviationMHz)),
        maxDeviationMHz: Math.max(0, ...optima.map((o) => o.deviationMHz)),
        meanExcessEnergyPct: mean(optima.map((o) => o.excessEnergyPct)),
        maxExcessEnergyPct: Math.max(0, ...optima.map((o) => o.excessEnergyPct)),
      },
      skipped,
      estimate: true,
    };
  }
  const refs = options.referenceClocksMHz;
  if (!refs?.length) throw new InputError('accuracy needs --reference-frequency or --fit-frequencies (or --calibration-only)');
  const scaling = options.scaling ?? 'ratio';
  const other: PowerScaling = scaling === 'ratio' ? 'offset' : 'ratio';
  const cmp = referenceComparisons(cal, series, refs, scaling, skipped);
  if (cmp.length === 0) throw new InputError(`no kernel in the profile was measured at the reference clock(s) ${refs.join(', ')} MHz and at another clock`);
  return {
    kind: 'accuracy',
    schemaVersion: 1,
    label,
    mode: 'reference',
    ...(refs.length === 1 ? { referenceClockMHz: refs[0] } : {}),
    referenceClocksMHz: refs,
    scaling,
    frequencies: tabulate(cmp),
    alternativeScaling: { scaling: other, frequencies: tabulate(referenceComparisons(cal, series, refs, other, [])) },
    skipped,
    estimate: true,
  };
}

/** Leave-one-frequency-out and leave-one-kernel-out errors of a calibration, from its input profiles. */
export function calibrationOnlyAccuracy(inputs: CalibrateInput[], options: { maxKernels?: number; label?: string } = {}): AccuracyResult {
  const full = fitCalibration(inputs).calibration;
  const series = groupKernels(inputs.flatMap((i) => i.table.samples));
  const lofo: { frequencyMHz: number; powerErrorPct: number; n: number }[] = [];
  for (const f of full.clocks.smClocksMHz) {
    const perClock = full.power.perClock.filter((m) => Math.abs(m.smClockMHz - f) >= 0.5);
    if (perClock.length === 0) continue;
    const errs: number[] = [];
    for (const s of series)
      for (const p of s.points)
        if (Math.abs(p.smClockMHz - f) < 0.5 && p.powerW !== null) errs.push(pctErr(evaluatePower(coefficientsAt(perClock, full.vf, f), p.utilization), p.powerW));
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
      const pred = predictKernel(cal, { smClockMHz: top.smClockMHz, durationNs: top.durationNs!, powerW: top.powerW, utilization: top.utilization }, p.smClockMHz);
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
    skipped: [],
    estimate: true,
  };
}

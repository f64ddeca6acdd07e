/**
 * `tracewatt accuracy --fit-frequencies`: counter-free sweeps (Perseus-style stages). Per stage, t(f) and P(f) are
 * fitted on the fit clocks only (model/stage-fit.ts) and compared at every other clock; the energy-optimal clock
 * is compared with the measured one. The only calibration fact used is its power cap, and only while no
 * measurement at a fit clock refutes it (model/power-cap.ts capInForce).
 */
import { InputError } from '../../errors.js';
import type { Calibration } from '../../model/calibration.js';
import type { KernelSeries } from '../../model/kernels.js';
import { capInForce } from '../../model/power-cap.js';
import { energyOptimalClock, fitStage, predictStage } from '../../model/stage-fit.js';
import {
  mean,
  nearClock,
  pctErr,
  tabulate,
  type AccuracyRow,
  type Comparison,
  type FitBandAccuracy,
} from './accuracy-table.js';

export interface EnergyOptimum {
  kernel: string;
  measuredClockMHz: number;
  predictedClockMHz: number;
  deviationMHz: number;
  /**
   * Measured energy at the predicted optimum above the measured minimum, %: what choosing the predicted clock costs.
   */
  excessEnergyPct: number;
}

export interface EnergyOptimumSummary {
  kernels: EnergyOptimum[];
  meanDeviationMHz: number;
  maxDeviationMHz: number;
  meanExcessEnergyPct: number;
  maxExcessEnergyPct: number;
}

export interface StageFitAccuracy {
  frequencies: AccuracyRow[];
  upperFitBand: FitBandAccuracy | null;
  energyOptimal: EnergyOptimumSummary;
  notes: string[];
  skipped: string[];
}

/** Kernel-weighted errors over the clocks strictly between the two highest fit clocks; null when none lies there. */
export function upperFitBand(rows: AccuracyRow[], fitClocksMHz: number[]): FitBandAccuracy | null {
  const sorted = [...fitClocksMHz].sort((a, b) => a - b);
  if (sorted.length < 2) return null;
  const [fromMHz, toMHz] = sorted.slice(-2) as [number, number];
  const band = rows.filter((r) => r.frequencyMHz > fromMHz + 0.5 && r.frequencyMHz < toMHz - 0.5);
  if (band.length === 0) return null;
  const n = band.reduce((s, r) => s + r.n, 0);
  const weighted = (k: 'timeErrorPct' | 'energyErrorPct') => band.reduce((s, r) => s + r[k] * r.n, 0) / n;
  return {
    fromMHz,
    toMHz,
    timeErrorPct: weighted('timeErrorPct'),
    energyErrorPct: weighted('energyErrorPct'),
    maxEnergyErrorPct: Math.max(...band.map((r) => r.energyErrorPct)),
    clocks: band.length,
  };
}

export function stageFitAccuracy(cal: Calibration, series: KernelSeries[], fit: number[]): StageFitAccuracy {
  const skipped: string[] = [];
  const notes: string[] = [];
  const measuredAt = (s: KernelSeries) => s.points.filter((p) => p.durationNs !== null && p.powerW !== null);
  const fitInputs = series.flatMap((s) =>
    measuredAt(s)
      .filter((p) => nearClock(p.smClockMHz, fit))
      .map((p) => ({ powerW: p.powerW!, where: `${s.key} at ${p.smClockMHz} MHz` })),
  );
  const cap = capInForce(cal.powerCap, fitInputs);
  if (cap.note) notes.push(cap.note);
  const cmp: Comparison[] = [];
  const optima: EnergyOptimum[] = [];
  for (const s of series) {
    const pts = measuredAt(s);
    const fitPts = pts.filter((p) => nearClock(p.smClockMHz, fit));
    if (fitPts.length < Math.min(2, fit.length)) {
      skipped.push(`${s.key}: measured at ${fitPts.length} of the fit clocks`);
      continue;
    }
    // Additive time form (exponent 1): the calibration's roofline exponent made the stage energy worse (README).
    const sf = fitStage(
      fitPts.map((p) => ({ smClockMHz: p.smClockMHz, durationNs: p.durationNs!, powerW: p.powerW! })),
      cap.powerW,
    );
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
  if (cmp.length === 0)
    throw new InputError(`no kernel in the profile was measured at the fit clocks ${fit.join(', ')} MHz`);
  const frequencies = tabulate(cmp);
  return {
    frequencies,
    upperFitBand: upperFitBand(frequencies, fit),
    energyOptimal: {
      kernels: optima,
      meanDeviationMHz: mean(optima.map((o) => o.deviationMHz)),
      maxDeviationMHz: Math.max(0, ...optima.map((o) => o.deviationMHz)),
      meanExcessEnergyPct: mean(optima.map((o) => o.excessEnergyPct)),
      maxExcessEnergyPct: Math.max(0, ...optima.map((o) => o.excessEnergyPct)),
    },
    notes,
    skipped,
  };
}

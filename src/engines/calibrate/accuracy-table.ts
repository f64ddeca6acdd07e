/**
 * The accuracy table shared by every mode of `tracewatt accuracy`: model against measurement per SM clock (MAPE over
 * kernels, errors of the totals, and the coverage of the 10–90 % bands).
 */
import type { Band } from '../../model/uncertainty.js';

export interface AccuracyRow {
  frequencyMHz: number;
  timeErrorPct: number;
  powerErrorPct: number | null;
  energyErrorPct: number;
  totalTimeErrorPct: number;
  totalEnergyErrorPct: number;
  n: number;
  /** Share of kernels whose measured time (energy) lies in the predicted 10–90 % band; null when no prediction had a band. */
  timeCoveragePct: number | null;
  energyCoveragePct: number | null;
}

/** Errors over the clocks strictly between the two highest fitted clocks (fit mode), where a voltage knee bends power. */
export interface FitBandAccuracy {
  fromMHz: number;
  toMHz: number;
  timeErrorPct: number;
  energyErrorPct: number;
  /** Worst per-clock energy MAPE in the band. */
  maxEnergyErrorPct: number;
  /** Clocks in the band. */
  clocks: number;
}

export interface Comparison {
  f: number;
  tPred: number;
  tMeas: number;
  pPred: number;
  pMeas: number | null;
  /** 10–90 % bands of the prediction, when the calibration has a band model. */
  tBand?: Band | null;
  eBand?: Band | null;
}

const inBand = (b: Band, v: number) => v >= b.p10 && v <= b.p90;

function coverage(cs: Comparison[], band: (c: Comparison) => Band | null | undefined, measured: (c: Comparison) => number | null): number | null {
  const judged = cs.filter((c) => band(c) && measured(c) !== null);
  return judged.length ? (100 * judged.filter((c) => inBand(band(c)!, measured(c)!)).length) / judged.length : null;
}

export const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / Math.max(1, xs.length);
export const pctErr = (pred: number, meas: number) => 100 * Math.abs(pred / meas - 1);

export function tabulate(cmp: Comparison[]): AccuracyRow[] {
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
        timeCoveragePct: coverage(cs, (c) => c.tBand, (c) => c.tMeas),
        energyCoveragePct: coverage(cs, (c) => c.eBand, (c) => (c.pMeas === null ? null : (c.pMeas * c.tMeas) / 1e9)),
      };
    });
}

export function nearClock(f: number, list: number[]): boolean {
  return list.some((g) => Math.abs(g - f) < 0.5);
}


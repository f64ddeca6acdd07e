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
  /**
   * Share of kernels whose measured time (energy) lies in the predicted 10–90 % band; null when no prediction had a
   * band.
   */
  timeCoveragePct: number | null;
  energyCoveragePct: number | null;
}

/**
 * Errors over the clocks strictly between the two highest fitted clocks (fit mode), where a voltage knee bends power.
 */
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
  /** The kernel and the regime its band fell in (model/predict-band.ts describeRegime), when it had a band. */
  kernel?: string;
  regime?: string;
}

/** Coverage of the bands per regime: where a band is too narrow or too wide, and for how many predictions. */
export interface RegimeRow {
  regime: string;
  /** Predictions (kernel × clock) in this regime. */
  n: number;
  timeCoveragePct: number | null;
  energyCoveragePct: number | null;
}

/** Each banded prediction: its kernel, clock, regime and whether the measurement lay in its band. */
export interface KernelRegime {
  kernel: string;
  frequencyMHz: number;
  regime: string;
  timeInBand: boolean;
  energyInBand: boolean | null;
}

const inBand = (b: Band, v: number) => v >= b.p10 && v <= b.p90;

const measuredEnergyJ = (c: Comparison) => (c.pMeas === null ? null : (c.pMeas * c.tMeas) / 1e9);

function coverage(
  cs: Comparison[],
  band: (c: Comparison) => Band | null | undefined,
  measured: (c: Comparison) => number | null,
): number | null {
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
        totalTimeErrorPct: pctErr(
          cs.reduce((s, c) => s + c.tPred, 0),
          cs.reduce((s, c) => s + c.tMeas, 0),
        ),
        totalEnergyErrorPct: withP.length
          ? pctErr(
              ePred.reduce((s, v) => s + v, 0),
              eMeas.reduce((s, v) => s + v, 0),
            )
          : 0,
        n: cs.length,
        ...bandCoverage(cs),
      };
    });
}

/** How often the measured time and energy fall inside their bands (%). */
function bandCoverage(cs: Comparison[]): { timeCoveragePct: number | null; energyCoveragePct: number | null } {
  return {
    timeCoveragePct: coverage(
      cs,
      (c) => c.tBand,
      (c) => c.tMeas,
    ),
    energyCoveragePct: coverage(cs, (c) => c.eBand, measuredEnergyJ),
  };
}

/** Coverage per band regime, most populated first. */
export function regimeTable(cmp: Comparison[]): RegimeRow[] {
  const by = new Map<string, Comparison[]>();
  for (const c of cmp) if (c.regime && c.tBand) by.set(c.regime, [...(by.get(c.regime) ?? []), c]);
  return [...by.entries()]
    .map(([regime, cs]) => ({
      regime,
      n: cs.length,
      ...bandCoverage(cs),
    }))
    .sort((a, b) => b.n - a.n || a.regime.localeCompare(b.regime));
}

/** Each banded prediction's regime and whether its measurement lay in the band. */
export function kernelRegimes(cmp: Comparison[]): KernelRegime[] {
  return cmp
    .filter((c) => c.regime && c.tBand && c.kernel)
    .map((c) => {
      const e = measuredEnergyJ(c);
      return {
        kernel: c.kernel!,
        frequencyMHz: c.f,
        regime: c.regime!,
        timeInBand: inBand(c.tBand!, c.tMeas),
        energyInBand: c.eBand && e !== null ? inBand(c.eBand, e) : null,
      };
    });
}

export function nearClock(f: number, list: number[]): boolean {
  return list.some((g) => Math.abs(g - f) < 0.5);
}

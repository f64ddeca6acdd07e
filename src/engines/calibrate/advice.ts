/**
 * What to measure next. The band of a total (energy summed over kernels) combines the kernels' bands as
 * independent errors: p50 is the sum of the predictions, and each side of the band the root of the summed squares of
 * the kernels' distances from their p50 on that side. (Summing the bounds instead claims that every kernel errs
 * the same way at once: on the 20 real RTX 8000 kernels from 1710 MHz that gave ±2.4–22.8 % against measured total
 * errors of 0.1–3.7 %; the independent band, ±0.9–8.3 %, still held every one.) A kernel's weight in the total's
 * band is its own width in joules (weight × width), so the kernels with the widest bands are the ones worth
 * profiling at a second clock: the advice names them and the second clock that narrows the total's widest band most.
 */
import type { Calibration } from '../../model/calibration.js';
import { bandFor } from '../../model/predict-band.js';
import type { KernelPrediction } from '../../model/predict.js';
import type { Band } from '../../model/uncertainty.js';

export interface BandedKernel {
  kernel: string;
  /** Clocks the kernel was profiled at. */
  profiledMHz: number[];
  /** Utilizations at its highest profiled clock. */
  utilization: Record<string, number>;
  /** Prediction and energy band per target clock; null where the calibration gives the prediction no band. */
  at: { prediction: KernelPrediction; energyJ: Band | null }[];
}

export interface TotalBand {
  frequencyMHz: number;
  energyJ: Band;
  /** Half the band's width relative to p50, %: the "±" of the total. */
  halfWidthPct: number;
  /** Kernels whose prediction has no band at this clock: counted in p50, not in the band (so it is too narrow). */
  kernelsWithoutBand: number;
}

export interface BandAdvice {
  /** The target clock whose total energy band is widest (relative). */
  worstClockMHz: number;
  halfWidthPct: number;
  /** Kernels with the widest energy bands in joules (weight × width) at that clock, widest first. */
  kernels: { kernel: string; widthJ: number; halfWidthPct: number }[];
  /** Second clock to profile them at, and the widest total band (over the target clocks) after doing so. */
  secondClockMHz: number;
  halfWidthAfterPct: number;
  estimate: true;
}

const halfWidth = (b: Band) => (b.p50 > 0 ? (50 * (b.p90 - b.p10)) / b.p50 : 0);

/** Per target clock: the kernels' energies and their bands combined as independent errors. */
export function totalEnergyBands(kernels: BandedKernel[], clocksMHz: number[]): TotalBand[] {
  return clocksMHz.map((f, i) => {
    let p50 = 0;
    let below = 0;
    let above = 0;
    let kernelsWithoutBand = 0;
    for (const k of kernels) {
      const a = k.at[i]!;
      const b = a.energyJ;
      if (!b) {
        p50 += a.prediction.energyJ;
        kernelsWithoutBand++;
        continue;
      }
      p50 += b.p50;
      below += (b.p50 - b.p10) ** 2;
      above += (b.p90 - b.p50) ** 2;
    }
    const band = { p10: p50 - Math.sqrt(below), p50, p90: p50 + Math.sqrt(above) };
    return { frequencyMHz: f, energyJ: band, halfWidthPct: halfWidth(band), kernelsWithoutBand };
  });
}

/**
 * Advice for kernels profiled at one clock: the `count` kernels with the widest energy bands at the clock where
 * the total's band is widest, and the calibrated clock that, profiled for them too, makes the widest total band
 * over all target clocks narrowest. Null when there is nothing to narrow (no bands, or kernels already profiled at
 * two or more clocks).
 */
export function bandAdvice(
  cal: Calibration,
  kernels: BandedKernel[],
  clocksMHz: number[],
  count = 5,
): BandAdvice | null {
  if (
    !cal.uncertainty ||
    kernels.length === 0 ||
    kernels.some((k) => k.profiledMHz.length !== 1 || k.at.some((a) => !a.energyJ))
  )
    return null;
  const totals = totalEnergyBands(kernels, clocksMHz);
  const worst = totals.reduce((a, b) => (b.halfWidthPct > a.halfWidthPct ? b : a));
  if (!(worst.halfWidthPct > 0)) return null;
  const w = totals.indexOf(worst);
  const bandAt = (k: BandedKernel) => k.at[w]!.energyJ!;
  const widthAt = (k: BandedKernel) => bandAt(k).p90 - bandAt(k).p10;
  const chosen = [...kernels].sort((a, b) => widthAt(b) - widthAt(a)).slice(0, count);
  const ref = chosen[0]!.profiledMHz[0]!;
  const candidates = cal.clocks.smClocksMHz.filter(
    (c) => c >= Math.max(...clocksMHz, ref) / 2 && Math.abs(c - ref) >= 0.5,
  );
  let best: { clock: number; half: number } | null = null;
  for (const c of candidates) {
    const after = kernels.map((k) =>
      chosen.includes(k)
        ? {
            ...k,
            at: k.at.map((a) => ({
              ...a,
              energyJ: bandFor(cal, a.prediction, [...k.profiledMHz, c], k.utilization)?.energyJ ?? a.energyJ,
            })),
          }
        : k,
    );
    const half = Math.max(...totalEnergyBands(after, clocksMHz).map((t) => t.halfWidthPct));
    if (!best || half < best.half) best = { clock: c, half };
  }
  if (!best) return null;
  return {
    worstClockMHz: worst.frequencyMHz,
    halfWidthPct: Math.max(...totals.map((t) => t.halfWidthPct)),
    kernels: chosen.map((k) => ({ kernel: k.kernel, widthJ: widthAt(k), halfWidthPct: halfWidth(bandAt(k)) })),
    secondClockMHz: best.clock,
    halfWidthAfterPct: best.half,
    estimate: true,
  };
}

/**
 * "profile these 5 kernels at 870 MHz too to cut the total's widest energy band (10–90 %) from ±7.1% (at 705 MHz) to
 * ±2.0%: …"
 */
export function describeAdvice(a: BandAdvice): string {
  return (
    `profile these ${a.kernels.length} kernel${a.kernels.length === 1 ? '' : 's'} at ${a.secondClockMHz} MHz too ` +
    `to cut the total's widest energy band (10–90 %) from ±${a.halfWidthPct.toFixed(1)}% (at ${a.worstClockMHz} ` +
    `MHz) to ±${a.halfWidthAfterPct.toFixed(1)}%: ` +
    a.kernels
      .map((k) => `${k.kernel} (±${k.halfWidthPct.toFixed(0)}%, ${Number(k.widthJ.toPrecision(3))} J wide)`)
      .join(', ')
  );
}

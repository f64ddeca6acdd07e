/**
 * Kernel time from two or more profiled clocks: a smooth roofline fitted per kernel,
 *
 *   t(f) = (M^p + (C/f)^p)^(1/p)
 *
 * M is the clock-independent time (memory- or latency-bound), C/f the clock-bound time, and p the sharpness of the
 * transition between them: p = 1 is the additive form t = M + C/f, a large p approaches the roofline max(M, C/f),
 * where a memory-bound kernel keeps its time until the clock-bound part catches up. In (t^p, f^−p) the model is a
 * straight line, so M^p and C^p are a least-squares line fit (exact through two clocks), both kept ≥ 0.
 *
 * p is a device constant learned at calibration ({@link fitRoofExponent}): each calibration kernel is fitted on its
 * highest clock and one other, and the p that best predicts its remaining clocks is kept.
 */

import { fitLine } from './line-fit.js';

export interface MultiClockFit {
  /** M^p, ns^p. */
  memTermNsP: number;
  /** C^p, (ns·MHz)^p. */
  clockTermNsMHzP: number;
  exponent: number;
}

export interface ClockTime {
  smClockMHz: number;
  durationNs: number;
}

/** Least squares of t^p on f^−p with both terms ≥ 0 (a kernel faster at a lower clock keeps a constant time). */
export function fitMultiClock(points: ClockTime[], exponent = 1): MultiClockFit {
  const p = exponent;
  const xs = points.map((q) => q.smClockMHz ** -p);
  const ys = points.map((q) => q.durationNs ** p);
  const n = points.length;
  if (n === 1) return { memTermNsP: 0, clockTermNsMHzP: ys[0]! / xs[0]!, exponent: p };
  const line = fitLine(xs, ys);
  let b = line.slope;
  let a = line.intercept;
  if (b < 0) (b = 0), (a = ys.reduce((s, v) => s + v, 0) / n);
  if (a < 0) (a = 0), (b = ys.reduce((s, y, i) => s + y * xs[i]!, 0) / xs.reduce((s, x) => s + x * x, 0));
  return { memTermNsP: a, clockTermNsMHzP: b, exponent: p };
}

export function multiClockDurationNs(fit: MultiClockFit, smClockMHz: number): number {
  return (fit.memTermNsP + fit.clockTermNsMHzP * smClockMHz ** -fit.exponent) ** (1 / fit.exponent);
}

/** Candidate exponents: 1 (additive) to 8 (close to a hard roofline; t^p stays finite for any kernel time in ns). */
const EXPONENTS = Array.from({ length: 29 }, (_, i) => 1 + i * 0.25);

export interface RoofExponentFit {
  exponent: number;
  /** Time MAPE on the calibration set with this exponent and with p = 1 (each kernel from two of its clocks). */
  mapePct: number;
  additiveMapePct: number;
  n: number;
}

/**
 * The exponent that best predicts calibration kernels from two clocks: for each kernel, its highest clock f_hi
 * with each other clock ≥ f_hi/2 as the pair, predicting every remaining clock ≥ f_hi/2 (the range where DVFS is
 * used). Returns null when no kernel has three such clocks.
 */
export function fitRoofExponent(kernels: ClockTime[][]): RoofExponentFit | null {
  const cases: { pair: [ClockTime, ClockTime]; target: ClockTime }[] = [];
  for (const k of kernels) {
    const pts = [...k].sort((a, b) => a.smClockMHz - b.smClockMHz);
    const hi = pts[pts.length - 1];
    if (!hi) continue;
    const inRange = pts.filter((q) => q !== hi && q.smClockMHz >= hi.smClockMHz / 2 && q.durationNs > 0);
    for (const lo of inRange) for (const t of inRange) if (t !== lo) cases.push({ pair: [hi, lo], target: t });
  }
  if (cases.length === 0) return null;
  const errors = (p: number) =>
    cases.map((c) =>
      Math.abs(multiClockDurationNs(fitMultiClock(c.pair, p), c.target.smClockMHz) / c.target.durationNs - 1),
    );
  const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
  // Robust loss (as fitTimeShare): errors beyond 15% count a tenth, so a few erratic kernels do not pick p.
  const robust = (xs: number[]) => mean(xs.map((e) => (e < 0.15 ? e : 0.15 + 0.1 * (e - 0.15))));
  let best = { exponent: 1, loss: robust(errors(1)) };
  for (const p of EXPONENTS.slice(1)) {
    const l = robust(errors(p));
    if (l < best.loss) best = { exponent: p, loss: l };
  }
  return {
    exponent: best.exponent,
    mapePct: 100 * mean(errors(best.exponent)),
    additiveMapePct: 100 * mean(errors(1)),
    n: cases.length,
  };
}

/** Exponents of single kernels, and how many kernels they came from. */
export interface KernelExponents {
  exponents: number[];
  /** Kernels with three or more clocks in range, identifiable or not. */
  kernels: number;
}

/**
 * Each kernel's own best exponent, by the cases of {@link fitRoofExponent} restricted to that kernel, for the
 * kernels whose prediction error depends on p at all: those whose mean error over the candidate exponents varies
 * by more than `minSpreadPct` percentage points. A purely clock-bound or purely memory-bound kernel fits any p and
 * says nothing about it.
 */
export function kernelRoofExponents(kernels: ClockTime[][], minSpreadPct = 0.5): KernelExponents {
  const exponents: number[] = [];
  let counted = 0;
  for (const k of kernels) {
    const pts = [...k].filter((q) => q.durationNs > 0).sort((a, b) => a.smClockMHz - b.smClockMHz);
    const hi = pts[pts.length - 1];
    if (!hi) continue;
    const inRange = pts.filter((q) => q !== hi && q.smClockMHz >= hi.smClockMHz / 2);
    if (inRange.length < 2) continue;
    counted++;
    const err = (p: number) => {
      let s = 0;
      let n = 0;
      for (const lo of inRange)
        for (const t of inRange)
          if (t !== lo)
            (s += Math.abs(multiClockDurationNs(fitMultiClock([hi, lo], p), t.smClockMHz) / t.durationNs - 1)), n++;
      return (100 * s) / n;
    };
    const errs = EXPONENTS.map(err);
    const min = Math.min(...errs);
    if (Math.max(...errs) - min > minSpreadPct) exponents.push(EXPONENTS[errs.indexOf(min)]!);
  }
  return { exponents: exponents.sort((a, b) => a - b), kernels: counted };
}

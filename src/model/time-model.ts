/**
 * Kernel time across SM clocks from one profile: a roofline-like blend.
 *
 *   t(f) = L + (t_r − L)·(a + (1 − a)·f_r/f),   floored at the memory roofline  t_mem(f) = D / c(f)
 *
 * L is the launch overhead (a hardware-independent constant per kernel), f_r the reference clock, a the share of
 * the kernel's time that does not scale with the SM clock (memory- or latency-bound), D = u_dram(f_r)·(t_r − L)
 * the time DRAM is busy (constant: the bytes do not change with the SM clock), and c(f) the largest DRAM-active
 * ratio the device reaches at clock f (its memory ceiling, learned from the calibration set). The share a is a
 * logistic function of how close the kernel's DRAM activity is to the ceiling, a = σ(w0 + w1·u_dram/c(f_r)),
 * fitted on the calibration kernels (each predicted from its highest clock to all others).
 *
 * Utilizations at another clock follow from conservation of work: DRAM bytes and pipe operations per kernel are
 * constant, so u_dram·t is constant, pipe utilizations (cycles busy / cycles elapsed) keep u·t·f constant, and
 * SM activity/occupancy (fractions of time) are carried over unchanged.
 */
import type { RoofExponentFit } from './multi-clock-time.js';

export interface MemoryCeilingPoint {
  smClockMHz: number;
  memClockMHz: number | null;
  /** Largest DRAM-active ratio reached at this clock (98th percentile of the calibration set). */
  dramActiveMax: number;
}

export interface TimeModel {
  memoryCeiling: MemoryCeilingPoint[];
  share: { w0: number; w1: number; feature: 'dram_active/ceiling' };
  launchOverheadNs: number;
  /** Fit quality on the calibration set: time MAPE per target clock, predicted from each kernel's highest clock. */
  fit: { smClockMHz: number; timeMapePct: number; n: number }[];
  /**
   * Exponent p of the per-kernel smooth roofline used when a kernel is profiled at two or more clocks (see
   * multi-clock-time.ts). Absent in files written before it existed: p = 1, the additive form t = A + B/f.
   */
  roofExponent?: RoofExponentFit;
}

/** Components whose activity is a fraction of time and does not change with the clock. */
export const TIME_FRACTION_COMPONENTS = new Set(['sm_active', 'sm_occupancy', 'gr_engine_active']);
/** Components tied to the memory/IO clock domains: busy time is conserved. */
export const MEMORY_DOMAIN_COMPONENTS = new Set(['dram_active', 'pcie_active', 'nvlink_active', 'pcie_tx', 'pcie_rx']);

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** Memory ceiling at any clock: linear interpolation between calibrated clocks, clamped at the ends. */
export function memoryCeilingAt(model: TimeModel, smClockMHz: number): number {
  // Calibrations store the ceiling ascending; sort a copy only when one does not (this runs inside fit loops).
  let pts = model.memoryCeiling;
  for (let i = 1; i < pts.length; i++)
    if (pts[i]!.smClockMHz < pts[i - 1]!.smClockMHz) {
      pts = [...pts].sort((a, b) => a.smClockMHz - b.smClockMHz);
      break;
    }
  if (pts.length === 0) return 1;
  if (smClockMHz <= pts[0]!.smClockMHz) return pts[0]!.dramActiveMax;
  if (smClockMHz >= pts[pts.length - 1]!.smClockMHz) return pts[pts.length - 1]!.dramActiveMax;
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1]!;
    const b = pts[i]!;
    if (smClockMHz <= b.smClockMHz) {
      const w = (smClockMHz - a.smClockMHz) / (b.smClockMHz - a.smClockMHz);
      return a.dramActiveMax + w * (b.dramActiveMax - a.dramActiveMax);
    }
  }
  return pts[pts.length - 1]!.dramActiveMax;
}

export function clockIndependentShare(model: TimeModel, dramActive: number, refClockMHz: number): number {
  const ceiling = memoryCeilingAt(model, refClockMHz);
  const x = ceiling > 0 ? Math.min(1.2, dramActive / ceiling) : 0;
  return sigmoid(model.share.w0 + model.share.w1 * x);
}

/** Predicted duration at `targetMHz` of a kernel that took `refNs` at `refMHz` with DRAM activity `dramActive`. */
export function predictDurationFromOne(
  model: TimeModel,
  ref: { durationNs: number; smClockMHz: number; dramActive: number },
  targetMHz: number,
): number {
  const L = Math.min(model.launchOverheadNs, 0.5 * ref.durationNs);
  const body = ref.durationNs - L;
  const a = clockIndependentShare(model, ref.dramActive, ref.smClockMHz);
  const scaled = body * (a + (1 - a) * (ref.smClockMHz / targetMHz));
  const cRef = memoryCeilingAt(model, ref.smClockMHz);
  // A kernel above the calibrated ceiling sets its own ceiling; the clock dependence keeps the learned shape.
  const stretch = Math.max(1, cRef > 0 ? ref.dramActive / cRef : 1);
  const cTarget = memoryCeilingAt(model, targetMHz) * stretch;
  const memoryFloor = cTarget > 0 ? (ref.dramActive * body) / cTarget : 0;
  return L + Math.max(scaled, memoryFloor);
}

/** Utilizations at another clock by conservation of work. */
export function scaleUtilization(
  u: Record<string, number>,
  ref: { durationNs: number; smClockMHz: number },
  target: { durationNs: number; smClockMHz: number },
): Record<string, number> {
  const out: Record<string, number> = {};
  const tRatio = ref.durationNs / target.durationNs;
  const fRatio = ref.smClockMHz / target.smClockMHz;
  for (const [c, v] of Object.entries(u)) {
    let scaled: number;
    if (TIME_FRACTION_COMPONENTS.has(c)) scaled = v;
    else if (MEMORY_DOMAIN_COMPONENTS.has(c)) scaled = v * tRatio;
    else scaled = v * tRatio * fRatio;
    out[c] = Math.min(1, Math.max(0, scaled));
  }
  return out;
}

export interface TimeFitKernel {
  /** Per clock: duration and DRAM activity. */
  byClock: Map<number, { durationNs: number; dramActive: number }>;
}

/** 98th percentile of DRAM activity per clock. */
export function fitMemoryCeiling(
  samples: { smClockMHz: number; memClockMHz: number | null; dramActive: number }[],
): MemoryCeilingPoint[] {
  const by = new Map<number, { mem: number | null; v: number[] }>();
  for (const s of samples) {
    const e = by.get(s.smClockMHz) ?? { mem: s.memClockMHz, v: [] };
    e.v.push(s.dramActive);
    by.set(s.smClockMHz, e);
  }
  return [...by.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([f, e]) => {
      const v = e.v.sort((a, b) => a - b);
      const q = v[Math.min(v.length - 1, Math.floor(0.98 * (v.length - 1) + 0.5))]!;
      return { smClockMHz: f, memClockMHz: e.mem, dramActiveMax: q };
    });
}

/**
 * Fits (w0, w1) of the share by a coarse-to-fine grid search minimising a robust (Huber-like) mean relative
 * time error over all calibration kernels, each predicted from its highest clock.
 */
export function fitTimeShare(
  kernels: TimeFitKernel[],
  ceiling: MemoryCeilingPoint[],
  launchOverheadNs: number,
): TimeModel {
  const base: TimeModel = {
    memoryCeiling: ceiling,
    share: { w0: -4, w1: 6, feature: 'dram_active/ceiling' },
    launchOverheadNs,
    fit: [],
  };
  const cases: { ref: { durationNs: number; smClockMHz: number; dramActive: number }; f: number; t: number }[] = [];
  for (const k of kernels) {
    const clocks = [...k.byClock.keys()].sort((a, b) => a - b);
    if (clocks.length < 2) continue;
    const fr = clocks[clocks.length - 1]!;
    const r = k.byClock.get(fr)!;
    for (const f of clocks.slice(0, -1))
      cases.push({ ref: { ...r, smClockMHz: fr }, f, t: k.byClock.get(f)!.durationNs });
  }
  if (cases.length === 0) return base;
  const loss = (w0: number, w1: number) => {
    const m = { ...base, share: { ...base.share, w0, w1 } };
    let s = 0;
    for (const c of cases) {
      const e = Math.abs(predictDurationFromOne(m, c.ref, c.f) / c.t - 1);
      s += e < 0.15 ? e : 0.15 + 0.1 * (e - 0.15);
    }
    return s / cases.length;
  };
  let best = { w0: base.share.w0, w1: base.share.w1, l: loss(base.share.w0, base.share.w1) };
  let step0 = 1;
  let step1 = 1;
  let c0 = 0;
  let c1 = 0;
  for (let w0 = -12; w0 <= 4; w0 += step0)
    for (let w1 = 0; w1 <= 16; w1 += step1) {
      const l = loss(w0, w1);
      if (l < best.l) best = { w0, w1, l };
    }
  for (let round = 0; round < 4; round++) {
    step0 /= 4;
    step1 /= 4;
    c0 = best.w0;
    c1 = best.w1;
    for (let i = -4; i <= 4; i++)
      for (let j = -4; j <= 4; j++) {
        const w0 = c0 + i * step0;
        const w1 = Math.max(0, c1 + j * step1);
        const l = loss(w0, w1);
        if (l < best.l) best = { w0, w1, l };
      }
  }
  const model: TimeModel = { ...base, share: { w0: best.w0, w1: best.w1, feature: 'dram_active/ceiling' } };
  const byF = new Map<number, number[]>();
  for (const c of cases) {
    const arr = byF.get(c.f) ?? [];
    arr.push(Math.abs(predictDurationFromOne(model, c.ref, c.f) / c.t - 1));
    byF.set(c.f, arr);
  }
  model.fit = [...byF.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([f, e]) => ({ smClockMHz: f, timeMapePct: (100 * e.reduce((s, v) => s + v, 0)) / e.length, n: e.length }));
  return model;
}

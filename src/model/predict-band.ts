/**
 * A kernel's predicted time, power and energy at a clock with their 10–90 % bands (p10, p50, p90), from the
 * calibration's band model (model/uncertainty.ts). p50 is the point prediction of {@link predictKernel}.
 */
import type { KernelSample } from '../formats/profiles/kernel-sample.js';
import type { Calibration } from './calibration.js';
import { predictKernel, toProfile, type KernelPrediction, type KernelProfile, type PredictOptions } from './predict.js';
import type { ClockTime } from './multi-clock-time.js';
import { bandAround, clockGeometry, counterDistance, exponentEnvelope, type Band, type BandMode, type BandTable, type UncertaintyModel } from './uncertainty.js';

export interface PredictionBand {
  mode: BandMode | 'profiled';
  /** Which band table served it (another mode's when the calibration has none for `mode`). */
  table: BandMode | null;
  /** Distance to the profiled clock(s), ln units. */
  clockDistance: number;
  /** Distance to the calibration set in counter space (standardised units; 0 without counters). */
  counterDistance: number;
  durationNs: Band;
  powerW: Band;
  energyJ: Band;
}

export interface BandedPrediction extends KernelPrediction {
  /**
   * Null when the calibration has no band model (a datasheet file, or one written before bands existed), or when
   * the prediction stood on a duration alone (its power is assumed, not measured: no band can be known).
   */
  band: PredictionBand | null;
}

/** Tables to fall back on, in order, when a calibration has none for a mode (small calibration sets). */
const FALLBACK: Record<BandMode, BandMode[]> = {
  'one-clock-down': ['one-clock-down', 'one-clock-up'],
  'one-clock-up': ['one-clock-up', 'one-clock-down'],
  'two-clock-inside': ['two-clock-inside', 'two-clock-outside', 'one-clock-down'],
  'two-clock-outside': ['two-clock-outside', 'one-clock-down', 'one-clock-up'],
};

function tableFor(model: UncertaintyModel, mode: BandMode): { mode: BandMode; table: BandTable } | null {
  for (const m of FALLBACK[mode]) {
    const t = model.modes[m];
    if (t) return { mode: m, table: t };
  }
  return null;
}

const exact = (v: number): Band => ({ p10: v, p50: v, p90: v });

function timeBand(cal: Calibration, t: BandTable, distance: number, counterDist: number, pred: KernelPrediction, refs: ClockTime[] | undefined): Band {
  const range = cal.uncertainty?.roofExponentRange;
  const distinct = refs ? new Set(refs.map((r) => r.smClockMHz)).size : 0;
  if (!range || !refs || distinct < 2) return bandAround(t.time, distance, counterDist, pred.durationNs);
  const env = exponentEnvelope(refs, pred.effectiveClockMHz, cal.time.roofExponent?.exponent ?? 1, range);
  const p50 = pred.durationNs;
  return { p10: bandAround(t.time, distance, counterDist, p50 * env.lo).p10, p50, p90: bandAround(t.time, distance, counterDist, p50 * env.hi).p90 };
}

/**
 * The band of one prediction, given the clocks the kernel was profiled at and its utilizations there. With the
 * profiled times (`refs`, two or more clocks) and a calibration that has an exponent range, the time band starts
 * from the kernel's envelope over that range (see {@link UncertaintyModel.roofExponentRange}).
 */
export function bandFor(cal: Calibration, pred: KernelPrediction, profiledMHz: number[], utilization: Record<string, number>, refs?: ClockTime[]): PredictionBand | null {
  const model = cal.uncertainty;
  if (!model) return null;
  const geo = clockGeometry(profiledMHz, pred.smClockMHz, model.twoClockDistance ?? 'harmonic');
  const dist = counterDistance(model.counterSpace, utilization);
  if (geo.mode === 'profiled')
    return { mode: 'profiled', table: null, clockDistance: 0, counterDistance: dist, durationNs: exact(pred.durationNs), powerW: exact(pred.powerW), energyJ: exact(pred.energyJ) };
  const found = tableFor(model, geo.mode);
  if (!found) return null;
  const t = found.table;
  return {
    mode: geo.mode,
    table: found.mode,
    clockDistance: geo.distance,
    counterDistance: dist,
    durationNs: timeBand(cal, t, geo.distance, dist, pred, refs),
    powerW: bandAround(t.power, geo.distance, dist, pred.powerW),
    energyJ: bandAround(t.energy, geo.distance, dist, pred.energyJ),
  };
}

/**
 * {@link predictKernel} with the 10–90 % band of each predicted quantity: (p10, p50, p90) of time, power and
 * energy for a kernel at a clock.
 */
export function predictKernelBand(
  cal: Calibration,
  profile: KernelSample | KernelProfile | (KernelSample | KernelProfile)[],
  targetClockMHz: number,
  options: PredictOptions = {},
): BandedPrediction {
  const refs = (Array.isArray(profile) ? profile : [profile]).map(toProfile);
  const pred = predictKernel(cal, refs, targetClockMHz, options);
  // A kernel known by its duration alone has an assumed power: the band model (learned on measured kernels) says
  // nothing about it, not even at its profiled clock.
  if (pred.basis !== 'profile') return { ...pred, band: null };
  // The counter space holds each calibration kernel at its highest clock: compare at the highest profiled clock.
  const top = refs.reduce((a, b) => (b.smClockMHz > a.smClockMHz ? b : a));
  return { ...pred, band: bandFor(cal, pred, refs.map((r) => r.smClockMHz), top.utilization, refs) };
}

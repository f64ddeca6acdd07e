/**
 * A kernel's predicted time, power and energy at a clock with their 10–90 % bands (p10, p50, p90), from the
 * calibration's band model (model/uncertainty.ts), and the regime the band fell in. p50 is the point prediction of
 * {@link predictKernel}.
 */
import type { Calibration } from './calibration.js';
import {
  modelPower,
  predictKernel,
  toProfiles,
  type KernelPrediction,
  type KernelProfile,
  type KernelProfiles,
  type PredictOptions,
} from './predict.js';
import type { ClockTime } from './multi-clock-time.js';
import { memoryCeilingAt, scaleUtilization } from './time-model.js';
import {
  bandAround,
  clockGeometry,
  counterDistance,
  exponentEnvelope,
  type Band,
  type BandMode,
  type BandTable,
  type UncertaintyModel,
} from './uncertainty.js';

/** Where a prediction's band comes from: how far it reaches beyond what the calibration's residuals covered. */
export interface BandRegime {
  /**
   * Distance of the target clock from the nearest profiled clock: `near` (within 10 %), `mid` (10–40 %), `far`
   * (more than 40 %), or `profiled` (at a profiled clock: no band).
   */
  clock: 'profiled' | 'near' | 'mid' | 'far';
  /**
   * Farther from the profiled clock(s) than any left-out calibration case: the band grows in proportion to the
   * distance.
   */
  extrapolated: boolean;
  /**
   * The kernel's distance from the calibration kernels in counter space: `near` (no farther than 90 % of the left-out
   * kernels were), `far` (beyond that), `beyond` (farther than any: the widening is held at the farthest one's).
   */
  counter: 'near' | 'far' | 'beyond';
  /**
   * One profiled clock, predicted lower, and the kernel's DRAM activity there is above the calibration's memory
   * ceiling at the target clock: the model puts its time on the memory floor, but whether its memory traffic slows
   * with the ceiling or with the SM clock is not known. The band is that of the calibration kernels which crossed
   * the ceiling (model/uncertainty.ts memoryCeiling), or, without such a table, reaches the clock-bound time t·f_ref/f.
   */
  memoryCeiling: boolean;
  /**
   * The kernel's profiled power is farther from the calibration's power model than any left-out calibration
   * kernel's was ({@link UncertaintyModel.powerMisfitMax}): scaling that reading is not to be trusted, so the power
   * and energy bands reach the power model's own figure for the kernel's counters at the target.
   */
  powerUnexplained: boolean;
}

export interface PredictionBand {
  mode: BandMode | 'profiled';
  /** Which band table served it (another mode's when the calibration has none for `mode`). */
  table: BandMode | null;
  /** Distance to the profiled clock(s), ln units. */
  clockDistance: number;
  /** Distance to the calibration set in counter space (standardised units; 0 without counters). */
  counterDistance: number;
  regime: BandRegime;
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

function timeBand(
  cal: Calibration,
  t: BandTable,
  distance: number,
  counterDist: number,
  pred: KernelPrediction,
  refs: ClockTime[] | undefined,
): Band {
  const range = cal.uncertainty?.roofExponentRange;
  const distinct = refs ? new Set(refs.map((r) => r.smClockMHz)).size : 0;
  if (!range || !refs || distinct < 2) return bandAround(t.time, distance, counterDist, pred.durationNs);
  const env = exponentEnvelope(refs, pred.effectiveClockMHz, cal.time.roofExponent?.exponent ?? 1, range);
  const p50 = pred.durationNs;
  return {
    p10: bandAround(t.time, distance, counterDist, p50 * env.lo).p10,
    p50,
    p90: bandAround(t.time, distance, counterDist, p50 * env.hi).p90,
  };
}

/**
 * The kernel (profiled once, at `refMHz` with DRAM activity `dramActive`) needs more memory throughput than the
 * calibration reaches at `targetMHz`, a lower clock.
 */
export function beyondMemoryCeiling(cal: Calibration, refMHz: number, dramActive: number, targetMHz: number): boolean {
  return targetMHz < refMHz && dramActive > memoryCeilingAt(cal.time, targetMHz);
}

/**
 * |ln(P_measured / P_model)| of a profiled kernel at its clock: how far its power reading is from the calibration's
 * power model (0 without a reading).
 */
export function powerMisfit(cal: Calibration, p: Pick<KernelProfile, 'smClockMHz' | 'powerW' | 'utilization'>): number {
  if (p.powerW === null || p.powerW === undefined || !(p.powerW > 0)) return 0;
  const m = modelPower(cal, p.smClockMHz, p.utilization);
  return m > 0 ? Math.abs(Math.log(p.powerW / m)) : 0;
}

/** The narrowest band around one p50 that holds both. */
const union = (a: Band, b: Band): Band => ({ p10: Math.min(a.p10, b.p10), p50: a.p50, p90: Math.max(a.p90, b.p90) });

/** Stretches a band so that it also holds v with the same relative margins (p10/p50 and p90/p50). */
function reach(b: Band, v: number): Band {
  if (!(v > 0) || !(b.p50 > 0)) return b;
  return { p10: Math.min(b.p10, (v * b.p10) / b.p50), p50: b.p50, p90: Math.max(b.p90, (v * b.p90) / b.p50) };
}

/**
 * The prediction's time, power and energy if the kernel were clock-bound at the target (time t_r·f_r/f, utilizations by
 * conservation of work).
 */
function clockBound(cal: Calibration, pred: KernelPrediction, ref: ClockTime, utilization: Record<string, number>) {
  const f = pred.effectiveClockMHz;
  const durationNs = (ref.durationNs * ref.smClockMHz) / f;
  const modelled = modelPower(cal, f, pred.utilization);
  const ratio = modelled > 0 ? pred.powerW / modelled : 1;
  const powerW = modelPower(cal, f, scaleUtilization(utilization, ref, { durationNs, smClockMHz: f })) * ratio;
  return { durationNs, powerW, energyJ: (powerW * durationNs) / 1e9 };
}

/** The farthest clock distance a table's cases reached. */
const maxDistance = (t: BandTable) => t.time.maxDistance ?? t.time.distance[t.time.distance.length - 1]!;

const NEAR_CLOCK = Math.log(1.1);
const MID_CLOCK = Math.log(1.4);

function clockClass(profiledMHz: number[], targetMHz: number): BandRegime['clock'] {
  const x = Math.min(...profiledMHz.map((r) => Math.abs(Math.log(targetMHz / r))));
  return x < NEAR_CLOCK ? 'near' : x < MID_CLOCK ? 'mid' : 'far';
}

function counterClass(model: UncertaintyModel, t: BandTable, d: number): BandRegime['counter'] {
  if (d > t.time.maxCounterDistance) return 'beyond';
  return model.counterDistanceP90 !== undefined && d > model.counterDistanceP90 ? 'far' : 'near';
}

/**
 * The band of one prediction, given the clocks the kernel was profiled at and its utilizations there. With the
 * profiled times (`refs`, two or more clocks) and a calibration that has an exponent range, the time band starts
 * from the kernel's envelope over that range (see {@link UncertaintyModel.roofExponentRange}); with one profiled
 * time, a kernel beyond the memory ceiling at the target has the band of the calibration's memory-ceiling table
 * (or, without one, a band that reaches the clock-bound time). With the highest profiled measurement (`top`), a
 * kernel whose profiled power the power model cannot explain has its power and energy bands reach the model's figure.
 */
export function bandFor(
  cal: Calibration,
  pred: KernelPrediction,
  profiledMHz: number[],
  utilization: Record<string, number>,
  refs?: ClockTime[],
  top?: KernelProfile,
): PredictionBand | null {
  const model = cal.uncertainty;
  if (!model) return null;
  const geo = clockGeometry(profiledMHz, pred.smClockMHz, model.twoClockDistance ?? 'harmonic');
  const dist = counterDistance(model.counterSpace, utilization);
  if (geo.mode === 'profiled') {
    const regime: BandRegime = {
      clock: 'profiled',
      extrapolated: false,
      counter: 'near',
      memoryCeiling: false,
      powerUnexplained: false,
    };
    return {
      mode: 'profiled',
      table: null,
      clockDistance: 0,
      counterDistance: dist,
      regime,
      durationNs: exact(pred.durationNs),
      powerW: exact(pred.powerW),
      energyJ: exact(pred.energyJ),
    };
  }
  const found = tableFor(model, geo.mode);
  if (!found) return null;
  const t = found.table;
  let durationNs = timeBand(cal, t, geo.distance, dist, pred, refs);
  let powerW = bandAround(t.power, geo.distance, dist, pred.powerW);
  let energyJ = bandAround(t.energy, geo.distance, dist, pred.energyJ);
  const ref = refs?.length === 1 ? refs[0]! : null;
  const memoryCeiling =
    ref !== null && beyondMemoryCeiling(cal, ref.smClockMHz, utilization.dram_active ?? 0, pred.effectiveClockMHz);
  const ceilingTable = memoryCeiling ? model.memoryCeiling : null;
  if (ceilingTable) {
    // The kernels that crossed the ceiling have their own residuals (model/uncertainty.ts memoryCeiling); crossing
    // it adds to what the model does not know, never takes away, so the band is never narrower than its mode's.
    durationNs = union(durationNs, bandAround(ceilingTable.time, geo.distance, dist, pred.durationNs));
    powerW = union(powerW, bandAround(ceilingTable.power, geo.distance, dist, pred.powerW));
    energyJ = union(energyJ, bandAround(ceilingTable.energy, geo.distance, dist, pred.energyJ));
  } else if (memoryCeiling && ref) {
    // No such table (an older file, or too few calibration kernels crossed the ceiling): reach the clock-bound time.
    const cb = clockBound(cal, pred, ref, utilization);
    durationNs = reach(durationNs, cb.durationNs);
    powerW = reach(powerW, cb.powerW);
    energyJ = reach(energyJ, cb.energyJ);
  }
  const powerUnexplained =
    top !== undefined && model.powerMisfitMax !== undefined && powerMisfit(cal, top) > model.powerMisfitMax;
  if (powerUnexplained) {
    const capW = cal.powerCap.powerW ?? Infinity;
    const modelW = Math.min(capW, modelPower(cal, pred.effectiveClockMHz, pred.utilization));
    powerW = reach(powerW, modelW);
    energyJ = reach(energyJ, (modelW * pred.durationNs) / 1e9);
  }
  const regime: BandRegime = {
    clock: clockClass(profiledMHz, pred.smClockMHz),
    extrapolated: geo.distance > maxDistance(ceilingTable ?? t) * (1 + 1e-9),
    counter: counterClass(model, t, dist),
    memoryCeiling,
    powerUnexplained,
  };
  return {
    mode: geo.mode,
    table: found.mode,
    clockDistance: geo.distance,
    counterDistance: dist,
    regime,
    durationNs,
    powerW,
    energyJ,
  };
}

/** A short name for a band's regime, e.g. `one-clock-down · 10–40 % · counters near · memory ceiling`. */
export function describeRegime(b: PredictionBand): string {
  if (b.mode === 'profiled') return 'profiled clock (exact)';
  const clock = { profiled: '0 %', near: '≤10 %', mid: '10–40 %', far: '>40 %' }[b.regime.clock];
  const parts = [b.mode, clock, `counters ${b.regime.counter}`];
  if (b.regime.memoryCeiling) parts.push('memory ceiling');
  if (b.regime.powerUnexplained) parts.push('power unexplained');
  if (b.regime.extrapolated) parts.push('extrapolated');
  return parts.join(' · ');
}

/**
 * {@link predictKernel} with the 10–90 % band of each predicted quantity: (p10, p50, p90) of time, power and
 * energy for a kernel at a clock.
 */
export function predictKernelBand(
  cal: Calibration,
  profile: KernelProfiles,
  targetClockMHz: number,
  options: PredictOptions = {},
): BandedPrediction {
  const refs = toProfiles(profile);
  const pred = predictKernel(cal, refs, targetClockMHz, options);
  // A kernel known by its duration alone has an assumed power: the band model (learned on measured kernels) says
  // nothing about it, not even at its profiled clock.
  if (pred.basis !== 'profile') return { ...pred, band: null };
  // The counter space holds each calibration kernel at its highest clock: compare at the highest profiled clock.
  const top = refs.reduce((a, b) => (b.smClockMHz > a.smClockMHz ? b : a));
  return {
    ...pred,
    band: bandFor(
      cal,
      pred,
      refs.map((r) => r.smClockMHz),
      top.utilization,
      refs,
      top,
    ),
  };
}

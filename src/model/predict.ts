/**
 * Library API used by the engines (and by the annotate engine): predict one kernel at another SM clock from its
 * profile(s), or from FLOPs and bytes alone (roofline). Every number returned is an estimate.
 *
 * Reference-clock scaling: a kernel keeps its own measured power at the clock it was profiled at. At another
 * clock, power = model(f, u(f)) × measured(f_r) / model(f_r, u(f_r)) ("ratio", the default), or
 * model(f, u(f)) + (measured − modelled at f_r) ("offset"). With several profiled clocks the ratio (or offset) is
 * interpolated linearly in f between them. `tracewatt accuracy` reports both ways.
 */
import type { KernelSample } from '../vocab/kernel-sample.js';
import { rooflineTime } from '../vocab/roofline.js';
import { InputError } from '../errors.js';
import { checkTargetClock, type Calibration } from './calibration.js';
import { memoryCeilingAt, predictDurationFromOne, scaleUtilization } from './time-model.js';
import { fitMultiClock, multiClockDurationNs } from './multi-clock-time.js';
import { samplePowerW } from './kernels.js';
import { dramPowerW, modelPower } from './model-power.js';
import { assumedKernelPowerW } from './active-power.js';

export { modelPower } from './model-power.js';

export type PowerScaling = 'ratio' | 'offset';

export interface KernelProfile {
  smClockMHz: number;
  durationNs: number;
  powerW: number | null;
  utilization: Record<string, number>;
}

/**
 * What a prediction stood on: `profile` (measured power and/or counters at the profiled clock(s)), `duration` (a
 * profile or node with a duration only: the calibration's assumed active power, see active-power.ts) or `roofline`
 * (FLOPs and bytes alone).
 */
export type PredictionBasis = 'profile' | 'duration' | 'roofline';

export interface KernelPrediction {
  smClockMHz: number;
  /** Clock the kernel effectively runs at (lower than requested when the power cap binds). */
  effectiveClockMHz: number;
  durationNs: number;
  powerW: number;
  energyJ: number;
  /**
   * The DRAM part of energyJ, J: the calibration's dram_active component β·u over the duration (scaled as the
   * power is), or for roofline work given a memory pJ/bit, bytes × pJ/bit (at most energyJ); null when nothing
   * tells it (no DRAM component or utilization, a duration-only kernel).
   */
  energyMemoryJ: number | null;
  utilization: Record<string, number>;
  capped: boolean;
  basis: PredictionBasis;
  estimate: true;
}

export interface PredictOptions {
  scaling?: PowerScaling;
  /**
   * Power cap to apply, W (null: none); default the calibration's. Pass capInForce() when measurements may refute it.
   */
  capW?: number | null;
}

/**
 * A profiled sample (or an already checked profile) as a KernelProfile; throws InputError without clock or duration.
 */
export function toProfile(s: KernelSample | KernelProfile): KernelProfile {
  if ('source' in s) {
    if (s.smClockMHz === null || s.durationNs === null || !(s.durationNs > 0))
      throw new InputError(
        `${s.source.file}: row ${s.source.row}: kernel ${s.kernelName} needs an SM clock and a positive ` +
          `duration to be predicted`,
      );
    const u: Record<string, number> = {};
    for (const [k, v] of Object.entries(s.utilization)) if (typeof v === 'number' && Number.isFinite(v)) u[k] = v;
    return { smClockMHz: s.smClockMHz, durationNs: s.durationNs, powerW: samplePowerW(s), utilization: u };
  }
  return s;
}

/** What a kernel prediction starts from: one profile, or several of the same kernel at different clocks. */
export type KernelProfiles = KernelSample | KernelProfile | (KernelSample | KernelProfile)[];

/** {@link KernelProfiles} as a list of checked KernelProfiles (toProfile on each). */
export function toProfiles(profile: KernelProfiles): KernelProfile[] {
  return (Array.isArray(profile) ? profile : [profile]).map(toProfile);
}

/** A profile with a duration only: no power and no utilization (a Kineto trace without counters or power log). */
export function isDurationOnly(p: KernelProfile): boolean {
  return p.powerW === null && !Object.values(p.utilization).some((v) => typeof v === 'number' && Number.isFinite(v));
}

function durationAt(cal: Calibration, refs: KernelProfile[], f: number): number {
  const nearest = refs.reduce((a, b) => (Math.abs(b.smClockMHz - f) < Math.abs(a.smClockMHz - f) ? b : a));
  if (new Set(refs.map((r) => r.smClockMHz)).size >= 2)
    return multiClockDurationNs(fitMultiClock(refs, cal.time.roofExponent?.exponent ?? 1), f);
  return predictDurationFromOne(
    cal.time,
    {
      durationNs: nearest.durationNs,
      smClockMHz: nearest.smClockMHz,
      dramActive: nearest.utilization.dram_active ?? 0,
    },
    f,
  );
}

function uncapped(cal: Calibration, refs: KernelProfile[], f: number, scaling: PowerScaling) {
  const nearest = refs.reduce((a, b) => (Math.abs(b.smClockMHz - f) < Math.abs(a.smClockMHz - f) ? b : a));
  const durationNs = durationAt(cal, refs, f);
  const utilization = scaleUtilization(nearest.utilization, nearest, { durationNs, smClockMHz: f });
  let powerW = modelPower(cal, f, utilization);
  let memoryW = dramPowerW(cal, f, utilization);
  // Per-reference correction (ratio or offset), interpolated in f between profiled clocks.
  const corr = refs
    .filter((r) => r.powerW !== null)
    .map((r) => {
      const m = modelPower(cal, r.smClockMHz, r.utilization);
      return { f: r.smClockMHz, k: scaling === 'ratio' ? (m > 0 ? r.powerW! / m : 1) : r.powerW! - m };
    })
    .sort((a, b) => a.f - b.f);
  if (corr.length) {
    let k: number;
    if (f <= corr[0]!.f) k = corr[0]!.k;
    else if (f >= corr[corr.length - 1]!.f) k = corr[corr.length - 1]!.k;
    else {
      const i = corr.findIndex((c) => c.f >= f);
      const a = corr[i - 1]!;
      const b = corr[i]!;
      k = a.k + ((f - a.f) / (b.f - a.f)) * (b.k - a.k);
    }
    powerW = scaling === 'ratio' ? powerW * k : powerW + k;
    // The DRAM part keeps its share under ratio scaling; an offset shifts the whole, not the part.
    if (memoryW !== null && scaling === 'ratio') memoryW *= k;
  }
  powerW = Math.max(0, powerW);
  return { durationNs, powerW, memoryW: memoryW === null ? null : Math.min(powerW, Math.max(0, memoryW)), utilization };
}

/**
 * A kernel known by its duration alone: the time model scales the duration (as for any profile, taken as
 * compute-bound), the power is the calibration's assumed active power at the clock (active-power.ts). The same
 * function serves predict, annotate, sweep gpu and plan, so one kernel gets one power.
 */
function fromDuration(cal: Calibration, refs: KernelProfile[], f: number): KernelPrediction {
  const durationNs = durationAt(cal, refs, f);
  const powerW = assumedKernelPowerW(cal, f).powerW;
  return {
    smClockMHz: f,
    effectiveClockMHz: f,
    durationNs,
    powerW,
    energyJ: (powerW * durationNs) / 1e9,
    energyMemoryJ: null,
    utilization: {},
    capped: false,
    basis: 'duration',
    estimate: true,
  };
}

/**
 * Predicts one kernel at `targetClockMHz` from one profile (a KernelSample or {smClockMHz, durationNs, powerW,
 * utilization}) or from several profiles of the same kernel at different clocks.
 */
export function predictKernel(
  cal: Calibration,
  profile: KernelProfiles,
  targetClockMHz: number,
  options: PredictOptions = {},
): KernelPrediction {
  checkTargetClock(cal, targetClockMHz);
  const refs = toProfiles(profile);
  if (refs.length === 0) throw new InputError('predictKernel needs at least one profile');
  if (refs.every(isDurationOnly)) return fromDuration(cal, refs, targetClockMHz);
  const scaling = options.scaling ?? 'ratio';
  let r = uncapped(cal, refs, targetClockMHz, scaling);
  let fEff = targetClockMHz;
  const cap = options.capW !== undefined ? options.capW : cal.powerCap.powerW;
  const maxRef = Math.max(...refs.map((x) => x.powerW ?? 0));
  // A cap is handled where it binds: never above a measured power (that clock is already at the cap).
  if (cap !== null && r.powerW > cap && maxRef < cap * 1.001) {
    let lo = Math.min(...cal.clocks.smClocksMHz, targetClockMHz) / 2;
    let hi = targetClockMHz;
    for (let i = 0; i < 40; i++) {
      const mid = (lo + hi) / 2;
      if (uncapped(cal, refs, mid, scaling).powerW > cap) hi = mid;
      else lo = mid;
    }
    fEff = lo;
    const atEff = uncapped(cal, refs, fEff, scaling);
    r = {
      ...atEff,
      powerW: cap,
      memoryW:
        atEff.memoryW === null ? null : atEff.powerW > 0 ? Math.min(cap, (atEff.memoryW * cap) / atEff.powerW) : 0,
    };
  }
  return {
    smClockMHz: targetClockMHz,
    effectiveClockMHz: fEff,
    durationNs: r.durationNs,
    powerW: r.powerW,
    energyJ: (r.powerW * r.durationNs) / 1e9,
    energyMemoryJ: r.memoryW === null ? null : (r.memoryW * r.durationNs) / 1e9,
    utilization: r.utilization,
    capped: fEff !== targetClockMHz,
    basis: 'profile',
    estimate: true,
  };
}

export interface RooflineWork {
  flops: number;
  bytes: number;
  precision?: 'fp16Tensor' | 'fp32' | 'fp64';
  /**
   * DRAM energy per bit: the DRAM part of the energy is then bytes × this (at most the energy), not the model's β·u.
   */
  memoryPjPerBit?: number;
}

/**
 * Kernel with no profile: roofline time max(FLOPs / peak(f), bytes / bandwidth) + launch overhead, peak FLOP/s
 * scaling with the SM clock, bandwidth with the calibrated memory ceiling; utilizations implied by the roofline;
 * power from the calibrated model at f. Needs the calibration's datasheet facts.
 */
export function estimateFromRoofline(cal: Calibration, work: RooflineWork, clockMHz: number): KernelPrediction {
  const ds = cal.datasheet;
  if (!ds)
    throw new InputError(
      `calibration for ${cal.device.name} has no datasheet facts (peak FLOP/s, memory bandwidth); roofline ` +
        `estimates need them`,
    );
  if (!(work.flops >= 0) || !(work.bytes >= 0))
    throw new InputError('roofline work needs non-negative flops and bytes');
  checkTargetClock(cal, clockMHz);
  const precision = work.precision ?? 'fp32';
  const peak = (ds.peakFlopsPerS[precision] ?? ds.peakFlopsPerS.fp32) * (clockMHz / ds.maxSmClockMHz);
  const cMax = memoryCeilingAt(cal.time, ds.maxSmClockMHz);
  const cf = memoryCeilingAt(cal.time, clockMHz);
  const bw = ds.memoryBandwidthBytesPerS * (cMax > 0 ? cf / cMax : 1);
  const { computeNs, memoryNs, ns: body } = rooflineTime(work.flops, work.bytes, peak, bw);
  const durationNs = cal.time.launchOverheadNs + body;
  const pipe = precision === 'fp16Tensor' ? 'tensor_active' : precision === 'fp64' ? 'fp64_active' : 'fp32_active';
  const utilization: Record<string, number> = {
    sm_active: body > 0 ? body / durationNs : 0,
    sm_occupancy: body > 0 ? 0.5 * (body / durationNs) : 0,
    [pipe]: durationNs > 0 ? computeNs / durationNs : 0,
    dram_active: durationNs > 0 ? (memoryNs / durationNs) * cf : 0,
  };
  const modelled = modelPower(cal, clockMHz, utilization);
  const powerW = cal.powerCap.powerW !== null ? Math.min(modelled, cal.powerCap.powerW) : modelled;
  const energyJ = (powerW * durationNs) / 1e9;
  let energyMemoryJ: number | null;
  if (work.memoryPjPerBit !== undefined)
    energyMemoryJ = Math.min(energyJ, work.bytes * 8 * work.memoryPjPerBit * 1e-12);
  else {
    const dram = dramPowerW(cal, clockMHz, utilization);
    energyMemoryJ =
      dram === null ? null : Math.min(energyJ, ((modelled > 0 ? (dram * powerW) / modelled : 0) * durationNs) / 1e9);
  }
  return {
    smClockMHz: clockMHz,
    effectiveClockMHz: clockMHz,
    durationNs,
    powerW,
    energyJ,
    energyMemoryJ,
    utilization,
    capped: false,
    basis: 'roofline',
    estimate: true,
  };
}

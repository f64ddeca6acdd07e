/** `tracewatt predict`: every kernel of a profile at every requested clock, from its reference-clock profile(s). */
import type { ProfileTable } from '../../vocab/kernel-sample.js';
import { InputError } from '../../errors.js';
import { checkTargetClock, type Calibration } from '../../model/calibration.js';
import { groupKernels } from '../../model/kernels.js';
import { deviceMismatchWarning } from '../../model/device-match.js';
import {
  ABOVE_CAP,
  BELOW_IDLE,
  boundsAt,
  describeFlag,
  PHYSICS_CODES,
  powerFlags,
} from '../../model/physics-checks.js';
import { capInForce } from '../../model/power-cap.js';
import { assumedKernelPowerW } from '../../model/active-power.js';
import type { PowerScaling, PredictionBasis } from '../../model/predict.js';
import { predictKernelBand, type PredictionBand } from '../../model/predict-band.js';
import { bandAdvice, totalEnergyBands, type BandAdvice, type BandedKernel, type TotalBand } from './advice.js';

export interface PredictionRow {
  kernel: string;
  frequencyMHz: number;
  effectiveClockMHz: number;
  durationNs: number;
  powerW: number;
  energyJ: number;
  capped: boolean;
  /** What the prediction stood on: profile (power and/or counters), duration (assumed active power) or roofline. */
  basis: PredictionBasis;
  /**
   * 10–90 % band of the measurement (p50 is the prediction itself); null without a band model, and for a kernel
   * known by its duration alone (its power is assumed: no band is known).
   */
  durationNsP10: number | null;
  durationNsP90: number | null;
  powerWP10: number | null;
  powerWP90: number | null;
  energyJP10: number | null;
  energyJP90: number | null;
  /** How the band was judged: one-clock-down/-up, two-clock-inside/-outside, profiled (the measurement itself). */
  bandMode: PredictionBand['mode'] | null;
}

export interface PredictResult {
  kind: 'prediction';
  schemaVersion: 1;
  device: string;
  referenceClocksMHz: number[];
  rows: PredictionRow[];
  /** Per target clock: the energy of all predicted kernels, with their bands combined as independent errors. */
  totals: TotalBand[];
  /** Which kernels to profile at which second clock to narrow the total's band most; null when not applicable. */
  advice: BandAdvice | null;
  skipped: string[];
  /** What was assumed (e.g. the clock of samples whose profile has none). */
  notes: string[];
  /** Loud warnings: the profile names another device than the calibration's; predictions outside the physics bounds. */
  warnings: string[];
  estimate: true;
}

export function predictProfile(
  cal: Calibration,
  table: ProfileTable,
  options: {
    referenceClocksMHz: number[];
    targetClocksMHz: number[] | 'all';
    scaling?: PowerScaling;
    deviceMismatch?: 'warn' | 'ok';
    profileName?: string;
  },
): PredictResult {
  const refs = options.referenceClocksMHz;
  if (!refs.length) throw new InputError('predict needs --reference-frequency');
  const targets = options.targetClocksMHz === 'all' ? cal.clocks.smClocksMHz : options.targetClocksMHz;
  for (const f of targets) checkTargetClock(cal, f);
  const rows: PredictionRow[] = [];
  const skipped: string[] = [];
  const notes: string[] = [];
  // Profiles without an SM clock (an Nsight Systems trace, a one-clock power table) ran at the one reference clock.
  const unclocked = table.samples.filter((x) => x.smClockMHz === null).length;
  let samples = table.samples;
  if (unclocked && refs.length === 1) {
    samples = samples.map((x) => (x.smClockMHz === null ? { ...x, smClockMHz: refs[0]! } : x));
    notes.push(
      `${unclocked} of ${table.samples.length} samples have no SM clock in the profile: taken to have run at ` +
        `the reference clock ${refs[0]} MHz`,
    );
  } else if (unclocked)
    notes.push(
      `${unclocked} of ${table.samples.length} samples have no SM clock in the profile and were skipped (give ` +
        `one --reference-frequency to take them at that clock)`,
    );
  const kernels = groupKernels(samples).map((s) => ({
    key: s.key,
    profiles: s.points
      .filter((p) => refs.some((r) => Math.abs(r - p.smClockMHz) < 0.5) && p.durationNs !== null)
      .map((p) => ({
        smClockMHz: p.smClockMHz,
        durationNs: p.durationNs!,
        powerW: p.powerW,
        utilization: p.utilization,
      })),
  }));
  const cap = capInForce(
    cal.powerCap,
    kernels.flatMap((k) =>
      k.profiles
        .filter((p) => p.powerW !== null)
        .map((p) => ({ powerW: p.powerW!, where: `${k.key} at ${p.smClockMHz} MHz` })),
    ),
  );
  if (cap.note) notes.push(cap.note);
  const mismatch =
    options.deviceMismatch === 'ok'
      ? null
      : deviceMismatchWarning(cal.device.name, {
          what: `the profile${options.profileName ? ` ${options.profileName}` : ''}`,
          device: table.device,
        });
  if (!cal.uncertainty)
    notes.push(
      `${cal.device.name}: the calibration has no band model (datasheet defaults, or written before bands ` +
        `existed: re-run tracewatt calibrate), so predictions carry no band`,
    );
  const banded: BandedKernel[] = [];
  for (const k of kernels) {
    if (k.profiles.length === 0) {
      skipped.push(`${k.key}: no measurement at ${refs.join(', ')} MHz`);
      continue;
    }
    const top = k.profiles.reduce((a, b) => (b.smClockMHz > a.smClockMHz ? b : a));
    const entry: BandedKernel = {
      kernel: k.key,
      profiledMHz: k.profiles.map((p) => p.smClockMHz),
      utilization: top.utilization,
      at: [],
    };
    for (const f of targets) {
      const p = predictKernelBand(cal, k.profiles, f, { scaling: options.scaling, capW: cap.powerW });
      const b = p.band;
      rows.push({
        kernel: k.key,
        frequencyMHz: f,
        effectiveClockMHz: p.effectiveClockMHz,
        durationNs: p.durationNs,
        powerW: p.powerW,
        energyJ: p.energyJ,
        capped: p.capped,
        basis: p.basis,
        durationNsP10: b?.durationNs.p10 ?? null,
        durationNsP90: b?.durationNs.p90 ?? null,
        powerWP10: b?.powerW.p10 ?? null,
        powerWP90: b?.powerW.p90 ?? null,
        energyJP10: b?.energyJ.p10 ?? null,
        energyJP90: b?.energyJ.p90 ?? null,
        bandMode: b?.mode ?? null,
      });
      entry.at.push({ prediction: p, energyJ: b?.energyJ ?? null });
    }
    banded.push(entry);
  }
  if (rows.length === 0)
    throw new InputError(`no kernel in the profile was measured at the reference clock(s) ${refs.join(', ')} MHz`);
  const physics = physicsWarnings(cal, rows, targets);
  const byDuration = banded.filter((k) => k.at[0]!.prediction.basis === 'duration').length;
  if (byDuration)
    notes.push(
      `${byDuration} kernel(s) have a duration only (no counters, no power): their power is the calibration's ` +
        `assumed active power, as annotate gives them (${assumedNote(cal, targets)}); no band is known for them`,
    );
  return {
    kind: 'prediction',
    schemaVersion: 1,
    device: cal.device.name,
    referenceClocksMHz: refs,
    rows,
    // Without a band model there is no band to total (a zero-width one would claim the sum exact); kernels without a
    // band (duration only) are counted in the total's p50 and named (kernelsWithoutBand).
    totals: cal.uncertainty ? totalEnergyBands(banded, targets) : [],
    advice: bandAdvice(cal, banded, targets),
    skipped,
    notes,
    warnings: [...(mismatch ? [mismatch] : []), ...physics],
    estimate: true,
  };
}

/** Predictions outside the physics bounds (above the power cap, below the idle power), counted per code. */
function physicsWarnings(cal: Calibration, rows: PredictionRow[], targets: number[]): string[] {
  const bounds = new Map(targets.map((f) => [f, boundsAt(cal, f)]));
  const out: string[] = [];
  for (const [flag, code] of [
    [ABOVE_CAP, PHYSICS_CODES.aboveCap],
    [BELOW_IDLE, PHYSICS_CODES.belowIdle],
  ] as const) {
    const hit = rows.filter((r) => powerFlags(r.powerW, bounds.get(r.frequencyMHz)!) & flag);
    if (!hit.length) continue;
    const r = hit[0]!;
    out.push(
      `${code} ×${hit.length} (kernel × clock): ` +
        describeFlag(
          flag,
          r.kernel.length > 80 ? `${r.kernel.slice(0, 77)}...` : r.kernel,
          { powerW: r.powerW, energyJ: r.energyJ, flops: 0 },
          bounds.get(r.frequencyMHz)!,
          null,
        ),
    );
  }
  return out;
}

function assumedNote(cal: Calibration, clocks: number[]): string {
  const shown = clocks
    .slice(0, 4)
    .map((f) => `${Number(assumedKernelPowerW(cal, f).powerW.toPrecision(4))} W at ${f} MHz`)
    .join(', ');
  return `${shown}${clocks.length > 4 ? ', …' : ''}: ${assumedKernelPowerW(cal, clocks[0]!).basis}`;
}

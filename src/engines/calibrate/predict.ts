/** `tracewatt predict`: every kernel of a profile at every requested clock, from its reference-clock profile(s). */
import type { ProfileTable } from '../../formats/profiles/kernel-sample.js';
import { InputError } from '../../errors.js';
import { checkTargetClock, type Calibration } from '../../model/calibration.js';
import { groupKernels } from '../../model/kernels.js';
import { predictKernel, type PowerScaling } from '../../model/predict.js';

export interface PredictionRow {
  kernel: string;
  frequencyMHz: number;
  effectiveClockMHz: number;
  durationNs: number;
  powerW: number;
  energyJ: number;
  capped: boolean;
}

export interface PredictResult {
  kind: 'prediction';
  schemaVersion: 1;
  device: string;
  referenceClocksMHz: number[];
  rows: PredictionRow[];
  skipped: string[];
  /** What was assumed (e.g. the clock of samples whose profile has none). */
  notes: string[];
  estimate: true;
}

export function predictProfile(cal: Calibration, table: ProfileTable, options: { referenceClocksMHz: number[]; targetClocksMHz: number[] | 'all'; scaling?: PowerScaling }): PredictResult {
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
    notes.push(`${unclocked} of ${table.samples.length} samples have no SM clock in the profile: taken to have run at the reference clock ${refs[0]} MHz`);
  } else if (unclocked) notes.push(`${unclocked} of ${table.samples.length} samples have no SM clock in the profile and were skipped (give one --reference-frequency to take them at that clock)`);
  for (const s of groupKernels(samples)) {
    const profiles = s.points
      .filter((p) => refs.some((r) => Math.abs(r - p.smClockMHz) < 0.5) && p.durationNs !== null)
      .map((p) => ({ smClockMHz: p.smClockMHz, durationNs: p.durationNs!, powerW: p.powerW, utilization: p.utilization }));
    if (profiles.length === 0) {
      skipped.push(`${s.key}: no measurement at ${refs.join(', ')} MHz`);
      continue;
    }
    for (const f of targets) {
      const p = predictKernel(cal, profiles, f, { scaling: options.scaling });
      rows.push({ kernel: s.key, frequencyMHz: f, effectiveClockMHz: p.effectiveClockMHz, durationNs: p.durationNs, powerW: p.powerW, energyJ: p.energyJ, capped: p.capped });
    }
  }
  if (rows.length === 0) throw new InputError(`no kernel in the profile was measured at the reference clock(s) ${refs.join(', ')} MHz`);
  return { kind: 'prediction', schemaVersion: 1, device: cal.device.name, referenceClocksMHz: refs, rows, skipped, notes, estimate: true };
}

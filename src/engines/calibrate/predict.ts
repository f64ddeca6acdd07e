/** `tracewatt predict`: every kernel of a profile at every requested clock, from its reference-clock profile(s). */
import type { ProfileTable } from '../../core/kernel-sample.js';
import { InputError } from '../../errors.js';
import type { Calibration } from '../../model/calibration.js';
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
  estimate: true;
}

export function predictProfile(cal: Calibration, table: ProfileTable, options: { referenceClocksMHz: number[]; targetClocksMHz: number[] | 'all'; scaling?: PowerScaling }): PredictResult {
  const refs = options.referenceClocksMHz;
  if (!refs.length) throw new InputError('predict needs --reference-frequency');
  const targets = options.targetClocksMHz === 'all' ? cal.clocks.smClocksMHz : options.targetClocksMHz;
  const rows: PredictionRow[] = [];
  const skipped: string[] = [];
  for (const s of groupKernels(table.samples)) {
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
  return { kind: 'prediction', schemaVersion: 1, device: cal.device.name, referenceClocksMHz: refs, rows, skipped, estimate: true };
}

/**
 * A TimeModel from a calibration file at a chosen SM clock: each op's duration is the calibration's
 * roofline estimate there (its datasheet peaks scaled by the clock, its learned memory ceiling at
 * that clock, and its launch overhead). Such traces replay their written durations: the system.json
 * written beside them leaves ASTRA-sim's own fixed-peak roofline off. With `withEnergy`, each op also
 * gets the calibration's modelled energy at that clock (power model × duration, capped), written as
 * `energy_j` so the replay uses it instead of a fixed active power.
 */
import type { Dtype } from './gpus.js';
import type { OpCost } from './ops.js';
import type { TimeModel } from './time-model.js';
import type { Calibration } from '../../model/calibration.js';
import { estimateFromRoofline } from '../../model/predict.js';
import { roundMicros } from '../../vocab/units.js';

export function calibratedTimeModel(cal: Calibration, clockMHz: number, dtype: Dtype, withEnergy = false): TimeModel {
  const precision = dtype === 'fp32' ? 'fp32' : 'fp16Tensor';
  // Fails early (clock outside the device's range, no datasheet facts) rather than per op.
  estimateFromRoofline(cal, { flops: 1, bytes: 1, precision }, clockMHz);
  return {
    label:
      `calibration ${cal.device.name} (${cal.device.kind}) at ${clockMHz} MHz, ${precision} peak: roofline with ` +
      `its memory ceiling and launch overhead`,
    durationNs(op: OpCost): number {
      return estimateFromRoofline(cal, { flops: op.flops, bytes: op.bytes, precision }, clockMHz).durationNs;
    },
    ...(withEnergy
      ? {
          energyJ(op: OpCost): number {
            // The replay times the node at its written whole µs: the energy is the modelled power over that time.
            const p = estimateFromRoofline(cal, { flops: op.flops, bytes: op.bytes, precision }, clockMHz);
            return p.powerW * roundMicros(p.durationNs) * 1e-6;
          },
        }
      : {}),
  };
}

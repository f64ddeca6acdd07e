/**
 * "Profile once, plan everywhere": plans from three profiled clocks per stage (855, 1305, 1740 MHz; the other 57
 * clocks modelled, with the A40 calibration's power cap as `accuracy --fit-frequencies` uses it), against Perseus'
 * intrinsic savings from the full sweeps — and the same plans' clocks checked on the measured sweep.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCalibration } from '../../src/engines/calibrate/index.js';
import { repoRoot } from '../helpers/shared.js';
import { MICRO_BATCHES, MODELS, PERSEUS_INTRINSIC, planFor } from './perseus.js';

const FIT_CLOCKS = [855, 1305, 1740];

describe('plans from three profiled clocks per stage', async () => {
  const cal = await loadCalibration(path.join(repoRoot, 'calibration', 'a40.json'));
  for (const model of MODELS) {
    MICRO_BATCHES.forEach((mb, k) => {
      it(
        `${model}, ${mb} micro-batches: within 1.5 points of Perseus' ${PERSEUS_INTRINSIC[model][k]!.toFixed(1)} ` +
          `% (modelled, and on the measured sweep)`,
        async () => {
          const r = await planFor(model, mb, { fitClocksMHz: FIT_CLOCKS, powerCapW: cal.powerCap.powerW!, points: 40 });
          const target = PERSEUS_INTRINSIC[model][k]!;
          expect(r.source.clocksMHz).toHaveLength(60);
          expect(Math.abs(r.intrinsic.savingPct - target)).toBeLessThanOrEqual(1.5);
          const m = r.measuredCheck!;
          expect(m.missing).toBe(0);
          expect(Math.abs(m.intrinsic.savingPct - target)).toBeLessThanOrEqual(1.5);
          // The model's time errors show on the measured sweep as a small slowdown (docs/plans.md: the three-clock
          // table).
          expect(m.intrinsic.timeChangePct).toBeLessThan(1.2);
        },
      );
    });
  }
});

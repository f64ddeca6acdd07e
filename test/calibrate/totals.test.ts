/**
 * predict's total energy band never claims more certainty than its kernels have: without a band model there is no
 * total band at all, and a kernel whose prediction has no band is counted in the total but said to be missing from
 * its band (a zero-width stand-in used to make the total look exact).
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { predictProfile } from '../../src/engines/calibrate/predict.js';
import { newSample, type ProfileTable } from '../../src/vocab/kernel-sample.js';
import { loadCalibration, type Calibration } from '../../src/model/calibration.js';
import { repoRoot } from '../helpers/shared.js';

let cal: Calibration;
beforeAll(async () => {
  cal = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
});

/** Two kernels profiled once at 1710 MHz (counters as DCGM gives them). */
const table: ProfileTable = {
  format: 'test',
  device: 'Quadro RTX 8000',
  notes: [],
  samples: [
    newSample(
      'bench/a/input000',
      { file: 't.csv', row: 1, format: 'test' },
      {
        smClockMHz: 1710,
        durationNs: 2e6,
        powerW: 180,
        utilization: { sm_active: 0.9, dram_active: 0.2, fp32_active: 0.6 },
      },
    ),
    newSample(
      'bench/b/input000',
      { file: 't.csv', row: 2, format: 'test' },
      {
        smClockMHz: 1710,
        durationNs: 5e6,
        powerW: 120,
        utilization: { sm_active: 0.5, dram_active: 0.8, fp32_active: 0.1 },
      },
    ),
  ],
};
const predictAt = (c: Calibration) =>
  predictProfile(c, table, { referenceClocksMHz: [1710], targetClocksMHz: [870, 1710] });

describe('predict: the total energy band', () => {
  it('with a band model: every kernel in the band', () => {
    const r = predictAt(cal);
    expect(r.totals.map((t) => t.kernelsWithoutBand)).toEqual([0, 0]);
    expect(r.totals[0]!.energyJ.p10).toBeLessThan(r.totals[0]!.energyJ.p50);
  });

  it('without a band model: no total band (not a zero-width one)', () => {
    const r = predictAt({ ...cal, uncertainty: null });
    expect(r.rows.every((x) => x.energyJP10 === null)).toBe(true);
    expect(r.totals).toEqual([]);
    expect(r.advice).toBeNull();
  });

  it('a kernel without a band is counted in p50 and named as missing from the band', () => {
    // A band model with tables for two-clock predictions only: one-clock predictions get no band.
    const twoClockOnly = {
      ...cal,
      uncertainty: { ...cal.uncertainty!, modes: { 'two-clock-inside': cal.uncertainty!.modes['two-clock-inside'] } },
    };
    const r = predictAt(twoClockOnly);
    const at870 = r.rows.filter((x) => x.frequencyMHz === 870);
    expect(at870.every((x) => x.energyJP10 === null)).toBe(true);
    const total = r.totals[0]!;
    expect(total.kernelsWithoutBand).toBe(2);
    expect(total.energyJ.p50).toBeCloseTo(
      at870.reduce((s, x) => s + x.energyJ, 0),
      12,
    );
    expect(r.totals[1]!.kernelsWithoutBand).toBe(0); // 1710 MHz: the measurement itself
    expect(r.advice).toBeNull();
  });
});

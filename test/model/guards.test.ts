/**
 * One clock check on every path, device names compared by model and board, one power per kernel, and the physics
 * bounds (issue 24).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadCalibration,
  predictKernel,
  predictKernelBand,
  predictProfile,
} from '../../src/engines/calibrate/index.js';
import { InputError } from '../../src/errors.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { assumedKernelPowerW } from '../../src/model/active-power.js';
import { checkTargetClock, clockRange } from '../../src/model/calibration.js';
import { deviceDifference, deviceKey } from '../../src/model/device-match.js';
import {
  ABOVE_CAP,
  BELOW_BEST_J_PER_FLOP,
  BELOW_IDLE,
  bestEnergyPerFlop,
  boundsAt,
  energyPerFlopFlag,
  powerFlags,
} from '../../src/model/physics-checks.js';
import { estimateFromRoofline } from '../../src/model/predict.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const calFile = (name: string) => path.join(repoRoot, 'calibration', `${name}.json`);
const dlrmKineto = shipped('pytorch-real', 'dlrm', 'worker0_step_12.1694128201545.pt.trace.json.gz');

describe('the clock range', () => {
  it('H100: the clock table 210–1980 MHz; 50 and 99999 MHz refused with the range', async () => {
    const cal = await loadCalibration(calFile('h100-datasheet'));
    expect(clockRange(cal)).toMatchObject({ minMHz: 210, maxMHz: 1980 });
    for (const f of [50, 209, 1981, 99999])
      expect(() => checkTargetClock(cal, f), `${f}`).toThrow(
        /outside the SM clock range of NVIDIA H100 SXM5, 210–1980 MHz/,
      );
    for (const f of [210, 810, 1980]) expect(() => checkTargetClock(cal, f)).not.toThrow();
    // Roofline estimates (generate --calibration, annotate's unmatched nodes) go through the same check.
    expect(() => estimateFromRoofline(cal, { flops: 1e9, bytes: 1e6 }, 50)).toThrow(InputError);
  });

  it('V100 (no clock table): the calibrated range 405–1380 MHz, nothing extrapolated below it', async () => {
    const cal = await loadCalibration(calFile('v100'));
    expect(clockRange(cal)).toMatchObject({ minMHz: 405, maxMHz: 1380 });
    expect(() => checkTargetClock(cal, 300)).toThrow(
      /300 MHz is outside the SM clock range of Tesla V100-PCIE, 405–1380 MHz \(lowest: the lowest calibrated clock/,
    );
  });
});

describe('device names', () => {
  it.each([
    [
      'Tesla V100-SXM2-32GB',
      'Tesla V100-PCIE',
      'the same chip on another board, SXM vs PCIE: power cap and clocks differ',
    ],
    ['NVIDIA H100 80GB HBM3', 'NVIDIA H100 SXM5', null],
    ['NVIDIA H200', 'NVIDIA H100 SXM5', 'another GPU model'],
    ['Tesla V100-PCIE-16GB', 'Tesla V100-PCIE', null],
    ['NVIDIA GeForce RTX 2080 Ti', 'NVIDIA H100 SXM5', 'another GPU model'],
    ['GeForce GTX TITAN X', 'GeForce GTX Titan X', null],
    ['NVIDIA A100-SXM4-80GB', 'NVIDIA A100 SXM4 80GB', null],
    [
      'NVIDIA A100-PCIE-40GB',
      'NVIDIA A100 SXM4 80GB',
      'the same chip on another board, PCIE vs SXM: power cap and clocks differ',
    ],
    ['unknown GPU', 'NVIDIA A40', null],
    ['NVIDIA A100-PG509-200', 'NVIDIA A100 SXM4 80GB', null],
    ['Volta QV100', 'Tesla V100-PCIE', 'another GPU model'],
    ['NVIDIA GeForce RTX 2080 SUPER', 'NVIDIA GeForce RTX 2080 Ti', 'another GPU model'],
  ])('%s vs %s', (a, b, why) => {
    expect(deviceDifference(a, b)).toBe(why);
  });

  it('keys: model words without vendor, brand, memory size and type', () => {
    expect(deviceKey('NVIDIA H100 80GB HBM3')).toEqual({ model: 'h100', form: null });
    expect(deviceKey('Quadro RTX 8000')).toEqual({ model: 'rtx 8000', form: null });
  });
});

describe('one power per kernel', () => {
  it(
    'a Kineto kernel with a duration only: predict gives the power annotate gives (the assumed active power), ' +
      'and no band',
    async () => {
      const cal = await loadCalibration(calFile('v100'));
      const table = await readProfile(dlrmKineto, { referenceClockMHz: 1380 });
      const r = predictProfile(cal, table, { referenceClocksMHz: [1380], targetClocksMHz: [1380, 945] });
      expect(r.rows.length).toBeGreaterThan(400);
      for (const row of r.rows) {
        expect(row.basis).toBe('duration');
        expect(row.powerW).toBe(assumedKernelPowerW(cal, row.frequencyMHz).powerW);
        expect(row.energyJP10).toBeNull();
        expect(row.bandMode).toBeNull();
      }
      // Not the zero-utilization power of the fit (126.6 W at 1380 MHz) that predict gave before.
      expect(r.rows.find((x) => x.frequencyMHz === 1380)!.powerW).toBe(250);
      expect(r.totals.every((t) => t.kernelsWithoutBand === new Set(r.rows.map((x) => x.kernel)).size)).toBe(true);
      expect(r.notes.join('\n')).toMatch(/have a duration only .* no band is known for them/);
      expect(r.warnings.join('\n')).toMatch(
        /DEVICE MISMATCH: .* "Tesla V100-SXM2-32GB", the calibration is for "Tesla V100-PCIE"/,
      );
      expect(
        predictProfile(cal, table, { referenceClocksMHz: [1380], targetClocksMHz: [945], deviceMismatch: 'ok' })
          .warnings,
      ).toEqual([]);
      const one = { smClockMHz: 1380, durationNs: 5e4, powerW: null, utilization: {} };
      expect(predictKernelBand(cal, one, 945).band).toBeNull();
      expect(predictKernel(cal, one, 945)).toMatchObject({ basis: 'duration', energyMemoryJ: null, capped: false });
    },
  );
});

describe('physics bounds', () => {
  it('power flags at a clock: above the cap, below the idle power', async () => {
    const cal = await loadCalibration(calFile('rtx8000'));
    const b = boundsAt(cal, 1710);
    expect(b.capW).toBe(260);
    expect(powerFlags(300, b)).toBe(ABOVE_CAP);
    expect(powerFlags(b.idleW! * 0.9, b)).toBe(BELOW_IDLE);
    expect(powerFlags(150, b)).toBe(0);
  });

  it(
    'best energy per FLOP: the roofline of a compute-bound kernel at the most efficient clock; roofline nodes ' +
      'never fall below it',
    async () => {
      const cal = await loadCalibration(calFile('h100-datasheet'));
      const best = bestEnergyPerFlop(cal, 'fp16Tensor')!;
      // 700 W at 989 TFLOP/s is 0.71 pJ/FLOP at the top clock; a lower clock does better, but not below static power /
      // peak.
      expect(best.joulesPerFlop).toBeLessThan(700 / 989e12);
      expect(best.joulesPerFlop).toBeGreaterThan(77.6 / 989e12);
      for (const f of [210, 810, 1980]) {
        const p = estimateFromRoofline(cal, { flops: 1e12, bytes: 1e6, precision: 'fp16Tensor' }, f);
        expect(energyPerFlopFlag(p.energyJ, 1e12, best)).toBe(0);
      }
      expect(energyPerFlopFlag(0.5 * best.joulesPerFlop * 1e12, 1e12, best)).toBe(BELOW_BEST_J_PER_FLOP);
    },
  );
});

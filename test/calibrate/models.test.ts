import { describe, expect, it } from 'vitest';
import { nnls } from '../../src/model/nnls.js';
import { fitClockPower } from '../../src/model/power-model.js';
import { validateCalibration, loadCalibration } from '../../src/model/calibration.js';
import { datasheetCalibration } from '../../src/model/datasheet-calibration.js';
import { estimateFromRoofline, predictKernel } from '../../src/model/predict.js';
import { fitStage, predictStage } from '../../src/model/stage-fit.js';
import { FormatError } from '../../src/errors.js';
import { repoRoot } from '../helpers/shared.js';
import path from 'node:path';

describe('non-negative least squares', () => {
  it('clamps a coefficient that ordinary least squares would make negative', () => {
    const x = [
      [1, 0],
      [1, 1],
      [1, 2],
      [1, 3],
    ];
    const y = [5, 4, 3, 2];
    const b = nnls(x, y);
    expect(b[1]).toBe(0);
    expect(b[0]).toBeCloseTo(3.5, 6);
  });
});

describe('per-clock power fit', () => {
  const pts = Array.from({ length: 30 }, (_, i) => {
    const u = { sm_active: (i % 7) / 7, dram_active: (i % 5) / 5, fp32_active: (i % 3) / 3, tensor_active: 0 };
    return { utilization: u, powerW: 50 + 80 * u.sm_active + 40 * u.dram_active + 30 * u.fp32_active, label: `k${i}` };
  });
  it('recovers the coefficients and reports the constant component', () => {
    const m = fitClockPower(pts, ['sm_active', 'dram_active', 'fp32_active', 'tensor_active'], {
      smClockMHz: 1000,
      memClockMHz: null,
    });
    expect(m.interceptW).toBeCloseTo(50, 3);
    expect(m.coefficientsW.sm_active).toBeCloseTo(80, 3);
    expect(m.dropped).toContainEqual({ component: 'tensor_active', reason: 'constant' });
    expect(m.fit.r2).toBeGreaterThan(0.999);
  });
  it('drops a duplicated (collinear) counter and says so', () => {
    const dup = pts.map((p) => ({
      ...p,
      utilization: { ...p.utilization, sm_occupancy: p.utilization.sm_active * 0.5 },
    }));
    const m = fitClockPower(dup, ['sm_active', 'sm_occupancy', 'dram_active'], { smClockMHz: 1000, memClockMHz: null });
    expect(m.dropped).toContainEqual({ component: 'sm_occupancy', reason: 'collinear', with: 'sm_active' });
  });
});

describe('calibration schema', () => {
  it('names the field of a bad value and refuses another schema version', () => {
    const good = datasheetCalibration('H100');
    expect(() => validateCalibration({ ...good, version: 2 }, 'x.json')).toThrow(/x\.json: version: .*version 1/);
    const bad = structuredClone(good) as any;
    bad.power.perClock[0].coefficientsW.sm_active = -3;
    expect(() => validateCalibration(bad, 'x.json')).toThrow(FormatError);
    expect(() => validateCalibration(bad, 'x.json')).toThrow(/power\.perClock\[0\]\.coefficientsW\.sm_active/);
  });
  it('checks the optional roofline exponent; a file without it (written before it existed) still loads', () => {
    const good = datasheetCalibration('H100');
    expect(good.time.roofExponent).toBeUndefined();
    expect(() => validateCalibration(good, 'x.json')).not.toThrow();
    const withExp = structuredClone(good);
    withExp.time.roofExponent = { exponent: 3, mapePct: 1, additiveMapePct: 1.5, n: 10 };
    expect(() => validateCalibration(withExp, 'x.json')).not.toThrow();
    const bad = structuredClone(withExp) as any;
    bad.time.roofExponent.exponent = 0.5;
    expect(() => validateCalibration(bad, 'x.json')).toThrow(/time\.roofExponent\.exponent: must be ≥ 1/);
  });
  it('loads every shipped calibration file', async () => {
    for (const f of [
      'rtx8000.json',
      'v100.json',
      'a40.json',
      'titanx.json',
      'h100-datasheet.json',
      'a100-datasheet.json',
      'a30-datasheet.json',
    ]) {
      const cal = await loadCalibration(path.join(repoRoot, 'calibration', f));
      expect(cal.power.perClock.length).toBeGreaterThan(0);
    }
  });
});

describe('prediction API', () => {
  const cal = datasheetCalibration('A100');
  it('keeps measured power at the reference clock and returns estimates elsewhere', () => {
    const prof = {
      smClockMHz: 1410,
      durationNs: 1e6,
      powerW: 250,
      utilization: { sm_active: 0.9, tensor_active: 0.5, dram_active: 0.3 },
    };
    const same = predictKernel(cal, prof, 1410);
    expect(same.powerW).toBeCloseTo(250, 6);
    expect(same.durationNs).toBeCloseTo(1e6, 0);
    const low = predictKernel(cal, prof, 900);
    expect(low.durationNs).toBeGreaterThan(1e6);
    expect(low.powerW).toBeLessThan(250);
    expect(low.estimate).toBe(true);
  });
  it('from two profiled clocks uses the calibration roofline exponent (additive without one)', () => {
    const profs = [
      { smClockMHz: 1410, durationNs: 1.0e6, powerW: 250, utilization: { sm_active: 0.9, dram_active: 0.8 } },
      { smClockMHz: 705, durationNs: 1.6e6, powerW: 150, utilization: { sm_active: 0.9, dram_active: 0.5 } },
    ];
    const additive = predictKernel(cal, profs, 1000).durationNs;
    const b = (1.6e6 - 1.0e6) / (1 / 705 - 1 / 1410);
    expect(additive).toBeCloseTo(1.0e6 - b / 1410 + b / 1000, -1);
    const sharp = structuredClone(cal);
    sharp.time.roofExponent = { exponent: 4, mapePct: 1, additiveMapePct: 2, n: 1 };
    const t = predictKernel(sharp, profs, 1000).durationNs;
    expect(t).toBeLessThan(additive);
    expect(t).toBeGreaterThan(1.0e6);
    expect(predictKernel(sharp, profs, 705).durationNs).toBeCloseTo(1.6e6, -1);
  });
  it('estimates a kernel with no profile from its FLOPs and bytes (roofline)', () => {
    const r = estimateFromRoofline(cal, { flops: 312e12 * 1e-3, bytes: 1e6, precision: 'fp16Tensor' }, 1410);
    expect(r.durationNs).toBeGreaterThan(1e6);
    expect(r.durationNs).toBeLessThan(1.01e6);
    expect(r.powerW).toBeGreaterThan(cal.datasheet!.idlePowerW);
    expect(r.powerW).toBeLessThanOrEqual(cal.datasheet!.tdpW);
  });
  it('stops at the power cap instead of extrapolating through it', () => {
    const pts = [900, 1200, 1500].map((f) => ({
      smClockMHz: f,
      durationNs: 1e5 + 1e8 / f,
      powerW: Math.min(300, 60 + 1e-4 * f * f),
    }));
    const fit = fitStage(pts, 300);
    const hi = predictStage(fit, 1800);
    expect(hi.powerW).toBeLessThanOrEqual(300);
    expect(hi.effectiveClockMHz).toBeLessThan(1800);
  });
});

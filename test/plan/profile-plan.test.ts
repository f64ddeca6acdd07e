/**
 * `planProfile`, the library function behind `tracewatt plan --profile` (the twin of `planTrace`): what it reads and
 * says besides the plan. The plans themselves are held against Perseus' published savings in perseus.test.ts and
 * fit.test.ts (through planFor, which calls it).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCalibration } from '../../src/engines/calibrate/index.js';
import { planProfile } from '../../src/engines/plan/index.js';
import { repoRoot } from '../helpers/shared.js';
import { A40_BLOCKING_W, stageProfile } from './perseus.js';

const base = {
  file: stageProfile('gpt3-175b'),
  stages: 8,
  microBatches: 12,
  schedule: '1f1b' as const,
  blockingPowerW: A40_BLOCKING_W,
  points: 20,
};

describe('planProfile', () => {
  it('plans the measured options: source names the file and its clocks; the read is reported before planning', async () => {
    const reads: number[] = [];
    const r = await planProfile({ ...base, onRead: (t) => reads.push(t.samples.length) });
    expect(reads).toHaveLength(1);
    expect(reads[0]).toBeGreaterThan(0);
    expect(r.label).toBe('gpt3-175b+a40_bf16.csv');
    expect(r.source.mode).toBe('profile');
    expect(r.source.file).toBe(base.file);
    expect(r.source.clocksMHz.length).toBeGreaterThan(2);
    expect(r.source.clocksMHz).toEqual([...r.source.clocksMHz].sort((a, b) => a - b));
    expect(r.notes.join('\n')).not.toMatch(/floored|modelled from/);
  });
  it('takes the power cap of --fit-frequencies from a calibration as from the figure itself, and says so', async () => {
    const calibration = path.join(repoRoot, 'calibration', 'a40.json');
    const capW = (await loadCalibration(calibration)).powerCap.powerW!;
    const fit = [855, 1305, 1740];
    const a = await planProfile({ ...base, fit: { clocksMHz: fit, calibration } });
    const b = await planProfile({ ...base, fit: { clocksMHz: fit, powerCapW: capW } });
    expect(a.source).toEqual(b.source);
    expect(a.source.mode).toBe('fit');
    expect(a.source.fitClocksMHz).toEqual(fit);
    expect(a.intrinsic).toEqual(b.intrinsic);
    expect(a.notes).toContain(
      `options at 60 clocks modelled from 855, 1305, 1740 MHz (t = A + B/f, P quadratic in f per stage and ` +
        `pass; power cap ${capW.toFixed(1)} W)`,
    );
  });
  it("floors times to Perseus' quantum when asked, and says the iterations look shorter", async () => {
    const r = await planProfile({ ...base, timeQuantumS: 0.0001 });
    const plain = await planProfile(base);
    expect(r.baseline.timeS).toBeLessThanOrEqual(plain.baseline.timeS);
    expect(r.notes.some((n) => n.includes('floored to a multiple of 0.0001 s'))).toBe(true);
  });
});

/**
 * Idle power from physics (issue 24): every shipped calibration carries an idle block with its source, never the
 * active fit's intercept; measured figures equal the measurement files' own samples; other clocks follow static ∝ V.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  idleRows,
  loadCalibration,
  measuredIdle,
  readIdleMeasurement,
  validateCalibration,
} from '../../src/engines/calibrate/index.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { FormatError } from '../../src/errors.js';
import { idlePowerAt } from '../../src/model/idle-power.js';
import { voltageAt } from '../../src/model/vf-model.js';
import { describeShared, fixturePath, repoRoot, shared, vendored } from '../helpers/shared.js';

const calFile = (name: string) => path.join(repoRoot, 'calibration', `${name}.json`);
const SHIPPED = ['v100', 'rtx8000', 'a40', 'titanx', 'h100-datasheet', 'a100-datasheet'];
const h200Log = path.join(repoRoot, 'traces', 'pytorch-real', 'h200-gpt', 'nvidia-smi.csv');

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

describe('idle block of the shipped calibrations', () => {
  it.each(SHIPPED)('%s: an idle block with a source sentence', async (name) => {
    const cal = await loadCalibration(calFile(name));
    expect(cal.idle, name).toBeDefined();
    expect(cal.idle!.source.length).toBeGreaterThan(40);
    expect(['measured', 'published']).toContain(cal.idle!.basis);
  });

  it(
    'V100: 34 W at 1380 MHz and static ∝ V below it (28.9 W at and below the V–f knee), not the 126.6 W ' + 'intercept',
    async () => {
      const cal = await loadCalibration(calFile('v100'));
      expect(cal.power.perClock.at(-1)!.interceptW).toBeCloseTo(126.6, 1);
      expect(idlePowerAt(cal, 1380)!.powerW).toBe(34);
      const v = (f: number) => voltageAt(cal.vf!, f);
      for (const f of [405, 705, 1087, 1237]) expect(idlePowerAt(cal, f)!.powerW).toBeCloseTo((34 * v(f)) / v(1380), 9);
      expect(idlePowerAt(cal, 405)!.powerW).toBeCloseTo(28.876, 3);
      expect(idlePowerAt(cal, 1237)!.how).toMatch(/34 W at 1380 MHz scaled to 1237 MHz ∝ V/);
    },
  );
});

describeShared('idle figures against the measurements (NV-DVFS-Benchmark, ../shared)', () => {
  it('V100: below every kernel measured at each clock (a kernel cannot draw less than the GPU doing nothing)', async () => {
    const cal = await loadCalibration(calFile('v100'));
    const t = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'v100-dvfs-microbenchmark-profile.csv'));
    for (const f of cal.clocks.smClocksMHz) {
      const lowest = Math.min(...t.samples.filter((s) => s.smClockMHz === f).map((s) => s.powerW!));
      expect(idlePowerAt(cal, f)!.powerW, `${f} MHz`).toBeLessThan(lowest);
    }
    // The intercept is not: at 1380 MHz it is above the lowest kernel measured there (98 W).
    const at1380 = Math.min(...t.samples.filter((s) => s.smClockMHz === 1380).map((s) => s.powerW!));
    expect(at1380).toBeCloseTo(98.0, 0);
    expect(cal.power.perClock.at(-1)!.interceptW).toBeGreaterThan(at1380);
  });
});

describe('idle figures against the measurements (vendored gpmTOOL tables)', () => {
  it("Titan X: the idle rows of gpmTOOL, clock by clock, at the calibration's memory clock", async () => {
    const cal = await loadCalibration(calFile('titanx'));
    const file = vendored('profiles', 'guerreiro-gpmtool', 'titanx_micro_peak_idle_HPCAandCF.csv');
    // The file itself: rows "power,core,mem,<8 utilizations>" with every utilization 0 are the idle rows.
    const rows = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .slice(4)
      .map((l) => l.split(',').map(Number));
    const idle = rows.filter((r) => r.slice(3).every((u) => u === 0) && r[2] === 4005);
    expect(idle).toHaveLength(16);
    for (const [p, core] of idle) expect(idlePowerAt(cal, core!)!.powerW, `${core} MHz`).toBe(p);
    expect(cal.idle!.perClock).toHaveLength(64);
    expect(idleRows(await readProfile(file))).toHaveLength(64);
  });
});

describe("idle from the project's H200 nvidia-smi log", () => {
  it('the median of the 0 % utilization samples per SM clock, as the log says them', async () => {
    const m = await readIdleMeasurement(h200Log);
    expect(m.device).toBe('NVIDIA H200');
    // The log's own lines: "ts, 0, NVIDIA H200, 118.23 W, 1980 MHz, 3201 MHz, 0 %".
    const lines = readFileSync(h200Log, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(', '));
    const idle = lines.filter((f) => f[6] === '0 %');
    for (const clock of [345, 1980]) {
      const w = idle.filter((f) => f[4] === `${clock} MHz`).map((f) => parseFloat(f[3]!));
      const p = m.points.find((x) => x.smClockMHz === clock)!;
      expect(p.samples).toBe(w.length);
      expect(p.powerW).toBeCloseTo(median(w), 6);
    }
    expect(m.points.map((p) => p.smClockMHz)).toEqual([345, 1980]);
  });

  it('h100-datasheet.json holds it; between the points static ∝ V interpolates', async () => {
    const cal = await loadCalibration(calFile('h100-datasheet'));
    const m = measuredIdle(await readIdleMeasurement(h200Log), null);
    expect(cal.idle!.perClock).toEqual(m.perClock);
    expect(cal.idle!.basis).toBe('measured');
    expect(cal.idle!.source).toMatch(/NVIDIA H200, taken for NVIDIA H100 SXM5 \(--device-mismatch ok\)/);
    expect(idlePowerAt(cal, 1980)!.powerW).toBe(118.22);
    expect(cal.power.perClock[0]!.interceptW).toBe(118.22);
    const v = (f: number) => voltageAt(cal.vf!, f);
    const w = (810 - 345) / (1980 - 345);
    const reduced = 77.6 / v(345) + w * (118.22 / v(1980) - 77.6 / v(345));
    expect(idlePowerAt(cal, 810)!.powerW).toBeCloseTo(reduced * v(810), 9);
  });

  it('a log with no idle sample, or a power log without clocks, is refused naming the file', async () => {
    await expect(
      readIdleMeasurement(fixturePath('profiles', 'ml-energy__zeus__zeus_monitor_sample.csv')),
    ).rejects.toThrow(/zeus_monitor_sample\.csv: .*no utilization or clock columns/);
  });
});

describe('idle block validation', () => {
  it('names the offending field', async () => {
    const doc = JSON.parse(readFileSync(calFile('v100'), 'utf8'));
    for (const [patch, field] of [
      [{ powerW: -1 }, 'idle.powerW'],
      [{ source: '' }, 'idle.source'],
      [{ basis: 'fit' }, 'idle.basis'],
      [{ perClock: [] }, 'idle.perClock'],
      [{ perClock: [{ smClockMHz: 1380, memClockMHz: null, powerW: 'x', samples: 1 }] }, 'idle.perClock[0].powerW'],
    ] as const) {
      const bad = { ...doc, idle: { ...doc.idle, ...patch } };
      expect(() => validateCalibration(bad, 'x.json'), field).toThrow(FormatError);
      expect(() => validateCalibration(bad, 'x.json'), field).toThrow(
        new RegExp(`x\\.json: ${field.replace(/[[\].]/g, '\\$&')}: `),
      );
    }
    // Files written before idle blocks load, and the datasheet's figure stands in, said so.
    const { idle: _, ...old } = doc;
    const cal = validateCalibration(old, 'old.json');
    expect(idlePowerAt(cal, 1380)!.source).toMatch(/predates idle blocks: re-run tracewatt calibrate/);
  });
});

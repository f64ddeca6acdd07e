/**
 * The calibrate, predict and accuracy commands through runCli with a captured io, on small synthetic
 * nv-dvfs-benchmark tables written to a temporary folder (the numbers are known, so the outputs can be checked),
 * plus the bad inputs issue 3 names: a calibration file of another schema version, a clock with fewer rows than
 * coefficients, collinear counters.
 */
import { existsSync, statSync, symlinkSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliArgs as cli } from '../helpers/cli.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { calibrationOnlyAccuracy } from '../../src/engines/calibrate/accuracy.js';
import { fitCalibration, readCalibrateInput, sha256File } from '../../src/engines/calibrate/calibrate.js';

const HEADER =
  'DRAMA,FP16A,FP32A,FP64A,SMACT,SMOCC,TENSO,argNo,average_power,benchmark,core_frequency,kernel,memory_frequency,time';

interface SynthKernel {
  name: string;
  dram: number;
  fp32: number;
  sm: number;
  occ: number;
  /** Clock-independent share of the time. */
  share: number;
  /** Time at the highest clock, ms. */
  t0Ms: number;
}

const CLOCKS = [900, 1200, 1500];
const F_MAX = 1500;

/** Synthetic truth: t(f) = t0·(a + (1 − a)·f_max/f); P = 40 + (f/1000)²·(30·sm + 60·fp32(f)) + 50·dram(f). */
function rowsFor(k: SynthKernel, clocks: number[], opts: { occ?: (k: SynthKernel) => number } = {}): string[] {
  return clocks.map((f) => {
    const t = k.t0Ms * (k.share + (1 - k.share) * (F_MAX / f));
    const dram = (k.dram * k.t0Ms) / t;
    const fp32 = (k.fp32 * k.t0Ms * F_MAX) / (t * f);
    const g = f / 1000;
    const p = 40 + g * g * (30 * k.sm + 60 * fp32) + 50 * dram;
    const occ = opts.occ ? opts.occ(k) : k.occ;
    return [dram, 0, fp32, 0, k.sm, occ, 0, 'input000', p, 'synth', f, k.name, 6500, t].join(',');
  });
}

// 16 kernels: enough rows per clock (≥ 3 per unknown) for a plain NNLS fit without ridge; counters not collinear.
const KERNELS: SynthKernel[] = Array.from({ length: 16 }, (_, i) => ({
  name: `k${i}`,
  dram: 0.05 + 0.05 * i,
  fp32: 0.1 + (0.5 * ((i * 5) % 16)) / 15,
  sm: 0.6 + 0.03 * (i % 5),
  occ: 0.3 + 0.05 * ((i * 7) % 9),
  share: i / 20,
  t0Ms: 1 + 0.25 * i,
}));

let dir: string;
let calibFile: string;
let profileFile: string;
let kernelProfileFile: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-cal-'));
  calibFile = path.join(dir, 'synth-calibration-profile.csv');
  await writeFile(calibFile, `${[HEADER, ...KERNELS.flatMap((k) => rowsFor(k, CLOCKS))].join('\n')}\n`);
  profileFile = path.join(dir, 'synth-kernels.csv');
  const apps: SynthKernel[] = [
    { name: 'appA', dram: 0.2, fp32: 0.6, sm: 0.9, occ: 0.8, share: 0.1, t0Ms: 2 },
    { name: 'appB', dram: 0.6, fp32: 0.2, sm: 0.7, occ: 0.5, share: 0.5, t0Ms: 3 },
  ];
  await writeFile(profileFile, `${[HEADER, ...apps.flatMap((k) => rowsFor(k, CLOCKS))].join('\n')}\n`);
  kernelProfileFile = path.join(dir, 'synth-kernels-1500-only.csv');
  await writeFile(kernelProfileFile, `${[HEADER, ...apps.flatMap((k) => rowsFor(k, [1500]))].join('\n')}\n`);
});

describe('tracewatt calibrate', () => {
  it('writes a calibration that validates, with one power model per clock, and prints the fit table', async () => {
    const out = path.join(dir, 'cal.json');
    const r = await cli('calibrate', calibFile, '--out', out, '--device', 'Synthetic GPU');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Synthetic GPU: 3 clock models/);
    expect(r.out).toMatch(/SM clock \(MHz\)/);
    const cal = JSON.parse(await readFile(out, 'utf8'));
    expect(cal.schema).toBe('tracewatt-calibration');
    expect(cal.clocks.smClocksMHz).toEqual(CLOCKS);
    expect(cal.provenance.inputs[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(cal.provenance.inputs[0].rows).toBe(KERNELS.length * CLOCKS.length);
    // The synthetic power is linear in the counters at each clock: the fit is (near) exact.
    for (const m of cal.power.perClock) expect(m.fit.mapePct).toBeLessThan(1);
  });

  it('--json prints the calibration document', async () => {
    const r = await cli('calibrate', calibFile, '--out', path.join(dir, 'cal2.json'), '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.version).toBe(1);
    expect(j.power.perClock).toHaveLength(3);
  });

  it('refuses to run without a profile', async () => {
    const r = await cli('calibrate', '--out', path.join(dir, 'none.json'));
    expect(r.code).toBe(2);
  });
});

describe('tracewatt predict', () => {
  let cal: string;
  beforeAll(async () => {
    cal = path.join(dir, 'cal-predict.json');
    expect((await cli('calibrate', calibFile, '--out', cal)).code).toBe(0);
  });
  /** `predict --calibration <cal> --profile <kernel profile> …more`. */
  const predict = (...more: string[]) => cli('predict', '--calibration', cal, '--profile', kernelProfileFile, ...more);

  it('--json: every kernel at every requested clock; the reference clock keeps the measured time and power', async () => {
    const r = await predict('--reference-frequency', '1500', '--frequencies', '900,1200,1500', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.kind).toBe('prediction');
    expect(j.rows).toHaveLength(6);
    const table = await readProfile(kernelProfileFile);
    for (const s of table.samples) {
      const at = j.rows.find(
        (x: { kernel: string; frequencyMHz: number }) => x.kernel === s.kernelName && x.frequencyMHz === 1500,
      );
      expect(at.durationNs).toBeCloseTo(s.durationNs!, 0);
      expect(at.powerW).toBeCloseTo(s.powerW!, 6);
      expect(at.energyJ).toBeCloseTo((s.powerW! * s.durationNs!) / 1e9, 9);
      const low = j.rows.find(
        (x: { kernel: string; frequencyMHz: number }) => x.kernel === s.kernelName && x.frequencyMHz === 900,
      );
      expect(low.durationNs).toBeGreaterThan(at.durationNs);
      expect(low.powerW).toBeLessThan(at.powerW);
    }
  });

  it('--csv prints a header and one line per kernel × clock; the default targets are the calibrated clocks', async () => {
    const r = await predict('--reference-frequency', '1500', '--csv');
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toBe(
      'kernel,smClockMHz,effectiveSmClockMHz,durationNs,powerW,energyJ,capped,durationNsP10,durationNsP90,powerWP10,powerWP90,energyJP10,energyJP90,bandMode,basis',
    );
    expect(lines).toHaveLength(1 + 2 * CLOCKS.length);
  });

  it('names the problem when no kernel was measured at the reference clock, and rejects a malformed clock list', async () => {
    const r = await predict('--reference-frequency', '1000');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/reference clock\(s\) 1000 MHz/);
    const bad = await predict('--reference-frequency', '15oo');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--reference-frequency: expected MHz values/);
  });
});

describe('tracewatt accuracy', () => {
  let cal: string;
  beforeAll(async () => {
    cal = path.join(dir, 'cal-accuracy.json');
    expect((await cli('calibrate', calibFile, '--out', cal)).code).toBe(0);
  });
  /** `accuracy --calibration <cal> --profile <profile> …more`. */
  const accuracyOf = (...more: string[]) => cli('accuracy', '--calibration', cal, '--profile', profileFile, ...more);

  it('--reference-frequency --json: per-clock rows with the issue keys, other clocks as ground truth', async () => {
    const r = await accuracyOf('--reference-frequency', '1500', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.mode).toBe('reference');
    expect(j.frequencies.map((x: { frequencyMHz: number }) => x.frequencyMHz)).toEqual([900, 1200]);
    for (const row of j.frequencies) {
      for (const k of [
        'frequencyMHz',
        'timeErrorPct',
        'powerErrorPct',
        'energyErrorPct',
        'totalTimeErrorPct',
        'totalEnergyErrorPct',
        'n',
      ])
        expect(row).toHaveProperty(k);
      expect(row.n).toBe(2);
    }
    expect(j.alternativeScaling.scaling).toBe('offset');
  });

  it('two reference clocks: t = A + B/f is exact on synthetic two-part kernels', async () => {
    const r = await accuracyOf('--reference-frequency', '1500,900', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.frequencies).toHaveLength(1);
    expect(j.frequencies[0].frequencyMHz).toBe(1200);
    expect(j.frequencies[0].timeErrorPct).toBeLessThan(1e-6);
  });

  it('prints the AstraWattch table', async () => {
    const r = await accuracyOf('--reference-frequency', '1500', '--wide');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/SM clock \(MHz\)\s+time MAPE \(%\)\s+power MAPE \(%\)\s+energy MAPE \(%\)/);
    expect(r.out).toMatch(/with offset scaling/);
  });

  it('--calibration-only: leave-one-frequency-out per clock and leave-one-kernel-out rows, without --calibration', async () => {
    const r = await cli('accuracy', '--calibration-only', '--profile', calibFile, '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.mode).toBe('calibration-only');
    expect(j.leaveOneFrequencyOut.map((x: { frequencyMHz: number }) => x.frequencyMHz)).toEqual(CLOCKS);
    for (const x of j.leaveOneFrequencyOut) expect(x.n).toBe(KERNELS.length);
    // Leave-one-kernel-out: every kernel predicted from its highest clock to the two others.
    expect(j.frequencies.map((x: { frequencyMHz: number }) => x.frequencyMHz)).toEqual([900, 1200]);
    for (const x of j.frequencies) expect(x.n).toBe(KERNELS.length);
    const text = await cli('accuracy', '--calibration-only', '--profile', calibFile);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/leave-one-frequency-out power error/);
  });

  it('option errors are named', async () => {
    const r = await cli('accuracy', '--profile', profileFile, '--reference-frequency', '1500');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--calibration is required/);
    const both = await accuracyOf('--reference-frequency', '1500', '--fit-frequencies', '900,1200');
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/either --reference-frequency or --fit-frequencies/);
    const sc = await accuracyOf('--reference-frequency', '1500', '--scaling', 'linear');
    expect(sc.code).toBe(2);
    // A choice the table does not list: one line naming the choices, exit 2.
    expect(sc.err).toBe('tracewatt: error: --scaling: expected one of ratio, offset, got "linear"\n');
  });
});

describe('calibrationOnlyAccuracy (engine)', () => {
  it('leave-one-frequency-out gives a finite power error for every clock, from the models of the other clocks', async () => {
    const table = await readProfile(calibFile);
    const r = calibrationOnlyAccuracy([{ file: calibFile, table, sha256: await sha256File(calibFile) }]);
    const byF = new Map(r.leaveOneFrequencyOut!.map((x) => [x.frequencyMHz, x.powerErrorPct]));
    expect(byF.size).toBe(3);
    for (const v of byF.values()) expect(Number.isFinite(v)).toBe(true);
    // Leave-one-kernel-out time errors: the model's share is fitted without the kernel; errors stay bounded.
    expect(r.frequencies.every((x) => x.timeErrorPct < 50)).toBe(true);
  });

  it('maxKernels thins the leave-one-kernel-out set evenly', async () => {
    const table = await readProfile(calibFile);
    const r = calibrationOnlyAccuracy([{ file: calibFile, table, sha256: await sha256File(calibFile) }], {
      maxKernels: 4,
    });
    for (const x of r.frequencies) expect(x.n).toBe(4);
  });
});

describe('bad input', () => {
  it.runIf(existsSync('/dev/full'))(
    'a full disk (ENOSPC): one line naming the file, exit 2, the previous calibration untouched',
    async () => {
      const out = path.join(dir, 'cal-full.json');
      expect((await cli('calibrate', calibFile, '--out', out)).code).toBe(0);
      const before = await readFile(out, 'utf8');
      const inode = statSync(out).ino;
      // The temporary file leads to /dev/full: every write to it fails with ENOSPC. (Before: exit 3, a 0-byte file.)
      symlinkSync('/dev/full', `${out}.tmp`);
      const r = await cli('calibrate', calibFile, '--out', out, '--device', 'Other GPU');
      expect(r.code).toBe(2);
      // The profile's notes, then the one error line.
      expect(r.err.endsWith(`tracewatt: error: ${out}: cannot write (ENOSPC)\n`), r.err).toBe(true);
      expect(r.err.split('\n').filter((l) => l.startsWith('tracewatt:'))).toHaveLength(1);
      expect(await readFile(out, 'utf8')).toBe(before);
      expect(statSync(out).ino).toBe(inode);
      expect(existsSync(`${out}.tmp`) || existsSync(`${out}.lock`)).toBe(false);
    },
  );

  it('a calibration file of another schema version: refused, naming the file and the field', async () => {
    const good = path.join(dir, 'cal-version.json');
    expect((await cli('calibrate', calibFile, '--out', good)).code).toBe(0);
    const doc = JSON.parse(await readFile(good, 'utf8'));
    const old = path.join(dir, 'cal-version-0.json');
    await writeFile(old, JSON.stringify({ ...doc, version: 0 }));
    for (const argv of [
      ['accuracy', '--calibration', old, '--profile', profileFile, '--reference-frequency', '1500'],
      ['predict', '--calibration', old, '--profile', kernelProfileFile, '--reference-frequency', '1500'],
    ]) {
      const r = await cli(...argv);
      expect(r.code).toBe(2);
      expect(r.err).toContain(old);
      expect(r.err).toMatch(
        /: version: this tracewatt reads calibration schema version 1, found 0; re-run tracewatt calibrate/,
      );
    }
    const wrongKind = path.join(dir, 'not-a-calibration.json');
    await writeFile(wrongKind, JSON.stringify({ ...doc, schema: 'something-else' }));
    const r = await cli(
      'predict',
      '--calibration',
      wrongKind,
      '--profile',
      kernelProfileFile,
      '--reference-frequency',
      '1500',
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/not-a-calibration\.json: schema: expected tracewatt-calibration, found/);
  });

  it(
    'a clock with fewer rows than coefficients: components dropped (named), the file rows named, the fit still ' +
      'made',
    async () => {
      // 600 MHz holds only 3 kernels: 3 rows for up to 5 coefficients (intercept + 4 varying counters).
      const file = path.join(dir, 'few-rows.csv');
      await writeFile(
        file,
        [
          HEADER,
          ...KERNELS.flatMap((k) => rowsFor(k, CLOCKS)),
          ...KERNELS.slice(0, 3).flatMap((k) => rowsFor(k, [600])),
        ].join('\n') + `\n`,
      );
      const { calibration, diagnostics } = fitCalibration([await readCalibrateInput(file)]);
      const m600 = calibration.power.perClock.find((m) => m.smClockMHz === 600)!;
      expect(m600.fit.n).toBe(3);
      const tooFew = m600.dropped.filter((d) => d.reason === 'too-few-rows').map((d) => d.component);
      expect(tooFew.length).toBeGreaterThan(0);
      expect(Object.keys(m600.coefficientsW).length).toBeLessThanOrEqual(1);
      const finding = diagnostics.summary().find((d) => d.code === 'COMPONENT_TOO_FEW_ROWS')!;
      expect(finding.count).toBe(tooFew.length);
      const msg =
        /^600 MHz: 3 rows for (\d) coefficients \(intercept \+ (\d) components; a fit needs one row more than it has coefficients\): field (\w+) dropped/.exec(
          finding.samples[0]!.message,
        );
      expect(msg).not.toBeNull();
      expect(Number(msg![1])).toBeGreaterThanOrEqual(3);
      expect(tooFew).toContain(msg![3]);
      expect(finding.samples[0]!.file).toMatch(/few-rows\.csv: rows \d+, \d+, \d+/);
      // The same finding reaches the calibration file and the calibrate command's output.
      const sanity = calibration.sanity.find((s) => s.code === 'COMPONENT_TOO_FEW_ROWS')!;
      expect(sanity.examples[0]).toMatch(/few-rows\.csv: rows \d+, \d+, \d+: 600 MHz: 3 rows for \d coefficients/);
      const r = await cli('calibrate', file, '--out', path.join(dir, 'few.json'));
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/COMPONENT_TOO_FEW_ROWS \(e\.g\. .*few-rows\.csv: rows \d+, \d+, \d+/);
    },
  );

  it('a clock with a single row: no model there, said so with the row', async () => {
    const file = path.join(dir, 'one-row.csv');
    await writeFile(
      file,
      `${[HEADER, ...KERNELS.flatMap((k) => rowsFor(k, CLOCKS)), ...rowsFor(KERNELS[0]!, [600])].join('\n')}\n`,
    );
    const { calibration, diagnostics } = fitCalibration([await readCalibrateInput(file)]);
    expect(calibration.clocks.smClocksMHz).toEqual(CLOCKS);
    const d = diagnostics.summary().find((x) => x.code === 'CLOCK_TOO_FEW_ROWS')!;
    expect(d.samples[0]!.message).toMatch(/^600 MHz: 1 row with power, a power model needs at least 2/);
    expect(d.samples[0]!.file).toMatch(/one-row\.csv: row 50$/);
  });

  it('collinear counters: the duplicate is dropped at every clock and named with its partner', async () => {
    const file = path.join(dir, 'collinear.csv');
    await writeFile(
      file,
      `${[HEADER, ...KERNELS.flatMap((k) => rowsFor(k, CLOCKS, { occ: (x) => x.sm * 0.8 }))].join('\n')}\n`,
    );
    const { calibration, diagnostics } = fitCalibration([await readCalibrateInput(file)]);
    for (const m of calibration.power.perClock) {
      expect(m.dropped).toContainEqual({ component: 'sm_occupancy', reason: 'collinear', with: 'sm_active' });
      expect(m.coefficientsW).not.toHaveProperty('sm_occupancy');
      expect(m.fit.mapePct).toBeLessThan(1);
    }
    const d = diagnostics.summary().find((x) => x.code === 'COMPONENT_COLLINEAR')!;
    expect(d.count).toBe(CLOCKS.length);
    expect(d.samples[0]!.message).toMatch(
      /^900 MHz: field sm_occupancy dropped: collinear with sm_active \(\|correlation\| > 0\.995 over 16 rows\)/,
    );
    expect(d.samples[0]!.file).toMatch(/collinear\.csv: rows \d+, \d+, \d+, … \(16 rows\)$/);
  });
});

describe('accuracy --fit-frequencies on a shipped Perseus sweep', () => {
  it('prints the optimal-clock deviation and the excess energy it costs, as in --json', async () => {
    const args = [
      'accuracy',
      '--calibration',
      'calibration/a40.json',
      '--profile',
      'calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv',
      '--fit-frequencies',
      '855,1155,1455',
    ];
    const j = JSON.parse((await cli(...args, '--json')).out);
    const opt = j.energyOptimal;
    expect(opt.kernels.length).toBeGreaterThan(0);
    expect(opt.meanExcessEnergyPct).toBeGreaterThanOrEqual(0);
    expect(opt.maxExcessEnergyPct).toBeGreaterThanOrEqual(opt.meanExcessEnergyPct);
    const text = await cli(...args);
    expect(text.code).toBe(0);
    expect(text.out).toContain(`mean deviation ${opt.meanDeviationMHz.toFixed(1)} MHz`);
    expect(text.out).toContain(
      `${opt.meanExcessEnergyPct.toFixed(2)}% above the measured optimum on average (max ` +
        `${opt.maxExcessEnergyPct.toFixed(2)}%)`,
    );
  });
});

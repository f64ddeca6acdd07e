/**
 * Review fixes in the calibration area, through runCli on real files where they exist:
 * - target clocks above the device's maximum are refused; the datasheet TDP is the cap when the data show none;
 * - provenance hashes are real (no placeholder);
 * - the shared profile options (--mapping, --power …) reach the readers, and the readers' notes reach stderr;
 * - counter-free fit tables print "—" for R².
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliArgs as cli } from '../helpers/cli.js';
import { Diagnostics } from '../../src/diagnostics.js';
import { fitCalibration, readCalibrateInput } from '../../src/engines/calibrate/calibrate.js';
import { InputError } from '../../src/errors.js';
import { integratePower, readPowerSeries, readProfile } from '../../src/formats/profiles/index.js';
import { loadCalibration, maxSmClock } from '../../src/model/calibration.js';
import { DATASHEETS } from '../../src/model/datasheets.js';
import { predictKernel } from '../../src/model/predict.js';
import { describeShared, perseusStages, repoRoot, shared } from '../helpers/shared.js';
import { fixture } from '../profiles/helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-limits-'));
});

const RTX_CAL = path.join(repoRoot, 'calibration', 'rtx8000.json');
const H100_CAL = path.join(repoRoot, 'calibration', 'h100-datasheet.json');

describe('clock range and datasheet power cap (shipped calibrations)', () => {
  it('maxSmClock: the datasheet maximum, which is not below the calibrated clocks', async () => {
    const cal = await loadCalibration(RTX_CAL);
    const max = maxSmClock(cal);
    expect(max.source).toBe('datasheet');
    expect(max.mhz).toBe(cal.datasheet!.maxSmClockMHz);
    expect(max.mhz).toBeGreaterThanOrEqual(Math.max(...cal.clocks.smClocksMHz));
  });

  it('predictKernel refuses clocks above the maximum; at the maximum power stays at or below the cap', async () => {
    const cal = await loadCalibration(RTX_CAL);
    const top = Math.max(...cal.clocks.smClocksMHz);
    const profile = {
      smClockMHz: top,
      durationNs: 1e6,
      powerW: 0.97 * cal.datasheet!.tdpW,
      utilization: { sm_active: 0.95, fp32_active: 0.7, dram_active: 0.5 },
    };
    for (const f of [2500, 99999]) expect(() => predictKernel(cal, profile, f)).toThrow(InputError);
    expect(() => predictKernel(cal, profile, 2500)).toThrow(
      /2500 MHz is outside the SM clock range of Quadro RTX 8000, 705–1770 MHz \(lowest: the lowest calibrated clock; highest: datasheet maxSmClockMHz\)/,
    );
    const p = predictKernel(cal, profile, cal.datasheet!.maxSmClockMHz);
    expect(cal.powerCap.source).toBe('datasheet');
    expect(cal.powerCap.powerW).toBe(cal.datasheet!.tdpW);
    expect(p.powerW).toBeLessThanOrEqual(cal.powerCap.powerW! + 1e-9);
  });
});

describe('fitCalibration: cap fallback, provenance, clock limit without a datasheet', () => {
  const HEADER =
    'DRAMA,FP16A,FP32A,FP64A,SMACT,SMOCC,TENSO,argNo,average_power,benchmark,core_frequency,kernel,memory_frequency,time';
  let file: string;
  beforeAll(async () => {
    // 8 kernels × 3 clocks; power linear in the counters, well below any TDP.
    const rows: string[] = [];
    for (let i = 0; i < 8; i++)
      for (const f of [900, 1200, 1500]) {
        const dram = 0.1 + 0.08 * i;
        const fp32 = 0.2 + 0.05 * ((i * 3) % 8);
        rows.push(
          [
            dram,
            0,
            fp32,
            0,
            0.9,
            0.5 + 0.03 * i,
            0,
            'input000',
            40 + (f / 1000) * (50 * fp32 + 20) + 30 * dram,
            'synth',
            f,
            `k${i}`,
            6500,
            (1 + i * 0.1) * (1500 / f),
          ].join(','),
        );
      }
    file = path.join(dir, 'synth.csv');
    await writeFile(file, `${[HEADER, ...rows].join('\n')}\n`);
  });

  it('no cap in the data: the datasheet TDP when the device has a datasheet, none otherwise', async () => {
    const input = await readCalibrateInput(file);
    const rtx = DATASHEETS.find((d) => d.match.test('Quadro RTX 8000'))!;
    const withDs = fitCalibration([input], { device: 'Quadro RTX 8000' }).calibration;
    expect(withDs.powerCap).toMatchObject({ detected: false, powerW: rtx.facts.tdpW, source: 'datasheet' });
    expect(withDs.powerCap.evidence).toMatch(/datasheet TDP/);
    const without = fitCalibration([input], { device: 'Synthetic GPU' }).calibration;
    expect(without.powerCap).toMatchObject({ powerW: null, source: 'none' });
    // No datasheet: the highest calibrated clock is the limit.
    expect(maxSmClock(without)).toEqual({ mhz: 1500, source: 'calibrated' });
    const prof = {
      smClockMHz: 1500,
      durationNs: 1e6,
      powerW: 100,
      utilization: { dram_active: 0.3, fp32_active: 0.4 },
    };
    expect(() => predictKernel(without, prof, 1600)).toThrow(/highest calibrated clock/);
    expect(predictKernel(without, prof, 1500).powerW).toBeCloseTo(100, 9);
  });

  it('provenance holds the SHA-256 of the file; an input without a real hash is refused', async () => {
    const input = await readCalibrateInput(file);
    const expected = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
    const cal = fitCalibration([input]).calibration;
    expect(cal.provenance.inputs[0]!.sha256).toBe(expected);
    expect(cal.provenance.inputs[0]!.rows).toBe(input.table.samples.length);
    expect(() => fitCalibration([{ file, table: input.table } as never])).toThrow(InputError);
    expect(() => fitCalibration([{ ...input, sha256: 'not-a-hash' }])).toThrow(/SHA-256/);
  });

  it('predict: a target above the limit is exit 2 before the profile is read; a bad clock list is named', async () => {
    const calFile = path.join(dir, 'synth-cal.json');
    expect((await cli('calibrate', file, '--out', calFile)).code).toBe(0);
    const r = await cli(
      'predict',
      '--calibration',
      calFile,
      '--profile',
      file,
      '--reference-frequency',
      '1500',
      '--frequencies',
      '1200,99999',
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /target clock 99999 MHz is outside the SM clock range of .*, \d+–1500 MHz \(lowest: the lowest calibrated clock; highest: the highest calibrated clock/,
    );
    expect(r.err).not.toMatch(/note:/);
  });
});

describe('shared profile options', () => {
  it('power options without --power-log, --mapping with another --format, bad numbers: exit 2, option named', async () => {
    const prof = fixture('CodeGandee__llm-perf-opt__projector_summary_cuda_gpu_kern_sum.csv');
    const base = ['predict', '--calibration', H100_CAL, '--profile', prof, '--reference-frequency', '1980'];
    const cases: [string[], RegExp][] = [
      [['--gpu-index', '1'], /--gpu-index needs --power-log: pass it too/],
      [['--mapping', 'm.yaml', '--format', 'ncu-csv'], /--mapping is read by the generic format only/],
      [['--power-log', prof, '--gpu-index', 'x'], /--gpu-index: expected a whole number ≥ 0, got "x"/],
      [['--power-log', prof, '--sensor-period-ms', '0'], /--sensor-period-ms: expected a positive number of ms/],
      [
        ['--power-log', prof, '--power-format', 'csv'],
        /--power-format: expected one of nvidia-smi, dcgmi-dmon, zeus-monitor, power-csv, got "csv"/,
      ],
      [['--format', 'nope'], /--format: expected one of ncu-csv, .*, got "nope"/],
    ];
    for (const [extra, msg] of cases) {
      const r = await cli(...base, ...extra);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(msg);
    }
  });

  it(
    'nsys cuda_gpu_trace + a real 8-GPU nvidia-smi log: --power, --gpu-index, --power-offset-ns, ' +
      '--sensor-period-ms reach the join',
    async () => {
      const smi = fixture('xypp3__gpu_glasses__nvidia_smi.csv');
      const header =
        'Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes ' +
        '(MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name';
      const row = (start: number, dur: number, corr: number, name: string) =>
        `${start},${dur},${corr},108,1,1,256,1,1,32,0.000,0.000,,,,,NVIDIA H100 80GB HBM3 (0),1,,7,${name}`;
      const long = [
        [0.2e9, 2e9],
        [2.5e9, 1.5e9],
      ];
      const shortStarts = Array.from({ length: 20 }, (_, i) => 0.1e9 + i * 0.2e9);
      const rows = [
        header,
        ...long.map(([s, d], i) => row(s!, d!, i + 1, 'gemm_long')),
        ...shortStarts.map((s, i) => row(s, 1e6, 10 + i, 'elementwise')),
      ];
      const trace = path.join(dir, 'gpu-trace.csv');
      await writeFile(trace, `${rows.join('\n')}\n`);
      const offsetNs = 1e9;
      const r = await cli(
        'predict',
        '--calibration',
        H100_CAL,
        '--profile',
        trace,
        '--reference-frequency',
        '1980',
        '--frequencies',
        '1410,1980',
        '--power',
        smi,
        '--gpu-index',
        '3',
        '--power-offset-ns',
        String(offsetNs),
        '--sensor-period-ms',
        '1000',
        '--json',
      );
      expect(r.code).toBe(0);
      // --power, the earlier name of --power-log, still works for one release, with a note.
      expect(r.err).toMatch(/^note: --power is deprecated: use --power-log$/m);
      // The readers' notes reach stderr: GPU choice, offset, period, aggregation; and predict's clock assumption.
      expect(r.err).toMatch(/note: power: 8 GPUs in the log .*took GPU 3/);
      expect(r.err).toMatch(/note: trace time 0 placed 1000000000 ns after the first power sample/);
      expect(r.err).toMatch(/note: sensor update period 1000\.0 ms \(given\)/);
      expect(r.err).toMatch(/note: 20 invocations of 1 kernel names shorter than the sensor period were aggregated/);
      expect(r.err).toMatch(
        /note: 3 of 3 samples have no SM clock in the profile: taken to have run at the reference clock 1980 MHz/,
      );
      const j = JSON.parse(r.out);
      // Power at the reference clock is the join's own: energy integrated over GPU 3's series, shifted by the offset.
      const series = await readPowerSeries(smi, { gpuIndex: 3 }, new Diagnostics());
      const at = (kernel: string) =>
        j.rows.find((x: { kernel: string; frequencyMHz: number }) => x.kernel === kernel && x.frequencyMHz === 1980);
      long.forEach(([s, d], i) => {
        const e = integratePower(series, s! + offsetNs, s! + d! + offsetNs)!;
        expect(at(`gemm_long#${i}`).powerW).toBeCloseTo(e / (d! / 1e9), 9);
      });
      const eShort = shortStarts.map((s) => integratePower(series, s + offsetNs, s + 1e6 + offsetNs)!);
      expect(at('elementwise').powerW).toBeCloseTo(eShort.reduce((a, b) => a + b, 0) / (eShort.length * 1e-3), 9);
      // The other GPU's series gives other numbers: the option was not ignored.
      const g0 = await readPowerSeries(smi, {}, new Diagnostics());
      expect(integratePower(g0, long[0]![0]! + offsetNs, long[0]![0]! + long[0]![1]! + offsetNs)).not.toBeCloseTo(
        integratePower(series, long[0]![0]! + offsetNs, long[0]![0]! + long[0]![1]! + offsetNs)!,
        6,
      );
      expect(j.rows).toHaveLength(3 * 2);
    },
  );

  it('--power-log with a kern_sum is refused by the reader, naming --power-log', async () => {
    const r = await cli(
      'predict',
      '--calibration',
      H100_CAL,
      '--profile',
      fixture('CodeGandee__llm-perf-opt__projector_summary_cuda_gpu_kern_sum.csv'),
      '--reference-frequency',
      '1980',
      '--power-log',
      fixture('xypp3__gpu_glasses__nvidia_smi.csv'),
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/power/i);
  });
});

describeShared('generic --mapping on the real NV-DVFS-Benchmark RTX 8000 tables', () => {
  const micro = shared('profiles/nv-dvfs-benchmark/rtx8000-dvfs-microbenchmark-profile.csv');
  const real = shared('profiles/nv-dvfs-benchmark/rtx8000-dvfs-real-profile.csv');
  let mapping: string;
  beforeAll(async () => {
    // The same reading as the nv-dvfs-benchmark preset, spelled as a generic mapping.
    mapping = path.join(dir, 'nv-dvfs.yaml');
    await writeFile(
      mapping,
      `${[
        'format: nv-dvfs-by-mapping',
        'device: Quadro RTX 8000',
        'columns:',
        '  kernelName: [benchmark, kernel, argNo]',
        '  smClockMHz: core_frequency',
        '  memClockMHz: memory_frequency',
        '  durationNs: { column: time, unit: ms }',
        '  powerW: average_power',
        'utilization:',
        '  sm_active: SMACT',
        '  sm_occupancy: SMOCC',
        '  tensor_active: TENSO',
        '  dram_active: DRAMA',
        '  fp64_active: FP64A',
        '  fp32_active: FP32A',
        '  fp16_active: FP16A',
      ].join('\n')}\n`,
    );
  });

  it('the mapping reads the same samples as the preset reader', async () => {
    const a = await readProfile(real, { mapping });
    const b = await readProfile(real);
    expect(a.samples.map((s) => [s.kernelName, s.smClockMHz, s.memClockMHz, s.powerW, s.utilization])).toEqual(
      b.samples.map((s) => [s.kernelName, s.smClockMHz, s.memClockMHz, s.powerW, s.utilization]),
    );
    a.samples.forEach((s, i) => expect(s.durationNs! / b.samples[i]!.durationNs!).toBeCloseTo(1, 12));
  });

  it('calibrate --mapping: the same power models as the preset; the option is recorded in provenance', async () => {
    const viaMap = path.join(dir, 'rtx-map.json');
    const r = await cli('calibrate', micro, '--mapping', mapping, '--out', viaMap);
    expect(r.code).toBe(0);
    const a = JSON.parse(await readFile(viaMap, 'utf8'));
    const b = fitCalibration([await readCalibrateInput(micro)]).calibration;
    expect(a.provenance.command).toContain(`--mapping ${mapping}`);
    expect(a.provenance.inputs[0].format).toBe('nv-dvfs-by-mapping');
    expect(a.power.perClock).toHaveLength(b.power.perClock.length);
    a.power.perClock.forEach(
      (m: { smClockMHz: number; interceptW: number; coefficientsW: Record<string, number> }, i: number) => {
        const o = b.power.perClock[i]!;
        expect(m.smClockMHz).toBe(o.smClockMHz);
        expect(m.interceptW).toBeCloseTo(o.interceptW, 6);
        expect(Object.keys(m.coefficientsW).sort()).toEqual(Object.keys(o.coefficientsW).sort());
        for (const [c, v] of Object.entries(o.coefficientsW)) expect(m.coefficientsW[c]).toBeCloseTo(v, 6);
      },
    );
  });

  it('predict and accuracy --mapping give what the preset reader gives', async () => {
    const args = ['--calibration', RTX_CAL, '--profile', real, '--reference-frequency', '1710', '--json'];
    const p1 = await cli('predict', ...args, '--mapping', mapping);
    const p2 = await cli('predict', ...args);
    expect(p1.code).toBe(0);
    const close = (x: Record<string, number | string | boolean>[], y: Record<string, number | string | boolean>[]) => {
      expect(x).toHaveLength(y.length);
      x.forEach((row, i) => {
        for (const [k, v] of Object.entries(y[i]!))
          typeof v === 'number' ? expect(row[k] as number).toBeCloseTo(v, 6) : expect(row[k]).toBe(v);
      });
    };
    close(JSON.parse(p1.out).rows, JSON.parse(p2.out).rows);
    const a1 = await cli('accuracy', ...args, '--mapping', mapping);
    const a2 = await cli('accuracy', ...args);
    expect(a1.code).toBe(0);
    close(JSON.parse(a1.out).frequencies, JSON.parse(a2.out).frequencies);
    // The preset reader's notes reach stderr.
    expect(p2.err).toMatch(/note: time column taken as milliseconds/);
  });
});

describe('counter-free calibration (Perseus A40, shipped in calibration/profiles)', () => {
  it('the fit table prints "—" for R², which does not apply to an intercept-only model', async () => {
    const file = perseusStages('gpt3-175b');
    const out = path.join(dir, 'a40.json');
    const r = await cli('calibrate', file, '--device', 'NVIDIA A40', '--out', out);
    expect(r.code).toBe(0);
    const cal = JSON.parse(await readFile(out, 'utf8'));
    expect(cal.counterFree).toBe(true);
    const lines = r.out.split('\n');
    const head = lines.findIndex((l) => l.startsWith('SM clock (MHz)'));
    const r2Col = lines[head]!.split(/\s{2,}/).indexOf('R²');
    const body = lines.slice(head + 2, head + 2 + cal.power.perClock.length);
    expect(body).toHaveLength(cal.power.perClock.length);
    for (const l of body) expect(l.trim().split(/\s+/)[r2Col]).toBe('—');
    expect(cal.provenance.command).toContain("--device 'NVIDIA A40'");
  });
});

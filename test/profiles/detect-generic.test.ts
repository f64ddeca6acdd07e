import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Diagnostics } from '../../src/diagnostics.js';
import { FormatError, InputError } from '../../src/errors.js';
import { detectFormat, listProfileFormats, PROFILE_FORMATS, readProfile } from '../../src/formats/profiles/index.js';
import { describeShared, repoRoot, shared, vendored } from '../helpers/shared.js';
import { expectFormatError, fixture, tmpFile } from './helpers.js';

describe('format detection on vendored real files', () => {
  it.each([
    ['CodeGandee__llm-perf-opt__kernel_0003_ncu.details.csv', 'profile', 'ncu-csv'],
    ['peihunglin__XPlacer-ML-DataPlacement__aws-v100_nsight_hotspot_64', 'profile', 'ncu-csv'],
    ['joa__phobos-lang__ncu_sk_probe_none.csv', 'profile', 'ncu-csv'],
    ['CodeGandee__llm-perf-opt__projector_summary_cuda_gpu_kern_sum.csv', 'profile', 'nsys-kern-sum'],
    ['accel-sim__accel-sim-framework__hw_power_validation_volta.csv', 'profile', 'accelwattch'],
    ['ml-energy__zeus__profile_data_A40+resnet18+gpu0,1,2,3.csv', 'profile', 'zeus-profile'],
    ['xypp3__gpu_glasses__nvidia_smi.csv', 'power', 'nvidia-smi'],
    ['ml-energy__zeus__zeus_monitor_sample.csv', 'power', 'zeus-monitor'],
  ])('%s → %s %s', async (name, kind, format) => {
    expect(await detectFormat(fixture(name))).toEqual({ kind, format });
  });
});

describe('format detection on more real files (shipped and vendored)', () => {
  it.each([
    ['calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv', 'perseus'],
    ['test/fixtures/shared/profiles/zeus-nsdi23/summary_power_v100.csv', 'zeus'],
    ['test/fixtures/shared/profiles/guerreiro-gpmtool/titanx_real_allFsPower_HPCAandCF.csv', 'gpmtool'],
    ['test/fixtures/shared/profiles/guerreiro-gpmtool/titanv_micro_HPCAFMAandCF.csv', 'gpmtool'],
    [
      'test/fixtures/profiles/CodeGandee__llm-perf-opt__kernel_0003_ncu.section_SpeedOfLight_RooflineChart.csv',
      'ncu-csv',
    ],
  ])('%s → %s', async (file, format) => {
    expect(await detectFormat(path.join(repoRoot, file))).toEqual({ kind: 'profile', format });
  });
  it('an undetectable file asks for --format or --mapping', async () => {
    await expect(readProfile(vendored('profiles', 'accelwattch', 'hw_perf.csv'))).rejects.toThrow(/--format|--mapping/);
  });
});

describeShared('format detection on files in ../shared with no licence published', () => {
  it.each([
    ['profiles/nv-dvfs-benchmark/v100-dvfs-microbenchmark-profile.csv', 'nv-dvfs-benchmark'],
    ['profiles/nv-dvfs-benchmark/rtx8000-dvfs-real-profile.csv', 'nv-dvfs-benchmark'],
    ['profiler-formats/ncu_raw/sword-k-w__flashinfer-mla__h200_decode_sq1_ltc_baseline_01.csv', 'ncu-raw'],
    ['profiler-formats/nsys_stats/K-Wu__HET__nsys-gui-export_hgt_acm_dgl_fw.csv', 'nsys-gpu-trace'],
  ])('%s → %s', async (p, format) => {
    expect(await detectFormat(shared(...p.split('/')))).toEqual({ kind: 'profile', format });
  });
  it('nvidia-smi with units is a power log, and readProfile says so', async () => {
    const f = shared('profiler-formats', 'nvidia_smi', 'RdrigoMachado__fletcher-io__gpu_power.csv');
    expect(await detectFormat(f)).toEqual({ kind: 'power', format: 'nvidia-smi' });
    await expect(readProfile(f)).rejects.toThrow(/power log/);
  });
});

describe('readProfile options', () => {
  it('lists every format with a description', () => {
    const list = listProfileFormats();
    expect(list.map((f) => f.format)).toEqual([...PROFILE_FORMATS]);
    for (const f of list) expect(f.description.length).toBeGreaterThan(10);
  });
  it('rejects an unknown --format and an unreadable file', async () => {
    await expect(
      readProfile(fixture('joa__phobos-lang__ncu_sk_probe_none.csv'), { format: 'bogus' as never }),
    ).rejects.toBeInstanceOf(InputError);
    await expect(readProfile('/nonexistent/profile.csv')).rejects.toBeInstanceOf(InputError);
  });
  it('--format forces a reader: a zeus file read as perseus reports the missing column', async () => {
    await expectFormatError(
      readProfile(fixture('ml-energy__zeus__profile_data_A40+resnet18+gpu0,1,2,3.csv'), { format: 'perseus' }),
      fixture('ml-energy__zeus__profile_data_A40+resnet18+gpu0,1,2,3.csv'),
      {
        row: 1,
        problem: /missing column 'stage'/,
      },
    );
  });
});

describe('bad input in dataset presets', () => {
  const dvfsHeader =
    'DRAMA,FP16A,FP32A,FP64A,SMACT,SMOCC,TENSO,argNo,average_power,benchmark,core_frequency,kernel,memory_frequency,time';
  const dvfsRow = (power: string, time: string, smact = '0.5') =>
    `0.1,0.0,0.2,0.0,${smact},0.3,0.0,input000,${power},bench,1380,kern,877,${time}`;
  it('nv-dvfs: missing column', async () => {
    const f = tmpFile('dvfs-missing.csv', `${dvfsHeader.replace(',time', '')}\n`);
    await expectFormatError(readProfile(f, { format: 'nv-dvfs-benchmark' }), f, {
      row: 1,
      problem: /missing column 'time'/,
    });
  });
  it('nv-dvfs: NaN time', async () => {
    const f = tmpFile('dvfs-nan.csv', [dvfsHeader, dvfsRow('90', '1.0'), dvfsRow('90', 'NaN')].join('\n'));
    await expectFormatError(readProfile(f), f, { row: 3, column: 'time', problem: /finite/ });
  });
  it('nv-dvfs: negative power', async () => {
    const f = tmpFile('dvfs-neg.csv', [dvfsHeader, dvfsRow('-90', '1.0')].join('\n'));
    await expectFormatError(readProfile(f), f, { row: 2, column: 'average_power', problem: /negative/ });
  });
  it('nv-dvfs: negative utilization is an error, > 1 is kept and counted, blank rows counted', async () => {
    const bad = tmpFile('dvfs-negu.csv', [dvfsHeader, dvfsRow('90', '1.0', '-0.2')].join('\n'));
    await expectFormatError(readProfile(bad), bad, { row: 2, column: 'SMACT', problem: /negative/ });
    const d = new Diagnostics();
    const odd = tmpFile(
      'dvfs-odd.csv',
      [dvfsHeader, dvfsRow('90', '1.0', '1.2'), ',,,,,,,,,,,,,', dvfsRow('90', '1.0')].join('\n'),
    );
    const t = await readProfile(odd, { diagnostics: d });
    expect(t.samples).toHaveLength(2);
    expect(t.samples[0]!.utilization.sm_active).toBe(1.2);
    expect(d.count('utilization-above-1')).toBe(1);
    expect(d.count('blank-row')).toBe(1);
  });
  it('perseus: negative energy and missing stage', async () => {
    const f = tmpFile(
      'perseus-neg+a40.csv',
      'stage,instruction,frequency,time,energy\n0,forward,1740,0.1,33\n0,forward,1725,0.1,-1\n',
    );
    await expectFormatError(readProfile(f), f, { row: 3, column: 'energy', problem: /negative/ });
    const g = tmpFile('perseus-nostage.csv', 'stage,instruction,frequency,time,energy\n,forward,1740,0.1,33\n');
    await expectFormatError(readProfile(g), g, { row: 2, column: 'stage', problem: /missing/ });
  });
  it('gpmtool: a short row names the row', async () => {
    const f = tmpFile('gpm.csv', '2\n975,3505\n2,1\nSP,INT,DRAM\n150,1164,4005,0.1,0.2,0.3\n150,1164,4005,0.1\n');
    await expectFormatError(readProfile(f), f, { row: 6, problem: /expected 6/ });
  });
});

describe('generic reader with a column mapping', () => {
  const csv = tmpFile(
    'lab.csv',
    'bench;kernel;clk ' +
      '(GHz);t_ms;p;smact_pct;flops\nresnet;conv1;1,41;2,5;250;80;1e9\nresnet;conv1;1,2;3,0;200;78;1e9\n',
  );
  it('maps columns, units (GHz, ms, %) and extras from a YAML file', async () => {
    const mapping = tmpFile(
      'map.yaml',
      [
        'format: my-lab',
        'device: NVIDIA A100',
        'delimiter: ";"',
        'columns:',
        '  kernelName: [bench, kernel]',
        '  smClockMHz: clk (GHz)',
        '  durationNs: { column: t_ms, unit: ms }',
        '  powerW: p',
        'utilization:',
        '  sm_active: { column: smact_pct, unit: "%" }',
        'extra: [flops]',
      ].join('\n'),
    );
    const t = await readProfile(csv, { mapping });
    expect(t.format).toBe('my-lab');
    expect(t.device).toBe('NVIDIA A100');
    expect(t.samples).toHaveLength(2);
    const s = t.samples[0]!;
    expect(s.kernelName).toBe('resnet/conv1');
    expect(s.smClockMHz).toBe(1410);
    expect(s.durationNs).toBe(2.5e6); // "2,5" comma-decimal
    expect(s.powerW).toBe(250);
    expect(s.energyJ).toBeCloseTo(0.625, 12);
    expect(s.utilization.sm_active).toBeCloseTo(0.8, 12);
    expect(s.extra).toEqual({ flops: 1e9 });
    expect(s.source).toEqual({ file: csv, row: 2, format: 'my-lab' });
  });
  it('accepts a JSON mapping object', async () => {
    const t = await readProfile(csv, {
      mapping: { delimiter: ';', columns: { kernelName: 'kernel', energyJ: { column: 'p', unit: 'mJ' } } },
    });
    expect(t.samples[0]!.energyJ).toBeCloseTo(0.25, 12);
  });
  it('mapping errors name the field; data errors name the column', async () => {
    const noUnit = tmpFile(
      'nounit.json',
      JSON.stringify({ delimiter: ';', columns: { kernelName: 'kernel', durationNs: 't_ms' } }),
    );
    const e1 = await expectFormatError(readProfile(csv, { mapping: noUnit }), noUnit, {
      problem: /give \{ column: t_ms, unit/,
    });
    expect(e1.message).toContain(': columns.durationNs: ');
    const badUnit = tmpFile(
      'badunit.json',
      JSON.stringify({ columns: { kernelName: 'kernel', durationNs: { column: 't', unit: 'W' } } }),
    );
    await expect(readProfile(csv, { mapping: badUnit })).rejects.toThrow(
      /columns\.durationNs\.unit.*power unit, expected time/,
    );
    const missing = tmpFile('missing.json', JSON.stringify({ delimiter: ';', columns: { kernelName: 'name' } }));
    await expectFormatError(readProfile(csv, { mapping: missing }), csv, { row: 1, problem: /missing column 'name'/ });
    await expect(readProfile(csv, { mapping: { columns: {} } as never })).rejects.toBeInstanceOf(FormatError);
    await expect(readProfile(csv, { mapping: '/nonexistent/map.yaml' })).rejects.toBeInstanceOf(InputError);
  });
  it('reads a real table (AccelWattch hw_perf counters, vendored) through a mapping', async () => {
    const t = await readProfile(vendored('profiles', 'accelwattch', 'hw_perf.csv'), {
      mapping: {
        format: 'accelwattch-perf',
        columns: { kernelName: ['Benchmark', 'Kernel'] },
        utilization: { pipeline_duty: 'Pipeline_Duty' },
        extra: ['Elapsed_Cycles', 'Chip Voltage'],
      },
    });
    expect(t.samples).toHaveLength(25);
    expect(t.samples[0]!.kernelName).toBe('b+tree-rodinia-3.1/findRangeK');
    expect(t.samples[0]!.utilization.pipeline_duty).toBeCloseTo(0.3268163900773488, 12);
    expect(t.samples[0]!.extra).toEqual({ Elapsed_Cycles: 66542.7, 'Chip Voltage': 1.0 });
  });
});

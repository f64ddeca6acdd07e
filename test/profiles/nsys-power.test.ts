import { describe, expect, it } from 'vitest';
import { Diagnostics } from '../../src/diagnostics.js';
import { InputError } from '../../src/errors.js';
import {
  estimateSensorPeriodNs,
  integratePower,
  readPowerSeries,
  readProfile,
} from '../../src/formats/profiles/index.js';
import { describeShared, shared } from '../helpers/shared.js';
import { expectFormatError, fixture, tmpFile } from './helpers.js';

const TRACE_HEADER =
  'Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes ' +
  '(MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name';
const kernelRow = (startNs: number, durNs: number, name: string, corr = 1) =>
  `${startNs},${durNs},${corr},108,1,1,256,1,1,32,0.000,0.000,,,,,NVIDIA H100 80GB HBM3 (0),1,,7,` +
  (name.includes(',') ? `"${name}"` : name);
const memcpyRow = (startNs: number, durNs: number) =>
  `${startNs},${durNs},9,,,,,,,,,,4.194,1024.0,Pageable,Device,NVIDIA H100 80GB HBM3 (0),1,,7,[CUDA memcpy ` +
  `Host-to-Device]`;

describe('integratePower', () => {
  const series = { timeNs: [0, 1e9, 2e9, 3e9], powerW: [100, 100, 200, 200] };
  it('integrates a constant stretch exactly', () => {
    expect(integratePower(series, 0.25e9, 0.75e9)).toBeCloseTo(50, 12);
  });
  it('integrates across samples with linear interpolation', () => {
    // 0.5–1 s: 100 W (50 J); 1–2 s: ramp 100→200 (150 J); 2–2.5 s: 200 W (100 J)
    expect(integratePower(series, 0.5e9, 2.5e9)).toBeCloseTo(300, 9);
    expect(integratePower(series, 1.25e9, 1.75e9)).toBeCloseTo(75, 9); // mean 150 W × 0.5 s
  });
  it('returns 0 for an empty interval and null outside the series or for reversed intervals', () => {
    expect(integratePower(series, 1e9, 1e9)).toBe(0);
    expect(integratePower(series, -1, 1e9)).toBeNull();
    expect(integratePower(series, 2e9, 3.5e9)).toBeNull();
    expect(integratePower(series, 2e9, 1e9)).toBeNull();
    expect(integratePower(series, NaN, 1e9)).toBeNull();
    expect(integratePower({ timeNs: [], powerW: [] }, 0, 0)).toBeNull();
  });
  it('covers the whole series', () => {
    expect(integratePower(series, 0, 3e9)).toBeCloseTo(100 + 150 + 200, 9);
  });
});

describe('power series readers', () => {
  it('nvidia-smi with a wrapper header, ISO timestamps and 8 GPUs per sample (vendored)', async () => {
    const d = new Diagnostics();
    const s = await readPowerSeries(fixture('xypp3__gpu_glasses__nvidia_smi.csv'), {}, d);
    expect(s.source.format).toBe('nvidia-smi');
    expect(s.gpu).toBe('0');
    expect(s.powerW[0]).toBe(74.01);
    expect(s.timeNs[1]).toBe(1e9); // 17:26:50 → 17:26:51
    expect(s.notes.join(' ')).toMatch(/8 GPUs/);
    const g3 = await readPowerSeries(fixture('xypp3__gpu_glasses__nvidia_smi.csv'), { gpuIndex: 3 }, d);
    expect(g3.powerW[0]).toBe(73.99);
    await expect(
      readPowerSeries(fixture('xypp3__gpu_glasses__nvidia_smi.csv'), { gpuIndex: 9 }, d),
    ).rejects.toBeInstanceOf(InputError);
  });

  it('Zeus monitor: ns-precision naive timestamps, power in mW (vendored)', async () => {
    const s = await readPowerSeries(fixture('ml-energy__zeus__zeus_monitor_sample.csv'), {}, new Diagnostics());
    expect(s.source.format).toBe('zeus-monitor');
    expect(s.powerW[0]).toBeCloseTo(32.402, 9);
    expect(s.timeNs[1]).toBe(761689374 - 708783111); // 02:07:36.708783111 → .761689374
  });

  it('dcgmi dmon table with repeated headers, units line, N/A and two GPUs', async () => {
    const text = [
      '#Entity   POWER    TOTEC     SMCLK',
      'ID        W        mJ        MHZ',
      'GPU 0     120.5    1000      1410',
      'GPU 1     130.5    2000      1400',
      'GPU 0     N/A      1100      1410',
      'GPU 1     131.5    2100      1400',
      '#Entity   POWER    TOTEC     SMCLK',
      'ID        W        mJ        MHZ',
      'GPU 0     122.5    1200      1410',
      'GPU 1     132.5    2200      1400',
    ].join('\n');
    const d = new Diagnostics();
    const s = await readPowerSeries(tmpFile('dmon.txt', text), { dmonIntervalMs: 100 }, d);
    expect(s.source.format).toBe('dcgmi-dmon');
    expect(s.powerW).toEqual([120.5, 122.5]);
    expect(s.timeNs).toEqual([0, 200e6]);
    expect(d.count('power-missing')).toBe(1);
    const g1 = await readPowerSeries(tmpFile('dmon.txt', text), { gpuIndex: 1 }, d);
    expect(g1.powerW).toEqual([130.5, 131.5, 132.5]);
    expect(g1.timeNs).toEqual([0, 1e9, 2e9]);
  });

  it('plain time,power CSV with units in the header', async () => {
    const s = await readPowerSeries(
      tmpFile('tp.csv', 'time (ms),power_mw\n0,100000\n10,110000\n20,[N/A]\n30,120000\n'),
      {},
      new Diagnostics(),
    );
    expect(s.source.format).toBe('power-csv');
    expect(s.timeNs).toEqual([0, 10e6, 30e6]);
    expect(s.powerW).toEqual([100, 110, 120]);
  });

  it('negative power is a FormatError naming row and column', async () => {
    const file = tmpFile(
      'negp.csv',
      'timestamp, power.draw [W]\n2024/10/13 03:33:31.779, 19.46 W\n2024/10/13 03:33:31.789, -3.00 W\n',
    );
    await expectFormatError(readPowerSeries(file, {}, new Diagnostics()), file, {
      row: 3,
      column: 'power.draw [W]',
      problem: /negative/,
    });
  });
  it('an unknown power unit is a FormatError', async () => {
    const file = tmpFile('badpu.csv', 'timestamp, power.draw [W]\n2024/10/13 03:33:31.779, 19.46 horsepower\n');
    await expectFormatError(readPowerSeries(file, {}, new Diagnostics()), file, {
      row: 2,
      column: 'power.draw [W]',
      problem: /unknown power unit/,
    });
  });
});

describe('nsys-gpu-trace joined with power', () => {
  // Power: 100 W until 5 s, then a 0.1 s ramp to 200 W, sampled every 100 ms with a fresh reading each time.
  const powerLines = ['time_s,power_w'];
  for (let i = 0; i <= 100; i++) powerLines.push(`${(i / 10).toFixed(1)},${i <= 50 ? 100 : 200}`);
  const power = tmpFile('power.csv', `${powerLines.join('\n')}\n`);
  const rows = [TRACE_HEADER, memcpyRow(0, 1000), kernelRow(1e9, 2e9, 'gemm_long')];
  for (let i = 0; i < 40; i++)
    rows.push(kernelRow(0.5e9 + i * 0.25e9, 1e6, 'void elementwise<(int)4, float>(int, T)', i + 2));
  const trace = tmpFile('trace.csv', `Processing [report.sqlite] with [cuda_gpu_trace.py]... \n\n${rows.join('\n')}\n`);

  it('reads the trace without power: kernels only, memcpy counted', async () => {
    const t = await readProfile(trace);
    expect(t.format).toBe('nsys-gpu-trace');
    expect(t.device).toBe('NVIDIA H100 80GB HBM3');
    expect(t.samples).toHaveLength(41);
    expect(t.samples[0]!.kernelName).toBe('gemm_long');
    expect(t.samples[1]!.kernelName).toBe('void elementwise<(int)4, float>(int, T)');
    expect(t.samples[40]!.invocation).toBe(39);
    expect(t.notes.join('\n')).toMatch(/1 memcpy\/memset rows/);
    expect(t.samples[0]!.energyJ).toBeNull();
  });

  it('integrates long kernels per invocation and aggregates short ones by name', async () => {
    const t = await readProfile(trace, { power });
    expect(t.samples).toHaveLength(2);
    const long = t.samples.find((s) => s.kernelName === 'gemm_long')!;
    expect(long.energyJ).toBeCloseTo(200, 6); // 2 s × 100 W
    expect(long.powerW).toBeCloseTo(100, 6);
    const short = t.samples.find((s) => s.kernelName.startsWith('void elementwise'))!;
    expect(short.invocation).toBeNull();
    expect(short.extra!.invocations).toBe(40);
    expect(short.durationNs).toBe(1e6);
    // invocations start at 0.5 s + i·0.25 s: 18 before 5 s (100 W), i = 18 inside the 5.0–5.1 s ramp,
    // 19 at 200 W, and the last two (10.0 s, 10.25 s) run past the series' end (10 s) and get no energy
    expect(short.extra!.invocationsWithPower).toBe(38);
    const rampMeanW = 100 + 100 * (0.5e6 / 0.1e9); // mean of the ramp over [5 s, 5.001 s]
    const expectedJ = (18 * 100 * 1e-3 + rampMeanW * 1e-3 + 19 * 200 * 1e-3) / 38;
    expect(short.energyJ).toBeCloseTo(expectedJ, 9);
    expect(short.powerW).toBeCloseTo(expectedJ / 1e-3, 6);
    expect(t.notes.join('\n')).toMatch(
      /40 invocations of 1 kernel names shorter than the sensor period were aggregated/,
    );
    expect(t.notes.join('\n')).toMatch(/2 kernel invocations fall outside the power series/);
    // one change only: cannot estimate
    expect(t.notes.join('\n')).toMatch(/sensor update period 100\.0 ms \(default\)/);
  });

  it('counts kernels outside the power series', async () => {
    const d = new Diagnostics();
    const t = await readProfile(trace, { power, powerOffsetNs: 5e9, diagnostics: d });
    expect(d.count('kernel-outside-power-series')).toBeGreaterThan(0);
    expect(t.notes.join('\n')).toMatch(/fall outside the power series/);
  });

  it('a negative duration is a FormatError naming row and column', async () => {
    const file = tmpFile('negtrace.csv', [TRACE_HEADER, kernelRow(0, 10, 'a'), kernelRow(100, -5, 'b')].join('\n'));
    await expectFormatError(readProfile(file), file, { row: 3, column: 'Duration (ns)', problem: /negative/ });
  });
  it('a NaN start is a FormatError', async () => {
    const file = tmpFile('nantrace.csv', [TRACE_HEADER, kernelRow(0, 10, 'a').replace(/^0,/, 'nan,')].join('\n'));
    await expectFormatError(readProfile(file), file, { row: 2, column: 'Start (ns)', problem: /finite/ });
  });
  it('refuses to join power with a kern_sum (no timestamps)', async () => {
    await expect(
      readProfile(fixture('CodeGandee__llm-perf-opt__projector_summary_cuda_gpu_kern_sum.csv'), { power }),
    ).rejects.toBeInstanceOf(InputError);
  });
});

describe('nsys-kern-sum (vendored)', () => {
  it('reads one sample per kernel name; a quoted name with commas stays whole', async () => {
    const t = await readProfile(fixture('CodeGandee__llm-perf-opt__projector_summary_cuda_gpu_kern_sum.csv'));
    expect(t.format).toBe('nsys-kern-sum');
    expect(t.samples).toHaveLength(2);
    expect(t.samples[0]!.durationNs).toBe(33696);
    expect(t.samples[0]!.extra).toMatchObject({ instances: 1, totalTimeNs: 33696, minNs: 33696, maxNs: 33696 });
    expect(t.samples[1]!.kernelName).toBe(
      'void at::native::vectorized_elementwise_kernel<(int)4, ' +
        'at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) (instance 1)], ' +
        'std::array<char *, (unsigned long)2>>(int, T2, T3)',
    );
  });
});

describe('nsys kern_sum (vendored)', () => {
  it('kern_sum with 36 kernels: instances × average ≈ total', async () => {
    const t = await readProfile(fixture('CodeGandee__llm-perf-opt__sam_summary_cuda_gpu_kern_sum.csv'));
    expect(t.samples).toHaveLength(36);
    const s = t.samples[0]!;
    expect(s.extra!.instances).toBe(32);
    expect(s.durationNs).toBe(173569);
    for (const x of t.samples)
      expect(Math.abs((x.extra!.instances as number) * x.durationNs! - (x.extra!.totalTimeNs as number))).toBeLessThan(
        1 + (x.extra!.instances as number),
      );
  });
});

describeShared('nsys and nvidia-smi files with no licence published (kept in ../shared)', () => {
  it('GUI events export: BOM, "4.89664s" starts and "296.991 μs" durations', async () => {
    const t = await readProfile(
      shared('profiler-formats', 'nsys_stats', 'K-Wu__HET__nsys-gui-export_hgt_acm_dgl_fw.csv'),
    );
    expect(t.format).toBe('nsys-gpu-trace');
    expect(t.samples).toHaveLength(356);
    expect(t.samples[0]!.kernelName).toBe('ampere_sgemm_128x64_tn');
    expect(t.samples[0]!.durationNs).toBeCloseTo(296991, 6);
    expect(t.samples[0]!.extra!.startNs).toBeCloseTo(4.89664e9, 0);
  });

  it('nvidia-smi with units (", " separators, "19.46 W", 10 ms polling, ~100 ms sensor refresh)', async () => {
    const s = await readPowerSeries(
      shared('profiler-formats', 'nvidia_smi', 'RdrigoMachado__fletcher-io__gpu_power.csv'),
      {},
      new Diagnostics(),
    );
    expect(s.device).toBe('NVIDIA GeForce GTX 1650');
    expect(s.powerW).toHaveLength(80);
    expect(s.powerW[0]).toBe(19.46);
    expect(s.timeNs[1]).toBe(13e6); // .779 → .792
    const period = estimateSensorPeriodNs(s)!;
    expect(period).toBeGreaterThan(80e6);
    expect(period).toBeLessThan(130e6);
  });

  it('joins a trace with the real nvidia-smi log', async () => {
    const trace = tmpFile(
      'trace-smi.csv',
      [
        TRACE_HEADER,
        kernelRow(100e6, 600e6, 'k_long'),
        kernelRow(50e6, 2e6, 'k_short'),
        kernelRow(500e6, 2e6, 'k_short'),
      ].join('\n'),
    );
    const t = await readProfile(trace, {
      power: shared('profiler-formats', 'nvidia_smi', 'RdrigoMachado__fletcher-io__gpu_power.csv'),
    });
    const long = t.samples.find((s) => s.kernelName === 'k_long')!;
    expect(long.powerW!).toBeGreaterThan(18.5);
    expect(long.powerW!).toBeLessThan(20.5);
    const short = t.samples.find((s) => s.kernelName === 'k_short')!;
    expect(short.extra!.invocations).toBe(2);
  });
});

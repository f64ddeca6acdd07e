import { describe, expect, it } from 'vitest';
import { Diagnostics } from '../../src/diagnostics.js';
import { NCU_METRIC_MAP, readProfile } from '../../src/formats/profiles/index.js';
import { describeShared, shared } from '../helpers/shared.js';
import { expectFormatError, fixture, tmpFile } from './helpers.js';

describe('ncu-csv long format (vendored real files)', () => {
  it('new header, short metric rows, rule rows, "1,275,068,416", n/a, us/Ghz/Mbyte units (RTX 5090)', async () => {
    const file = fixture('CodeGandee__llm-perf-opt__kernel_0003_ncu.details.csv');
    const t = await readProfile(file);
    expect(t.format).toBe('ncu-csv');
    expect(t.samples).toHaveLength(1);
    const s = t.samples[0]!;
    expect(s.kernelName).toBe(
      'void Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(Params)',
    );
    expect(s.invocation).toBe(0);
    expect(s.durationNs).toBe(23420); // gpu__time_duration.sum 23.42 us
    expect(s.smClockMHz).toBe(1990); // SM Frequency 1.99 Ghz
    expect(s.memClockMHz).toBe(13770); // DRAM Frequency 13.77 Ghz
    expect(s.utilization.dram_active).toBeCloseTo(0.0813, 12);
    expect(s.utilization.sm_throughput).toBeCloseTo(0.4149, 12);
    expect(s.utilization.sm_occupancy).toBeCloseTo(0.1518, 12);
    expect(s.utilization.l2_active).toBeCloseTo(0.6183, 12);
    // SM Active Cycles 39,578.42 / Elapsed Cycles 46,970
    expect(s.utilization.sm_active).toBeCloseTo(39578.42 / 46970, 12);
    expect(s.extra!['sm__ops_path_tensor_src_bf16_dst_fp32.sum']).toBe(1275068416);
    expect(s.extra!['dram__bytes_read.sum [byte]']).toBe(3.35e6);
    expect(s.extra!.dramBytes).toBe(3.35e6);
    expect(s.extra!['Memory Throughput [byte/s]']).toBe(143.2e9); // Gbyte/s not mistaken for a %
    expect(s.extra!.computeCapability).toBe('12.0');
    expect(s.extra!.gridSize).toBe('(152, 4, 1)');
    expect(s.powerW).toBeNull();
    expect(t.notes.join('\n')).toMatch(/4 rule rows/);
    expect(t.notes.join('\n')).toMatch(/3 metric values were n\/a/);
  });

  it(
    'old header with Kernel Time, application stdout and ==PROF== before the CSV, nsecond and cycle/second ' + '(V100)',
    async () => {
      const file = fixture('peihunglin__XPlacer-ML-DataPlacement__aws-v100_nsight_hotspot_64');
      const t = await readProfile(file);
      expect(t.format).toBe('ncu-csv');
      expect(t.samples).toHaveLength(1);
      const s = t.samples[0]!;
      expect(s.kernelName).toMatch(/^calculate_temp\(int,float\*/);
      expect(s.source.row).toBe(14); // line 13 is the header after 12 lines of program output
      expect(s.durationNs).toBe(5120);
      expect(s.smClockMHz).toBeCloseTo(917.35026042, 6);
      expect(s.memClockMHz).toBe(612.5);
      expect(s.utilization.dram_active).toBeCloseTo(0.0432, 12); // SOL FB
      expect(s.utilization.sm_occupancy).toBeCloseTo(0.1234, 12);
      expect(s.utilization.sm_active).toBeCloseTo(1329 / 4701, 12);
      expect(s.extra!.kernelTime).toBe('2020-May-29 13:50:20');
      expect(t.notes.join('\n')).toMatch(/12 lines before the CSV header/);
    },
  );

  it('all-quoted rows without trailing comma, --metrics only (no duration → counted)', async () => {
    const diagnostics = new Diagnostics();
    const t = await readProfile(fixture('joa__phobos-lang__ncu_sk_probe_none.csv'), { diagnostics });
    expect(t.samples.map((s) => s.kernelName)).toEqual(['q8_qmma_sk_lo', 'q8_qmma_sk_hi']);
    expect(t.samples[0]!.extra!.dramBytes).toBeCloseTo(1.28e6 + 1.6e6, 3);
    expect(t.samples[1]!.extra!['dram__bytes_write.sum [byte]']).toBe(1.73e6);
    expect(diagnostics.count('ncu-no-duration')).toBe(1);
  });

  it('numbers repeated launches of the same kernel as invocations', async () => {
    const head =
      '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid ' +
      'Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n';
    const row = (id: number, name: string, metric: string, unit: string, v: string) =>
      `"${id}","1","p","h","${name}","1","7","(1, 1, 1)","(1, 1, 1)","0","8.0","S","${metric}","${unit}","${v}"\n`;
    const file = tmpFile(
      'invocations.csv',
      '==PROF== Connected to process 1\n' +
        head +
        row(0, 'k', 'gpu__time_duration.sum', 'msecond', '1.5') +
        row(1, 'j', 'gpu__time_duration.sum', 'usecond', '2,000.5') +
        row(2, 'k', 'gpu__time_duration.sum', 'second', '0.25') +
        row(2, 'k', 'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active', '%', '55.5') +
        row(2, 'k', 'gpc__cycles_elapsed.avg.per_second', 'cycle/nsecond', '1.41') +
        '==PROF== Disconnected from process 1\n',
    );
    const t = await readProfile(file);
    expect(t.samples.map((s) => [s.kernelName, s.invocation, s.durationNs])).toEqual([
      ['k', 0, 1.5e6],
      ['j', 0, 2000.5e3],
      ['k', 1, 0.25e9],
    ]);
    expect(t.samples[2]!.utilization.tensor_active).toBeCloseTo(0.555, 12);
    expect(t.samples[2]!.smClockMHz).toBe(1410);
  });

  it('an unknown unit on a mapped metric is a FormatError naming row and column', async () => {
    const file = tmpFile(
      'badunit.csv',
      '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Section Name","Metric ' +
        'Name","Metric Unit","Metric Value"\n' +
        '"0","1","p","h","k","1","7","S","gpu__time_duration.sum","fortnight","3"\n',
    );
    await expectFormatError(readProfile(file), file, {
      row: 2,
      column: 'Metric Unit',
      problem: /unknown unit 'fortnight'/,
    });
  });

  it('a negative duration is a FormatError naming row and column', async () => {
    const file = tmpFile(
      'negdur.csv',
      '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Section Name","Metric ' +
        'Name","Metric Unit","Metric Value"\n' +
        '"0","1","p","h","k","1","7","S","gpu__time_duration.sum","nsecond","-3"\n',
    );
    await expectFormatError(readProfile(file), file, { row: 2, column: 'Metric Value', problem: /negative/ });
  });

  it('the documented map has one rule per target and names the core components', () => {
    const targets = NCU_METRIC_MAP.map((r) => r.target);
    expect(new Set(targets).size).toBe(targets.length);
    for (const t of [
      'durationNs',
      'smClockMHz',
      'memClockMHz',
      'sm_active',
      'tensor_active',
      'fp16_active',
      'fp32_active',
      'fp64_active',
      'dram_active',
    ]) {
      expect(targets).toContain(t);
    }
  });
});

describe('ncu Roofline section (vendored)', () => {
  it('reads the Roofline section file (extra Body Item Label column) by header name', async () => {
    const t = await readProfile(
      fixture('CodeGandee__llm-perf-opt__kernel_0003_ncu.section_SpeedOfLight_RooflineChart.csv'),
    );
    expect(t.format).toBe('ncu-csv');
    expect(t.samples).toHaveLength(1);
    expect(t.samples[0]!.smClockMHz).toBe(2010);
    expect(t.samples[0]!.memClockMHz).toBe(13770);
    expect(t.samples[0]!.extra!['Theoretical Predicated-On FFMA Thread Instructions Executed [inst/cycle]']).toBe(
      21760,
    );
  });
});

describeShared('ncu --page raw (no licence published: kept in ../shared)', () => {
  it('reads --page raw with its units row (H200)', async () => {
    const t = await readProfile(
      shared('profiler-formats', 'ncu_raw', 'sword-k-w__flashinfer-mla__h200_decode_sq1_ltc_baseline_01.csv'),
    );
    expect(t.format).toBe('ncu-raw');
    expect(t.device).toBe('NVIDIA H200');
    expect(t.samples).toHaveLength(1);
    const s = t.samples[0]!;
    expect(s.source.row).toBe(3);
    expect(s.durationNs).toBe(1024384);
    expect(s.kernelName).toMatch(/^void BatchMLAPageAttentionHopperKernel</);
    expect(s.extra!['lts__t_requests_srcunit_ltcfabric.sum [request]']).toBe(19031056);
    expect(s.extra!.launch__execution_model).toBe('SIMT');
    expect(s.extra!['launch__shared_mem_per_block [byte/block]']).toBe(223072);
  });
});

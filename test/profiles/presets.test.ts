import { describe, expect, it } from 'vitest';
import { Diagnostics } from '../../src/diagnostics.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { describeShared, perseusStages, shared, vendored } from '../helpers/shared.js';
import { fixture } from './helpers.js';

describeShared('nv-dvfs-benchmark preset (real NV-DVFS-Benchmark tables)', () => {
  it('reads the V100 microbenchmarks: 1380 rows, 10 clocks, DCGM ratios, ms → ns', async () => {
    const diagnostics = new Diagnostics();
    const file = shared('profiles', 'nv-dvfs-benchmark', 'v100-dvfs-microbenchmark-profile.csv');
    const t = await readProfile(file, { diagnostics });
    expect(t.format).toBe('nv-dvfs-benchmark');
    expect(t.device).toBe('Tesla V100-PCIE');
    expect(t.samples).toHaveLength(1380);
    const clocks = [...new Set(t.samples.map((s) => s.smClockMHz))].sort((a, b) => a! - b!);
    expect(clocks).toEqual([405, 502, 600, 705, 802, 945, 1087, 1102, 1237, 1380]);
    expect(new Set(t.samples.map((s) => s.memClockMHz))).toEqual(new Set([877]));
    const s = t.samples[0]!;
    // first data row:
    // 0.00192…,0.0,0.177…,0.0,0.8755…,0.3235…,0.0,input000,93.4827,cachebench-l2-only,1087,benchmark_int,877,2.469277
    expect(s.kernelName).toBe('cachebench-l2-only/benchmark_int/input000');
    expect(s.smClockMHz).toBe(1087);
    expect(s.durationNs).toBeCloseTo(2.469277e6, 3);
    expect(s.powerW).toBeCloseTo(93.4827, 6);
    expect(s.energyJ).toBeCloseTo(93.4827 * 2.469277e-3, 9);
    expect(s.utilization.sm_active).toBeCloseTo(0.8755700934579441, 12);
    expect(s.utilization.fp32_active).toBeCloseTo(0.17707476635514022, 12);
    expect(s.utilization.dram_active).toBeCloseTo(0.0019252336448598133, 12);
    expect(s.source).toEqual({ file, row: 2, format: 'nv-dvfs-benchmark' });
    // 138 kernels × 10 clocks
    expect(new Set(t.samples.map((x) => x.kernelName)).size).toBe(138);
    // row 1291 has every DCGM column blank: kept, counted once
    expect(diagnostics.count('blank-counters')).toBe(1);
    const blank = t.samples.find((x) => x.source.row === 1291)!;
    expect(blank.utilization).toEqual({});
    expect(blank.powerW).toBeCloseTo(53.957, 3);
    expect(t.notes.join(' ')).toMatch(/milliseconds/);
  });

  it('reads the RTX 8000 microbenchmark and real-kernel tables', async () => {
    const micro = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-microbenchmark-profile.csv'));
    expect(micro.device).toBe('Quadro RTX 8000');
    expect(micro.samples).toHaveLength(1380);
    const real = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'));
    expect(real.samples).toHaveLength(200);
    expect(new Set(real.samples.map((s) => s.kernelName)).size).toBe(20);
    const bs = real.samples[0]!;
    expect(bs.kernelName).toBe('BlackScholes/BlackScholesGPU/input000');
    expect(bs.smClockMHz).toBe(1110);
    expect(bs.memClockMHz).toBe(6500);
    expect(bs.utilization.dram_active).toBeCloseTo(0.8456410256410254, 12);
    const clocks = real.samples.map((s) => s.smClockMHz!);
    expect(Math.min(...clocks)).toBe(705);
    expect(Math.max(...clocks)).toBe(1710);
    for (const s of real.samples) {
      expect(s.durationNs).toBeGreaterThan(0);
      expect(s.powerW).toBeGreaterThan(0);
    }
  });
});

describe('perseus preset (real A40 stage sweeps, as shipped in calibration/profiles)', () => {
  it('reads GPT-3 175B: 8 stages × fwd/bwd × 60 clocks, s → ns, power = energy / time', async () => {
    const file = perseusStages('gpt3-175b');
    const t = await readProfile(file);
    expect(t.format).toBe('perseus');
    expect(t.device).toBe('NVIDIA A40');
    expect(t.samples).toHaveLength(960);
    const names = new Set(t.samples.map((s) => s.kernelName));
    expect(names.size).toBe(16);
    expect(names.has('stage0/forward')).toBe(true);
    expect(names.has('stage7/backward')).toBe(true);
    const clocks = new Set(t.samples.map((s) => s.smClockMHz));
    expect(clocks.size).toBe(60);
    expect(Math.min(...(clocks as Set<number>))).toBe(855);
    expect(Math.max(...(clocks as Set<number>))).toBe(1740);
    // first row: 0,forward,1740,0.11248032760620108,33.59392799949646
    const s = t.samples[0]!;
    expect(s.smClockMHz).toBe(1740);
    expect(s.durationNs).toBeCloseTo(0.11248032760620108e9, 0);
    expect(s.energyJ).toBeCloseTo(33.59392799949646, 10);
    expect(s.powerW).toBeCloseTo(33.59392799949646 / 0.11248032760620108, 8);
    expect(s.utilization).toEqual({});
    expect(s.source.row).toBe(2);
  });

  it('reads BLOOM with the same layout', async () => {
    const t = await readProfile(perseusStages('bloom'));
    expect(t.samples).toHaveLength(960);
    for (const s of t.samples) expect(s.powerW! > 50 && s.powerW! < 400).toBe(true);
  });
});

describe("zeus preset (real NSDI'23 power-limit sweeps, vendored)", () => {
  it.each([
    ['summary_power_a40.csv', 453, 'NVIDIA A40'],
    ['summary_power_v100.csv', 476, 'Tesla V100'],
    ['summary_power_p100.csv', 270, 'Tesla P100'],
    ['summary_power_rtx6000.csv', 410, 'Quadro RTX 6000'],
  ])('%s', async (name, rows, device) => {
    const t = await readProfile(vendored('profiles', 'zeus-nsdi23', name));
    expect(t.format).toBe('zeus');
    expect(t.device).toBe(device);
    expect(t.samples).toHaveLength(rows);
    for (const s of t.samples) {
      expect(s.powerLimitW).toBeGreaterThan(0);
      expect(s.energyJ).toBeCloseTo((s.powerW! * s.durationNs!) / 1e9, 6);
    }
  });
  it('maps the first A40 row', async () => {
    const t = await readProfile(vendored('profiles', 'zeus-nsdi23', 'summary_power_a40.csv'));
    const s = t.samples[0]!;
    expect(s.kernelName).toBe('cifar100/shufflenetv2/bs1024/adadelta');
    expect(s.powerLimitW).toBe(100);
    expect(s.durationNs).toBeCloseTo(27.13e9, 0);
    expect(s.powerW).toBeCloseTo(106.88881213499654, 10);
  });
});

describe('zeus-profile (vendored Zeus optimizer profile)', () => {
  it('gives one sample per window and GPU with the power limit from the window name', async () => {
    const t = await readProfile(fixture('ml-energy__zeus__profile_data_A40+resnet18+gpu0,1,2,3.csv'));
    expect(t.format).toBe('zeus-profile');
    expect(t.device).toBe('NVIDIA A40');
    expect(t.samples).toHaveLength(9 * 4);
    const s = t.samples[0]!;
    expect(s.powerLimitW).toBe(300);
    expect(s.extra?.gpu).toBe(0);
    expect(s.energyJ).toBeCloseTo(3991.396999999881, 9);
    expect(s.durationNs).toBeCloseTo(33.27751154080033e9, 0);
    expect(t.samples[3]!.energyJ).toBeCloseTo(4102.665999993682, 9);
  });
});

describe('gpmtool preset (real gpmTOOL tables, vendored)', () => {
  it('reads the Titan X real-application table: app, power, clocks, 8 utilizations', async () => {
    const t = await readProfile(vendored('profiles', 'guerreiro-gpmtool', 'titanx_real_allFsPower_HPCAandCF.csv'));
    expect(t.format).toBe('gpmtool');
    expect(t.device).toBe('GeForce GTX TITAN X');
    expect(t.samples).toHaveLength(35 * 64); // 35 apps × 64 (core, memory) clock pairs
    const s = t.samples[0]!;
    // mri-gridding,183.1325,1164,4005,0.32229,0.21472,0,0.054185,0.24056,0.037143,0.20542,0.027894
    expect(s.kernelName).toBe('mri-gridding');
    expect(s.powerW).toBe(183.1325);
    expect(s.smClockMHz).toBe(1164);
    expect(s.memClockMHz).toBe(4005);
    expect(s.utilization).toEqual({
      fp32_active: 0.32229,
      int_active: 0.21472,
      fp64_active: 0,
      sfu_active: 0.054185,
      cf_active: 0.24056,
      l2_active: 0.037143,
      shared_active: 0.20542,
      dram_active: 0.027894,
    });
    expect(s.durationNs).toBeNull();
    expect(new Set(t.samples.map((x) => x.kernelName)).size).toBe(35);
  });

  it('reads the Titan V microbenchmarks (no app column, 12 components) and counts L2 > 1', async () => {
    const diagnostics = new Diagnostics();
    const t = await readProfile(vendored('profiles', 'guerreiro-gpmtool', 'titanv_micro_HPCAFMAandCF.csv'), {
      diagnostics,
    });
    expect(t.device).toBe('TITAN V');
    expect(t.samples).toHaveLength(1764 - 4);
    expect(Object.keys(t.samples[0]!.utilization)).toHaveLength(12);
    expect(t.samples[0]!.kernelName).toBe('micro0');
    expect(diagnostics.count('utilization-above-1')).toBeGreaterThan(0);
  });

  it('reads the Titan X microbenchmarks', async () => {
    const t = await readProfile(vendored('profiles', 'guerreiro-gpmtool', 'titanx_micro_peak_idle_HPCAandCF.csv'));
    expect(t.samples).toHaveLength(102 * 64);
    expect(new Set(t.samples.map((s) => s.memClockMHz)).size).toBeGreaterThan(1);
  });
});

describe('accelwattch (vendored AccelWattch validation power)', () => {
  it('reads CRLF rows with an empty first header cell', async () => {
    const t = await readProfile(fixture('accel-sim__accel-sim-framework__hw_power_validation_volta.csv'));
    expect(t.format).toBe('accelwattch');
    expect(t.samples).toHaveLength(26); // 26 kernels; the file has no final newline
    expect(t.samples[0]!.kernelName).toBe('backprop_k1');
    expect(t.samples[0]!.powerW).toBe(219.7978);
    expect(t.samples[0]!.extra).toEqual({ powerStdDevW: 0.267306865, powerSamples: 5 });
    expect(t.samples.at(-1)!.kernelName).not.toMatch(/\r/);
  });
});

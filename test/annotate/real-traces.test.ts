/**
 * Real traces (traces/ and ../shared/traces, ../shared/astra-sim-reference) annotated with a shipped calibration and
 * the RTX 8000 real-kernel profile. Their kernel names do not match the profile: nodes with num_ops/tensor_size get
 * the roofline fallback, the rest are estimated from their own duration and the calibration's assumed power (those
 * of 0 µs stay untouched), and everything is counted.
 */
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProfileTable } from '../../src/vocab/kernel-sample.js';
import { annotateTrace, stripAnnotation } from '../../src/engines/annotate/index.js';
import { kernelMicros } from '../../src/vocab/units.js';
import { ANNOTATION_ATTRS } from '../../src/vocab/attributes.js';
import { DURATION_SOURCE } from '../../src/engines/annotate/plan.js';
import { assumedKernelPowerW } from '../../src/model/active-power.js';
import { predictDurationFromOne } from '../../src/model/time-model.js';
import { estimateFromRoofline, loadCalibration, type Calibration } from '../../src/engines/calibrate/index.js';
import { replayFiles } from '../../src/engines/replay/index.js';
import { validateTrace } from '../../src/engines/trace/validate.js';
import { ChakraDecodeError } from '../../src/errors.js';
import {
  attrBool,
  attrInt,
  attrNumber,
  attrString,
  encodeTrace,
  NodeType,
  readTraceFile,
  resolveRankFiles,
  type ChakraNode,
} from '../../src/formats/chakra/index.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const calPath = path.join(repoRoot, 'calibration', 'rtx8000.json');
let cal: Calibration;
let profile: ProfileTable;

const gpuComp = (n: ChakraNode) => n.type === NodeType.COMP_NODE && !attrBool(n, 'is_cpu_op');
const work = (n: ChakraNode) => ({
  flops: Number(attrInt(n, 'num_ops') ?? 0n),
  bytes: Number(attrInt(n, 'tensor_size') ?? 0n),
});

/** Annotates at one clock and checks counts, roofline figures, byte preservation and validation against the input. */
async function annotateAndCheck(prefix: string, f: number) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-real-'));
  const res = await annotateTrace({
    trace: prefix,
    out: path.join(dir, 'a'),
    calibration: cal,
    profiles: [profile],
    frequenciesMHz: [f],
  });
  const files = await resolveRankFiles(prefix);
  expect(res.ranks.map((r) => r.rank)).toEqual(files.map((x) => x.rank));
  for (const [i, { file }] of files.entries()) {
    const input = await readTraceFile(file);
    const r = res.ranks[i];
    const comp = input.nodes.filter((n) => n.type === NodeType.COMP_NODE);
    const gpu = comp.filter(gpuComp);
    const withWork = gpu.filter((n) => work(n).flops > 0 || work(n).bytes > 0);
    const timed = gpu.filter((n) => !(work(n).flops > 0 || work(n).bytes > 0) && n.durationMicros > 0n);
    expect(r.nodes).toBe(input.nodes.length);
    expect(r.compNodes).toBe(comp.length);
    expect(r.cpuOps).toBe(comp.length - gpu.length);
    expect(r.gpuCompNodes).toBe(gpu.length);
    expect(r.matched).toEqual({ exact: 0, normalized: 0, base: 0, op: 0 });
    expect(r.roofline).toBe(withWork.length);
    expect(r.estimated).toBe(timed.length);
    expect(r.untouched).toBe(gpu.length - withWork.length - timed.length);
    expect(r.unmatched).toBe(gpu.length);
    expect(r.matchRate).toBe(gpu.length ? 0 : null);
    const byName = new Map<string, number>();
    for (const n of gpu) byName.set(n.name, (byName.get(n.name) ?? 0) + 1);
    const top = [...byName]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))
      .slice(0, 20);
    expect(r.unmatchedNames).toEqual(top);

    const out = await readTraceFile(r.perFrequency[0].file);
    expect(out.nodes).toHaveLength(input.nodes.length);
    let energy = 0;
    out.nodes.forEach((n, k) => {
      const before = input.nodes[k];
      const e = attrNumber(n, ANNOTATION_ATTRS.energyJ);
      if (gpuComp(before) && (work(before).flops > 0 || work(before).bytes > 0)) {
        const p = estimateFromRoofline(cal, { ...work(before), precision: 'fp16Tensor' }, f);
        expect(e).toBeCloseTo(p.energyJ, 12);
        expect(n.durationMicros).toBe(BigInt(kernelMicros(p.durationNs)));
        expect(attrString(n, ANNOTATION_ATTRS.estimatedFrom)).toBe('roofline');
        expect(attrInt(n, ANNOTATION_ATTRS.durationRefMicros)).toBe(before.durationMicros);
        energy += p.energyJ;
      } else if (gpuComp(before) && before.durationMicros > 0n) {
        const ref = Math.max(...cal.clocks.smClocksMHz);
        const d = predictDurationFromOne(
          cal.time,
          { durationNs: Number(before.durationMicros) * 1000, smClockMHz: ref, dramActive: 0 },
          f,
        );
        const p = assumedKernelPowerW(cal, f).powerW;
        expect(e).toBeCloseTo((p * d) / 1e9, 12);
        expect(attrNumber(n, ANNOTATION_ATTRS.powerW)).toBe(p);
        expect(n.durationMicros).toBe(BigInt(kernelMicros(d)));
        expect(attrString(n, ANNOTATION_ATTRS.estimatedFrom)).toBe(DURATION_SOURCE);
        energy += (p * d) / 1e9;
      } else {
        expect(e).toBeUndefined();
      }
      stripAnnotation(n, cal.components);
    });
    expect(r.perFrequency[0].computeEnergyJ).toBeCloseTo(energy, 12);
    // Everything but the annotation is preserved byte for byte.
    expect(Buffer.compare(encodeTrace(out.metadata, out.nodes), readFileSync(file))).toBe(0);
  }
  const before = await validateTrace(prefix);
  const after = await validateTrace(res.outputs[0].prefix);
  expect(after.counts).toEqual(before.counts);
  expect(after.nodes).toBe(before.nodes);
  return res;
}

async function load() {
  cal = await loadCalibration(calPath);
  profile = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'));
}

describeShared('annotate: real traces shipped in traces/', () => {
  beforeAll(load);
  it(
    'the real PyTorch trace: GPU kernels counted unmatched and estimated from their durations, host ops left ' +
      'alone',
    async () => {
      const res = await annotateAndCheck(shipped('chakra-tests', 'feeder_tests_chakra.0.et'), 1410);
      expect(res.total.cpuOps).toBeGreaterThan(0);
      expect(res.total.gpuCompNodes).toBeGreaterThan(0);
      expect(res.total.unmatched).toBe(res.total.gpuCompNodes);
      expect(res.total.estimated + res.total.untouched).toBe(res.total.gpuCompNodes);
      expect(res.total.unmatchedNames[0].count).toBeGreaterThan(1);
    },
  );

  it('the 64-rank ResNet-50 trace (no num_ops: every compute node estimated from its duration)', async () => {
    const res = await annotateAndCheck(shipped('astra-sim-history', 'resnet_dp', 'Resnet50_DataParallel'), 705);
    expect(res.ranks).toHaveLength(64);
    expect(res.total.estimated + res.total.untouched).toBe(res.total.gpuCompNodes);
    expect(res.total.estimated).toBeGreaterThan(0);
    expect(res.warnings).toEqual([expect.stringMatching(/^NO NODE MATCHED THE PROFILE/)]);
  });

  it('every ASTRA-sim example trace', async () => {
    for (const p of [
      ['all_reduce', '8npus_1MB', 'all_reduce'],
      ['all_gather', '4npus_1MB', 'all_gather'],
      ['reduce_scatter', '16npus_1MB', 'reduce_scatter'],
      ['all_to_all', '8npus_1MB', 'all_to_all'],
    ])
      await annotateAndCheck(shipped('astra-sim', ...p), 1110);
  });

  it('a gzip-compressed rank file gives the same annotation as the plain file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-gz-'));
    const src = shipped('chakra-tests', 'feeder_tests_chakra.0.et');
    await writeFile(path.join(dir, 'z.0.et'), gzipSync(readFileSync(src)));
    await copyFile(src, path.join(dir, 'p.0.et'));
    const opts = { calibration: cal, profiles: [profile], frequenciesMHz: [1410], workers: 1 };
    const z = await annotateTrace({ ...opts, trace: path.join(dir, 'z'), out: path.join(dir, 'out', 'z') });
    const p = await annotateTrace({ ...opts, trace: path.join(dir, 'p'), out: path.join(dir, 'out', 'p') });
    expect(
      Buffer.compare(readFileSync(z.ranks[0].perFrequency[0].file), readFileSync(p.ranks[0].perFrequency[0].file)),
    ).toBe(0);
  });

  it('a truncated trace fails with the byte offset', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-trunc-'));
    const bytes = readFileSync(shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce.0.et'));
    await writeFile(path.join(dir, 't.0.et'), bytes.subarray(0, bytes.length - 3));
    const err = await annotateTrace({
      trace: path.join(dir, 't'),
      out: path.join(dir, 'o'),
      calibration: cal,
      profiles: [profile],
      frequenciesMHz: [1410],
    }).catch((e) => e);
    expect(err).toBeInstanceOf(ChakraDecodeError);
    expect(String(err.message)).toMatch(/truncated/);
  });
});

describeShared('annotate: real traces in ../shared', () => {
  beforeAll(load);
  it('ASTRA-sim roofline test traces: roofline fallback on every compute node, and the replay uses energy_j', async () => {
    const prefix = shared('astra-sim-reference', 'traces', 'comp_roof4', 'c');
    const res = await annotateAndCheck(prefix, 1110);
    expect(res.total.roofline).toBe(res.total.gpuCompNodes);
    expect(res.total.roofline).toBeGreaterThan(0);
    const replayed = await replayFiles({
      trace: res.outputs[0].prefix,
      system: shared('astra-sim-reference', 'configs', 'sys_ring_pure.json'),
      network: shared('astra-sim-reference', 'configs', 'Ring_4npus.yml'),
      power: res.outputs[0].powerFile,
    });
    // The nodes' energy_j is compute + memory (its DRAM part carved out of it, never added on top).
    expect(replayed.energyJ.compute + replayed.energyJ.memory).toBeCloseTo(res.outputs[0].computeEnergyJ, 12);
    expect(replayed.ranks).toHaveLength(4);
  });

  it('the micro-2024 tutorial and shared ASTRA-sim traces annotate and still replay', async () => {
    const res = await annotateAndCheck(
      shared(
        'traces',
        'astra-sim',
        'examples',
        'system',
        'custom_collectives',
        'custom_ring_allreduce_8npus_1MB',
        'custom_allreduce',
      ),
      1410,
    );
    expect(res.ranks).toHaveLength(8);
    const mlp = await annotateAndCheck(
      shared('traces', 'tutorials-micro2024', 'micro2024', 'astra-sim-demo', 'demo2', 'workload', 'MLP_ModelParallel'),
      870,
    );
    expect(mlp.ranks).toHaveLength(32);
    expect(mlp.total.gpuCompNodes).toBeGreaterThan(0);
    const ar = await annotateAndCheck(
      shared('astra-sim-reference', 'traces', 'all_reduce_4npus_1MB', 'all_reduce'),
      1410,
    );
    const replayed = await replayFiles({
      trace: ar.outputs[0].prefix,
      system: shared('astra-sim-reference', 'configs', 'sys_ring_pure.json'),
      network: shared('astra-sim-reference', 'configs', 'Ring_4npus.yml'),
      power: ar.outputs[0].powerFile,
    });
    const original = await replayFiles({
      trace: shared('astra-sim-reference', 'traces', 'all_reduce_4npus_1MB', 'all_reduce'),
      system: shared('astra-sim-reference', 'configs', 'sys_ring_pure.json'),
      network: shared('astra-sim-reference', 'configs', 'Ring_4npus.yml'),
      power: ar.outputs[0].powerFile,
    });
    expect(replayed.makespanNs).toBe(original.makespanNs);
  });
});

describe('annotate: options', () => {
  it('refuses to overwrite the input', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-ow-'));
    await copyFile(shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce.0.et'), path.join(dir, 'x.0.et'));
    const cal2 = await loadCalibration(calPath);
    const prof: ProfileTable = { format: 'none', device: null, samples: [], notes: [] };
    await expect(
      annotateTrace({
        trace: path.join(dir, 'x'),
        out: path.join(dir, 'x'),
        calibration: cal2,
        profiles: [prof],
        frequenciesMHz: [1410],
      }),
    ).rejects.toThrow(/overwrite/);
  });
});

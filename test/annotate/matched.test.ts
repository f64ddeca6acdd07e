/**
 * A generated trace whose kernels carry the names of the RTX 8000 real kernels of NV-DVFS-Benchmark, in the
 * spellings traces use; energies checked against predictKernel on the same profiled kernel.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import type { KernelSample, ProfileTable } from '../../src/vocab/kernel-sample.js';
import {
  annotateTrace,
  componentPowersAt,
  stripAnnotation,
  type AnnotateResult,
} from '../../src/engines/annotate/index.js';
import { ANNOTATION_ATTRS, UTIL_PREFIX } from '../../src/vocab/attributes.js';
import { kernelMicros } from '../../src/vocab/units.js';
import { loadCalibration, predictKernel, type Calibration } from '../../src/engines/calibrate/index.js';
import { parsePowerConfig } from '../../src/formats/astra/index.js';
import {
  attrInt,
  attrNumber,
  attrString,
  emptyNode,
  encodeTrace,
  makeAttr,
  NodeType,
  readTraceFile,
  writeTraceFile,
  type ChakraNode,
} from '../../src/formats/chakra/index.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { kernelKey } from '../../src/model/kernels.js';
import { DURATION_SOURCE } from '../../src/engines/annotate/plan.js';
import { assumedKernelPowerW } from '../../src/model/active-power.js';
import { predictDurationFromOne } from '../../src/model/time-model.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';

const FREQS = [870, 1410];

describeShared('annotate: generated trace with real RTX 8000 kernel names', () => {
  let cal: Calibration;
  let profile: ProfileTable;
  let dir: string;
  let prefix: string;
  /** Per rank: the nodes written, and for each compute node the profile kernel key it should match (or null). */
  const expected: { nodes: ChakraNode[]; keys: (string | null)[]; levels: (string | null)[] }[] = [];
  let res: AnnotateResult;
  const samplesOf = (key: string): KernelSample[] => profile.samples.filter((s) => kernelKey(s) === key);

  beforeAll(async () => {
    cal = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    profile = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'));
    dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-'));
    prefix = path.join(dir, 'gen');
    const keyOf = (bench: string, kernel: string) => `${bench}/${kernel}/input000`;
    for (let rank = 0; rank < 2; rank++) {
      const nodes: ChakraNode[] = [];
      const keys: (string | null)[] = [];
      const levels: (string | null)[] = [];
      let id = BigInt(rank * 1000);
      const add = (
        name: string,
        type: number,
        key: string | null,
        level: string | null,
        attrs: ChakraNode['attrs'] = [makeAttr('is_cpu_op', 'bool_val', false)],
      ) => {
        const n = emptyNode(id, name, type);
        if (nodes.length) n.dataDeps = [id - 1n];
        n.durationMicros = BigInt(5 + nodes.length * 3);
        n.attrs = attrs;
        nodes.push(n);
        keys.push(key);
        levels.push(level);
        id++;
      };
      add(
        'BlackScholes/BlackScholesGPU/input000',
        NodeType.COMP_NODE,
        keyOf('BlackScholes', 'BlackScholesGPU'),
        'exact',
      );
      add('matrixMulCUDA', NodeType.COMP_NODE, keyOf('matrixMul', 'matrixMulCUDA'), 'exact');
      add(
        'void vectorAdd(float const*, float const*, float*, int)',
        NodeType.COMP_NODE,
        keyOf('vectorAdd', 'vectorAdd'),
        'normalized',
      );
      add(
        '_Z8bisectKernelPfS_i'.replace('8bisect', '12bisect'),
        NodeType.COMP_NODE,
        keyOf('eigenvalues', 'bisectKernel'),
        'normalized',
      );
      add('cudaSamples::reduce2_float', NodeType.COMP_NODE, keyOf('reduction', 'reduce2_float'), 'base');
      // Two profiled kernels share this name: invocation order picks the first, then the second.
      add('convolutionRowsKernel', NodeType.COMP_NODE, keyOf('convolutionSeparable', 'convolutionRowsKernel'), 'exact');
      add('convolutionRowsKernel', NodeType.COMP_NODE, keyOf('convolutionTexture', 'convolutionRowsKernel'), 'exact');
      add('aten::matmul', NodeType.COMP_NODE, null, null, [makeAttr('is_cpu_op', 'bool_val', true)]);
      add('allreduce', NodeType.COMM_COLL_NODE, null, null, [
        makeAttr('comm_type', 'int64_val', 0),
        makeAttr('comm_size', 'int64_val', 1 << 20),
      ]);
      add('not_profiled_no_work', NodeType.COMP_NODE, null, null);
      await writeTraceFile(
        `${prefix}.${rank}.et`,
        { version: '', attrs: [makeAttr('schema', 'string_val', '1.0.2-chakra.0.0.4')] },
        nodes,
      );
      expected.push({ nodes, keys, levels });
    }
    res = await annotateTrace({
      trace: prefix,
      out: path.join(dir, 'out', 'gen'),
      calibration: cal,
      profiles: [profile],
      frequenciesMHz: FREQS,
    });
  });

  it('matches each spelling at the expected level and counts the rest', () => {
    for (const [rank, e] of expected.entries()) {
      const r = res.ranks[rank];
      const count = (level: string) => e.levels.filter((l) => l === level).length;
      expect(r.matched).toEqual({ exact: count('exact'), normalized: count('normalized'), base: count('base'), op: 0 });
      expect(r.cpuOps).toBe(1);
      // not_profiled_no_work: no profile, no num_ops, but a duration: estimated from it.
      expect(r.untouched).toBe(0);
      expect(r.estimated).toBe(1);
      expect(r.unmatched).toBe(1);
      expect(r.memcpy).toBe(0);
      expect(r.roofline).toBe(0);
      expect(r.byInvocation).toBe(2);
      expect(r.gpuCompNodes).toBe(e.keys.filter(Boolean).length + 1);
      expect(r.unmatchedNames).toEqual([{ name: 'not_profiled_no_work', count: 1 }]);
      expect(r.matchRate).toBeCloseTo(e.keys.filter(Boolean).length / r.gpuCompNodes, 12);
    }
  });

  it('writes the energy, power, utilizations and duration that predictKernel gives for the same kernel', async () => {
    for (const [fi, f] of FREQS.entries()) {
      let total = 0;
      for (const [rank, e] of expected.entries()) {
        const out = await readTraceFile(res.ranks[rank].perFrequency[fi].file);
        expect(out.nodes).toHaveLength(e.nodes.length);
        let rankEnergy = 0;
        out.nodes.forEach((n, i) => {
          const key = e.keys[i];
          if (!key) {
            if (n.name !== 'not_profiled_no_work') {
              expect(attrNumber(n, ANNOTATION_ATTRS.energyJ)).toBeUndefined();
              return;
            }
            const d = predictDurationFromOne(
              cal.time,
              {
                durationNs: Number(e.nodes[i].durationMicros) * 1000,
                smClockMHz: Math.max(...cal.clocks.smClocksMHz),
                dramActive: 0,
              },
              f,
            );
            const energyJ = (assumedKernelPowerW(cal, f).powerW * d) / 1e9;
            expect(attrNumber(n, ANNOTATION_ATTRS.energyJ)).toBeCloseTo(energyJ, 12);
            expect(attrString(n, ANNOTATION_ATTRS.estimatedFrom)).toBe(DURATION_SOURCE);
            for (const c of cal.components) expect(attrNumber(n, UTIL_PREFIX + c)).toBeUndefined();
            rankEnergy += energyJ;
            return;
          }
          const p = predictKernel(cal, samplesOf(key), f);
          expect(attrNumber(n, ANNOTATION_ATTRS.energyJ)).toBeCloseTo(p.energyJ, 12);
          expect(attrNumber(n, ANNOTATION_ATTRS.powerW)).toBeCloseTo(p.powerW, 9);
          for (const c of cal.components)
            expect(attrNumber(n, UTIL_PREFIX + c)).toBeCloseTo(Math.min(1, Math.max(0, p.utilization[c] ?? 0)), 12);
          expect(n.durationMicros).toBe(BigInt(kernelMicros(p.durationNs)));
          expect(attrInt(n, ANNOTATION_ATTRS.durationRefMicros)).toBe(e.nodes[i].durationMicros);
          expect(attrNumber(n, ANNOTATION_ATTRS.frequencyMHz)).toBe(f);
          expect(attrNumber(n, ANNOTATION_ATTRS.frequencyRefMHz)).toBe(Math.max(...cal.clocks.smClocksMHz));
          expect(attrString(n, ANNOTATION_ATTRS.estimatedFrom)).toBe('profile');
          rankEnergy += p.energyJ;
        });
        expect(res.ranks[rank].perFrequency[fi].computeEnergyJ).toBeCloseTo(rankEnergy, 12);
        total += rankEnergy;
      }
      expect(res.outputs[fi].computeEnergyJ).toBeCloseTo(total, 12);
      // The two convolutionRowsKernel nodes got different kernels' figures.
      const out = await readTraceFile(res.ranks[0].perFrequency[fi].file);
      expect(attrNumber(out.nodes[5], 'energy_j')).not.toBe(attrNumber(out.nodes[6], 'energy_j'));
    }
  });

  it('changes nothing else: stripping the annotation gives back the input bytes', async () => {
    for (const rank of [0, 1]) {
      for (const pf of res.ranks[rank].perFrequency) {
        const out = await readTraceFile(pf.file);
        for (const n of out.nodes) stripAnnotation(n, cal.components);
        expect(Buffer.compare(encodeTrace(out.metadata, out.nodes), readFileSync(`${prefix}.${rank}.et`))).toBe(0);
      }
    }
  });

  it('starts invocation order and counts over with each rank when one thread annotates them all', async () => {
    // Two identical ranks; a name with two profiled kernels appears three times, so a count carried over from rank
    // 0 would give rank 1 the kernels in the other order.
    const nodes = [
      'convolutionRowsKernel',
      'convolutionRowsKernel',
      'not_profiled_no_work',
      'convolutionRowsKernel',
    ].map((name, i) => {
      const n = emptyNode(BigInt(i), name, NodeType.COMP_NODE);
      n.durationMicros = 7n;
      n.attrs = [makeAttr('is_cpu_op', 'bool_val', false)];
      return n;
    });
    const twin = path.join(dir, 'twin');
    for (const rank of [0, 1]) await writeTraceFile(`${twin}.${rank}.et`, { version: '', attrs: [] }, nodes);
    const one = await annotateTrace({
      trace: twin,
      out: path.join(dir, 'twin-out', 'gen'),
      calibration: cal,
      profiles: [profile],
      frequenciesMHz: [1410],
      workers: 1,
    });
    expect(one.parallelism.mode).toBe('in-process');
    const [r0, r1] = one.ranks;
    expect(r0.byInvocation).toBe(3);
    expect(r1.unmatchedNames).toEqual([{ name: 'not_profiled_no_work', count: 1 }]);
    expect(r1.perFrequency[0].computeEnergyJ).toBe(r0.perFrequency[0].computeEnergyJ);
    expect(Buffer.compare(readFileSync(r1.perFrequency[0].file), readFileSync(r0.perFrequency[0].file))).toBe(0);
    const out = await readTraceFile(r1.perFrequency[0].file);
    expect(attrNumber(out.nodes[0], 'energy_j')).toBe(attrNumber(out.nodes[3], 'energy_j'));
    expect(attrNumber(out.nodes[0], 'energy_j')).not.toBe(attrNumber(out.nodes[1], 'energy_j'));
  });

  it('lists in each rank only the unmatched names that rank used', async () => {
    // Rank 3 looks no name up (its one node is a collective).
    const rankNames = [
      ['unprofiled_b', 'unprofiled_a', 'unprofiled_b'],
      ['unprofiled_a'],
      ['unprofiled_c', 'unprofiled_b'],
      [],
    ];
    const base = path.join(dir, 'names');
    for (const [rank, names] of rankNames.entries()) {
      const nodes = names.map((name, i) => {
        const n = emptyNode(BigInt(i), name, NodeType.COMP_NODE);
        n.attrs = [makeAttr('is_cpu_op', 'bool_val', false)];
        return n;
      });
      if (!nodes.length) nodes.push(emptyNode(0n, 'allreduce', NodeType.COMM_COLL_NODE));
      await writeTraceFile(`${base}.${rank}.et`, { version: '', attrs: [] }, nodes);
    }
    const one = await annotateTrace({
      trace: base,
      out: path.join(dir, 'names-out', 'gen'),
      calibration: cal,
      profiles: [profile],
      frequenciesMHz: [1410],
      workers: 1,
    });
    expect(one.ranks.map((r) => r.unmatchedNames)).toEqual([
      [
        { name: 'unprofiled_b', count: 2 },
        { name: 'unprofiled_a', count: 1 },
      ],
      [{ name: 'unprofiled_a', count: 1 }],
      [
        { name: 'unprofiled_b', count: 1 },
        { name: 'unprofiled_c', count: 1 },
      ],
      [],
    ]);
  });

  it('writes the same bytes through the fast path and through the full decoder and encoder', async () => {
    const slow = await annotateTrace({
      trace: prefix,
      out: path.join(dir, 'slow', 'gen'),
      calibration: cal,
      profiles: [profile],
      frequenciesMHz: FREQS,
      fastPath: false,
    });
    expect(slow.total.slowPathNodes).toBe(res.total.gpuCompNodes - res.total.untouched);
    expect(res.total.slowPathNodes).toBe(0);
    for (const [rank, r] of res.ranks.entries()) {
      for (const [fi, pf] of r.perFrequency.entries())
        expect(Buffer.compare(readFileSync(pf.file), readFileSync(slow.ranks[rank].perFrequency[fi].file))).toBe(0);
    }
  });

  it('re-annotating an annotated trace equals annotating the original', async () => {
    const again = await annotateTrace({
      trace: `${res.outputs[0].prefix}`,
      out: path.join(dir, 'again', 'gen'),
      calibration: cal,
      profiles: [profile],
      frequenciesMHz: [1410],
    });
    expect(again.diagnostics.find((d) => d.code === 'already-annotated')?.count).toBe(
      again.total.gpuCompNodes - again.total.untouched,
    );
    const direct = await annotateTrace({
      trace: prefix,
      out: path.join(dir, 'direct', 'gen'),
      calibration: cal,
      profiles: [profile],
      frequenciesMHz: [1410],
    });
    for (const rank of [0, 1])
      expect(
        Buffer.compare(
          readFileSync(again.ranks[rank].perFrequency[0].file),
          readFileSync(direct.ranks[rank].perFrequency[0].file),
        ),
      ).toBe(0);
  });

  it('writes a power configuration the replay reads, with the calibrated idle power and the mean annotated power', () => {
    for (const [fi, o] of res.outputs.entries()) {
      expect(o.prefix).toBe(path.join(dir, 'out', `gen.${FREQS[fi]}MHz`));
      const p = parsePowerConfig(o.powerFile, readFileSync(o.powerFile, 'utf8'));
      const ns = res.ranks.reduce((s, r) => s + r.perFrequency[fi].annotatedDurationNs, 0);
      expect(p.gpu.activePowerW).toBeCloseTo(o.computeEnergyJ / (ns * 1e-9), 3);
      expect(p.gpu.idlePowerW).toBeGreaterThan(0);
      expect(p.gpu.idlePowerW).toBeLessThan(p.gpu.activePowerW);
      expect(p.network.length).toBeGreaterThan(0);
      // Component powers at this clock are the calibration's coefficients there.
      expect(p.gpu.frequencyMHz).toBe(FREQS[fi]);
      const comp = componentPowersAt(cal, FREQS[fi]);
      expect(Object.keys(p.gpu.componentPowersW ?? {})).toEqual(Object.keys(comp.coefficientsW));
      for (const [c, w] of Object.entries(comp.coefficientsW)) expect(p.gpu.componentPowersW![c]).toBeCloseTo(w, 3);
    }
  });
});

describeShared('annotate: profile aggregated by op', () => {
  it('matches a GPU op node to the op its kernels were profiled under', async () => {
    const cal = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    const real = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'));
    const mm = real.samples.filter((s) => s.kernelName === 'matrixMul/matrixMulCUDA/input000');
    const samples = mm.map((s) => ({ ...s, kernelName: 'sm75_xmma_gemm_f32f32_unlisted', extra: { op: 'aten::mm' } }));
    const profile: ProfileTable = { format: 'test', device: null, samples, notes: [] };
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-op-'));
    const n = emptyNode(1n, 'aten::mm(0)', NodeType.COMP_NODE);
    n.durationMicros = 100n;
    await writeTraceFile(path.join(dir, 'op.0.et'), null, [n]);
    const res = await annotateTrace({
      trace: path.join(dir, 'op'),
      out: path.join(dir, 'out', 'op'),
      calibration: cal,
      profiles: [profile],
      frequenciesMHz: [1110],
    });
    expect(res.total.matched.op).toBe(1);
    const out = await readTraceFile(res.ranks[0].perFrequency[0].file);
    expect(out.metadata).toBeNull();
    const p = predictKernel(cal, mm, 1110);
    expect(attrNumber(out.nodes[0], 'energy_j')).toBeCloseTo(p.energyJ, 9);
  });
});

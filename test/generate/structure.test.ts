/** Shape of each rank's graph: ids, dependencies, attributes, schedule order, roofline durations. */
import { describe, expect, it } from 'vitest';
import { GPU_PRESETS } from '../../src/engines/generate/gpus.js';
import { generateLlmTraces, stageSchedule, type LlmGenerateOptions } from '../../src/engines/generate/index.js';
import { NodeType } from '../../src/formats/chakra/schema.js';
import type { ChakraNode } from '../../src/formats/chakra/types.js';
import { attrBool, attrBoolList, num } from './helpers.js';

const CONFIGS: [string, LlmGenerateOptions][] = [
  [
    '1f1b, tied embeddings, SP',
    { model: 'gpt3-175b', dp: 2, tp: 4, pp: 3, microBatch: 1, globalBatch: 8, seqLen: 1024, sequenceParallel: true },
  ],
  [
    'gpipe, GQA, full recompute',
    {
      model: 'llama2-70b',
      dp: 2,
      tp: 8,
      pp: 4,
      microBatch: 1,
      globalBatch: 8,
      seqLen: 1024,
      schedule: 'gpipe',
      recompute: 'full',
    },
  ],
  ['single GPU', { model: 'llama2-7b', dp: 1, tp: 1, pp: 1, microBatch: 1, globalBatch: 2, seqLen: 512 }],
];

describe.each(CONFIGS)('graph invariants: %s', (_label, o) => {
  const set = generateLlmTraces(o);
  const dims = set.plan.networkDims.length;

  it('ids are unique per rank and every dependency points to an earlier node of the same rank (acyclic)', () => {
    const problems: string[] = [];
    for (let r = 0; r < set.ranks; r++) {
      const ids = new Set<bigint>();
      for (const n of set.nodesOf(r)) {
        if (ids.has(n.id)) problems.push(`rank ${r}: duplicate id ${n.id}`);
        for (const d of n.dataDeps)
          if (!ids.has(d)) problems.push(`rank ${r}: ${n.name} depends on later or absent ${d}`);
        for (const d of n.ctrlDeps)
          if (!ids.has(d)) problems.push(`rank ${r}: ${n.name} depends on later or absent ${d}`);
        ids.add(n.id);
      }
    }
    expect(problems.slice(0, 5)).toEqual([]);
  });

  it('COMP nodes carry num_ops, tensor_size and is_cpu_op; collectives name their type, size and dimensions', () => {
    for (const n of set.nodesOf(set.ranks - 1)) {
      expect(attrBool(n, 'is_cpu_op')).toBe(false);
      if (n.type === NodeType.COMP_NODE) {
        expect(num(n, 'num_ops')).toBeGreaterThan(0);
        expect(num(n, 'tensor_size')).toBeGreaterThan(0);
      } else if (n.type === NodeType.COMM_COLL_NODE) {
        expect(num(n, 'comm_size')).toBeGreaterThan(0);
        expect(num(n, 'comm_type')).toBeGreaterThanOrEqual(0);
        expect(attrBoolList(n, 'involved_dim')!.length).toBe(dims);
      }
    }
  });

  it('runs compute in one stream: every COMP node after the first depends on the previous COMP node', () => {
    const comps = set.nodesOf(0).filter((n) => n.type === NodeType.COMP_NODE);
    for (let i = 1; i < comps.length; i++) {
      expect([...comps[i].dataDeps, ...comps[i].ctrlDeps]).toContain(comps[i - 1].id);
    }
  });

  it('ends with the optimizer step', () => {
    for (let s = 0; s < set.plan.pp; s++) expect(set.stageTemplate(s).nodes.at(-1)!.name).toBe('optimizer.adam');
  });
});

describe('pipeline schedules', () => {
  const inFlightMax = (steps: { pass: 'F' | 'B'; microBatch: number }[]) => {
    let live = 0;
    let max = 0;
    for (const s of steps) {
      live += s.pass === 'F' ? 1 : -1;
      max = Math.max(max, live);
    }
    return max;
  };

  it.each([
    [4, 8],
    [4, 2],
    [8, 32],
    [1, 3],
  ])('p = %i, m = %i: each micro-batch runs forward then backward once', (p, m) => {
    for (const schedule of ['1f1b', 'gpipe'] as const) {
      for (let s = 0; s < p; s++) {
        const steps = stageSchedule(schedule, p, s, m);
        expect(steps.length).toBe(2 * m);
        for (let mb = 0; mb < m; mb++) {
          const f = steps.findIndex((x) => x.pass === 'F' && x.microBatch === mb);
          const b = steps.findIndex((x) => x.pass === 'B' && x.microBatch === mb);
          expect(f).toBeGreaterThanOrEqual(0);
          expect(b).toBeGreaterThan(f);
        }
        // 1F1B keeps at most p − s micro-batches of activations; GPipe keeps all m.
        expect(inFlightMax(steps)).toBe(schedule === 'gpipe' ? m : Math.min(p - s, m));
      }
    }
  });

  it('the generated trace follows the schedule: stage 0 of 4 runs 3 warm-up forwards before its first backward', () => {
    const set = generateLlmTraces({
      model: 'llama2-7b',
      dp: 1,
      tp: 1,
      pp: 4,
      microBatch: 1,
      globalBatch: 8,
      seqLen: 256,
    });
    const order: string[] = [];
    for (const n of set.nodesOf(0)) {
      const mm = /^mb(\d+)\.(embedding\.fwd|embedding\.bwd)$/.exec(n.name);
      if (mm) order.push(`${mm[2] === 'embedding.fwd' ? 'F' : 'B'}${mm[1]}`);
    }
    const expected = stageSchedule('1f1b', 4, 0, 8).map((s) => `${s.pass}${s.microBatch}`);
    expect(order).toEqual(expected);
    expect(order.slice(0, 5)).toEqual(['F0', 'F1', 'F2', 'F3', 'B0']);
  });

  it('a backward pass depends on its own forward pass and on the gradient received from the next stage', () => {
    const set = generateLlmTraces({
      model: 'llama2-7b',
      dp: 1,
      tp: 1,
      pp: 2,
      microBatch: 1,
      globalBatch: 4,
      seqLen: 256,
    });
    const nodes = set.nodesOf(0);
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const firstBwd = nodes.find((n) => /^mb2\.L\d+\.mlp_down\.dgrad$/.test(n.name))!;
    const deps = [...firstBwd.dataDeps].map((d) => byId.get(d)!.name);
    expect(deps).toContain('mb2.recv_gradient');
    expect(deps.some((d) => /^mb2\.L\d+\..*\.fwd$/.test(d))).toBe(true);
  });
});

describe('roofline durations', () => {
  it('each COMP duration is max(FLOPs / peak, bytes / bandwidth) of the GPU preset, in whole µs', () => {
    const gpu = GPU_PRESETS.a100;
    const set = generateLlmTraces({
      model: 'llama2-13b',
      dp: 1,
      tp: 4,
      pp: 1,
      microBatch: 1,
      globalBatch: 2,
      seqLen: 2048,
      gpu,
    });
    const comps = set.nodesOf(0).filter((n: ChakraNode) => n.type === NodeType.COMP_NODE);
    for (const n of comps) {
      const us = Math.max(num(n, 'num_ops') / 312e12, num(n, 'tensor_size') / 2039e9) * 1e6;
      expect(Math.abs(Number(n.durationMicros) - us)).toBeLessThanOrEqual(0.5 + 1e-9);
    }
  });

  it('rejects a dtype the GPU cannot run', () => {
    expect(() =>
      generateLlmTraces({
        model: 'llama2-7b',
        dp: 1,
        tp: 1,
        pp: 1,
        microBatch: 1,
        globalBatch: 1,
        seqLen: 128,
        gpu: GPU_PRESETS.v100,
        dtype: 'bf16',
      }),
    ).toThrow(/no bf16/);
  });
});

describe('option validation', () => {
  const base: LlmGenerateOptions = {
    model: 'llama2-70b',
    dp: 1,
    tp: 8,
    pp: 4,
    microBatch: 1,
    globalBatch: 32,
    seqLen: 4096,
  };
  it.each([
    [{ microBatch: 4, globalBatch: 30 }, /not a multiple of --micro-batch × --dp/],
    [{ tp: 3 }, /do not split over --tp 3/],
    [{ pp: 81 }, /exceeds the 80 layers/],
    [{ seqLen: 4100, sequenceParallel: true }, /--seq 4100 to be a multiple of --tp 8/],
    [{ dp: 0 }, /--dp must be a positive integer/],
    [{ model: 'gpt-5' }, /unknown model "gpt-5"/],
  ])('%o', (change, message) => {
    expect(() => generateLlmTraces({ ...base, ...change } as LlmGenerateOptions)).toThrow(message);
  });
});

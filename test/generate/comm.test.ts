/** Sizes, types, groups and pairing of the generated communication, against analytical values. */
import { describe, expect, it } from 'vitest';
import { countParameters, MODEL_PRESETS } from '../../src/engines/generate/models.js';
import { generateLlmTraces, type LlmGenerateOptions, type LlmTraceSet } from '../../src/engines/generate/index.js';
import { CollectiveCommType, NodeType } from '../../src/formats/chakra/schema.js';
import type { ChakraNode } from '../../src/formats/chakra/types.js';
import { attrBoolList, num } from './helpers.js';

const BF16 = 2;
const colls = (nodes: ChakraNode[], pattern: RegExp) =>
  nodes.filter((n) => n.type === NodeType.COMM_COLL_NODE && pattern.test(n.name));

describe('tensor-parallel collectives (LLaMA-2 70B, tp 8, pp 4)', () => {
  const o: LlmGenerateOptions = {
    model: 'llama2-70b',
    dp: 1,
    tp: 8,
    pp: 4,
    microBatch: 1,
    globalBatch: 8,
    seqLen: 4096,
  };
  const m = MODEL_PRESETS['llama2-70b'];
  const layersPerStage = m.numLayers / 4;

  it('all-reduces b·s·h·2 bytes twice per layer and micro-batch in forward, on dimension 0 only', () => {
    const set = generateLlmTraces(o);
    const nodes = set.nodesOf(8); // stage 1: decoder layers only
    const fwd = colls(nodes, /^mb\d+\.L\d+\..*tp_allreduce\.fwd$/);
    expect(fwd.length).toBe(2 * layersPerStage * set.plan.microBatches);
    for (const n of fwd) {
      expect(num(n, 'comm_type')).toBe(CollectiveCommType.ALL_REDUCE);
      expect(num(n, 'comm_size')).toBe(1 * 4096 * 8192 * BF16);
      expect(attrBoolList(n, 'involved_dim')).toEqual([true, false]);
    }
    // Backward: the input gradients of the QKV and MLP-up projections.
    expect(colls(nodes, /tp_allreduce\.bwd$/).length).toBe(2 * layersPerStage * set.plan.microBatches);
  });

  it('with sequence parallelism: reduce-scatter of b·s·h·2 and all-gather of b·s·h·2/tp per rank instead', () => {
    const set = generateLlmTraces({ ...o, sequenceParallel: true });
    const nodes = set.nodesOf(9);
    expect(colls(nodes, /tp_allreduce/).length).toBe(0);
    const rs = colls(nodes, /tp_reducescatter\.fwd$/);
    const ag = colls(nodes, /tp_allgather\.fwd$/);
    expect(rs.length).toBe(2 * layersPerStage * set.plan.microBatches);
    expect(ag.length).toBe(2 * layersPerStage * set.plan.microBatches);
    for (const n of rs) {
      expect(num(n, 'comm_type')).toBe(CollectiveCommType.REDUCE_SCATTER);
      expect(num(n, 'comm_size')).toBe(4096 * 8192 * BF16);
    }
    for (const n of ag) {
      expect(num(n, 'comm_type')).toBe(CollectiveCommType.ALL_GATHER);
      expect(num(n, 'comm_size')).toBe((4096 * 8192 * BF16) / 8);
    }
  });
});

function p2pOf(set: LlmTraceSet) {
  const sends: string[] = [];
  const recvs: string[] = [];
  for (let r = 0; r < set.ranks; r++) {
    for (const n of set.nodesOf(r)) {
      if (n.type === NodeType.COMM_SEND_NODE) {
        expect(num(n, 'comm_src')).toBe(r);
        sends.push(`${r}->${num(n, 'comm_dst')} tag ${num(n, 'comm_tag')} size ${num(n, 'comm_size')}`);
      } else if (n.type === NodeType.COMM_RECV_NODE) {
        expect(num(n, 'comm_dst')).toBe(r);
        recvs.push(`${num(n, 'comm_src')}->${r} tag ${num(n, 'comm_tag')} size ${num(n, 'comm_size')}`);
      }
    }
  }
  return { sends: sends.sort(), recvs: recvs.sort() };
}

describe('pipeline point-to-point messages', () => {
  for (const schedule of ['1f1b', 'gpipe'] as const) {
    it(
      `${schedule}: every send has exactly one matching receive; activations are b·s·h·2 bytes between ` +
        `neighbouring stages`,
      () => {
        const set = generateLlmTraces({
          model: 'llama2-7b',
          dp: 2,
          tp: 2,
          pp: 4,
          microBatch: 2,
          globalBatch: 16,
          seqLen: 512,
          schedule,
        });
        const { sends, recvs } = p2pOf(set);
        expect(new Set(sends).size).toBe(sends.length);
        expect(recvs).toEqual(sends);
        // (pp − 1) boundaries × 2 directions × m micro-batches, per tensor-/data-parallel pair.
        expect(sends.length).toBe(3 * 2 * set.plan.microBatches * 4);
        for (const s of sends) {
          const [, from, to, size] = /^(\d+)->(\d+) tag \d+ size (\d+)$/.exec(s)!.map(Number);
          expect(Math.abs(set.stageOf(from) - set.stageOf(to))).toBe(1);
          expect(from % 4).toBe(to % 4); // same tensor- and data-parallel coordinates
          expect(size).toBe(2 * 512 * 4096 * BF16);
        }
      },
    );
  }

  it('tied embeddings on separate stages exchange the embedding gradient (GPT-3, pp 2)', () => {
    const set = generateLlmTraces({
      model: 'gpt3-175b',
      dp: 1,
      tp: 8,
      pp: 2,
      microBatch: 1,
      globalBatch: 2,
      seqLen: 2048,
      sequenceParallel: true,
    });
    const { sends, recvs } = p2pOf(set);
    expect(recvs).toEqual(sends);
    const sync = sends.filter((s) => s.endsWith(`size ${Math.ceil(50257 / 8) * 12288 * 4}`));
    expect(sync.length).toBe(2 * 8); // both directions, every tensor-parallel rank, fp32 gradients
    // Activations with sequence parallelism travel as s/tp sequence shards.
    expect(sends.filter((s) => s.endsWith(`size ${(2048 / 8) * 12288 * BF16}`)).length).toBe(2 * 2 * 8);
  });
});

describe('data-parallel gradient all-reduce', () => {
  const o: LlmGenerateOptions = {
    model: 'llama2-13b',
    dp: 4,
    tp: 2,
    pp: 2,
    microBatch: 1,
    globalBatch: 16,
    seqLen: 1024,
  };

  it('reduces every parameter once in fp32 over one replica (dimension dp only)', () => {
    const set = generateLlmTraces(o);
    let bytes = 0;
    for (let r = 0; r < set.ranks; r++) {
      if (Math.floor(r / 2) % 4 !== 0) continue; // data-parallel coordinate 0
      for (const n of colls(set.nodesOf(r), /^dp_grad_allreduce/)) {
        expect(num(n, 'comm_type')).toBe(CollectiveCommType.ALL_REDUCE);
        expect(attrBoolList(n, 'involved_dim')).toEqual([false, true, false]);
        bytes += num(n, 'comm_size');
      }
    }
    const params = countParameters(MODEL_PRESETS['llama2-13b']).total;
    // Norm weights are replicated on both tensor-parallel ranks: a 0.02% excess.
    expect(Math.abs(bytes / 4 - params) / params).toBeLessThan(0.001);
  });

  it('buckets overlap the backward pass and the optimizer step waits for all of them', () => {
    const set = generateLlmTraces(o);
    const nodes = set.nodesOf(0);
    const buckets = colls(nodes, /^dp_grad_allreduce/);
    expect(buckets.length).toBeGreaterThan(1);
    const lastBackward = nodes.filter((n) => /\.(dgrad|wgrad|bwd)$/.test(n.name)).at(-1)!;
    expect(buckets[0].id).toBeLessThan(lastBackward.id);
    const opt = nodes.find((n) => n.name === 'optimizer.adam')!;
    for (const b of buckets) expect(opt.dataDeps).toContain(b.id);
  });
});

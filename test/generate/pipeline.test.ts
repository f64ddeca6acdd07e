/**
 * Pipeline bubble implied by the dependency structure. Every COMP node depends on the previous one
 * of its rank, so with free communication the iteration time is the longest path through all ranks'
 * graphs (send → matching receive edges added). For uniform stages GPipe and 1F1B both leave
 * each stage idle for (p − 1)/(m + p − 1) of the pipelined part. (The same check through the replay
 * engine belongs with src/engines/replay.)
 */
import { describe, expect, it } from 'vitest';
import { parseModelJson } from '../../src/engines/generate/models.js';
import { generateLlmTraces, type LlmGenerateOptions } from '../../src/engines/generate/index.js';
import { NodeType } from '../../src/formats/chakra/schema.js';
import { num } from './helpers.js';

/** Finish time (µs) of every node with zero-cost communication; throws if the graph cannot finish. */
function longestPath(o: LlmGenerateOptions) {
  const set = generateLlmTraces(o);
  const ranks = Array.from({ length: set.ranks }, (_, r) => set.nodesOf(r));
  const finish = ranks.map((_nodes) => new Map<bigint, number>());
  const sendFinish = new Map<string, number>();
  const pos = ranks.map(() => 0);
  let progressed = true;
  while (progressed) {
    progressed = false;
    for (let r = 0; r < ranks.length; r++) {
      // Nodes are in id order and dependencies point backwards, so each rank is walked in order;
      // a receive waits until its matching send has finished.
      while (pos[r] < ranks[r].length) {
        const n = ranks[r][pos[r]];
        let start = 0;
        for (const d of [...n.dataDeps, ...n.ctrlDeps]) start = Math.max(start, finish[r].get(d)!);
        if (n.type === NodeType.COMM_RECV_NODE) {
          const key = `${num(n, 'comm_src')}->${r}#${num(n, 'comm_tag')}`;
          if (!sendFinish.has(key)) break;
          start = Math.max(start, sendFinish.get(key)!);
        }
        const end = start + (n.type === NodeType.COMP_NODE ? Number(n.durationMicros) : 0);
        finish[r].set(n.id, end);
        if (n.type === NodeType.COMM_SEND_NODE)
          sendFinish.set(`${r}->${num(n, 'comm_dst')}#${num(n, 'comm_tag')}`, end);
        pos[r]++;
        progressed = true;
      }
    }
  }
  expect(pos).toEqual(ranks.map((n) => n.length));
  return { set, ranks, finish };
}

/** A LLaMA-7B-like layer with a tiny vocabulary, so embedding and LM head barely unbalance the stages. */
const uniform = parseModelJson({ hiddenSize: 4096, numLayers: 16, numHeads: 32, ffnHiddenSize: 11008, vocabSize: 8 });

describe('pipeline bubble from the dependency graph (free communication)', () => {
  for (const schedule of ['1f1b', 'gpipe'] as const) {
    for (const [p, m] of [
      [4, 8],
      [4, 16],
      [8, 8],
      [2, 3],
    ]) {
      it(`${schedule}, p = ${p}, m = ${m}: idle fraction (p − 1)/(m + p − 1) within 1%`, () => {
        const { ranks, finish } = longestPath({
          model: uniform,
          dp: 1,
          tp: 1,
          pp: p,
          microBatch: 1,
          globalBatch: m,
          seqLen: 2048,
          schedule,
        });
        // The pipelined part ends when the last backward ends; the optimizer step is not pipelined.
        let makespan = 0;
        let busy = 0;
        ranks.forEach((nodes, r) => {
          for (const n of nodes) {
            if (n.name === 'optimizer.adam') continue;
            makespan = Math.max(makespan, finish[r].get(n.id)!);
            if (r === 0 && n.type === NodeType.COMP_NODE) busy += Number(n.durationMicros);
          }
        });
        const bubble = 1 - busy / makespan;
        const theory = (p - 1) / (m + p - 1);
        expect(Math.abs(bubble - theory) / theory).toBeLessThan(0.01);
      });
    }
  }
});

/**
 * Generated traces pass `tracewatt validate`, and the pipeline bubble measured by the replay engine
 * with near-free communication matches (p − 1)/(m + p − 1).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelJson } from '../../src/engines/generate/models.js';
import { generateLlmTraces, writeLlmTraces, type LlmGenerateOptions } from '../../src/engines/generate/index.js';
import { replayFiles } from '../../src/engines/replay/index.js';
import { validateTrace } from '../../src/engines/trace/validate.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-gen-replay-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const CASES: [string, LlmGenerateOptions][] = [
  [
    'llama2-7b dp 2 tp 2 pp 2, 1F1B',
    { model: 'llama2-7b', dp: 2, tp: 2, pp: 2, microBatch: 1, globalBatch: 8, seqLen: 512 },
  ],
  [
    'gpt3-175b tp 4 pp 3, GPipe, SP, tied embeddings, recompute',
    {
      model: 'gpt3-175b',
      dp: 1,
      tp: 4,
      pp: 3,
      microBatch: 1,
      globalBatch: 3,
      seqLen: 256,
      schedule: 'gpipe',
      sequenceParallel: true,
      recompute: 'full',
    },
  ],
];

describe.each(CASES)('generated traces with ASTRA-sim semantics: %s', (name, o) => {
  const prefix = () => path.join(dir, name.replace(/\W+/g, '_'), 't');

  it('tracewatt validate reports no errors', async () => {
    const w = await writeLlmTraces({ ...o, outPrefix: prefix() });
    const v = await validateTrace(prefix());
    expect(v.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(v.ranks).toBe(w.ranks);
    expect(v.nodes).toBe(w.nodes);
  });

  // Tensor- and data-parallel collectives name their group by involved_dim alone (ASTRA-sim: the
  // ranks that share the coordinates of the other dimensions).
  it('replays to completion on the generated network/system pair', async () => {
    const w = await writeLlmTraces({ ...o, outPrefix: prefix() });
    const r = await replayFiles({ trace: prefix(), system: w.systemFile, network: w.networkFile });
    expect(r.ranks.length).toBe(w.ranks);
    expect(r.nodes).toBe(w.nodes);
    expect(r.makespanNs).toBe(Math.max(...r.ranks.map((x) => x.finishNs)));
  });
});

describe('pipeline bubble through the replay engine (near-free communication)', () => {
  /** A LLaMA-7B-like layer with a tiny vocabulary, so embedding and LM head barely unbalance the stages. */
  const model = parseModelJson({ hiddenSize: 4096, numLayers: 16, numHeads: 32, ffnHiddenSize: 11008, vocabSize: 8 });

  for (const schedule of ['1f1b', 'gpipe'] as const) {
    it(`${schedule}, p = 4, m = 8: idle fraction of stage 0 = (p − 1)/(m + p − 1) within 1%`, async () => {
      const o: LlmGenerateOptions = {
        model,
        dp: 1,
        tp: 1,
        pp: 4,
        microBatch: 1,
        globalBatch: 8,
        seqLen: 2048,
        schedule,
      };
      const prefix = path.join(dir, `bubble-${schedule}`, 't');
      const w = await writeLlmTraces({ ...o, outPrefix: prefix });
      const network = `${prefix}.free.yml`;
      await writeFile(
        network,
        'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 1000000000.0 ]\nlatency: [ 0.0 ]\n',
      );
      // Replay the written durations (roofline off) so the optimizer step can be taken off exactly.
      const system = `${prefix}.replay-durations.json`;
      await writeFile(
        system,
        JSON.stringify({
          ...JSON.parse(await readFile(w.systemFile, 'utf8')),
          'roofline-enabled': 0,
          'endpoint-delay': 1,
        }),
      );
      const r = await replayFiles({ trace: prefix, system, network });
      const set = generateLlmTraces(o);
      const optimizerNs = (rank: number) => Number(set.nodesOf(rank).at(-1)!.durationMicros) * 1000;
      // The pipelined part ends before each rank's (unpipelined) optimizer step.
      const pipelineEnd = Math.max(...r.ranks.map((x) => x.finishNs - optimizerNs(x.rank)));
      const busy = r.ranks[0].gpuComputeNs - optimizerNs(0);
      const theory = 3 / 11;
      expect(Math.abs(1 - busy / pipelineEnd - theory) / theory).toBeLessThan(0.01);
    });
  }
});

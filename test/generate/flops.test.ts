/**
 * FLOPs of a whole iteration, summed over every rank's COMP nodes, against the analytical count
 * 6·N·tokens + attention (+ one more forward with full recomputation), where N counts the weights
 * that multiply activations (all projections and the LM head, not the embedding lookup).
 */
import { describe, expect, it } from 'vitest';
import { MODEL_PRESETS, type LlmModelConfig } from '../../src/engines/generate/models.js';
import { generateLlmTraces, type LlmGenerateOptions } from '../../src/engines/generate/index.js';
import { NodeType } from '../../src/formats/chakra/schema.js';
import { num } from './helpers.js';

function analyticIterationFlops(m: LlmModelConfig, o: LlmGenerateOptions): number {
  const h = m.hiddenSize;
  const qWidth = m.numHeads * m.headDim;
  const kvWidth = m.numKvHeads * m.headDim;
  const mlpMatrices = m.activation === 'swiglu' ? 3 : 2;
  const layerWeights = h * qWidth + 2 * h * kvWidth + qWidth * h + mlpMatrices * h * m.ffnHiddenSize;
  const N = m.numLayers * layerWeights + h * m.vocabSize;
  const tokens = o.globalBatch * o.seqLen;
  // Causal attention: QKᵀ and PV over s²/2 pairs, 2 FLOPs per multiply-add, per layer and sequence;
  // backward does 2.5× the forward (FlashAttention recomputes QKᵀ).
  const attentionForward = ((2 * 2 * qWidth * (o.seqLen * o.seqLen)) / 2) * m.numLayers * o.globalBatch;
  let total = 6 * N * tokens + attentionForward * (1 + 2.5);
  if (o.recompute === 'full') total += 2 * m.numLayers * layerWeights * tokens + attentionForward;
  return total;
}

function generatedIterationFlops(o: LlmGenerateOptions): number {
  const set = generateLlmTraces(o);
  let sum = 0;
  for (let rank = 0; rank < set.ranks; rank++) {
    for (const n of set.nodesOf(rank)) if (n.type === NodeType.COMP_NODE) sum += num(n, 'num_ops');
  }
  return sum;
}

const CASES: [string, Omit<LlmGenerateOptions, 'model'>][] = [
  ['gpt3-175b', { dp: 2, tp: 8, pp: 4, microBatch: 1, globalBatch: 8, seqLen: 2048, sequenceParallel: true }],
  ['llama2-7b', { dp: 2, tp: 2, pp: 2, microBatch: 2, globalBatch: 16, seqLen: 4096, schedule: 'gpipe' }],
  ['llama2-13b', { dp: 1, tp: 4, pp: 4, microBatch: 1, globalBatch: 8, seqLen: 4096, recompute: 'full' }],
  ['llama2-70b', { dp: 1, tp: 8, pp: 4, microBatch: 1, globalBatch: 32, seqLen: 4096 }],
  [
    'megatron-1t',
    { dp: 1, tp: 8, pp: 8, microBatch: 1, globalBatch: 8, seqLen: 2048, sequenceParallel: true, recompute: 'full' },
  ],
  ['qwen-72b', { dp: 2, tp: 8, pp: 2, microBatch: 1, globalBatch: 4, seqLen: 2048 }],
  ['mistral-large-2411', { dp: 1, tp: 8, pp: 8, microBatch: 1, globalBatch: 8, seqLen: 4096, sequenceParallel: true }],
];

describe('iteration FLOPs summed over ranks', () => {
  for (const [name, cfg] of CASES) {
    const o = { model: name, ...cfg };
    it(
      `${name} (dp ${cfg.dp} tp ${cfg.tp} pp ${cfg.pp}${cfg.recompute === 'full' ? ', full recompute' : ''}) ` +
        `within 2% of 6·N·tokens + attention`,
      () => {
        const expected = analyticIterationFlops(MODEL_PRESETS[name], o);
        const got = generatedIterationFlops(o);
        expect(Math.abs(got - expected) / expected).toBeLessThan(0.02);
      },
    );
  }

  it('full recomputation adds one forward pass of the decoder layers', () => {
    const base = { model: 'llama2-7b', dp: 1, tp: 2, pp: 2, microBatch: 1, globalBatch: 4, seqLen: 1024 } as const;
    const m = MODEL_PRESETS['llama2-7b'];
    const extra = generatedIterationFlops({ ...base, recompute: 'full' }) - generatedIterationFlops(base);
    const expected = analyticIterationFlops(m, { ...base, recompute: 'full' }) - analyticIterationFlops(m, base);
    expect(Math.abs(extra - expected) / expected).toBeLessThan(0.02);
  });

  it('does not depend on the parallel layout', () => {
    const common = { model: 'llama2-7b', microBatch: 1, globalBatch: 8, seqLen: 1024 } as const;
    const a = generatedIterationFlops({ ...common, dp: 1, tp: 1, pp: 1 });
    const b = generatedIterationFlops({ ...common, dp: 2, tp: 4, pp: 2, sequenceParallel: true });
    // Only replicated work differs (norm weights' optimizer update on every tensor-parallel rank).
    expect(Math.abs(a - b) / a).toBeLessThan(1e-3);
  });
});

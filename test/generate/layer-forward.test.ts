/**
 * `generate llm --scope layer-forward`: the forward pass of one decoder layer per micro-batch, back to back, with the
 * layer's analytical FLOPs (2·weights·tokens + causal attention), nothing of the rest of an iteration, and the
 * tensor-parallel collectives kept.
 */
import { describe, expect, it } from 'vitest';
import { MODEL_PRESETS } from '../../src/engines/generate/models.js';
import { generateLlmTraces, type LlmGenerateOptions } from '../../src/engines/generate/index.js';
import { InputError } from '../../src/errors.js';
import { NodeType } from '../../src/formats/chakra/schema.js';
import { cli } from '../helpers/cli.js';
import { num } from './helpers.js';

const layer = (o: Partial<LlmGenerateOptions> = {}): LlmGenerateOptions => ({
  model: 'gpt3-1.3b',
  dp: 1,
  tp: 1,
  pp: 1,
  microBatch: 2,
  globalBatch: 6,
  seqLen: 512,
  scope: 'layer-forward',
  ...o,
});

describe('layer-forward scope', () => {
  it('holds 8 kernels per micro-batch on one stream, in the forward order, and nothing else', () => {
    const set = generateLlmTraces(layer());
    const nodes = set.nodesOf(0);
    expect(set.plan.microBatches).toBe(3);
    expect(nodes.every((n) => n.type === NodeType.COMP_NODE)).toBe(true);
    expect(nodes.map((n) => n.name.split('.')[2]).slice(0, 8)).toEqual([
      'input_norm',
      'qkv',
      'attention',
      'attn_out',
      'post_attn_norm',
      'mlp_up',
      'mlp_act',
      'mlp_down',
    ]);
    expect(nodes.length).toBe(3 * 8);
    // One stream: each kernel after the one before it (data or control dependency), the first with none.
    expect(nodes[0]!.dataDeps.length + nodes[0]!.ctrlDeps.length).toBe(0);
    for (let i = 1; i < nodes.length; i++)
      expect([...nodes[i]!.dataDeps, ...nodes[i]!.ctrlDeps]).toContain(nodes[i - 1]!.id);
    expect(JSON.parse(String(set.metadata.attrs.find((a) => a.name === 'tracewatt_llm_config')!.value)).scope).toBe(
      'layer-forward',
    );
  });

  it("does the layer's forward FLOPs: 2 × weights × tokens + causal attention, within 1 %", () => {
    for (const model of ['gpt3-125m', 'gpt3-13b', 'gpt3-175b']) {
      const m = MODEL_PRESETS[model]!;
      const o = layer({ model, microBatch: 1, globalBatch: 1, seqLen: 1024 });
      const flops = generateLlmTraces(o)
        .nodesOf(0)
        .reduce((a, n) => a + num(n, 'num_ops'), 0);
      const q = m.numHeads * m.headDim;
      const weights = m.hiddenSize * 3 * q + q * m.hiddenSize + 2 * m.hiddenSize * m.ffnHiddenSize;
      const analytic = 2 * weights * 1024 + (2 * 2 * q * (1024 * 1025)) / 2;
      expect(Math.abs(flops - analytic) / analytic, model).toBeLessThan(0.01);
    }
  });

  it('keeps the tensor-parallel all-reduces (two per pass) and refuses pipeline stages', () => {
    const nodes = generateLlmTraces(layer({ tp: 2 })).nodesOf(1);
    expect(nodes.filter((n) => n.type === NodeType.COMM_COLL_NODE).length).toBe(2 * 3);
    expect(() => generateLlmTraces(layer({ pp: 2 }))).toThrow(InputError);
    expect(() => generateLlmTraces(layer({ pp: 2 }))).toThrow(/layer-forward holds one decoder layer/);
  });

  it('the CLI writes it with --scope layer-forward and refuses an unknown scope', async () => {
    const bad = await cli([
      'generate',
      'llm',
      '--model',
      'gpt3-125m',
      '--global-batch',
      '1',
      '--seq',
      '128',
      '--scope',
      'layer',
      '--out',
      'out/never',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--scope: expected one of iteration, layer-forward, got "layer"/);
  });
});

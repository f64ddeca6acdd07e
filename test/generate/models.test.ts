import { describe, expect, it } from 'vitest';
import { countParameters, findModelPreset, MODEL_PRESETS, parseModelJson } from '../../src/engines/generate/models.js';
import { FormatError } from '../../src/errors.js';

/** Published parameter counts, with where each is published. */
const PUBLISHED: Record<string, { params: number; source: string; tolerance?: number }> = {
  'gpt3-125m': { params: 125e6, source: 'Brown et al. 2020, Table 2.1' },
  // Printed as "1.3B": two significant digits, so anything that rounds to it (±0.05B, 3.8 %); 1.315B here.
  'gpt3-1.3b': { params: 1.3e9, source: 'Brown et al. 2020, Table 2.1', tolerance: 0.05 / 1.3 },
  'gpt3-13b': { params: 13.0e9, source: 'Brown et al. 2020, Table 2.1' },
  'gpt3-175b': { params: 175.0e9, source: 'Brown et al. 2020, Table 2.1' },
  'llama2-7b': {
    params: 6_738_415_616,
    source: 'parameter count shown for meta-llama/Llama-2-7b-hf on Hugging Face (6.74B)',
  },
  'llama2-13b': {
    params: 13_015_864_320,
    source: 'parameter count shown for meta-llama/Llama-2-13b-hf on Hugging Face (13.0B)',
  },
  'llama2-70b': {
    params: 68_976_648_192,
    source: 'parameter count shown for meta-llama/Llama-2-70b-hf on Hugging Face (69.0B)',
  },
  'megatron-1t': { params: 1008.0e9, source: 'Narayanan et al. 2021, Table 1' },
  'qwen-72b': { params: 72e9, source: 'Qwen/Qwen-72B model card ("72B")' },
  'mistral-large-2411': { params: 123e9, source: 'mistralai/Mistral-Large-Instruct-2411 model card ("123B")' },
};

describe('model presets', () => {
  it('cover every published size listed here', () => {
    expect(Object.keys(MODEL_PRESETS).sort()).toEqual(Object.keys(PUBLISHED).sort());
  });

  for (const [name, pub] of Object.entries(PUBLISHED)) {
    it(
      `${name}: parameter count within ${((pub.tolerance ?? 0.01) * 100).toFixed(1)}% of ${pub.params / 1e9}B (` +
        `${pub.source})`,
      () => {
        const count = countParameters(MODEL_PRESETS[name]).total;
        expect(Math.abs(count - pub.params) / pub.params).toBeLessThan(pub.tolerance ?? 0.01);
      },
    );
  }

  it('LLaMA-2 70B uses grouped-query attention with 8 key/value heads', () => {
    const m = MODEL_PRESETS['llama2-70b'];
    expect(m.numHeads / m.numKvHeads).toBe(8);
  });

  it('finds presets by alias, case-insensitively', () => {
    expect(findModelPreset('LLaMA-2-70B')).toBe(MODEL_PRESETS['llama2-70b']);
    expect(findModelPreset('nope')).toBeUndefined();
  });
});

describe('custom model JSON', () => {
  it('reads a Hugging Face config.json', () => {
    const m = parseModelJson({
      model_type: 'llama',
      hidden_size: 4096,
      intermediate_size: 11008,
      num_hidden_layers: 32,
      num_attention_heads: 32,
      num_key_value_heads: 32,
      vocab_size: 32000,
      hidden_act: 'silu',
      tie_word_embeddings: false,
    });
    // Same architecture as the LLaMA-2 7B preset, so the same parameter count.
    expect(countParameters(m).total).toBe(countParameters(MODEL_PRESETS['llama2-7b']).total);
    expect(m.activation).toBe('swiglu');
  });

  it("reads tracewatt's own field names, defaulting KV heads and head width", () => {
    const m = parseModelJson({
      hiddenSize: 1024,
      numLayers: 4,
      numHeads: 16,
      ffnHiddenSize: 4096,
      vocabSize: 1000,
      activation: 'gelu',
    });
    expect(m.numKvHeads).toBe(16);
    expect(m.headDim).toBe(64);
    expect(m.norm).toBe('layernorm');
  });

  it('names the field that is wrong', () => {
    expect(() => parseModelJson({ hiddenSize: 1024, numLayers: 4, numHeads: 16, vocabSize: 1000 }, 'm.json')).toThrow(
      /m\.json: ffnHiddenSize: expected a number, found nothing \(missing\)/,
    );
    expect(() =>
      parseModelJson({ hiddenSize: 1024, numLayers: 4, numHeads: 16, ffnHiddenSize: 1.5, vocabSize: 1000 }, 'm.json'),
    ).toThrow(FormatError);
    expect(() =>
      parseModelJson({ hiddenSize: 1024, numLayers: 4, numHeads: 16, numKvHeads: 5, ffnHiddenSize: 64, vocabSize: 10 }),
    ).toThrow(/not a multiple of 5/);
  });
});

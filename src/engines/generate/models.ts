/**
 * Decoder-only transformer configurations: presets from the models' public configurations, custom
 * models from JSON (tracewatt's own field names or a Hugging Face config.json), and parameter counts.
 */
import { parseJsonText, readTextFile } from '../../formats/text-file.js';
import { InputError } from '../../errors.js';
import { JsonShape } from '../../formats/json-shape.js';

export type Activation = 'swiglu' | 'gelu';
export type NormKind = 'rmsnorm' | 'layernorm';

export interface LlmModelConfig {
  name: string;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  /** Key/value heads (grouped-query attention); equal to numHeads for multi-head attention. */
  numKvHeads: number;
  headDim: number;
  /** Width of one MLP projection (SwiGLU has two of this width going up, one coming down). */
  ffnHiddenSize: number;
  vocabSize: number;
  activation: Activation;
  norm: NormKind;
  /** Input embedding and LM head share one matrix. */
  tiedEmbeddings: boolean;
  /** Rows of a learned position embedding table; 0 for rotary (no parameters). */
  learnedPositions: number;
  /** Bias on the fused QKV projection. */
  qkvBias: boolean;
  /** Biases on the output projection and the MLP projections (and QKV). */
  linearBias: boolean;
  /** Where the numbers come from. */
  source: string;
}

/** The GPT-2/GPT-3 decoder block: GELU MLP, LayerNorm, tied embeddings, learned positions (2,048), biases. */
const GPT_BLOCK = {
  activation: 'gelu',
  norm: 'layernorm',
  tiedEmbeddings: true,
  learnedPositions: 2048,
  qkvBias: true,
  linearBias: true,
} as const satisfies Partial<LlmModelConfig>;

/** The LLaMA decoder block: SwiGLU MLP, RMSNorm, a separate LM head, rotary positions, no biases. */
const LLAMA_BLOCK = {
  activation: 'swiglu',
  norm: 'rmsnorm',
  tiedEmbeddings: false,
  learnedPositions: 0,
  qkvBias: false,
  linearBias: false,
} as const satisfies Partial<LlmModelConfig>;

/**
 * GPT-3 family member from Brown et al. 2020, Table 2.1: learned positions over 2,048 tokens, GELU MLP of 4·d_model.
 */
function gpt3(
  name: string,
  hiddenSize: number,
  numLayers: number,
  numHeads: number,
  headDim: number,
  note = '',
): LlmModelConfig {
  return {
    name,
    hiddenSize,
    numLayers,
    numHeads,
    numKvHeads: numHeads,
    headDim,
    ffnHiddenSize: 4 * hiddenSize,
    vocabSize: 50257,
    ...GPT_BLOCK,
    source:
      `Brown et al. 2020, "Language Models are Few-Shot Learners", Table 2.1 (d_ffn = 4·d_model, GPT-2 ` +
      `vocabulary)${note}`,
  };
}

export const MODEL_PRESETS: Readonly<Record<string, LlmModelConfig>> = {
  'gpt3-125m': gpt3('GPT-3 Small 125M', 768, 12, 12, 64),
  'gpt3-1.3b': gpt3(
    'GPT-3 XL 1.3B',
    2048,
    24,
    16,
    128,
    '; 16 heads × 128 = d_model, where the table prints 24 heads, which would make 1.5B parameters',
  ),
  'gpt3-13b': gpt3('GPT-3 13B', 5140, 40, 40, 128, '; d_model 5,140 as printed, attention 40 heads × 128 = 5,120 wide'),
  'gpt3-175b': gpt3('GPT-3 175B', 12288, 96, 96, 128),
  'llama2-7b': {
    name: 'LLaMA-2 7B',
    hiddenSize: 4096,
    numLayers: 32,
    numHeads: 32,
    numKvHeads: 32,
    headDim: 128,
    ffnHiddenSize: 11008,
    vocabSize: 32000,
    ...LLAMA_BLOCK,
    source: 'meta-llama/Llama-2-7b-hf config.json',
  },
  'llama2-13b': {
    name: 'LLaMA-2 13B',
    hiddenSize: 5120,
    numLayers: 40,
    numHeads: 40,
    numKvHeads: 40,
    headDim: 128,
    ffnHiddenSize: 13824,
    vocabSize: 32000,
    ...LLAMA_BLOCK,
    source: 'meta-llama/Llama-2-13b-hf config.json',
  },
  'llama2-70b': {
    name: 'LLaMA-2 70B',
    hiddenSize: 8192,
    numLayers: 80,
    numHeads: 64,
    numKvHeads: 8,
    headDim: 128,
    ffnHiddenSize: 28672,
    vocabSize: 32000,
    ...LLAMA_BLOCK,
    source: 'meta-llama/Llama-2-70b-hf config.json (GQA, 8 KV heads)',
  },
  'megatron-1t': {
    name: 'Megatron 1T',
    hiddenSize: 25600,
    numLayers: 128,
    numHeads: 160,
    numKvHeads: 160,
    headDim: 160,
    ffnHiddenSize: 102400,
    vocabSize: 51200,
    ...GPT_BLOCK,
    source:
      'Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using ' +
      'Megatron-LM", Table 1 (1008B row; vocabulary 51,200, sequence 2,048)',
  },
  'qwen-72b': {
    name: 'Qwen-72B',
    hiddenSize: 8192,
    numLayers: 80,
    numHeads: 64,
    numKvHeads: 64,
    headDim: 128,
    ffnHiddenSize: 24576,
    vocabSize: 152064,
    ...LLAMA_BLOCK,
    qkvBias: true,
    source: 'Qwen/Qwen-72B config.json (intermediate_size 49152 counts both up projections: 2 × 24576; QKV bias)',
  },
  'mistral-large-2411': {
    name: 'Mistral Large 2411',
    hiddenSize: 12288,
    numLayers: 88,
    numHeads: 96,
    numKvHeads: 8,
    headDim: 128,
    ffnHiddenSize: 28672,
    vocabSize: 32768,
    ...LLAMA_BLOCK,
    source: 'mistralai/Mistral-Large-Instruct-2411 params.json',
  },
};

/** Alternative spellings accepted on the command line. */
const ALIASES: Record<string, string> = {
  gpt3: 'gpt3-175b',
  'gpt-3-175b': 'gpt3-175b',
  'gpt-3': 'gpt3-175b',
  'gpt3-small': 'gpt3-125m',
  'gpt-3-125m': 'gpt3-125m',
  'gpt3-xl': 'gpt3-1.3b',
  'gpt-3-1.3b': 'gpt3-1.3b',
  'gpt-3-13b': 'gpt3-13b',
  'llama-2-7b': 'llama2-7b',
  'llama-2-13b': 'llama2-13b',
  'llama-2-70b': 'llama2-70b',
  megatron1t: 'megatron-1t',
  qwen72b: 'qwen-72b',
  'mistral-large': 'mistral-large-2411',
};

export function modelPresetNames(): string[] {
  return Object.keys(MODEL_PRESETS);
}

export function findModelPreset(name: string): LlmModelConfig | undefined {
  const key = name.toLowerCase();
  return MODEL_PRESETS[key] ?? MODEL_PRESETS[ALIASES[key] ?? ''];
}

/** A preset name, or a path to a JSON model file. */
export async function resolveModel(nameOrFile: string): Promise<LlmModelConfig> {
  const preset = findModelPreset(nameOrFile);
  if (preset) return preset;
  if (!nameOrFile.toLowerCase().endsWith('.json')) {
    throw new InputError(
      `unknown model "${nameOrFile}": use one of ${modelPresetNames().join(', ')} or a .json model file`,
    );
  }
  return parseModelJson(parseJsonText(nameOrFile, await readTextFile(nameOrFile)), nameOrFile);
}

/**
 * The largest value each size of a model JSON may have: about 40× the largest public models (hidden 25,600, FFN
 * 102,400, vocabulary 256,000, 128 layers), so that every parameter and FLOP count derived from them stays an exact
 * number (a hidden_size of 1e308 made the generator crash on Infinity).
 */
export const MODEL_LIMITS = {
  hiddenSize: 1_048_576,
  ffnHiddenSize: 4_194_304,
  numLayers: 16_384,
  numHeads: 65_536,
  numKvHeads: 65_536,
  headDim: 65_536,
  vocabSize: 16_777_216,
  learnedPositions: 16_777_216,
} as const;

/** Hugging Face keys → the tracewatt field whose limit applies. */
const HF_FIELDS: Record<string, keyof typeof MODEL_LIMITS> = {
  hidden_size: 'hiddenSize',
  intermediate_size: 'ffnHiddenSize',
  num_hidden_layers: 'numLayers',
  num_attention_heads: 'numHeads',
  num_key_value_heads: 'numKvHeads',
  head_dim: 'headDim',
  vocab_size: 'vocabSize',
};

/**
 * Builds a model from JSON. Accepts tracewatt's field names (those of LlmModelConfig) or the keys of
 * a Hugging Face config.json (hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
 * num_key_value_heads, head_dim, vocab_size, hidden_act, tie_word_embeddings).
 */
export function parseModelJson(json: unknown, file = '<model>'): LlmModelConfig {
  const shape = new JsonShape(file);
  const o = shape.object(json, '', 'a JSON object');
  const hf = 'hidden_size' in o;
  const num = (key: string, fallback?: number): number =>
    shape.number(o, key, '', {
      min: 1,
      integer: true,
      max: MODEL_LIMITS[(HF_FIELDS[key] ?? key) as keyof typeof MODEL_LIMITS],
      def: fallback,
    });
  const bool = (key: string, fallback: boolean): boolean => shape.boolean(o, key, '', fallback);
  const oneOf = <T extends string>(key: string, allowed: readonly T[], fallback: T): T =>
    shape.oneOf(o, key, '', allowed, fallback);
  let m: LlmModelConfig;
  if (hf) {
    const hidden = num('hidden_size');
    const heads = num('num_attention_heads');
    const act = typeof o.hidden_act === 'string' ? o.hidden_act : 'silu';
    const gelu = act.startsWith('gelu');
    if (!gelu && act !== 'silu' && act !== 'swiglu')
      shape.fail('hidden_act', `unsupported activation "${act}" (silu/swiglu or gelu*)`);
    m = {
      name: typeof o.name === 'string' ? o.name : typeof o.model_type === 'string' ? o.model_type : 'custom',
      hiddenSize: hidden,
      numLayers: num('num_hidden_layers'),
      numHeads: heads,
      numKvHeads: num('num_key_value_heads', heads),
      headDim: num('head_dim', Math.floor(hidden / heads)),
      ffnHiddenSize: num('intermediate_size'),
      vocabSize: num('vocab_size'),
      activation: gelu ? 'gelu' : 'swiglu',
      norm: gelu ? 'layernorm' : 'rmsnorm',
      tiedEmbeddings: bool('tie_word_embeddings', false),
      learnedPositions: 0,
      qkvBias: bool('attention_bias', false),
      linearBias: bool('mlp_bias', false),
      source: file,
    };
  } else {
    const hidden = num('hiddenSize');
    const heads = num('numHeads');
    const activation = oneOf('activation', ['swiglu', 'gelu'] as const, 'swiglu');
    m = {
      name: typeof o.name === 'string' ? o.name : 'custom',
      hiddenSize: hidden,
      numLayers: num('numLayers'),
      numHeads: heads,
      numKvHeads: num('numKvHeads', heads),
      headDim: num('headDim', Math.floor(hidden / heads)),
      ffnHiddenSize: num('ffnHiddenSize'),
      vocabSize: num('vocabSize'),
      activation,
      norm: oneOf('norm', ['rmsnorm', 'layernorm'] as const, activation === 'gelu' ? 'layernorm' : 'rmsnorm'),
      tiedEmbeddings: bool('tiedEmbeddings', false),
      learnedPositions: o.learnedPositions === undefined || o.learnedPositions === 0 ? 0 : num('learnedPositions'),
      qkvBias: bool('qkvBias', false),
      linearBias: bool('linearBias', false),
      source: typeof o.source === 'string' ? o.source : file,
    };
  }
  const total = countParameters(m).total;
  if (!Number.isSafeInteger(total)) {
    shape.fail(
      'sizes',
      `the model has ${total.toExponential(3)} parameters, more than the ${Number.MAX_SAFE_INTEGER} (2^53 − 1) ` +
        `tracewatt counts exactly`,
    );
  }
  if (m.numHeads % m.numKvHeads !== 0) {
    shape.fail('heads', `${m.numHeads} attention heads are not a multiple of ${m.numKvHeads} key/value heads`);
  }
  return m;
}

export interface ParameterCount {
  /** Token embedding table (V·h). */
  embedding: number;
  /** Learned position table (0 for rotary). */
  positionEmbedding: number;
  /** One decoder layer: projections, biases, norms. */
  perLayer: number;
  /** All decoder layers. */
  layers: number;
  finalNorm: number;
  /** Separate LM head matrix (0 when tied). */
  lmHead: number;
  total: number;
}

/** Parameters of one decoder layer split by part (full model, not sharded). */
export function layerParameters(m: LlmModelConfig): {
  qkv: number;
  attnOut: number;
  mlp: number;
  norms: number;
  total: number;
} {
  const h = m.hiddenSize;
  const qDim = m.numHeads * m.headDim;
  const kvDim = m.numKvHeads * m.headDim;
  const qkvOut = qDim + 2 * kvDim;
  const qkv = h * qkvOut + (m.qkvBias || m.linearBias ? qkvOut : 0);
  const attnOut = qDim * h + (m.linearBias ? h : 0);
  const f = m.ffnHiddenSize;
  const up = m.activation === 'swiglu' ? 2 * h * f : h * f;
  const mlp = up + f * h + (m.linearBias ? (m.activation === 'swiglu' ? 2 * f : f) + h : 0);
  const norms = 2 * normParams(m);
  return { qkv, attnOut, mlp, norms, total: qkv + attnOut + mlp + norms };
}

export function normParams(m: LlmModelConfig): number {
  return m.norm === 'layernorm' ? 2 * m.hiddenSize : m.hiddenSize;
}

export function countParameters(m: LlmModelConfig): ParameterCount {
  const embedding = m.vocabSize * m.hiddenSize;
  const positionEmbedding = m.learnedPositions * m.hiddenSize;
  const perLayer = layerParameters(m).total;
  const layers = perLayer * m.numLayers;
  const finalNorm = normParams(m);
  const lmHead = m.tiedEmbeddings ? 0 : m.vocabSize * m.hiddenSize;
  return {
    embedding,
    positionEmbedding,
    perLayer,
    layers,
    finalNorm,
    lmHead,
    total: embedding + positionEmbedding + layers + finalNorm + lmHead,
  };
}

/**
 * FLOPs and bytes moved to and from HBM for the kernels of a transformer training step. A
 * multiply-add counts as 2 FLOPs. Bytes are compulsory traffic: each operand read once, each result
 * written once (tiles reused on chip are not counted again).
 */

export type OpKind = 'gemm' | 'attention' | 'elementwise' | 'embedding' | 'optimizer';

export interface OpCost {
  kind: OpKind;
  flops: number;
  bytes: number;
}

/** Bytes per element of the fp32 gradient accumulation buffer (main_grad) that wgrad GEMMs add into. */
export const MAIN_GRAD_BYTES = 4;

/** C[M×N] = A[M×K] · B[K×N] (+ bias over N). */
export function gemmForward(M: number, K: number, N: number, e: number, bias = false): OpCost {
  return {
    kind: 'gemm',
    flops: 2 * M * K * N + (bias ? M * N : 0),
    bytes: e * (M * K + K * N + M * N + (bias ? N : 0)),
  };
}

/** dA = dC · Bᵀ. */
export function gemmDgrad(M: number, K: number, N: number, e: number): OpCost {
  return { kind: 'gemm', flops: 2 * M * K * N, bytes: e * (M * N + K * N + M * K) };
}

/** dB += Aᵀ · dC, accumulated into an fp32 gradient buffer (read and written); bias grad = Σ dC. */
export function gemmWgrad(M: number, K: number, N: number, e: number, bias = false): OpCost {
  return {
    kind: 'gemm',
    flops: 2 * M * K * N + (bias ? M * N : 0),
    bytes: e * (M * K + M * N) + 2 * MAIN_GRAD_BYTES * (K * N + (bias ? N : 0)),
  };
}

/** Query/key pairs a causal mask keeps in a sequence of s tokens. */
export function causalPairs(s: number): number {
  return (s * (s + 1)) / 2;
}

/**
 * One rank's causal attention: b sequences of s tokens, `heads` query heads and `kvHeads` key/value heads of width
 * d, e bytes an element.
 */
export interface AttentionShape {
  b: number;
  s: number;
  heads: number;
  kvHeads: number;
  d: number;
  e: number;
}

/** The forward's FLOPs (S = QKᵀ and O = PV on the kept pairs: 2 matmuls × 2 FLOPs per multiply-add), and the
 * elements of Q (and of O, dQ, dO) and of K (and of V, dK, dV). */
function attentionSizes({ b, s, heads, kvHeads, d }: AttentionShape): { flops: number; q: number; kv: number } {
  return { flops: 4 * b * heads * d * causalPairs(s), q: b * s * heads * d, kv: b * s * kvHeads * d };
}

/**
 * FlashAttention forward, causal. The s×s score matrix never reaches HBM: Q, K, V are read, O and the fp32
 * log-sum-exp per row are written.
 */
export function flashAttentionForward(a: AttentionShape): OpCost {
  const { flops, q, kv } = attentionSizes(a);
  return { kind: 'attention', flops, bytes: a.e * (2 * q + 2 * kv) + 4 * a.b * a.heads * a.s };
}

/**
 * FlashAttention backward: recomputes S = QKᵀ, then dV = PᵀdO, dP = dO·Vᵀ, dQ = dS·K, dK = dSᵀQ:
 * 5 matmuls against the forward's 2 (2.5× its FLOPs). Reads Q, K, V, O, dO and the row statistics;
 * writes dQ, dK, dV.
 */
export function flashAttentionBackward(a: AttentionShape): OpCost {
  const { flops, q, kv } = attentionSizes(a);
  return {
    kind: 'attention',
    flops: 2.5 * flops,
    bytes: a.e * (3 * q + 2 * kv) + 8 * a.b * a.heads * a.s + a.e * (q + 2 * kv),
  };
}

/** FLOPs per element of a fused residual-add + norm, forward. */
export function normFlopsPerElement(kind: 'rmsnorm' | 'layernorm'): number {
  // rmsnorm: residual add, square, sum, scale, weight = 5; layernorm adds mean, centre, bias = 8.
  return kind === 'rmsnorm' ? 5 : 8;
}

/** A fused residual add + norm over tokens×h elements of e bytes, with `normParams` weights (and biases). */
export interface NormShape {
  tokens: number;
  h: number;
  kind: 'rmsnorm' | 'layernorm';
  e: number;
  normParams: number;
}

/** Fused residual add + norm: reads x and residual, writes residual and output. */
export function normForward({ tokens, h, kind, e, normParams }: NormShape): OpCost {
  const n = tokens * h;
  return { kind: 'elementwise', flops: normFlopsPerElement(kind) * n, bytes: 4 * n * e + normParams * e };
}

/** Norm backward: reads dY, x and the residual gradient, writes dX; reduces the weight gradient. */
export function normBackward({ tokens, h, kind, e, normParams }: NormShape): OpCost {
  const n = tokens * h;
  return {
    kind: 'elementwise',
    flops: 2 * normFlopsPerElement(kind) * n,
    bytes: 4 * n * e + 2 * MAIN_GRAD_BYTES * normParams,
  };
}

/** SwiGLU silu(gate)·up (6 FLOPs per output element) or GeLU, tanh form (8), over tokens×f outputs. */
export function activationForward(tokens: number, f: number, act: 'swiglu' | 'gelu', e: number): OpCost {
  const n = tokens * f;
  return act === 'swiglu'
    ? { kind: 'elementwise', flops: 6 * n, bytes: 3 * n * e }
    : { kind: 'elementwise', flops: 8 * n, bytes: 2 * n * e };
}

export function activationBackward(tokens: number, f: number, act: 'swiglu' | 'gelu', e: number): OpCost {
  const n = tokens * f;
  return act === 'swiglu'
    ? { kind: 'elementwise', flops: 10 * n, bytes: 5 * n * e }
    : { kind: 'elementwise', flops: 12 * n, bytes: 3 * n * e };
}

/**
 * Vocabulary-parallel embedding lookup on one shard of `vocabRows` rows: every rank writes the
 * full tokens×h output (zeros for tokens outside its shard), reads the rows it owns, and adds the
 * learned position embedding when there is one.
 */
export function embeddingForward(tokens: number, h: number, shards: number, e: number, positions: boolean): OpCost {
  const n = tokens * h;
  return {
    kind: 'embedding',
    flops: n * (positions ? 2 : 1),
    bytes: e * (n + n / shards + (positions ? n : 0)) + 4 * tokens,
  };
}

/** Scatter-add of the output gradient into the fp32 gradient rows of the shard. */
export function embeddingBackward(tokens: number, h: number, shards: number, e: number): OpCost {
  const n = tokens * h;
  return { kind: 'embedding', flops: n, bytes: e * n + (2 * MAIN_GRAD_BYTES * n) / shards + 4 * tokens };
}

/**
 * Vocabulary-parallel cross entropy over tokens × vocabShard logits: max, exp, sum, log, pick
 * (5 FLOPs per logit), reading the logits once in fp32 after upcasting.
 */
export function crossEntropyForward(tokens: number, vocabShard: number, e: number): OpCost {
  const n = tokens * vocabShard;
  return { kind: 'elementwise', flops: 5 * n, bytes: n * e + 4 * n };
}

/** softmax − one-hot, scaled: reads the fp32 softmax, writes dLogits. */
export function crossEntropyBackward(tokens: number, vocabShard: number, e: number): OpCost {
  const n = tokens * vocabShard;
  return { kind: 'elementwise', flops: 3 * n, bytes: 4 * n + n * e };
}

/**
 * Adam(W) step on `params` parameters (about 16 FLOPs each: moments, bias correction, sqrt,
 * divide, decay, update). Mixed precision reads the gradient, fp32 master weights and both moments,
 * writes them back plus the 16-bit copy of the weights; fp32 training has no separate copy.
 */
export function adamStep(params: number, e: number, gradBytes: number): OpCost {
  const perParam = e < 4 ? gradBytes + 12 + 12 + e : gradBytes + 12 + 12;
  return { kind: 'optimizer', flops: 16 * params, bytes: perParam * params };
}

/** Sum of two gradient copies (tied embedding synchronisation): read both, write one. */
export function gradientAdd(elements: number, gradBytes: number): OpCost {
  return { kind: 'elementwise', flops: elements, bytes: 3 * elements * gradBytes };
}

/**
 * Validated layout of an LLM training iteration: parallel degrees, rank numbering, the layers of
 * each pipeline stage, per-rank shard sizes and the network dimensions that match them.
 *
 * Rank numbering follows Megatron-LM's default order, tensor-parallel fastest, then data, then
 * pipeline: rank = tp + TP·(dp + DP·pp). The network has one dimension per parallel degree larger
 * than 1 in that order, so tensor-parallel groups lie on dimension 0 and ASTRA-sim's rank formula
 * (x0 + n0·x1 + n0·n1·x2) gives the same numbering.
 */
import { InputError } from '../../errors.js';
import { DTYPE_BYTES, type Dtype, type GpuPreset, GPU_PRESETS } from './gpus.js';
import { findModelPreset, layerParameters, type LlmModelConfig, modelPresetNames, normParams } from './models.js';
import { rooflineTimeModel, type TimeModel } from './time-model.js';

export type PipelineSchedule = '1f1b' | 'gpipe';
export type Recompute = 'none' | 'full';
/**
 * What the trace holds: one training iteration (embedding, every layer forward and backward, LM head, gradient
 * reduction, optimizer), or the forward pass of one decoder layer per micro-batch, back to back (a layer looped on
 * its own, as layer-level measurements run it; tensor-parallel collectives kept, nothing else).
 */
export type TraceScope = 'iteration' | 'layer-forward';
export const TRACE_SCOPES: readonly TraceScope[] = ['iteration', 'layer-forward'];
export type ParallelDim = 'tp' | 'dp' | 'pp';

export interface LlmGenerateOptions {
  /** A preset name (see MODEL_PRESETS) or a model configuration. */
  model: string | LlmModelConfig;
  dp: number;
  tp: number;
  pp: number;
  /** Sequences per micro-batch. */
  microBatch: number;
  /** Sequences per iteration over all data-parallel replicas. */
  globalBatch: number;
  seqLen: number;
  schedule?: PipelineSchedule;
  /** Default 'iteration'. */
  scope?: TraceScope;
  /** Megatron sequence parallelism: reduce-scatter/all-gather instead of all-reduce, norms on s/tp tokens. */
  sequenceParallel?: boolean;
  recompute?: Recompute;
  dtype?: Dtype;
  gpu?: GpuPreset;
  /** Kernel durations; default: roofline of `gpu` at `dtype`. */
  timeModel?: TimeModel;
  /** Dtype of gradient accumulation and the data-parallel reduction (Megatron keeps fp32 main grads). Default fp32. */
  gradReduceDtype?: Dtype;
  /** Data-parallel all-reduce bucket size in bytes; default Megatron's max(40M, 1M·dp) parameters. */
  dpBucketBytes?: number;
}

export interface StageLayers {
  /** Global index of the first decoder layer of the stage. */
  first: number;
  count: number;
}

export interface NetworkDim {
  parallel: ParallelDim;
  size: number;
}

export interface RankCoords {
  tp: number;
  dp: number;
  pp: number;
}

export interface LlmPlan {
  model: LlmModelConfig;
  dp: number;
  tp: number;
  pp: number;
  ranks: number;
  microBatch: number;
  globalBatch: number;
  seqLen: number;
  /** Micro-batches per iteration per pipeline. */
  microBatches: number;
  schedule: PipelineSchedule;
  scope: TraceScope;
  sequenceParallel: boolean;
  recompute: Recompute;
  dtype: Dtype;
  /** Bytes per activation/weight element. */
  elemBytes: number;
  gradBytes: number;
  gpu: GpuPreset;
  timeModel: TimeModel;
  dpBucketBytes: number;
  stages: StageLayers[];
  /** Vocabulary padded to a multiple of tp, split evenly over the tensor-parallel ranks. */
  paddedVocab: number;
  vocabPerRank: number;
  headsPerRank: number;
  /** KV heads held by one tensor-parallel rank (replicated when there are fewer KV heads than ranks). */
  kvHeadsPerRank: number;
  ffnPerRank: number;
  /** Network dimensions, innermost first (tensor-parallel on dimension 0). */
  networkDims: NetworkDim[];
}

export function coordsOf(plan: LlmPlan, rank: number): RankCoords {
  return { tp: rank % plan.tp, dp: Math.floor(rank / plan.tp) % plan.dp, pp: Math.floor(rank / (plan.tp * plan.dp)) };
}

export function rankOf(plan: LlmPlan, c: RankCoords): number {
  return c.tp + plan.tp * (c.dp + plan.dp * c.pp);
}

function positiveInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new InputError(`--${name} must be a positive integer, got ${v}`);
  return v;
}

export function resolvePlan(o: LlmGenerateOptions): LlmPlan {
  const model = typeof o.model === 'string' ? findModelPreset(o.model) : o.model;
  if (!model) throw new InputError(`unknown model "${String(o.model)}": use one of ${modelPresetNames().join(', ')}`);
  const dp = positiveInt('dp', o.dp);
  const tp = positiveInt('tp', o.tp);
  const pp = positiveInt('pp', o.pp);
  const microBatch = positiveInt('micro-batch', o.microBatch);
  const globalBatch = positiveInt('global-batch', o.globalBatch);
  const seqLen = positiveInt('seq', o.seqLen);
  if (globalBatch % (microBatch * dp) !== 0) {
    throw new InputError(
      `--global-batch ${globalBatch} is not a multiple of --micro-batch × --dp = ${microBatch * dp}`,
    );
  }
  const microBatches = globalBatch / (microBatch * dp);
  if (model.numHeads % tp !== 0)
    throw new InputError(`${model.name}: ${model.numHeads} attention heads do not split over --tp ${tp}`);
  if (model.numKvHeads % tp !== 0 && tp % model.numKvHeads !== 0) {
    throw new InputError(`${model.name}: ${model.numKvHeads} key/value heads neither split over nor divide --tp ${tp}`);
  }
  if (model.ffnHiddenSize % tp !== 0)
    throw new InputError(`${model.name}: FFN size ${model.ffnHiddenSize} does not split over --tp ${tp}`);
  if (pp > model.numLayers) throw new InputError(`--pp ${pp} exceeds the ${model.numLayers} layers of ${model.name}`);
  const scope = o.scope ?? 'iteration';
  if (!TRACE_SCOPES.includes(scope))
    throw new InputError(`unknown trace scope "${String(scope)}": use ${TRACE_SCOPES.join(' or ')}`);
  if (scope === 'layer-forward' && pp !== 1)
    throw new InputError(`--scope layer-forward holds one decoder layer: it takes no pipeline stages (--pp ${pp})`);
  const sequenceParallel = o.sequenceParallel ?? false;
  if (sequenceParallel && seqLen % tp !== 0)
    throw new InputError(`--sequence-parallel needs --seq ${seqLen} to be a multiple of --tp ${tp}`);
  const dtype = o.dtype ?? 'bf16';
  const gpu = o.gpu ?? GPU_PRESETS.h100;
  const timeModel = o.timeModel ?? rooflineTimeModel(gpu, dtype);
  const gradBytes = DTYPE_BYTES[o.gradReduceDtype ?? 'fp32'];
  const dpBucketBytes = o.dpBucketBytes ?? Math.max(40e6, 1e6 * dp) * gradBytes;
  if (!(dpBucketBytes > 0)) throw new InputError(`DP bucket size must be positive, got ${dpBucketBytes}`);

  const base = Math.floor(model.numLayers / pp);
  const extra = model.numLayers % pp;
  const stages: StageLayers[] = [];
  let first = 0;
  for (let s = 0; s < pp; s++) {
    const count = base + (s < extra ? 1 : 0);
    stages.push({ first, count });
    first += count;
  }
  const paddedVocab = Math.ceil(model.vocabSize / tp) * tp;
  const networkDims: NetworkDim[] = (
    [
      ['tp', tp],
      ['dp', dp],
      ['pp', pp],
    ] as const
  )
    .filter(([, size]) => size > 1)
    .map(([parallel, size]) => ({ parallel, size }));
  return {
    model,
    dp,
    tp,
    pp,
    ranks: dp * tp * pp,
    microBatch,
    globalBatch,
    seqLen,
    microBatches,
    schedule: o.schedule ?? '1f1b',
    scope,
    sequenceParallel,
    recompute: o.recompute ?? 'none',
    dtype,
    elemBytes: DTYPE_BYTES[dtype],
    gradBytes,
    gpu,
    timeModel,
    dpBucketBytes,
    stages,
    paddedVocab,
    vocabPerRank: paddedVocab / tp,
    headsPerRank: model.numHeads / tp,
    kvHeadsPerRank: Math.max(1, model.numKvHeads / tp),
    ffnPerRank: model.ffnHiddenSize / tp,
    networkDims,
  };
}

/** Parameters of one decoder layer held by one tensor-parallel rank (norms and row-parallel biases replicated). */
export function layerParamsPerRank(plan: LlmPlan): number {
  const m = plan.model;
  const h = m.hiddenSize;
  const qkvOut = (plan.headsPerRank + 2 * plan.kvHeadsPerRank) * m.headDim;
  const qkv = h * qkvOut + (m.qkvBias || m.linearBias ? qkvOut : 0);
  const attnOut = plan.headsPerRank * m.headDim * h + (m.linearBias ? h : 0);
  const upWidth = (m.activation === 'swiglu' ? 2 : 1) * plan.ffnPerRank;
  const mlp = h * upWidth + plan.ffnPerRank * h + (m.linearBias ? upWidth + h : 0);
  return qkv + attnOut + mlp + layerParameters(m).norms;
}

/** Parameters of the embedding (first stage) and of the final norm + LM head (last stage) on one rank. */
export function endParamsPerRank(plan: LlmPlan): { embedding: number; head: number } {
  const m = plan.model;
  const embedding = plan.vocabPerRank * m.hiddenSize + m.learnedPositions * m.hiddenSize;
  // A tied LM head on its own stage keeps a copy of the embedding shard (synchronised after backward).
  const lmHead = !m.tiedEmbeddings || plan.pp > 1 ? plan.vocabPerRank * m.hiddenSize : 0;
  return { embedding, head: normParams(m) + lmHead };
}

/** Parameters one rank of pipeline stage `stage` holds (and updates in the optimizer step). */
export function stageParamsPerRank(plan: LlmPlan, stage: number): number {
  const ends = endParamsPerRank(plan);
  return (
    plan.stages[stage].count * layerParamsPerRank(plan) +
    (stage === 0 ? ends.embedding : 0) +
    (stage === plan.pp - 1 ? ends.head : 0)
  );
}

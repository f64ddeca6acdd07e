/**
 * Builds the Chakra nodes of one pipeline stage for one training iteration, Megatron-LM style.
 *
 * Per rank: one compute stream (every COMP node has a ctrl dependency on the previous one, as
 * kernels on one CUDA stream run in launch order), communication nodes depending on the nodes that
 * produce their data, and consumers depending on the communication.
 * - Tensor parallelism: all-reduce of b·s·h after the attention output and MLP down projections
 *   (forward) and of the input gradient of the QKV and MLP up projections (backward, overlapped with
 *   the weight-gradient GEMM). With sequence parallelism these become reduce-scatter + all-gather,
 *   norms work on s/tp tokens, and backward re-gathers the projection inputs for the weight gradient.
 * - Pipeline parallelism: activations sent to the next stage after each forward, gradients to the
 *   previous stage after each backward, in GPipe or 1F1B order; receives have no dependencies
 *   (they are posted early and complete when the data arrives).
 * - Data parallelism: gradients of the last backward pass are all-reduced in buckets as soon as
 *   a bucket is full, overlapping the rest of the backward pass; the optimizer step waits for all.
 *
 * Ranks of one stage differ only in the peers of their sends and receives, so a stage is built once
 * (for its tensor-/data-parallel rank 0) and the peer attributes are patched per rank.
 */
import {
  activationBackward,
  activationForward,
  adamStep,
  crossEntropyBackward,
  crossEntropyForward,
  embeddingBackward,
  embeddingForward,
  type AttentionShape,
  type NormShape,
  flashAttentionBackward,
  flashAttentionForward,
  gemmDgrad,
  gemmForward,
  gemmWgrad,
  gradientAdd,
  normBackward,
  normForward,
  type OpCost,
} from './ops.js';
import { normParams } from './models.js';
import { InputError } from '../../errors.js';
import { ANNOTATION_ATTRS } from '../../vocab/attributes.js';
import { roundMicros } from '../../vocab/units.js';
import { CollectiveCommType, NodeType } from '../../formats/chakra/schema.js';
import type { Attribute, ChakraNode } from '../../formats/chakra/types.js';
import {
  endParamsPerRank,
  layerParamsPerRank,
  type LlmPlan,
  type ParallelDim,
  rankOf,
  stageParamsPerRank,
} from './plan.js';
import { stageSchedule } from './schedule.js';

/** A send or receive whose peer attribute depends on the rank's tensor-/data-parallel coordinates. */
export interface PeerPatch {
  index: number;
  attr: 'comm_src' | 'comm_dst';
  peerStage: number;
}

export interface StageTemplate {
  stage: number;
  /** Nodes of the stage's tensor-/data-parallel rank 0. Nodes and attribute objects are shared: treat as read-only. */
  nodes: ChakraNode[];
  patches: PeerPatch[];
}

const int64 = (name: string, v: number | bigint): Attribute => ({
  name,
  docString: '',
  kind: 'int64_val',
  value: BigInt(v),
});
const uint64 = (name: string, v: number | bigint): Attribute => ({
  name,
  docString: '',
  kind: 'uint64_val',
  value: BigInt(v),
});
const int32 = (name: string, v: number): Attribute => ({ name, docString: '', kind: 'int32_val', value: v });
const IS_GPU_OP: Attribute = { name: 'is_cpu_op', docString: '', kind: 'bool_val', value: false };
const COMM_TYPE: Record<number, Attribute> = Object.fromEntries(
  [CollectiveCommType.ALL_REDUCE, CollectiveCommType.ALL_GATHER, CollectiveCommType.REDUCE_SCATTER].map((t) => [
    t,
    int64('comm_type', t),
  ]),
);

/**
 * Whole number for an int64 attribute; FLOPs and bytes are products of integers except 2.5× and halves. A count past
 * 2^53 − 1 would pass through a float inexactly: refused, naming the quantity (`what`, with its unit).
 */
function whole(v: number, what: string): bigint {
  return BigInt(Math.max(1, exact(v, what)));
}

/** `v` rounded, when it is a whole number a float holds exactly; else an InputError naming the quantity. */
function exact(v: number, what: string): number {
  const r = Math.round(v);
  if (!Number.isSafeInteger(r)) {
    throw new InputError(
      `a generated node's ${what} would be ${Number.isFinite(v) ? v.toExponential(3) : String(v)}, more than ` +
        `the ${Number.MAX_SAFE_INTEGER} (2^53 − 1) counted exactly: use a smaller model, sequence or micro-batch`,
    );
  }
  return r;
}

/** Peer rank of `peerStage` for rank `rank`'s coordinates. */
export function peerRank(plan: LlmPlan, rank: number, peerStage: number): number {
  const tp = rank % plan.tp;
  const dp = Math.floor(rank / plan.tp) % plan.dp;
  return rankOf(plan, { tp, dp, pp: peerStage });
}

class StageBuilder {
  readonly nodes: ChakraNode[] = [];
  readonly patches: PeerPatch[] = [];
  private nextId = 0n;
  private lastComp: bigint | null = null;
  private readonly involved: Map<ParallelDim, Attribute>;
  private readonly selfRank: number;

  constructor(
    private readonly plan: LlmPlan,
    readonly stage: number,
  ) {
    this.involved = new Map(
      plan.networkDims.map((d) => [
        d.parallel,
        {
          name: 'involved_dim',
          docString: '',
          kind: 'bool_list',
          value: plan.networkDims.map((x) => x.parallel === d.parallel),
        } as Attribute,
      ]),
    );
    this.selfRank = rankOf(plan, { tp: 0, dp: 0, pp: stage });
  }

  private add(
    name: string,
    type: number,
    dataDeps: bigint[],
    attrs: Attribute[],
    durationMicros = 0n,
    ctrlDeps: bigint[] = [],
  ): bigint {
    const id = this.nextId++;
    this.nodes.push({
      id,
      name,
      type,
      ctrlDeps,
      dataDeps,
      startTimeMicros: 0n,
      durationMicros,
      inputs: null,
      outputs: null,
      attrs,
    });
    return id;
  }

  /** Attributes and durations of identical kernels (same op in every layer and micro-batch) are shared. */
  private readonly compCache = new Map<string, { attrs: Attribute[]; durationMicros: bigint }>();
  private readonly collCache = new Map<string, Attribute[]>();

  comp(name: string, cost: OpCost, deps: bigint[]): bigint {
    const key = `${cost.kind}|${cost.flops}|${cost.bytes}`;
    let c = this.compCache.get(key);
    if (!c) {
      const ns = this.plan.timeModel.durationNs(cost);
      const energy = this.plan.timeModel.energyJ?.(cost);
      c = {
        attrs: [
          IS_GPU_OP,
          int64('num_ops', whole(cost.flops, 'FLOP count')),
          uint64('tensor_size', whole(cost.bytes, 'tensor size (bytes)')),
          ...(energy === undefined
            ? []
            : [{ name: ANNOTATION_ATTRS.energyJ, docString: '', kind: 'double_val', value: energy } as Attribute]),
        ],
        durationMicros: BigInt(exact(roundMicros(ns), 'duration (µs)')),
      };
      this.compCache.set(key, c);
    }
    const last = this.lastComp;
    const ctrl = last !== null && !deps.includes(last) ? [last] : [];
    const id = this.add(name, NodeType.COMP_NODE, unique(deps), c.attrs, c.durationMicros, ctrl);
    this.lastComp = id;
    return id;
  }

  /**
   * Collective over one parallel dimension. comm_size: all-reduce and reduce-scatter the full buffer, all-gather each
   * rank's input.
   */
  coll(name: string, commType: number, bytes: number, dim: ParallelDim, deps: bigint[]): bigint {
    const key = `${commType}|${bytes}|${dim}`;
    let attrs = this.collCache.get(key);
    if (!attrs) {
      attrs = [
        IS_GPU_OP,
        COMM_TYPE[commType],
        int64('comm_size', whole(bytes, 'collective size (bytes)')),
        this.involved.get(dim)!,
      ];
      this.collCache.set(key, attrs);
    }
    return this.add(name, NodeType.COMM_COLL_NODE, unique(deps), attrs);
  }

  send(name: string, bytes: number, peerStage: number, tag: number, deps: bigint[]): bigint {
    this.patches.push({ index: this.nodes.length, attr: 'comm_dst', peerStage });
    return this.add(name, NodeType.COMM_SEND_NODE, unique(deps), [
      IS_GPU_OP,
      int32('comm_src', this.selfRank),
      int32('comm_dst', peerRank(this.plan, this.selfRank, peerStage)),
      int64('comm_size', whole(bytes, 'collective size (bytes)')),
      int32('comm_tag', tag),
    ]);
  }

  recv(name: string, bytes: number, peerStage: number, tag: number): bigint {
    this.patches.push({ index: this.nodes.length, attr: 'comm_src', peerStage });
    return this.add(
      name,
      NodeType.COMM_RECV_NODE,
      [],
      [
        IS_GPU_OP,
        int32('comm_src', peerRank(this.plan, this.selfRank, peerStage)),
        int32('comm_dst', this.selfRank),
        int64('comm_size', whole(bytes, 'collective size (bytes)')),
        int32('comm_tag', tag),
      ],
    );
  }

  get lastCompute(): bigint | null {
    return this.lastComp;
  }
}

function unique(ids: bigint[]): bigint[] {
  if (ids.length < 2) return ids;
  return [...new Set(ids)];
}

/** Tags of point-to-point messages: unique per (sender, receiver) within the iteration. */
export function activationTag(mb: number): number {
  return 2 * mb;
}
export function gradientTag(mb: number): number {
  return 2 * mb + 1;
}
export function embeddingSyncTag(microBatches: number): number {
  return 2 * microBatches;
}

export function buildStage(plan: LlmPlan, stage: number): StageTemplate {
  const g = new StageGenerator(plan, stage);
  g.run();
  return { stage, nodes: g.b.nodes, patches: g.b.patches };
}

class StageGenerator {
  readonly b: StageBuilder;
  private readonly m: LlmPlan['model'];
  private readonly e: number;
  private readonly T: number;
  private readonly sp: boolean;
  /** Tokens a norm (and a pipeline message) holds: s/tp per sequence with sequence parallelism. */
  private readonly Tn: number;
  private readonly h: number;
  private readonly qkvOut: number;
  private readonly attnIn: number;
  private readonly attention: AttentionShape;
  private readonly norm: NormShape;
  private readonly upWidth: number;
  private readonly qkvBias: boolean;
  private readonly first: boolean;
  private readonly last: boolean;
  /** Last node of each micro-batch's forward pass on this stage. */
  private readonly fwdOut: bigint[] = [];
  /** Input of each layer per micro-batch (the checkpoint full recomputation restarts from). */
  private readonly layerInputs: bigint[][] = [];
  private readonly dpBuckets: bigint[] = [];
  private bucketBytes = 0;
  private bucketDep: bigint | null = null;
  private embeddingGradDone: bigint | null = null;

  constructor(
    private readonly plan: LlmPlan,
    private readonly stage: number,
  ) {
    this.b = new StageBuilder(plan, stage);
    const m = plan.model;
    this.m = m;
    this.e = plan.elemBytes;
    this.T = plan.microBatch * plan.seqLen;
    this.sp = plan.sequenceParallel && plan.tp > 1;
    this.Tn = this.sp ? this.T / plan.tp : this.T;
    this.h = m.hiddenSize;
    this.qkvOut = (plan.headsPerRank + 2 * plan.kvHeadsPerRank) * m.headDim;
    this.attnIn = plan.headsPerRank * m.headDim;
    this.norm = { tokens: this.Tn, h: this.h, kind: m.norm, e: this.e, normParams: normParams(m) };
    this.attention = {
      b: plan.microBatch,
      s: plan.seqLen,
      heads: plan.headsPerRank,
      kvHeads: plan.kvHeadsPerRank,
      d: m.headDim,
      e: this.e,
    };
    this.upWidth = (m.activation === 'swiglu' ? 2 : 1) * plan.ffnPerRank;
    this.qkvBias = m.qkvBias || m.linearBias;
    this.first = stage === 0;
    this.last = stage === plan.pp - 1;
  }

  run(): void {
    if (this.plan.scope === 'layer-forward') {
      for (let mb = 0; mb < this.plan.microBatches; mb++) this.layerForward(0, mb, null, 'fwd');
      return;
    }
    const steps = stageSchedule(this.plan.schedule, this.plan.pp, this.stage, this.plan.microBatches);
    let lastBackward = -1;
    steps.forEach((s, i) => {
      if (s.pass === 'B') lastBackward = i;
    });
    steps.forEach((s, i) =>
      s.pass === 'F' ? this.forward(s.microBatch) : this.backward(s.microBatch, i === lastBackward),
    );
    this.finish();
  }

  // ---- tensor-parallel regions ----

  /** Entering a column-parallel GEMM: all-gather the sequence shards (SP), nothing otherwise. */
  private tpGather(name: string, x: bigint): bigint {
    if (!this.sp) return x;
    return this.b.coll(name, CollectiveCommType.ALL_GATHER, this.Tn * this.h * this.e, 'tp', [x]);
  }

  /** Leaving a row-parallel GEMM: all-reduce (or reduce-scatter with SP) the partial sums. */
  private tpReduce(name: string, x: bigint): bigint {
    if (this.plan.tp === 1) return x;
    const type = this.sp ? CollectiveCommType.REDUCE_SCATTER : CollectiveCommType.ALL_REDUCE;
    return this.b.coll(name, type, this.T * this.h * this.e, 'tp', [x]);
  }

  // ---- decoder layer ----

  /** `x` null: the layer's input is already in memory (a layer traced on its own). */
  private layerForward(l: number, mb: number, x: bigint | null, pass: 'fwd' | 'recompute'): bigint {
    const { b, T, h, e, m, plan } = this;
    const pre = `mb${mb}.L${l}.`;
    const sfx = `.${pass}`;
    let y = b.comp(`${pre}input_norm${sfx}`, normForward(this.norm), x === null ? [] : [x]);
    y = this.tpGather(`${pre}qkv.tp_allgather${sfx}`, y);
    y = b.comp(`${pre}qkv${sfx}`, gemmForward(T, h, this.qkvOut, e, this.qkvBias), [y]);
    y = b.comp(`${pre}attention${sfx}`, flashAttentionForward(this.attention), [y]);
    y = b.comp(`${pre}attn_out${sfx}`, gemmForward(T, this.attnIn, h, e, m.linearBias), [y]);
    y = this.tpReduce(`${pre}attn_out.tp_${this.sp ? 'reducescatter' : 'allreduce'}${sfx}`, y);
    y = b.comp(`${pre}post_attn_norm${sfx}`, normForward(this.norm), [y]);
    y = this.tpGather(`${pre}mlp_up.tp_allgather${sfx}`, y);
    y = b.comp(`${pre}mlp_up${sfx}`, gemmForward(T, h, this.upWidth, e, m.linearBias), [y]);
    y = b.comp(`${pre}mlp_act${sfx}`, activationForward(T, plan.ffnPerRank, m.activation, e), [y]);
    y = b.comp(`${pre}mlp_down${sfx}`, gemmForward(T, plan.ffnPerRank, h, e, m.linearBias), [y]);
    return this.tpReduce(`${pre}mlp_down.tp_${this.sp ? 'reducescatter' : 'allreduce'}${sfx}`, y);
  }

  /**
   * Backward through a column-parallel GEMM (QKV, MLP up, LM head): SP re-gathers the input for the
   * weight gradient; the input gradient is reduced across tensor-parallel ranks while the weight
   * gradient is computed. Returns the reduced input gradient.
   */
  private columnParallelBackward(pre: string, M: number, K: number, N: number, bias: boolean, dY: bigint): bigint {
    const { b, e } = this;
    const gathered = this.sp
      ? this.b.coll(`${pre}.tp_allgather_input.bwd`, CollectiveCommType.ALL_GATHER, this.Tn * this.h * e, 'tp', [dY])
      : null;
    const dX = b.comp(`${pre}.dgrad`, gemmDgrad(M, K, N, e), [dY]);
    const reduced = this.tpReduce(`${pre}.tp_${this.sp ? 'reducescatter' : 'allreduce'}.bwd`, dX);
    b.comp(`${pre}.wgrad`, gemmWgrad(M, K, N, e, bias), gathered === null ? [dY] : [dY, gathered]);
    return reduced;
  }

  /** Backward through a row-parallel GEMM (attention output, MLP down): SP all-gathers the output gradient first. */
  private rowParallelBackward(
    pre: string,
    M: number,
    K: number,
    N: number,
    bias: boolean,
    dY: bigint,
    extraDeps: bigint[],
  ): bigint {
    const { b, e } = this;
    const g = this.tpGather(`${pre}.tp_allgather.bwd`, dY);
    const dX = b.comp(`${pre}.dgrad`, gemmDgrad(M, K, N, e), [g, ...extraDeps]);
    b.comp(`${pre}.wgrad`, gemmWgrad(M, K, N, e, bias), [g]);
    return dX;
  }

  private layerBackward(l: number, mb: number, dY: bigint, extraDeps: bigint[]): bigint {
    const { b, T, h, e, m, plan } = this;
    const pre = `mb${mb}.L${l}.`;
    let g = this.rowParallelBackward(`${pre}mlp_down`, T, plan.ffnPerRank, h, m.linearBias, dY, extraDeps);
    g = b.comp(`${pre}mlp_act.bwd`, activationBackward(T, plan.ffnPerRank, m.activation, e), [g]);
    g = this.columnParallelBackward(`${pre}mlp_up`, T, h, this.upWidth, m.linearBias, g);
    g = b.comp(`${pre}post_attn_norm.bwd`, normBackward(this.norm), [g]);
    g = this.rowParallelBackward(`${pre}attn_out`, T, this.attnIn, h, m.linearBias, g, []);
    g = b.comp(`${pre}attention.bwd`, flashAttentionBackward(this.attention), [g]);
    g = this.columnParallelBackward(`${pre}qkv`, T, h, this.qkvOut, this.qkvBias, g);
    return b.comp(`${pre}input_norm.bwd`, normBackward(this.norm), [g]);
  }

  // ---- embedding and LM head ----

  private embeddingFwd(mb: number): bigint {
    const x = this.b.comp(
      `mb${mb}.embedding.fwd`,
      embeddingForward(this.T, this.h, this.plan.tp, this.e, this.m.learnedPositions > 0),
      [],
    );
    return this.tpReduce(`mb${mb}.embedding.tp_${this.sp ? 'reducescatter' : 'allreduce'}.fwd`, x);
  }

  private embeddingBwd(mb: number, dY: bigint): bigint {
    const g = this.tpGather(`mb${mb}.embedding.tp_allgather.bwd`, dY);
    return this.b.comp(`mb${mb}.embedding.bwd`, embeddingBackward(this.T, this.h, this.plan.tp, this.e), [g]);
  }

  private lmHeadFwd(mb: number, x: bigint): bigint {
    const { b, T, h, e, plan } = this;
    const pre = `mb${mb}.lm_head`;
    let y = b.comp(`mb${mb}.final_norm.fwd`, normForward(this.norm), [x]);
    y = this.tpGather(`${pre}.tp_allgather.fwd`, y);
    y = b.comp(`${pre}.fwd`, gemmForward(T, h, plan.vocabPerRank, e), [y]);
    y = b.comp(`mb${mb}.cross_entropy.fwd`, crossEntropyForward(T, plan.vocabPerRank, e), [y]);
    if (plan.tp > 1) {
      // Vocabulary-parallel cross entropy: fp32 all-reduces of the row max, the target logit and the sum of
      // exponentials.
      for (const what of ['max', 'target_logit', 'sum_exp']) {
        y = b.coll(`mb${mb}.cross_entropy.tp_allreduce_${what}`, CollectiveCommType.ALL_REDUCE, 4 * T, 'tp', [y]);
      }
    }
    return y;
  }

  private lmHeadBwd(mb: number, loss: bigint): bigint {
    const { b, T, h, e, plan } = this;
    let g = b.comp(`mb${mb}.cross_entropy.bwd`, crossEntropyBackward(T, plan.vocabPerRank, e), [loss]);
    g = this.columnParallelBackward(`mb${mb}.lm_head`, T, h, plan.vocabPerRank, false, g);
    return b.comp(`mb${mb}.final_norm.bwd`, normBackward(this.norm), [g]);
  }

  // ---- data-parallel gradient buckets ----

  private addGradients(params: number, producer: bigint): void {
    this.bucketBytes += params * this.plan.gradBytes;
    this.bucketDep = producer;
    if (this.bucketBytes >= this.plan.dpBucketBytes) this.flushBucket();
  }

  private flushBucket(): void {
    if (this.bucketBytes > 0 && this.bucketDep !== null && this.plan.dp > 1) {
      const id = this.b.coll(
        `dp_grad_allreduce.bucket${this.dpBuckets.length}`,
        CollectiveCommType.ALL_REDUCE,
        this.bucketBytes,
        'dp',
        [this.bucketDep],
      );
      this.dpBuckets.push(id);
    }
    this.bucketBytes = 0;
    this.bucketDep = null;
  }

  // ---- schedule steps ----

  private actBytes(): number {
    return this.Tn * this.h * this.e;
  }

  private forward(mb: number): void {
    const { plan, stage } = this;
    let x = this.first
      ? this.embeddingFwd(mb)
      : this.b.recv(`mb${mb}.recv_activation`, this.actBytes(), stage - 1, activationTag(mb));
    const layers = plan.stages[stage];
    const inputs: bigint[] = [];
    for (let l = layers.first; l < layers.first + layers.count; l++) {
      inputs.push(x);
      x = this.layerForward(l, mb, x, 'fwd');
    }
    if (plan.recompute === 'full') this.layerInputs[mb] = inputs;
    if (this.last) x = this.lmHeadFwd(mb, x);
    else this.b.send(`mb${mb}.send_activation`, this.actBytes(), stage + 1, activationTag(mb), [x]);
    this.fwdOut[mb] = x;
  }

  private backward(mb: number, lastPass: boolean): void {
    const { plan, stage } = this;
    const perLayer = layerParamsPerRank(plan);
    const ends = endParamsPerRank(plan);
    let g: bigint;
    let extra: bigint[] = [];
    if (this.last) {
      g = this.lmHeadBwd(mb, this.fwdOut[mb]);
      if (lastPass) {
        this.embeddingGradDone = this.b.lastCompute;
        this.addGradients(ends.head, g);
      }
    } else {
      g = this.b.recv(`mb${mb}.recv_gradient`, this.actBytes(), stage + 1, gradientTag(mb));
      extra = [this.fwdOut[mb]];
    }
    const layers = plan.stages[stage];
    for (let l = layers.first + layers.count - 1; l >= layers.first; l--) {
      if (plan.recompute === 'full') {
        const rec = this.layerForward(l, mb, this.layerInputs[mb][l - layers.first], 'recompute');
        extra = [...extra, rec];
      }
      g = this.layerBackward(l, mb, g, extra);
      extra = [];
      if (lastPass) this.addGradients(perLayer, g);
    }
    if (plan.recompute === 'full') delete this.layerInputs[mb];
    if (this.first) {
      g = this.embeddingBwd(mb, g);
      if (lastPass) {
        this.embeddingGradDone = g;
        this.addGradients(ends.embedding, g);
      }
    } else {
      this.b.send(`mb${mb}.send_gradient`, this.actBytes(), stage - 1, gradientTag(mb), [g]);
    }
  }

  /** Remaining gradient bucket, tied-embedding gradient exchange between first and last stage, optimizer step. */
  private finish(): void {
    const { plan, stage } = this;
    this.flushBucket();
    const deps = [...this.dpBuckets];
    if (plan.model.tiedEmbeddings && plan.pp > 1 && (this.first || this.last) && this.embeddingGradDone !== null) {
      const peer = this.first ? plan.pp - 1 : 0;
      const elements = plan.vocabPerRank * this.h;
      const bytes = elements * plan.gradBytes;
      const tag = embeddingSyncTag(plan.microBatches);
      const sent = this.b.send('embedding_grad_sync.send', bytes, peer, tag, [this.embeddingGradDone]);
      const received = this.b.recv('embedding_grad_sync.recv', bytes, peer, tag);
      deps.push(this.b.comp('embedding_grad_sync.add', gradientAdd(elements, plan.gradBytes), [received, sent]));
    }
    this.b.comp('optimizer.adam', adamStep(stageParamsPerRank(plan, stage), this.e, plan.gradBytes), deps);
  }
}

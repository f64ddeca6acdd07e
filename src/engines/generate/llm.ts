/**
 * LLM training-iteration trace generator: the library entry points.
 *
 * generateLlmTraces() gives every rank's nodes in memory, one pipeline stage at a time, for
 * analysis and tests; writeLlmTraces() writes `<prefix>.<rank>.et` files plus network.yml and
 * system.json. Ranks of one stage share everything but their send/receive peers, so each stage is
 * built and encoded once and only those nodes are re-encoded per rank.
 */
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { ByteSink, encodeMetadataFrame, encodeNodeFrame } from '../../formats/chakra/encode.js';
import { TracewattError } from '../../errors.js';
import { isRankFileOf } from '../../formats/chakra/paths.js';
import { NodeType } from '../../formats/chakra/schema.js';
import { OutputSet, outputError, TEMP_OPEN_FLAGS } from '../../formats/output.js';
import type { Attribute, ChakraNode, GlobalMetadata } from '../../formats/chakra/types.js';
import { networkYaml, systemJson } from './network.js';
import { coordsOf, type LlmGenerateOptions, type LlmPlan, rankOf, resolvePlan } from './plan.js';
import { buildStage, type PeerPatch, peerRank, type StageTemplate } from './stage.js';

export interface LlmTraceSet {
  plan: LlmPlan;
  metadata: GlobalMetadata;
  ranks: number;
  stageOf(rank: number): number;
  /** The stage's nodes for its tensor-/data-parallel rank 0 (cached for the last stage asked). */
  stageTemplate(stage: number): StageTemplate;
  /** All nodes of one rank in id order. Nodes are shared between ranks: treat them as read-only. */
  nodesOf(rank: number): ChakraNode[];
  networkYaml(): string;
  systemJson(): string;
}

export function llmMetadata(plan: LlmPlan): GlobalMetadata {
  const str = (name: string, value: string): Attribute => ({ name, docString: '', kind: 'string_val', value });
  const config = {
    model: plan.model.name,
    dp: plan.dp,
    tp: plan.tp,
    pp: plan.pp,
    microBatch: plan.microBatch,
    globalBatch: plan.globalBatch,
    seqLen: plan.seqLen,
    microBatches: plan.microBatches,
    schedule: plan.schedule,
    // Only a trace that is not a whole iteration says so: iteration traces stay as they were.
    ...(plan.scope === 'iteration' ? {} : { scope: plan.scope }),
    sequenceParallel: plan.sequenceParallel,
    recompute: plan.recompute,
    dtype: plan.dtype,
    gpu: plan.gpu.name,
    timeModel: plan.timeModel.label,
  };
  return {
    version: '0.0.4',
    attrs: [str('generator', 'tracewatt generate llm'), str('tracewatt_llm_config', JSON.stringify(config))],
  };
}

function int32(name: string, value: number): Attribute {
  return { name, docString: '', kind: 'int32_val', value };
}

/** The node with comm_src/comm_dst set for `rank`. */
function patchNode(plan: LlmPlan, node: ChakraNode, patch: PeerPatch, rank: number): ChakraNode {
  const peer = peerRank(plan, rank, patch.peerStage);
  const self = patch.attr === 'comm_dst' ? 'comm_src' : 'comm_dst';
  const attrs = node.attrs.map((a) =>
    a.name === patch.attr ? int32(a.name, peer) : a.name === self ? int32(a.name, rank) : a,
  );
  return { ...node, attrs };
}

function isTemplateRank(plan: LlmPlan, rank: number): boolean {
  const c = coordsOf(plan, rank);
  return c.tp === 0 && c.dp === 0;
}

export function nodesForRank(plan: LlmPlan, tpl: StageTemplate, rank: number): ChakraNode[] {
  if (tpl.patches.length === 0 || isTemplateRank(plan, rank)) return tpl.nodes;
  const out = tpl.nodes.slice();
  for (const p of tpl.patches) out[p.index] = patchNode(plan, tpl.nodes[p.index], p, rank);
  return out;
}

export function generateLlmTraces(options: LlmGenerateOptions): LlmTraceSet {
  const plan = resolvePlan(options);
  let cached: StageTemplate | null = null;
  const stageTemplate = (stage: number): StageTemplate => {
    if (!Number.isInteger(stage) || stage < 0 || stage >= plan.pp)
      throw new RangeError(`stage ${stage} outside 0..${plan.pp - 1}`);
    if (cached?.stage !== stage) cached = buildStage(plan, stage);
    return cached;
  };
  const stageOf = (rank: number): number => {
    if (!Number.isInteger(rank) || rank < 0 || rank >= plan.ranks)
      throw new RangeError(`rank ${rank} outside 0..${plan.ranks - 1}`);
    return coordsOf(plan, rank).pp;
  };
  return {
    plan,
    metadata: llmMetadata(plan),
    ranks: plan.ranks,
    stageOf,
    stageTemplate,
    nodesOf: (rank) => nodesForRank(plan, stageTemplate(stageOf(rank)), rank),
    networkYaml: () => networkYaml(plan),
    systemJson: () => systemJson(plan),
  };
}

export interface StageSummary {
  stage: number;
  layers: number;
  nodesPerRank: number;
  compNodes: number;
  commNodes: number;
  /** Σ num_ops of one rank's COMP nodes. */
  flopsPerRank: number;
  /** Σ duration of one rank's COMP nodes (µs, as written). */
  computeMicrosPerRank: number;
}

export function summarizeStage(plan: LlmPlan, tpl: StageTemplate): StageSummary {
  let comp = 0;
  let flops = 0;
  let micros = 0;
  for (const n of tpl.nodes) {
    if (n.type !== NodeType.COMP_NODE) continue;
    comp++;
    micros += Number(n.durationMicros);
    const a = n.attrs.find((x) => x.name === 'num_ops');
    if (a) flops += Number(a.value as bigint);
  }
  return {
    stage: tpl.stage,
    layers: plan.scope === 'layer-forward' ? 1 : plan.stages[tpl.stage].count,
    nodesPerRank: tpl.nodes.length,
    compNodes: comp,
    commNodes: tpl.nodes.length - comp,
    flopsPerRank: flops,
    computeMicrosPerRank: micros,
  };
}

export interface WriteLlmOptions extends LlmGenerateOptions {
  /** Files are `<outPrefix>.<rank>.et`, `<outPrefix>.network.yml`, `<outPrefix>.system.json`. */
  outPrefix: string;
  /** Rank files written at once (default 8). */
  concurrency?: number;
  onProgress?: (ranksWritten: number, ranks: number) => void;
}

export interface WriteLlmResult {
  plan: LlmPlan;
  ranks: number;
  traceFiles: { first: string; last: string };
  networkFile: string;
  systemFile: string;
  nodes: number;
  bytes: number;
  stages: StageSummary[];
  /** Σ num_ops of all ranks' COMP nodes: the iteration's FLOPs (estimated by the generator's op model). */
  flopsPerIteration: number;
}

export function rankFile(prefix: string, rank: number): string {
  return `${prefix}.${rank}.et`;
}

/**
 * Writes every rank's trace, all files renamed into place together once complete (a failed or interrupted run
 * leaves the previous ones as they were). Memory holds one stage (its nodes and their encoding) at a time; each
 * rank file is the stage's encoded frames with the send/receive frames re-encoded for that rank.
 */
export async function writeLlmTraces(options: WriteLlmOptions): Promise<WriteLlmResult> {
  const set = generateLlmTraces(options);
  const prefix = options.outPrefix;
  // Rank files and configurations are written under temporary names and renamed into place together at the end.
  // Rank files of an earlier run on the same prefix that this one does not write again go too.
  return OutputSet.write(prefix, (out) => {
    out.supersede(path.dirname(prefix), (name) => isRankFileOf(prefix, name));
    return writeSet(set, options, out);
  });
}

/**
 * Writes every piece: writev may write less than asked (a disk filling up, a signal), which is no error in itself;
 * the rest is written on, so that a full disk ends in its own ENOSPC (named by the caller), not in a byte count.
 */
async function writeAll(file: string, fh: FileHandle, pieces: Buffer[], size: number): Promise<void> {
  const done = (await fh.writev(pieces)).bytesWritten;
  if (done === size) return;
  const rest = Buffer.concat(pieces).subarray(done);
  let off = 0;
  while (off < rest.length) {
    const { bytesWritten } = await fh.write(rest, off, rest.length - off);
    if (bytesWritten === 0)
      throw new TracewattError('WRITE', `${file}: wrote ${done + off} of ${size} bytes and the file takes no more`);
    off += bytesWritten;
  }
}

async function writeSet(set: LlmTraceSet, options: WriteLlmOptions, out: OutputSet): Promise<WriteLlmResult> {
  const { plan } = set;
  const prefix = options.outPrefix;
  const metaSink = new ByteSink(1024);
  encodeMetadataFrame(metaSink, set.metadata);
  const metaFrame = Buffer.from(metaSink.view());
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const stages: StageSummary[] = [];
  let nodes = 0;
  let bytes = 0;
  let written = 0;
  for (let stage = 0; stage < plan.pp; stage++) {
    const tpl = set.stageTemplate(stage);
    stages.push(summarizeStage(plan, tpl));
    const sink = new ByteSink(1 << 22);
    const offsets = new Float64Array(tpl.nodes.length + 1);
    for (let i = 0; i < tpl.nodes.length; i++) {
      offsets[i] = sink.pos;
      encodeNodeFrame(sink, tpl.nodes[i]);
    }
    offsets[tpl.nodes.length] = sink.pos;
    const body = sink.view();
    const patches = [...tpl.patches].sort((a, b) => a.index - b.index);
    const ranksOfStage: number[] = [];
    for (let dp = 0; dp < plan.dp; dp++)
      for (let tp = 0; tp < plan.tp; tp++) ranksOfStage.push(rankOf(plan, { tp, dp, pp: stage }));
    /** The rank's file as pieces: spans of the stage's frames around its re-encoded send/receive frames. */
    const encodeRank = (rank: number): { pieces: Buffer[]; bytes: number } => {
      const pieces: Buffer[] = [metaFrame];
      const patchSink = new ByteSink(64 * patches.length + 256);
      let from = 0;
      for (const p of patches) {
        pieces.push(body.subarray(from, offsets[p.index]));
        const at = patchSink.pos;
        encodeNodeFrame(patchSink, patchNode(plan, tpl.nodes[p.index], p, rank));
        // A view into the sink's buffer at the time; growing the sink copies, so earlier views stay valid.
        pieces.push(patchSink.buf.subarray(at, patchSink.pos));
        from = offsets[p.index + 1];
      }
      pieces.push(body.subarray(from));
      let bytes = 0;
      for (const x of pieces) bytes += x.length;
      return { pieces, bytes };
    };
    let next = 0;
    const worker = async () => {
      while (next < ranksOfStage.length) {
        const rank = ranksOfStage[next++];
        const { pieces, bytes: size } = encodeRank(rank);
        const file = rankFile(prefix, rank);
        const fh = await open(out.file(file), TEMP_OPEN_FLAGS);
        try {
          await writeAll(file, fh, pieces, size);
        } catch (e) {
          throw outputError(file, e);
        } finally {
          await fh.close();
        }
        bytes += size;
        nodes += tpl.nodes.length;
        written++;
        options.onProgress?.(written, plan.ranks);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, ranksOfStage.length) }, worker));
  }
  const networkFile = `${prefix}.network.yml`;
  const systemFile = `${prefix}.system.json`;
  await out.put(networkFile, set.networkYaml());
  await out.put(systemFile, set.systemJson());
  return {
    plan,
    ranks: plan.ranks,
    traceFiles: { first: rankFile(prefix, 0), last: rankFile(prefix, plan.ranks - 1) },
    networkFile,
    systemFile,
    nodes,
    bytes,
    stages,
    flopsPerIteration: stages.reduce((a, st) => a + st.flopsPerRank, 0) * plan.tp * plan.dp,
  };
}

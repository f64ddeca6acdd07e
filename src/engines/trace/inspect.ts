/**
 * `inspect`: per-rank and total counts of a (multi-rank) Chakra trace — nodes by type, compute
 * work, collectives by type with bytes, dependency edges, dangling dependencies, cycles, schema.
 */
import { Diagnostics, type DiagnosticSummary } from '../../diagnostics.js';
import { attrInt, getAttr } from '../../formats/chakra/attrs.js';
import { openTrace } from '../../formats/chakra/reader.js';
import { resolveRankFiles } from '../../formats/chakra/paths.js';
import { NodeType, commTypeName, nodeTypeName } from '../../formats/chakra/schema.js';
import type { Attribute } from '../../formats/chakra/types.js';
import { DependencyGraph } from './graph.js';

export interface CollectiveStats {
  count: number;
  commSizeBytes: bigint;
}

export interface TraceCounts {
  nodeCount: number;
  nodesByType: Record<string, number>;
  /** Sum of num_ops over COMP nodes. */
  numOps: bigint;
  /** Sum of duration_micros over COMP nodes. */
  durationMicros: bigint;
  collectives: Record<string, CollectiveStats>;
  sendRecv: { sends: number; recvs: number; sendBytes: bigint };
  edges: { data: number; ctrl: number };
  dangling: { data: number; ctrl: number };
  duplicateIds: number;
  nodesInCycles: number;
}

export interface RankInspection extends TraceCounts {
  rank: number;
  file: string;
  bytes: number;
  compressed: boolean;
  hasMetadata: boolean;
  version: string | null;
  schema: string | null;
  danglingSamples: { nodeId: bigint; parentId: bigint; kind: 'data' | 'ctrl' }[];
  cycleSample: bigint[];
  diagnostics: DiagnosticSummary[];
}

export interface Inspection {
  path: string;
  ranks: RankInspection[];
  total: TraceCounts & { rankCount: number };
}

function emptyCounts(): TraceCounts {
  return {
    nodeCount: 0, nodesByType: {}, numOps: 0n, durationMicros: 0n, collectives: {},
    sendRecv: { sends: 0, recvs: 0, sendBytes: 0n }, edges: { data: 0, ctrl: 0 }, dangling: { data: 0, ctrl: 0 },
    duplicateIds: 0, nodesInCycles: 0,
  };
}

export async function inspectRank(file: string, rank: number): Promise<RankInspection> {
  const diagnostics = new Diagnostics();
  const reader = await openTrace(file, { diagnostics });
  const graph = new DependencyGraph();
  const c = emptyCounts();
  for await (const batch of reader.batches()) {
    for (const node of batch) {
      c.nodeCount++;
      const typeName = nodeTypeName(node.type);
      c.nodesByType[typeName] = (c.nodesByType[typeName] ?? 0) + 1;
      graph.add(node.id, node.dataDeps, node.ctrlDeps);
      switch (node.type) {
        case NodeType.COMP_NODE:
          c.numOps += attrInt(node, 'num_ops', diagnostics) ?? 0n;
          c.durationMicros += node.durationMicros;
          break;
        case NodeType.COMM_COLL_NODE: {
          const t = attrInt(node, 'comm_type', diagnostics);
          const key = t === undefined ? 'UNSPECIFIED' : commTypeName(t);
          const s = (c.collectives[key] ??= { count: 0, commSizeBytes: 0n });
          s.count++;
          s.commSizeBytes += attrInt(node, 'comm_size', diagnostics) ?? 0n;
          break;
        }
        case NodeType.COMM_SEND_NODE:
          c.sendRecv.sends++;
          c.sendRecv.sendBytes += attrInt(node, 'comm_size', diagnostics) ?? 0n;
          break;
        case NodeType.COMM_RECV_NODE:
          c.sendRecv.recvs++;
          break;
      }
    }
  }
  const g = graph.facts();
  c.edges = { data: g.dataEdges, ctrl: g.ctrlEdges };
  c.dangling = { data: g.danglingData, ctrl: g.danglingCtrl };
  c.duplicateIds = g.duplicateCount;
  c.nodesInCycles = g.nodesInCycles;
  const md = reader.metadata;
  return {
    rank, file, bytes: reader.bytesRead, compressed: reader.compressed, hasMetadata: md !== null,
    version: md ? md.version : null,
    schema: schemaOf(md?.attrs),
    ...c, danglingSamples: g.danglingSamples, cycleSample: g.cycleSample, diagnostics: diagnostics.summary(),
  };
}

function schemaOf(attrs: Attribute[] | undefined): string | null {
  const a = attrs ? getAttr({ attrs }, 'schema') : undefined;
  return a?.kind === 'string_val' ? (a.value as string) : null;
}

function addCounts(into: TraceCounts, c: TraceCounts): void {
  into.nodeCount += c.nodeCount;
  for (const [k, v] of Object.entries(c.nodesByType)) into.nodesByType[k] = (into.nodesByType[k] ?? 0) + v;
  into.numOps += c.numOps;
  into.durationMicros += c.durationMicros;
  for (const [k, v] of Object.entries(c.collectives)) {
    const s = (into.collectives[k] ??= { count: 0, commSizeBytes: 0n });
    s.count += v.count;
    s.commSizeBytes += v.commSizeBytes;
  }
  into.sendRecv.sends += c.sendRecv.sends;
  into.sendRecv.recvs += c.sendRecv.recvs;
  into.sendRecv.sendBytes += c.sendRecv.sendBytes;
  into.edges.data += c.edges.data;
  into.edges.ctrl += c.edges.ctrl;
  into.dangling.data += c.dangling.data;
  into.dangling.ctrl += c.dangling.ctrl;
  into.duplicateIds += c.duplicateIds;
  into.nodesInCycles += c.nodesInCycles;
}

/** Inspects every rank of a trace path (file, prefix or directory), two ranks at a time. */
export async function inspectTrace(target: string, onRank?: (r: RankInspection) => void): Promise<Inspection> {
  const files = await resolveRankFiles(target);
  const ranks: RankInspection[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      ranks[i] = await inspectRank(files[i].file, files[i].rank);
      onRank?.(ranks[i]);
    }
  };
  await Promise.all([worker(), worker()]);
  const total = { ...emptyCounts(), rankCount: ranks.length };
  for (const r of ranks) addCounts(total, r);
  return { path: target, ranks, total };
}

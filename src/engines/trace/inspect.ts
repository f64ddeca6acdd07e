/**
 * `inspect`: per-rank and total counts of a (multi-rank) Chakra trace — nodes by type, compute
 * work, collectives by type with bytes, dependency edges, dangling dependencies, cycles, schema.
 */
import { Diagnostics, type DiagnosticSummary } from '../../diagnostics.js';
import { getAttr, intOfAttribute } from '../../formats/chakra/attrs.js';
import { resolveRankFiles } from '../../formats/chakra/paths.js';
import { AttributeNames, NodeProbe } from '../../formats/chakra/probe.js';
import { NodeType, commTypeName, nodeTypeName } from '../../formats/chakra/schema.js';
import type { Attribute } from '../../formats/chakra/types.js';
import type { GraphFacts } from './graph.js';
import { probeRank, RankWorkspace } from './probe-rank.js';

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
    nodeCount: 0,
    nodesByType: {},
    numOps: 0n,
    durationMicros: 0n,
    collectives: {},
    sendRecv: { sends: 0, recvs: 0, sendBytes: 0n },
    edges: { data: 0, ctrl: 0 },
    dangling: { data: 0, ctrl: 0 },
    duplicateIds: 0,
    nodesInCycles: 0,
  };
}

/** The attributes inspect reads, by probe slot. */
const NUM_OPS = 0;
const COMM_TYPE = 1;
const COMM_SIZE = 2;
const INSPECTED = new AttributeNames(['num_ops', 'comm_type', 'comm_size']);
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A sum of non-negative integers, exact: a number while it stays below 2^53, a bigint beside. */
class ExactSum {
  private small = 0;
  private big = 0n;
  add(n: number): void {
    if (this.small + n > MAX_SAFE) {
      this.big += BigInt(this.small);
      this.small = 0;
    }
    this.small += n;
  }
  addBig(n: bigint): void {
    this.big += n;
  }
  get value(): bigint {
    return this.big + BigInt(this.small);
  }
}

/** Counts of one rank's nodes, taken from node probes. */
class RankTally {
  nodeCount = 0;
  /** Nodes per schema type number (others in a Map), and the types in the order first seen (nodesByType's order). */
  private readonly perType = new Float64Array(8);
  private readonly otherTypes = new Map<number, number>();
  private readonly typeOrder: number[] = [];
  readonly numOps = new ExactSum();
  readonly durationMicros = new ExactSum();
  readonly collectives: Record<string, CollectiveStats> = {};
  readonly sendRecv = { sends: 0, recvs: 0, sendBytes: 0n };

  constructor(private readonly diagnostics: Diagnostics) {}

  add(probe: NodeProbe): void {
    this.nodeCount++;
    const type = probe.type;
    if (type >= 0 && type < 8) {
      if (this.perType[type]++ === 0) this.typeOrder.push(type);
    } else {
      const n = this.otherTypes.get(type) ?? 0;
      if (n === 0) this.typeOrder.push(type);
      this.otherTypes.set(type, n + 1);
    }
    switch (type) {
      case NodeType.COMP_NODE: {
        const ops = probe.varintAt(NUM_OPS);
        if (ops >= 0) this.numOps.add(ops);
        else this.numOps.addBig(this.intAt(probe, NUM_OPS) ?? 0n);
        if (probe.durationNumber >= 0) this.durationMicros.add(probe.durationNumber);
        else this.durationMicros.addBig(probe.durationBig);
        break;
      }
      case NodeType.COMM_COLL_NODE: {
        const t = this.intAt(probe, COMM_TYPE);
        const key = t === undefined ? 'UNSPECIFIED' : commTypeName(t);
        const s = (this.collectives[key] ??= { count: 0, commSizeBytes: 0n });
        s.count++;
        s.commSizeBytes += this.intAt(probe, COMM_SIZE) ?? 0n;
        break;
      }
      case NodeType.COMM_SEND_NODE:
        this.sendRecv.sends++;
        this.sendRecv.sendBytes += this.intAt(probe, COMM_SIZE) ?? 0n;
        break;
      case NodeType.COMM_RECV_NODE:
        this.sendRecv.recvs++;
        break;
    }
  }

  /** attrInt of the attribute in a slot: a plain value at once, others decoded (with their diagnostics). */
  private intAt(probe: NodeProbe, slot: number): bigint | undefined {
    const v = probe.varintAt(slot);
    if (v >= 0) return BigInt(v);
    const a = probe.attributeAt(slot);
    return a ? intOfAttribute(a, probe, this.diagnostics) : undefined;
  }

  counts(g: GraphFacts): TraceCounts {
    const nodesByType: Record<string, number> = {};
    for (const type of this.typeOrder)
      nodesByType[nodeTypeName(type)] = type >= 0 && type < 8 ? this.perType[type] : this.otherTypes.get(type)!;
    return {
      nodeCount: this.nodeCount,
      nodesByType,
      numOps: this.numOps.value,
      durationMicros: this.durationMicros.value,
      collectives: this.collectives,
      sendRecv: this.sendRecv,
      edges: { data: g.dataEdges, ctrl: g.ctrlEdges },
      dangling: { data: g.danglingData, ctrl: g.danglingCtrl },
      duplicateIds: g.duplicateCount,
      nodesInCycles: g.nodesInCycles,
    };
  }
}

export async function inspectRank(file: string, rank: number, workspace?: RankWorkspace): Promise<RankInspection> {
  const diagnostics = new Diagnostics();
  const tally = new RankTally(diagnostics);
  const { facts: g, stream } = await probeRank(
    file,
    new NodeProbe(INSPECTED),
    diagnostics,
    (probe) => tally.add(probe),
    workspace,
    true,
  );
  const md = stream.frames.metadata;
  return {
    rank,
    file,
    bytes: stream.frames.consumed,
    compressed: stream.compressed,
    hasMetadata: md !== null,
    version: md ? md.version : null,
    schema: schemaOf(md?.attrs),
    ...tally.counts(g),
    danglingSamples: g.danglingSamples,
    cycleSample: g.cycleSample,
    diagnostics: diagnostics.summary(),
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
    const workspace = new RankWorkspace();
    while (next < files.length) {
      const i = next++;
      ranks[i] = await inspectRank(files[i].file, files[i].rank, workspace);
      onRank?.(ranks[i]);
    }
  };
  await Promise.all([worker(), worker()]);
  const total = { ...emptyCounts(), rankCount: ranks.length };
  for (const r of ranks) addCounts(total, r);
  return { path: target, ranks, total };
}

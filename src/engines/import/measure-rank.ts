/**
 * One rank's measured timeline, from its node graph and the Kineto events the nodes came from: the inputs of
 * measured.ts (times relative to the window, dependencies, launch calls, CUDA synchronisation from sync.ts), one more
 * node that closes the iteration, and the iteration for the metadata. Both importers call it; they write the result
 * (measured-attrs.ts) on their nodes.
 */
import { TracewattError } from '../../errors.js';
import { makeAttr, NodeType, type Attribute, type ChakraNode } from '../../formats/chakra/index.js';
import type { KinetoCpuOp, KinetoGpuEvent, KinetoTrace } from '../../formats/kineto/trace.js';
import { mainDevice } from '../../formats/kineto/trace.js';
import { measuredAttrs, measuredMetadata } from './measured-attrs.js';
import {
  measureTimeline,
  newMeasuredNodes,
  type HostWait,
  type MeasuredResult,
  type MeasuredStats,
} from './measured.js';
import { findSyncs, type LaunchedGpu, type SyncResult } from './sync.js';
import { HostTime, type HostSpans } from './host-time.js';
import type { MeasuredWindow } from './window.js';
import { roundMicros } from '../../vocab/units.js';

/** A rank's nodes by index (0 … size − 1, the order written). */
export interface RankGraph {
  size: number;
  /**
   * Dependencies of node i other than ctrl(i), as indices, each once: the caller's own array, to which the
   * synchronisation dependencies kept are added (they are data dependencies to write).
   */
  deps(i: number): number[];
  /** Node i's ctrl dependency (its enclosing or launching op) when kept apart from deps(i), else -1. */
  ctrl(i: number): number;
  /** The GPU node's launching host op (its ctrl dependency), or -1. */
  launcher(i: number): number;
  hostOp(i: number): KinetoCpuOp | null;
  gpuEvent(i: number): KinetoGpuEvent | null;
  /** Host nodes per chain (a thread's ops in the order the trace chains them). */
  chains: number[][];
  /** The host node of the innermost op enclosing [t, t + d] on a Kineto thread, or null. */
  hostNodeAt(tid: number | string, tNs: number, durNs: number): number | null;
}

export interface MeasuredRankStats extends MeasuredStats {
  window: MeasuredWindow;
  syncs: SyncResult['counts'];
  /** Synchronising calls resolved from cuda_sync records (exact), of all. */
  syncsFromRecords: number;
  /** GPU nodes that began more than 100 µs after every dependency was ready and after their launch call returned. */
  unexplainedWaits: number;
  unexplainedWaitNs: number;
  /** The first clamped nodes, said: which node started before which dependency was ready, by how much. */
  clampedNotes: string[];
  /**
   * Host time cut from duration_micros for the modelled replay (host-time.ts): blocked in synchronisation, or
   * overlapped by another thread's ops; ns.
   */
  modelledHostCutNs: number;
  metadata: Attribute[];
}

export interface MeasuredRank {
  stats: MeasuredRankStats;
  /** Per node (the closing node last, at index graph.size): measured duration, delay, launch offset. */
  result: MeasuredResult;
  /** Dependencies of the closing node (indices), synchronisation ones included. */
  endDeps: number[];
  /**
   * Per host node (index), the ns its duration_micros leaves out of its exclusive time (host-time.ts); absent: none.
   */
  hostCutNs: Map<number, number>;
}

/** A host op's duration_micros: its exclusive time less what host-time.ts cuts, whole µs. */
export function modelledHostMicros(exclusiveNs: number, cutNs = 0): bigint {
  return BigInt(roundMicros(Math.max(0, exclusiveNs - cutNs)));
}

/** A GPU node's delay above this is a wait no dependency explains (launch latency and queueing are far shorter). */
const UNEXPLAINED_NS = 100_000;

/** Name of the node that closes the measured iteration (its delay: host time after the last op, to the step's end). */
export const ITERATION_END = (label: string) => `[end of measured iteration ${label}]`;

/** The closing node as written: a host node of no duration, after the last op of each chain and each stream. */
export function iterationEndNode(
  id: bigint,
  depIds: bigint[],
  kineto: KinetoTrace,
  window: MeasuredWindow,
): ChakraNode {
  return {
    id,
    name: ITERATION_END(window.label),
    type: NodeType.COMP_NODE,
    ctrlDeps: [],
    dataDeps: depIds,
    startTimeMicros: BigInt(kineto.baseUs) + BigInt(Math.floor((window.startNs + window.iterationNs) / 1000)),
    durationMicros: 0n,
    inputs: null,
    outputs: null,
    attrs: [makeAttr('is_cpu_op', 'bool_val', true)],
  };
}

/** The last node (by end) of each chain and of each GPU stream: what the closing node waits for. */
function lastOfEach(g: RankGraph): number[] {
  const out: number[] = [];
  for (const chain of g.chains) {
    let best = -1;
    let bestEnd = -Infinity;
    for (const i of chain) {
      const op = g.hostOp(i);
      if (op && op.tsNs + op.durNs >= bestEnd) {
        best = i;
        bestEnd = op.tsNs + op.durNs;
      }
    }
    if (best >= 0) out.push(best);
  }
  const streams = new Map<number | null, Map<number | null, { i: number; end: number }>>();
  for (let i = 0; i < g.size; i++) {
    const ev = g.gpuEvent(i);
    if (!ev) continue;
    let byStream = streams.get(ev.device);
    if (!byStream) streams.set(ev.device, (byStream = new Map()));
    const cur = byStream.get(ev.stream);
    if (!cur || ev.tsNs + ev.durNs >= cur.end) byStream.set(ev.stream, { i, end: ev.tsNs + ev.durNs });
  }
  for (const byStream of streams.values()) for (const x of byStream.values()) out.push(x.i);
  return [...new Set(out)].sort((a, b) => a - b);
}

export function measureRank(kineto: KinetoTrace, window: MeasuredWindow, g: RankGraph): MeasuredRank {
  const w0 = window.startNs;
  const n = g.size;
  const launched: LaunchedGpu[] = [];
  const launchedNode: number[] = [];
  const spans: HostSpans = { node: [], tid: [], startNs: [], endNs: [] };
  const mn = newMeasuredNodes(n + 1);
  for (let i = 0; i < n; i++) {
    mn.deps[i] = g.deps(i);
    mn.ctrl[i] = g.ctrl(i);
    const ev = g.gpuEvent(i);
    if (ev) {
      const launch = ev.correlation !== null ? kineto.launches.get(ev.correlation) : undefined;
      const launcher = g.launcher(i);
      launched.push({ event: ev, launchNs: launch ? launch.tsNs : -Infinity, launchTid: launch ? launch.tid : null });
      launchedNode.push(i);
      mn.startNs[i] = ev.tsNs - w0;
      mn.endNs[i] = ev.tsNs + ev.durNs - w0;
      mn.launcher[i] = launcher;
      if (launch && launcher >= 0) mn.launchNs[i] = launch.tsNs - w0;
    } else {
      mn.host[i] = 1;
      const op = g.hostOp(i);
      if (op) {
        mn.startNs[i] = op.tsNs - w0;
        mn.endNs[i] = op.tsNs + op.durNs - w0;
      }
    }
  }
  const endDeps = lastOfEach(g);
  mn.host[n] = 1;
  mn.startNs[n] = window.iterationNs;
  mn.endNs[n] = window.iterationNs;
  mn.deps[n] = endDeps;

  // Synchronising calls made while the graph's ops ran.
  let from = w0;
  let to = w0 + window.iterationNs;
  for (let i = 0; i < n; i++) {
    if (mn.host[i] && mn.startNs[i]! + w0 < from) from = mn.startNs[i]! + w0;
    if (mn.host[i] && mn.endNs[i]! + w0 > to) to = mn.endNs[i]! + w0;
  }
  const calls = kineto.runtime.filter((c) => c.tsNs >= from && c.tsNs <= to);
  const syncs = findSyncs(kineto, launched, calls);
  const hostWaits: HostWait[] = [];
  for (const s of syncs.hostWaits) {
    const at = g.hostNodeAt(s.call.tid, s.call.tsNs, s.call.durNs);
    if (at === null) {
      syncs.counts.unresolved++;
      continue;
    }
    hostWaits.push({
      at,
      callStartNs: s.call.tsNs - w0,
      callEndNs: s.call.tsNs + s.call.durNs - w0,
      awaited: s.awaited.map((k) => launchedNode[k]!),
      inferred: s.inferred,
    });
  }
  // The host ops' spans, thread by thread in chain order (each thread's ops by start, outer first).
  for (const chain of g.chains) {
    for (const i of chain) {
      const op = g.hostOp(i);
      if (!op || Number.isNaN(mn.startNs[i]!)) continue;
      spans.node.push(i);
      spans.tid.push(op.tid);
      spans.startNs.push(mn.startNs[i]!);
      spans.endNs.push(mn.endNs[i]!);
    }
  }
  const host = new HostTime(spans);
  const m = measureTimeline({
    nodes: mn,
    chains: g.chains,
    hostWaits,
    threadWaits: host.threadWaits,
    lastResume: n,
    gpuWaits: syncs.gpuWaits.map((w) => ({
      node: launchedNode[w.node]!,
      dep: launchedNode[w.dep]!,
      inferred: w.inferred,
    })),
  });

  // A GPU op that began long after every dependency was ready and after its launch call returned.
  let unexplainedWaits = 0;
  let unexplainedWaitNs = 0;
  launched.forEach((l, k) => {
    const i = launchedNode[k]!;
    const callEnd =
      l.event.correlation !== null ? (kineto.launches.get(l.event.correlation)?.durNs ?? 0) + l.launchNs : -Infinity;
    if (m.delayNs[i]! > UNEXPLAINED_NS && l.event.tsNs - callEnd > UNEXPLAINED_NS) {
      unexplainedWaits++;
      unexplainedWaitNs += m.delayNs[i]!;
    }
  });
  const name = (i: number) =>
    i === n ? ITERATION_END(window.label) : (g.hostOp(i)?.name ?? g.gpuEvent(i)?.name ?? '?').slice(0, 60);
  const clampedNotes = m.stats.clampedSamples.map(
    (c) =>
      `node ${c.node} (${name(c.node)}) started ${(c.ns / 1000).toFixed(3)} µs before ` +
      `${c.dep >= 0 ? `node ${c.dep} (${name(c.dep)})` : 'its dependencies'} was ready (as measured)`,
  );
  const cut = host.cutNs(m.blocked);
  let modelledHostCutNs = 0;
  for (const ns of cut.values()) modelledHostCutNs += ns;
  const stats: MeasuredRankStats = {
    ...m.stats,
    window,
    syncs: syncs.counts,
    syncsFromRecords: syncs.fromRecords,
    unexplainedWaits,
    unexplainedWaitNs,
    clampedNotes,
    modelledHostCutNs,
    metadata: measuredMetadata(window, mainDevice(kineto)?.name || null),
  };
  return { stats, result: m, endDeps, hostCutNs: cut };
}

/**
 * The graph of nodes already built as Chakra nodes (import pytorch): dependencies by id, ids to indices. An id that
 * names no node is an importer bug.
 */
export function graphOfNodes(
  nodes: ChakraNode[],
  chains: bigint[][],
  hostOp: (id: bigint) => KinetoCpuOp | null,
  gpuEvent: (id: bigint) => KinetoGpuEvent | null,
  hostNodeAt: (tid: number | string, tNs: number, durNs: number) => bigint | null,
): RankGraph {
  const index = new Map(nodes.map((x, i) => [x.id, i]));
  const indexOf = (id: bigint): number => {
    const j = index.get(id);
    if (j === undefined)
      throw new TracewattError('INTERNAL', `node ${id} is a dependency but not a node (importer bug)`);
    return j;
  };
  return {
    size: nodes.length,
    deps(i) {
      const out: number[] = [];
      for (const list of [nodes[i]!.dataDeps, nodes[i]!.ctrlDeps]) {
        for (const d of list) {
          const j = indexOf(d);
          if (j !== i && !out.includes(j)) out.push(j);
        }
      }
      return out;
    },
    ctrl: () => -1,
    launcher: (i) => (gpuEvent(nodes[i]!.id) && nodes[i]!.ctrlDeps.length ? indexOf(nodes[i]!.ctrlDeps[0]!) : -1),
    hostOp: (i) => hostOp(nodes[i]!.id),
    gpuEvent: (i) => gpuEvent(nodes[i]!.id),
    chains: chains.map((c) => c.map(indexOf)),
    hostNodeAt(tid, t, d) {
      const id = hostNodeAt(tid, t, d);
      return id === null ? null : indexOf(id);
    },
  };
}

/**
 * Writes a measured rank onto Chakra nodes built up front: the closing node appended, sync dependencies, attributes,
 * and each host op's duration_micros less what host-time.ts cuts (`exclusiveNs`: the op's exclusive time).
 */
export function applyToNodes(
  nodes: ChakraNode[],
  timed: MeasuredRank,
  kineto: KinetoTrace,
  window: MeasuredWindow,
  exclusiveNs: (i: number) => number | null,
): void {
  for (const [i, ns] of timed.hostCutNs) {
    const ex = exclusiveNs(i);
    if (ex !== null) nodes[i]!.durationMicros = modelledHostMicros(ex, ns);
  }
  let id = 0n;
  for (const x of nodes) if (x.id >= id) id = x.id + 1n;
  const n = nodes.length;
  for (const [node, dep] of timed.result.addedDeps) {
    if (node === n) continue; // the closing node's are in endDeps
    const x = nodes[node]!;
    const d = nodes[dep]!.id;
    if (!x.dataDeps.includes(d)) x.dataDeps.push(d);
  }
  nodes.push(
    iterationEndNode(
      id,
      timed.endDeps.map((i) => nodes[i]!.id),
      kineto,
      window,
    ),
  );
  nodes.forEach((x, i) => x.attrs.push(...measuredAttrs(timed.result, i)));
}

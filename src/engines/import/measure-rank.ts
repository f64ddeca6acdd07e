/**
 * One rank's measured timeline, from its Chakra nodes and the Kineto events they came from: the inputs of
 * measured.ts (times relative to the window, dependencies as written, launch calls, CUDA synchronisation from
 * sync.ts), its result written on the nodes, and the iteration in the metadata. Both importers call it.
 */
import { makeAttr, NodeType, type Attribute, type ChakraNode } from '../../formats/chakra/index.js';
import type { KinetoCpuOp, KinetoGpuEvent, KinetoTrace } from '../../formats/kineto/trace.js';
import { mainDevice } from '../../formats/kineto/trace.js';
import { applyMeasured, measuredMetadata } from './measured-attrs.js';
import { measureTimeline, type HostWait, type MeasuredNode, type MeasuredStats } from './measured.js';
import { findSyncs, type LaunchedGpu, type SyncResult } from './sync.js';
import type { MeasuredWindow } from './window.js';

export interface MeasureRankInput {
  kineto: KinetoTrace;
  window: MeasuredWindow;
  /** The rank's nodes in the order written; changed in place (attributes, synchronisation dependencies). */
  nodes: ChakraNode[];
  /** Host node ids per chain, in chain order. */
  chains: bigint[][];
  hostOp(id: bigint): KinetoCpuOp | null;
  gpuEvent(id: bigint): KinetoGpuEvent | null;
  /** The host node of the innermost op enclosing [t, t + d] on a Kineto thread, or null. */
  hostNodeAt(tid: number | string, tNs: number, durNs: number): bigint | null;
}

export interface MeasuredRankStats extends MeasuredStats {
  window: MeasuredWindow;
  syncs: SyncResult['counts'];
  /** Synchronising calls resolved from cuda_sync records (exact), of all. */
  syncsFromRecords: number;
  /** Nodes (GPU) whose measured delay after every dependency exceeds 100 µs: waits the graph does not explain. */
  unexplainedWaits: number;
  unexplainedWaitNs: number;
  /** The first clamped nodes, said: which node started before which dependency was ready, by how much. */
  clampedNotes: string[];
  metadata: Attribute[];
}

/** A GPU node's delay above this is a wait no dependency explains (launch latency and queueing are far shorter). */
const UNEXPLAINED_NS = 100_000;

/** Name of the node that closes the measured iteration (its delay: host time after the last op, to the step's end). */
export const ITERATION_END = (label: string) => `[end of measured iteration ${label}]`;

/**
 * A host node at the end of the measured iteration, after the last op of each host chain and of each GPU stream: its
 * delay holds the time from the last of them to the iteration's end (the profiler step's own tail), so that a replay
 * ends where the measurement did.
 */
function iterationEnd(input: MeasureRankInput, gpuEnd: (n: ChakraNode) => number | null): ChakraNode {
  const { nodes, kineto, window } = input;
  let id = 0n;
  for (const n of nodes) if (n.id >= id) id = n.id + 1n;
  const last = new Map<string, { id: bigint; end: number }>();
  const consider = (key: string, nid: bigint, end: number | null) => {
    if (end === null) return;
    const cur = last.get(key);
    if (!cur || end >= cur.end) last.set(key, { id: nid, end });
  };
  input.chains.forEach((chain, c) => {
    for (const nid of chain) {
      const op = input.hostOp(nid);
      consider(`chain ${c}`, nid, op ? op.tsNs + op.durNs : null);
    }
  });
  for (const n of nodes) {
    const ev = input.gpuEvent(n.id);
    if (ev) consider(`stream ${ev.device}:${ev.stream}`, n.id, gpuEnd(n));
  }
  return {
    id, name: ITERATION_END(window.label), type: NodeType.COMP_NODE, ctrlDeps: [], dataDeps: [...last.values()].map((x) => x.id),
    startTimeMicros: BigInt(kineto.baseUs) + BigInt(Math.floor((window.startNs + window.iterationNs) / 1000)), durationMicros: 0n,
    inputs: null, outputs: null, attrs: [makeAttr('is_cpu_op', 'bool_val', true)],
  };
}

export function measureRank(input: MeasureRankInput): MeasuredRankStats {
  const { kineto, window, nodes } = input;
  const w0 = window.startNs;
  const end = iterationEnd(input, (n) => {
    const ev = input.gpuEvent(n.id);
    return ev ? ev.tsNs + ev.durNs : null;
  });
  nodes.push(end);
  const index = new Map<bigint, number>();
  nodes.forEach((n, i) => index.set(n.id, i));
  const launched: LaunchedGpu[] = [];
  const launchedNode: number[] = [];
  const mnodes: MeasuredNode[] = nodes.map((n, i) => {
    const deps = new Set<number>();
    for (const d of [...n.dataDeps, ...n.ctrlDeps]) {
      const j = index.get(d);
      if (j !== undefined) deps.add(j);
    }
    const ev = input.gpuEvent(n.id);
    if (ev) {
      const launch = ev.correlation !== null ? kineto.launches.get(ev.correlation) : undefined;
      const launcher = n.ctrlDeps.length ? index.get(n.ctrlDeps[0]!) ?? -1 : -1;
      launched.push({ event: ev, launchNs: launch ? launch.tsNs : -Infinity, launchTid: launch ? launch.tid : null });
      launchedNode.push(i);
      return { host: false, startNs: ev.tsNs - w0, endNs: ev.tsNs + ev.durNs - w0, deps: [...deps], launcher, launchNs: launch && launcher >= 0 ? launch.tsNs - w0 : null };
    }
    if (n === end) return { host: true, startNs: window.iterationNs, endNs: window.iterationNs, deps: [...deps], launcher: -1, launchNs: null };
    const op = input.hostOp(n.id);
    return { host: true, startNs: op ? op.tsNs - w0 : null, endNs: op ? op.tsNs + op.durNs - w0 : null, deps: [...deps], launcher: -1, launchNs: null };
  });
  // Synchronising calls made while the graph's ops ran.
  let from = w0;
  let to = w0 + window.iterationNs;
  for (const x of mnodes) {
    if (x.host && x.startNs !== null && x.endNs !== null) {
      from = Math.min(from, x.startNs + w0);
      to = Math.max(to, x.endNs + w0);
    }
  }
  const calls = kineto.runtime.filter((c) => c.tsNs >= from && c.tsNs <= to);
  const syncs = findSyncs(kineto, launched, calls);
  const hostWaits: HostWait[] = [];
  for (const s of syncs.hostWaits) {
    const at = input.hostNodeAt(s.call.tid, s.call.tsNs, s.call.durNs);
    const i = at === null ? undefined : index.get(at);
    if (i === undefined) {
      syncs.counts.unresolved++;
      continue;
    }
    hostWaits.push({ at: i, callStartNs: s.call.tsNs - w0, callEndNs: s.call.tsNs + s.call.durNs - w0, awaited: s.awaited.map((g) => launchedNode[g]!), inferred: s.inferred });
  }
  const m = measureTimeline({
    nodes: mnodes,
    chains: input.chains.map((c) => c.map((id) => index.get(id)!).filter((i) => i !== undefined)),
    hostWaits,
    gpuWaits: syncs.gpuWaits.map((g) => ({ node: launchedNode[g.node]!, dep: launchedNode[g.dep]!, inferred: g.inferred })),
  });
  applyMeasured(nodes, m);
  // A GPU op that began long after every dependency was ready and after its launch call returned.
  let unexplainedWaits = 0;
  let unexplainedWaitNs = 0;
  launched.forEach((g, k) => {
    const i = launchedNode[k]!;
    const callEnd = g.event.correlation !== null ? (kineto.launches.get(g.event.correlation)?.durNs ?? 0) + g.launchNs : -Infinity;
    if (m.delayNs[i]! > UNEXPLAINED_NS && g.event.tsNs - callEnd > UNEXPLAINED_NS) {
      unexplainedWaits++;
      unexplainedWaitNs += m.delayNs[i]!;
    }
  });
  const label = (i: number) => `node ${nodes[i]!.id} (${nodes[i]!.name.slice(0, 60)})`;
  const clampedNotes = m.stats.clampedSamples.map((c) => `${label(c.node)} started ${(c.ns / 1000).toFixed(3)} µs before ${c.dep >= 0 ? label(c.dep) : 'its dependencies'} was ready (as measured)`);
  return {
    ...m.stats, window, syncs: syncs.counts, clampedNotes, syncsFromRecords: syncs.fromRecords, unexplainedWaits, unexplainedWaitNs,
    metadata: measuredMetadata(window, mainDevice(kineto)?.name || null),
  };
}

/**
 * One rank's Chakra nodes from its Kineto trace alone (`import kineto`), within the measured iteration's window:
 *
 * - host ops: every cpu_op / user_annotation starting in the window (the ProfilerStep itself excepted): COMP_NODE,
 *   is_cpu_op, ctrl_deps = the enclosing op on its thread, data deps = the op before it on its thread (start order,
 *   outer first) and Chakra's inter-thread order; duration_micros = exclusive time (Chakra's convention);
 * - GPU events (kernel, memcpy, memset) launched in the window, or running in it though launched before it (carried
 *   over from the previous iteration, counted): COMP_NODE, or COMM_COLL_NODE for an NCCL collective of known type and
 *   size (comm_type, comm_size, pg_name); ctrl_deps = the op enclosing the launch call (found by correlation id), data
 *   deps = the previous op of its stream; stream, correlation;
 * - CUDA synchronisation, the measured timeline and the end-of-iteration node: measure-rank.ts.
 * Node ids: the carried-over GPU events, then each host op in start order followed by the GPU events it launched.
 */
import { Diagnostics } from '../../diagnostics.js';
import { makeAttr, NodeType, type Attribute, type ChakraNode, type GlobalMetadata } from '../../formats/chakra/index.js';
import type { KinetoCpuOp, KinetoGpuEvent, KinetoTrace } from '../../formats/kineto/trace.js';
import { mainDevice } from '../../formats/kineto/trace.js';
import { isNcclKernel, SIMULATED_COLLECTIVES } from './comm.js';
import { gpuMicros } from './convert.js';
import { kinetoCommInfo, type KinetoComm } from './kineto-comm.js';
import { hostOpAt, INTER_THREAD_GAP_NS, nestOps } from './link.js';
import { measureRank, type MeasuredRankStats } from './measure-rank.js';
import type { MeasuredWindow } from './window.js';

export interface KinetoCollective {
  node: bigint;
  collective: string;
  commType: number;
  bytes: number;
  pgName: string | null;
  pgRanks: number[] | null;
}

export interface KinetoRankStats {
  hostOps: number;
  threads: number;
  gpuByKind: Record<KinetoGpuEvent['kind'], number>;
  collectives: Record<string, number>;
  /** GPU events running in the window that were launched before it (or before profiling began): no launching op. */
  carriedOver: number;
  /** GPU events launched in the window by a call outside every host op: no launching op. */
  launchedOutsideOps: number;
  /** NCCL kernels written as compute nodes (type unknown, size not recorded, point-to-point, not simulated). */
  ncclAsCompute: number;
  /** Collectives whose process group the trace does not record (taken as all ranks). */
  groupUnknown: number;
  /** memcpy / memset events without a byte count (no tensor_size). */
  copiesWithoutBytes: number;
  nodes: number;
  /** Σ Kineto duration of the GPU compute nodes (kernels, memcpy, memset; not collectives), ns. */
  gpuComputeKinetoNs: number;
}

export interface KinetoRank {
  metadata: GlobalMetadata;
  nodes: ChakraNode[];
  collectives: KinetoCollective[];
  stats: KinetoRankStats;
  measured: MeasuredRankStats;
  diagnostics: Diagnostics;
  notes: string[];
}

const STEP = /^ProfilerStep#\d+$/;

const idAttr = (name: string, v: number | bigint | string | null): Attribute[] =>
  v === null ? [] : typeof v === 'string' ? [makeAttr(name, 'string_val', v)] : [makeAttr(name, 'int64_val', BigInt(v))];

export function convertKinetoRank(trace: KinetoTrace, window: MeasuredWindow, recordIteration: boolean): KinetoRank {
  const diagnostics = new Diagnostics();
  const notes: string[] = [];
  const w0 = window.startNs;
  const w1 = window.endNs;
  const ops = trace.cpuOps.filter((o) => o.tsNs >= w0 && o.tsNs < w1 && !(STEP.test(o.name) && o.cat === 'user_annotation'));
  const { parent, exclusive, byThread } = nestOps(ops);
  const stats: KinetoRankStats = {
    hostOps: ops.length, threads: byThread.size, gpuByKind: { kernel: 0, memcpy: 0, memset: 0 }, collectives: {}, carriedOver: 0,
    launchedOutsideOps: 0, ncclAsCompute: 0, groupUnknown: 0, copiesWithoutBytes: 0, nodes: 0, gpuComputeKinetoNs: 0,
  };
  // GPU events of the window and the op that launched each.
  const launchedBy = new Map<KinetoCpuOp | null, KinetoGpuEvent[]>();
  for (const ev of trace.gpu) {
    const launch = ev.correlation !== null ? trace.launches.get(ev.correlation) : undefined;
    const launchedIn = launch !== undefined && launch.tsNs >= w0 && launch.tsNs < w1;
    if (!launchedIn && !(ev.tsNs >= w0 && ev.tsNs < w1 && (!launch || launch.tsNs < w0))) continue;
    let host: KinetoCpuOp | null = null;
    if (launchedIn) {
      const list = byThread.get(String(launch.tid));
      host = list ? hostOpAt(list, parent, launch.tsNs, launch.durNs)?.op ?? null : null;
      if (!host) stats.launchedOutsideOps++;
    } else stats.carriedOver++;
    const l = launchedBy.get(host);
    if (l) l.push(ev);
    else launchedBy.set(host, [ev]);
  }
  for (const l of launchedBy.values()) l.sort((a, b) => a.tsNs - b.tsNs || a.index - b.index);

  // Ids and host nodes, ops in start order (outer first).
  const sorted = [...ops].sort((a, b) => a.tsNs - b.tsNs || b.durNs - a.durNs || a.index - b.index);
  const nodeOfOp = new Map<KinetoCpuOp, ChakraNode>();
  const opOfNode = new Map<bigint, KinetoCpuOp>();
  const eventOfNode = new Map<bigint, KinetoGpuEvent>();
  const out: ChakraNode[] = [];
  const collectives: KinetoCollective[] = [];
  let next = 0n;
  const abs = (tsNs: number) => BigInt(trace.baseUs) + BigInt(Math.floor(tsNs / 1000));
  const addGpu = (ev: KinetoGpuEvent, host: KinetoCpuOp | null) => {
    const id = next++;
    const node = gpuNode(ev, id, host);
    out.push(node);
    eventOfNode.set(id, ev);
  };
  for (const ev of launchedBy.get(null) ?? []) addGpu(ev, null);
  for (const op of sorted) {
    const id = next++;
    const p = parent.get(op) ?? null;
    const node: ChakraNode = {
      id, name: op.name, type: NodeType.COMP_NODE, ctrlDeps: p ? [nodeOfOp.get(p)!.id] : [], dataDeps: [],
      startTimeMicros: abs(op.tsNs), durationMicros: BigInt(Math.round((exclusive.get(op) ?? 0) / 1000)), inputs: null, outputs: null,
      attrs: [
        makeAttr('is_cpu_op', 'bool_val', true), ...idAttr('tid', typeof op.tid === 'number' || typeof op.tid === 'string' ? op.tid : null),
        ...idAttr('external_id', op.externalId), ...idAttr('rf_id', op.recordFunctionId),
      ],
    };
    nodeOfOp.set(op, node);
    opOfNode.set(id, op);
    out.push(node);
    for (const ev of launchedBy.get(op) ?? []) addGpu(ev, op);
  }

  function gpuNode(ev: KinetoGpuEvent, id: bigint, host: KinetoCpuOp | null): ChakraNode {
    const attrs: Attribute[] = [makeAttr('is_cpu_op', 'bool_val', false), ...idAttr('stream', ev.stream), ...idAttr('correlation', ev.correlation)];
    let type: number = NodeType.COMP_NODE;
    const info = ev.kind === 'kernel' && (isNcclKernel(ev.name) || ev.comm) ? kinetoCommInfo(trace, ev, host, (o) => parent.get(o) ?? null) : null;
    if (info) {
      if (info.commType !== null && SIMULATED_COLLECTIVES.has(info.commType) && info.commSizeBytes !== null) {
        type = NodeType.COMM_COLL_NODE;
        attrs.push(makeAttr('comm_type', 'int64_val', BigInt(info.commType)), makeAttr('comm_size', 'int64_val', BigInt(info.commSizeBytes)));
        if (info.pgName !== null) attrs.push(makeAttr('pg_name', 'string_val', info.pgName));
        else stats.groupUnknown++;
        stats.collectives[info.collective] = (stats.collectives[info.collective] ?? 0) + 1;
        collectives.push({ node: id, collective: info.collective, commType: info.commType, bytes: info.commSizeBytes, pgName: info.pgName, pgRanks: info.pgRanks });
      } else {
        stats.ncclAsCompute++;
        diagnostics.add('nccl-kernel-as-compute', { nodeId: id, message: `${ev.name.slice(0, 60)}: ${whyCompute(info)}; written as a GPU COMP_NODE replayed from its duration` });
      }
    }
    if (type === NodeType.COMP_NODE && (ev.kind === 'memcpy' || ev.kind === 'memset')) {
      if (ev.bytes !== null && ev.bytes >= 0) attrs.push(makeAttr('tensor_size', 'uint64_val', BigInt(Math.round(ev.bytes))));
      else stats.copiesWithoutBytes++;
    }
    stats.gpuByKind[ev.kind]++;
    if (type === NodeType.COMP_NODE) stats.gpuComputeKinetoNs += ev.durNs;
    return {
      id, name: ev.name, type, ctrlDeps: host ? [nodeOfOp.get(host)!.id] : [], dataDeps: [], startTimeMicros: abs(ev.tsNs),
      durationMicros: gpuMicros(ev.durNs), inputs: null, outputs: null, attrs,
    };
  }

  // Dependencies: each thread's ops in start order, the inter-thread order, each stream's ops in start order.
  const chains: bigint[][] = [];
  const interThread = interThreadOrder(byThread);
  for (const list of byThread.values()) {
    const chain: bigint[] = [];
    let prev: ChakraNode | null = null;
    for (const op of list) {
      const node = nodeOfOp.get(op)!;
      if (prev) node.dataDeps.push(prev.id);
      const other = interThread.get(op);
      if (other && other !== op) node.dataDeps.push(nodeOfOp.get(other)!.id);
      chain.push(node.id);
      prev = node;
    }
    chains.push(chain);
  }
  const lastInStream = new Map<string, ChakraNode>();
  for (const node of [...out].filter((n) => eventOfNode.has(n.id)).sort((a, b) => eventOfNode.get(a.id)!.tsNs - eventOfNode.get(b.id)!.tsNs || eventOfNode.get(a.id)!.index - eventOfNode.get(b.id)!.index)) {
    const ev = eventOfNode.get(node.id)!;
    const key = `${ev.device}:${ev.stream}`;
    const prev = lastInStream.get(key);
    if (prev) node.dataDeps.push(prev.id);
    lastInStream.set(key, node);
  }

  const measured = measureRank({
    kineto: trace, window, nodes: out, chains,
    hostOp: (id) => opOfNode.get(id) ?? null,
    gpuEvent: (id) => eventOfNode.get(id) ?? null,
    hostNodeAt: (tid, t, d) => {
      const list = byThread.get(String(tid));
      const at = list ? hostOpAt(list, parent, t, d) : null;
      return at ? nodeOfOp.get(at.op)!.id : null;
    },
  });
  stats.nodes = out.length;
  if (stats.carriedOver) notes.push(`${stats.carriedOver} GPU events running in the window were launched before it (the previous iteration, or before profiling began): kept, with no launching op`);
  if (stats.launchedOutsideOps) notes.push(`${stats.launchedOutsideOps} GPU events were launched by a call outside every host op: kept, with no launching op`);
  if (stats.groupUnknown) notes.push(`${stats.groupUnknown} collectives do not record their process group (PyTorch < 2.2): taken over all ranks`);
  if (stats.copiesWithoutBytes) notes.push(`${stats.copiesWithoutBytes} memcpy/memset events record no byte count: no tensor_size`);
  const dev = mainDevice(trace);
  const metadata: GlobalMetadata = {
    version: '0.0.4',
    attrs: [
      makeAttr('schema', 'string_val', `kineto ${String(trace.meta.schemaVersion ?? 'unknown')}`),
      ...(trace.distributed?.rank != null ? [makeAttr('rank', 'int64_val', BigInt(trace.distributed.rank))] : []),
      ...(dev?.name ? [makeAttr('device', 'string_val', dev.name)] : []),
      makeAttr('converter', 'string_val', 'tracewatt import kineto'),
      ...(recordIteration ? measured.metadata : []),
    ],
  };
  return { metadata, nodes: out, collectives, stats, measured, diagnostics, notes };
}

/**
 * Chakra's inter-thread order, read from the times: a thread's first op, and an op after a gap of more than
 * INTER_THREAD_GAP_NS on its thread, waits for the op of another thread that ended last before it began. (Chakra takes
 * the op that started last before it, which may still be running, e.g. an async record function, and so contradicts
 * the measured times.)
 */
function interThreadOrder(byThread: Map<string, KinetoCpuOp[]>): Map<KinetoCpuOp, KinetoCpuOp> {
  const out = new Map<KinetoCpuOp, KinetoCpuOp>();
  if (byThread.size < 2) return out;
  const byEnd = [...byThread.values()].flat().sort((a, b) => a.tsNs + a.durNs - (b.tsNs + b.durNs));
  const endedBefore = (op: KinetoCpuOp): KinetoCpuOp | null => {
    let lo = 0;
    let hi = byEnd.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (byEnd[mid]!.tsNs + byEnd[mid]!.durNs <= op.tsNs) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo - 1; k >= 0; k--) if (String(byEnd[k]!.tid) !== String(op.tid)) return byEnd[k]!;
    return null;
  };
  for (const list of byThread.values()) {
    let prevEnd = -Infinity;
    list.forEach((op, i) => {
      if (i === 0 || op.tsNs - prevEnd > INTER_THREAD_GAP_NS) {
        const dep = endedBefore(op);
        if (dep) out.set(op, dep);
      }
      prevEnd = Math.max(prevEnd, op.tsNs + op.durNs);
    });
  }
  return out;
}

function whyCompute(info: KinetoComm): string {
  if (info.p2p) return `point-to-point ${info.p2p} (no peer rank recorded)`;
  if (info.commType === null) return `collective "${info.collective}" not recognised`;
  if (info.commSizeBytes === null) return `collective "${info.collective}" without a recorded size (record_shapes off and no record_param_comms sizes)`;
  return `collective "${info.collective}" is not simulated by ASTRA-sim`;
}

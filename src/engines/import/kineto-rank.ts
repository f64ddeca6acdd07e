/**
 * One rank's Chakra nodes from its Kineto trace alone (`import kineto`), within the measured iteration's window:
 *
 * - host ops: every cpu_op / user_annotation starting in the window (the ProfilerStep itself excepted): COMP_NODE,
 *   is_cpu_op, tid, rf_id (when recorded); ctrl_deps = the enclosing op on its thread, data deps = the op before it on
 *   its thread (start order, outer first) and the inter-thread order (interThreadOrder); duration_micros = exclusive
 *   time (Chakra's convention);
 * - GPU events (kernel, memcpy, memset) launched in the window, or running in it though launched before it (carried
 *   over from the previous iteration, counted): COMP_NODE, or COMM_COLL_NODE for an NCCL collective of known type and
 *   size (comm_type, comm_size, pg_name); ctrl_deps = the op enclosing the launch call (found by correlation id), data
 *   deps = the previous op of its stream; stream, correlation;
 * - CUDA synchronisation, the measured timeline and the end-of-iteration node: measure-rank.ts.
 * Node ids: the GPU events with no launching op, then each host op in start order followed by the GPU events it
 * launched, then the node closing the iteration.
 */
import { Diagnostics } from '../../diagnostics.js';
import {
  makeAttr,
  NodeType,
  type Attribute,
  type ChakraNode,
  type GlobalMetadata,
} from '../../formats/chakra/index.js';
import type { KinetoCpuOp, KinetoGpuEvent, KinetoTrace } from '../../formats/kineto/trace.js';
import { mainDevice } from '../../formats/kineto/trace.js';
import { collectiveAttrs, isNcclKernel } from './comm.js';
import { upperBound } from './bisect.js';
import { gpuMicros, type GpuEventCounts } from './convert.js';
import { kinetoCommInfo } from './kineto-comm.js';
import { INTER_THREAD_GAP_NS } from './link.js';
import { iterationEndNode, measureRank, modelledHostMicros, type MeasuredRankStats } from './measure-rank.js';
import { measuredAttrs } from './measured-attrs.js';
import type { MeasuredWindow } from './window.js';

export interface KinetoCollective {
  node: bigint;
  collective: string;
  commType: number;
  bytes: number;
  pgName: string | null;
  pgRanks: number[] | null;
}

export interface KinetoRankStats extends GpuEventCounts {
  hostOps: number;
  threads: number;
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
}

export interface KinetoRank {
  metadata: GlobalMetadata;
  /** Nodes to write: the rank's nodes then the closing node, ids 0, 1, 2, … (each Chakra node is made when taken). */
  size: number;
  nodeAt(i: number): ChakraNode;
  collectives: KinetoCollective[];
  stats: KinetoRankStats;
  measured: MeasuredRankStats;
  diagnostics: Diagnostics;
  notes: string[];
}

/** The rank's Chakra nodes in order, each made when taken. */
export function* rankNodes(r: KinetoRank): Generator<ChakraNode> {
  for (let i = 0; i < r.size; i++) yield r.nodeAt(i);
}

const STEP = /^ProfilerStep#\d+$/;

/** Appends an id attribute (none for a null id). */
function pushIdAttr(attrs: Attribute[], name: string, v: number | bigint | string | null): void {
  if (v === null) return;
  attrs.push(typeof v === 'string' ? makeAttr(name, 'string_val', v) : makeAttr(name, 'int64_val', BigInt(v)));
}

/** Host ops of one thread nested by time: each op's enclosing op (position in `ops`, -1 none) and exclusive time. */
interface Nesting {
  /** Positions in `ops` per thread, in start order (outer first). */
  byThread: Map<string, number[]>;
  parent: Int32Array;
  exclusiveNs: Float64Array;
}

function nest(ops: KinetoCpuOp[]): Nesting {
  const byThread = new Map<string, number[]>();
  ops.forEach((op, i) => {
    const k = String(op.tid);
    const l = byThread.get(k);
    if (l) l.push(i);
    else byThread.set(k, [i]);
  });
  const parent = new Int32Array(ops.length).fill(-1);
  const exclusiveNs = new Float64Array(ops.length);
  const end = (i: number) => ops[i]!.tsNs + ops[i]!.durNs;
  for (const list of byThread.values()) {
    const stack: number[] = [];
    for (const i of list) {
      const op = ops[i]!;
      while (stack.length && end(stack[stack.length - 1]!) <= op.tsNs && ops[stack[stack.length - 1]!]!.durNs > 0)
        stack.pop();
      while (stack.length && end(stack[stack.length - 1]!) < op.tsNs + op.durNs) stack.pop();
      const p = stack.length ? stack[stack.length - 1]! : -1;
      parent[i] = p;
      exclusiveNs[i] = op.durNs;
      if (p >= 0) exclusiveNs[p] = exclusiveNs[p]! - op.durNs;
      stack.push(i);
    }
  }
  for (let i = 0; i < ops.length; i++) if (exclusiveNs[i]! < 0) exclusiveNs[i] = 0;
  return { byThread, parent, exclusiveNs };
}

/** The innermost op of a thread (positions in start order) enclosing [t, t + d]; else the last op started by t; -1. */
function opAt(
  ops: KinetoCpuOp[],
  n: Nesting,
  list: number[],
  t: number,
  d: number,
): { op: number; enclosing: boolean } {
  const lo = upperBound(list.length, (k) => ops[list[k]!]!.tsNs, t);
  if (lo === 0) return { op: -1, enclosing: false };
  const last = list[lo - 1]!;
  for (let p = last; p >= 0; p = n.parent[p]!)
    if (ops[p]!.tsNs <= t && ops[p]!.tsNs + ops[p]!.durNs >= t + d) return { op: p, enclosing: true };
  return { op: last, enclosing: false };
}

export function convertKinetoRank(trace: KinetoTrace, window: MeasuredWindow, recordIteration: boolean): KinetoRank {
  const diagnostics = new Diagnostics();
  const notes: string[] = [];
  const w0 = window.startNs;
  const w1 = window.endNs;
  // Host ops of the window in start order (outer first): node order, and positions for the nesting.
  const ops = trace.cpuOps.filter(
    (o) => o.tsNs >= w0 && o.tsNs < w1 && !(o.cat === 'user_annotation' && STEP.test(o.name)),
  );
  ops.sort((a, b) => a.tsNs - b.tsNs || b.durNs - a.durNs || a.index - b.index);
  const nesting = nest(ops);
  const stats: KinetoRankStats = {
    hostOps: ops.length,
    threads: nesting.byThread.size,
    gpuByKind: { kernel: 0, memcpy: 0, memset: 0 },
    collectives: {},
    carriedOver: 0,
    launchedOutsideOps: 0,
    ncclAsCompute: 0,
    groupUnknown: 0,
    copiesWithoutBytes: 0,
    nodes: 0,
    gpuComputeKinetoNs: 0,
  };
  // GPU events of the window and the op that launched each (position in ops, -1: none).
  const gpu: KinetoGpuEvent[] = [];
  const gpuHost: number[] = [];
  // The thread's ops of the launching call, the last one looked up kept (launches come from few threads).
  let lastTid: number | string | undefined;
  let lastList: number[] | undefined;
  const opsOfThread = (tid: number | string) => {
    if (tid !== lastTid) {
      lastTid = tid;
      lastList = nesting.byThread.get(String(tid));
    }
    return lastList;
  };
  for (const ev of trace.gpu) {
    const launch = ev.correlation !== null ? trace.launches.get(ev.correlation) : undefined;
    const launchedIn = launch !== undefined && launch.tsNs >= w0 && launch.tsNs < w1;
    if (!launchedIn && !(ev.tsNs >= w0 && ev.tsNs < w1 && (!launch || launch.tsNs < w0))) continue;
    let host = -1;
    if (launchedIn) {
      const list = opsOfThread(launch.tid);
      host = list ? opAt(ops, nesting, list, launch.tsNs, launch.durNs).op : -1;
      if (host < 0) stats.launchedOutsideOps++;
    } else stats.carriedOver++;
    gpu.push(ev);
    gpuHost.push(host);
  }
  // Node order: GPU events without a launching op, then each op followed by the GPU events it launched (by start).
  const gpuOrder = gpu
    .map((_, k) => k)
    .sort((a, b) => gpuHost[a]! - gpuHost[b]! || gpu[a]!.tsNs - gpu[b]!.tsNs || gpu[a]!.index - gpu[b]!.index);
  const size = ops.length + gpu.length;
  /** Per node: ≥ 0 the op's position in ops, < 0 the GPU event −(k + 1). */
  const source = new Int32Array(size);
  const nodeOfOp = new Int32Array(ops.length);
  const nodeOfGpu = new Int32Array(gpu.length);
  let next = 0;
  let g = 0;
  const takeGpuUpTo = (host: number) => {
    while (g < gpuOrder.length && gpuHost[gpuOrder[g]!]! === host) {
      nodeOfGpu[gpuOrder[g]!] = next;
      source[next++] = -(gpuOrder[g++]! + 1);
    }
  };
  takeGpuUpTo(-1);
  for (let p = 0; p < ops.length; p++) {
    nodeOfOp[p] = next;
    source[next++] = p;
    takeGpuUpTo(p);
  }
  const opOf = (i: number) => (source[i]! >= 0 ? ops[source[i]!]! : null);
  const gpuOf = (i: number) => (source[i]! < 0 ? gpu[-source[i]! - 1]! : null);

  // Collectives: type, size and group of each NCCL kernel, from what PyTorch recorded around its launch.
  const comm = new Map<number, Attribute[]>();
  const collectives: KinetoCollective[] = [];
  const enclosing = (p: number): KinetoCpuOp[] => {
    const out: KinetoCpuOp[] = [];
    for (; p >= 0 && out.length < 8; p = nesting.parent[p]!) out.push(ops[p]!);
    return out;
  };
  const isColl = new Uint8Array(size);
  gpu.forEach((ev, k) => {
    stats.gpuByKind[ev.kind]++;
    const i = nodeOfGpu[k]!;
    if (ev.kind === 'kernel' && (isNcclKernel(ev.name) || ev.comm)) {
      const info = kinetoCommInfo(trace, ev, enclosing(gpuHost[k]!));
      const written = collectiveAttrs(info, 'a recorded size (record_shapes off and no record_param_comms sizes)');
      if (!('why' in written)) {
        isColl[i] = 1;
        if (info.pgName === null) stats.groupUnknown++;
        comm.set(i, written.attrs);
        stats.collectives[info.collective] = (stats.collectives[info.collective] ?? 0) + 1;
        collectives.push({
          node: BigInt(i),
          collective: info.collective,
          commType: written.commType,
          bytes: written.commSizeBytes,
          pgName: info.pgName,
          pgRanks: info.pgRanks,
        });
        return;
      }
      stats.ncclAsCompute++;
      diagnostics.add('nccl-kernel-as-compute', {
        nodeId: BigInt(i),
        message: `${ev.name.slice(0, 60)}: ${written.why}; written as a GPU COMP_NODE replayed from its duration`,
      });
    }
    if ((ev.kind === 'memcpy' || ev.kind === 'memset') && (ev.bytes === null || ev.bytes < 0))
      stats.copiesWithoutBytes++;
    stats.gpuComputeKinetoNs += ev.durNs;
  });

  // Dependencies: ctrl = the enclosing op (host) or launching op (GPU); data = the op before on the thread, the
  // inter-thread order, the previous op of the stream.
  const ctrl = new Int32Array(size).fill(-1);
  const data: number[][] = Array.from({ length: size }, () => []);
  const chains: number[][] = [];
  const interThread = interThreadOrder(ops, nesting);
  for (const list of nesting.byThread.values()) {
    const chain: number[] = [];
    let prev = -1;
    for (const p of list) {
      const i = nodeOfOp[p]!;
      if (nesting.parent[p]! >= 0) ctrl[i] = nodeOfOp[nesting.parent[p]!]!;
      if (prev >= 0) data[i]!.push(prev);
      const other = interThread.get(p);
      if (other !== undefined) data[i]!.push(nodeOfOp[other]!);
      chain.push(i);
      prev = i;
    }
    chains.push(chain);
  }
  // The last node of each stream, by device then stream.
  const lastInStream = new Map<number | null, Map<number | null, number>>();
  const byStart = gpu.map((_, k) => k).sort((a, b) => gpu[a]!.tsNs - gpu[b]!.tsNs || gpu[a]!.index - gpu[b]!.index);
  for (const k of byStart) {
    const i = nodeOfGpu[k]!;
    if (gpuHost[k]! >= 0) ctrl[i] = nodeOfOp[gpuHost[k]!]!;
    let streams = lastInStream.get(gpu[k]!.device);
    if (!streams) lastInStream.set(gpu[k]!.device, (streams = new Map()));
    const prev = streams.get(gpu[k]!.stream);
    if (prev !== undefined) data[i]!.push(prev);
    streams.set(gpu[k]!.stream, i);
  }

  const timed = measureRank(trace, window, {
    size,
    chains,
    hostOp: opOf,
    gpuEvent: gpuOf,
    deps: (i) => data[i]!,
    ctrl: (i) => ctrl[i]!,
    launcher: (i) => (source[i]! < 0 ? ctrl[i]! : -1),
    hostNodeAt(tid, t, d) {
      const list = nesting.byThread.get(String(tid));
      const at = list ? opAt(ops, nesting, list, t, d) : null;
      return at && at.op >= 0 ? nodeOfOp[at.op]! : null;
    },
  });
  const measured = timed.stats;
  stats.nodes = size + 1;
  if (stats.carriedOver)
    notes.push(
      `${stats.carriedOver} GPU events running in the window were launched before it (the previous iteration, ` +
        `or before profiling began): kept, with no launching op`,
    );
  if (stats.launchedOutsideOps)
    notes.push(
      `${stats.launchedOutsideOps} GPU events were launched by a call outside every host op: kept, with no ` +
        `launching op`,
    );
  if (stats.groupUnknown)
    notes.push(
      `${stats.groupUnknown} collectives do not record their process group (PyTorch < 2.2): taken over all ranks`,
    );
  if (stats.copiesWithoutBytes)
    notes.push(`${stats.copiesWithoutBytes} memcpy/memset events record no byte count: no tensor_size`);
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
  const base = BigInt(trace.baseUs);
  const abs = (tsNs: number) => base + BigInt(Math.floor(tsNs / 1000));
  const ids = (list: number[]) => list.map((x) => BigInt(x));
  const nodeAt = (i: number): ChakraNode => {
    if (i === size) {
      const end = iterationEndNode(BigInt(size), ids(timed.endDeps), trace, window);
      end.attrs.push(...measuredAttrs(timed.result, i));
      return end;
    }
    const op = opOf(i);
    const attrs: Attribute[] = [];
    let node: ChakraNode;
    const ctrlDeps = ctrl[i]! >= 0 ? [BigInt(ctrl[i]!)] : [];
    if (op) {
      attrs.push(makeAttr('is_cpu_op', 'bool_val', true));
      pushIdAttr(attrs, 'tid', op.tid);
      pushIdAttr(attrs, 'rf_id', op.recordFunctionId);
      node = {
        id: BigInt(i),
        name: op.name,
        type: NodeType.COMP_NODE,
        ctrlDeps,
        dataDeps: ids(data[i]!),
        startTimeMicros: abs(op.tsNs),
        durationMicros: modelledHostMicros(nesting.exclusiveNs[source[i]!]!, timed.hostCutNs.get(i)),
        inputs: null,
        outputs: null,
        attrs,
      };
    } else {
      const ev = gpuOf(i)!;
      attrs.push(makeAttr('is_cpu_op', 'bool_val', false));
      pushIdAttr(attrs, 'stream', ev.stream);
      pushIdAttr(attrs, 'correlation', ev.correlation);
      const commAttrs = comm.get(i);
      if (commAttrs) for (const a of commAttrs) attrs.push(a);
      if ((ev.kind === 'memcpy' || ev.kind === 'memset') && ev.bytes !== null && ev.bytes >= 0)
        attrs.push(makeAttr('tensor_size', 'uint64_val', BigInt(Math.round(ev.bytes))));
      node = {
        id: BigInt(i),
        name: ev.name,
        type: isColl[i] ? NodeType.COMM_COLL_NODE : NodeType.COMP_NODE,
        ctrlDeps,
        dataDeps: ids(data[i]!),
        startTimeMicros: abs(ev.tsNs),
        durationMicros: gpuMicros(ev.durNs),
        inputs: null,
        outputs: null,
        attrs,
      };
    }
    for (const a of measuredAttrs(timed.result, i)) attrs.push(a);
    return node;
  };
  return { metadata, size: size + 1, nodeAt, collectives, stats, measured, diagnostics, notes };
}

/**
 * Chakra's inter-thread order, read from the times: a thread's first op, and an op after a gap of more than
 * INTER_THREAD_GAP_NS on its thread, waits for the op of another thread that ended last before it began. (Chakra takes
 * the op that started last before it, which may still be running, e.g. an async record function, and so contradicts
 * the measured times.)
 */
function interThreadOrder(ops: KinetoCpuOp[], n: Nesting): Map<number, number> {
  const out = new Map<number, number>();
  if (n.byThread.size < 2) return out;
  const end = (p: number) => ops[p]!.tsNs + ops[p]!.durNs;
  // Per thread, its ops by end, for "the op of another thread that ended last by t".
  const byEnd = [...n.byThread.entries()].map(([tid, list]) => ({
    tid,
    list: [...list].sort((a, b) => end(a) - end(b)),
  }));
  const endedBefore = (tid: string, t: number): number => {
    let best = -1;
    for (const th of byEnd) {
      if (th.tid === tid) continue;
      const lo = upperBound(th.list.length, (k) => end(th.list[k]!), t);
      if (lo > 0 && (best < 0 || end(th.list[lo - 1]!) > end(best))) best = th.list[lo - 1]!;
    }
    return best;
  };
  for (const [tid, list] of n.byThread) {
    let prevEnd = -Infinity;
    list.forEach((p, k) => {
      if (k === 0 || ops[p]!.tsNs - prevEnd > INTER_THREAD_GAP_NS) {
        const dep = endedBefore(tid, ops[p]!.tsNs);
        if (dep >= 0) out.set(p, dep);
      }
      prevEnd = Math.max(prevEnd, end(p));
    });
  }
  return out;
}

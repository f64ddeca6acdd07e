/**
 * Builds the Chakra nodes of one rank from a linked execution trace + Kineto trace (link.ts), in the structure
 * Chakra's converter gives (so that tools reading Chakra's PyTorch traces read these), with the changes listed in
 * DELIBERATE_DIFFERENCES:
 *
 * - ids: every ET node in ET id order, each followed by its GPU events in start order, numbered 0, 1, … (Chakra's
 *   linker numbering); the process root takes its number and is not written.
 * - host ops: COMP_NODE, is_cpu_op, duration = the Kineto op's exclusive time (0 when Kineto has no such op; with a
 *   measured iteration, less the time host-time.ts cuts: blocked in CUDA synchronisation, overlapped by other threads),
 *   ctrl_deps = the parent op; rf_id, fw_parent, seq_id, scope, tid, fw_tid, op_schema; IOInfo as Python literals.
 * - GPU events: COMP_NODE (kernels, memcpy, memset; memcpy/memset with tensor_size = bytes), or COMM_COLL_NODE for
 *   NCCL collectives (comm_type, comm_size, pg_name when recorded); not is_cpu_op; duration = the Kineto duration;
 *   ctrl_deps = the launching op; stream.
 * - data deps, by a depth-first walk from each thread root (children in id order): a host op depends on the host op
 *   visited before it (and on its inter-thread predecessor); a GPU node on the node visited before it and on the
 *   previous GPU node of its stream.
 */
import {
  makeAttr,
  NodeType,
  type Attribute,
  type ChakraNode,
  type GlobalMetadata,
} from '../../formats/chakra/index.js';
import type { KinetoGpuEvent, KinetoTrace } from '../../formats/kineto/trace.js';
import { ET_PROCESS_ROOT, ET_THREAD_ROOT, type EtNode, type EtTrace } from '../../formats/pytorch/et.js';
import { Diagnostics } from '../../diagnostics.js';
import { collectiveAttrs, commInfo, isNcclKernel, processGroupNames, type CommInfo } from './comm.js';
import type { GpuLink, LinkResult } from './link.js';
import { pyRepr } from './pyrepr.js';
import { applyToNodes, graphOfNodes, measureRank, modelledHostMicros, type MeasuredRankStats } from './measure-rank.js';
import type { MeasuredWindow } from './window.js';
import { kernelMicros } from '../../vocab/units.js';

/** What this converter does differently from Chakra's (2024-05) PyTorch converter, and why. */
export const DELIBERATE_DIFFERENCES = [
  'host ops are matched to Kineto ops per host thread by aligning names in record-function order (or by Record ' +
    'function id); Chakra searched outwards by name over all threads',
  'the process root node is not written and nothing depends on it (Chakra removed it but kept ctrl_deps on it: ' +
    'dangling dependencies ASTRA-sim refuses)',
  'CPU-side c10d:: / nccl: ops are host COMP_NODEs (is_cpu_op); only the GPU NCCL kernel is a COMM_COLL_NODE ' +
    '(Chakra made the host ops COMM_COLL_NODEs too, without comm_type, which ASTRA-sim cannot run)',
  "comm_size is the bytes of the collective's input tensors (Chakra 2024-05 added 1 and counted every input, " +
    'tensor or not); pg_name is written when the trace records one',
  'GPU nodes of one stream depend on the previous GPU node of that stream whichever host thread launched it ' +
    "(Chakra chained them only within one thread's walk)",
  "an inter-thread dependency is put on the first op of each group, not on every op of it (the thread's own " +
    'chain orders the rest)',
  'GPU events launched before profiling started (no launch event) are left out and counted; memcpy/memset ' +
    'carry tensor_size (bytes)',
  'a GPU event belongs to the innermost host op enclosing its launch (Chakra took the op that started last ' +
    'before the launch, often a finished child such as aten::empty, or an op of another thread)',
  "a host op's exclusive time subtracts children that start in its first µs (Chakra sorted such a child before " +
    'its parent and missed it, so its times are up to a few µs longer)',
  'is_cpu_op is a bool_val (Chakra 2024-05 wrote int32_val); start_time_micros is the Kineto start (µs since ' +
    'the epoch); IOInfo numbers print as JSON gave them',
  'the host op a CUDA synchronisation call returns to depends on the GPU work it waited for, and a GPU op ' +
    'after cudaStreamWaitEvent on the op the event recorded (formats/chakra/measured.ts); Chakra wrote neither',
  "a host op's duration_micros leaves out the time it was blocked in a CUDA synchronisation call (the " +
    "dependency above stands for it) and the time other threads' ops ran inside it (the main thread's \"## " +
    "backward ##\" while the autograd thread works; the thread's next op then depends on the other thread's last " +
    'op), since the replay runs every host op of a rank on one CPU slot: engines/import/host-time.ts',
  'every node carries its measured duration and the measured delay before it in ns (measured_duration_ns, ' +
    'measured_delay_ns, launch_offset_ns), and a last host node "[end of measured iteration …]" closes the ' +
    'ProfilerStep, so replay --as-measured reproduces the iteration; the metadata holds measured_iteration_ns',
];

/** What both Kineto converters (this one and kineto-rank.ts) count on a rank. */
export interface GpuEventCounts {
  /** Nodes written. */
  nodes: number;
  gpuByKind: Record<KinetoGpuEvent['kind'], number>;
  collectives: Record<string, number>;
  /** Σ Kineto duration of the GPU compute nodes written (kernels, memcpy, memset; not NCCL collectives), ns. */
  gpuComputeKinetoNs: number;
}

export interface ConvertStats extends GpuEventCounts {
  hostNodes: number;
  gpuNodes: number;
  /** Σ duration of the GPU compute nodes written (kernels, memcpy, memset; not NCCL collectives), µs. */
  gpuComputeMicros: number;
  /** Σ Kineto duration of every GPU event written, ns. */
  gpuKinetoNs: number;
  dataDeps: number;
  ctrlDeps: number;
}

export interface ConvertedRank {
  metadata: GlobalMetadata;
  nodes: ChakraNode[];
  stats: ConvertStats;
  /** The measured timeline written on the nodes (null without a measured window). */
  measured: MeasuredRankStats | null;
  diagnostics: Diagnostics;
}

const int64 = (name: string, v: number | null) => (v === null ? [] : [makeAttr(name, 'int64_val', BigInt(v))]);

function hostAttrs(n: EtNode): Attribute[] {
  return [
    ...int64('rf_id', n.rfId),
    ...int64('fw_parent', n.fwParent),
    ...int64('seq_id', n.seqId),
    ...int64('scope', n.scope),
    ...int64('tid', n.tid),
    ...int64('fw_tid', n.fwTid),
    makeAttr('op_schema', 'string_val', n.opSchema),
  ];
}

/** GPU duration in whole µs, as duration_micros holds it (vocab/units.ts: nearest, at least 1 for a non-zero one). */
export function gpuMicros(ns: number): bigint {
  return BigInt(kernelMicros(ns));
}

const HOST_COLLECTIVE_OP = /^(nccl|gloo|mpi|ucc|xccl):[a-z_]+$/;

export function convertRank(
  et: EtTrace,
  kineto: KinetoTrace,
  link: LinkResult,
  window: MeasuredWindow | null = null,
): ConvertedRank {
  const diagnostics = new Diagnostics();
  const byId = new Map(et.nodes.map((n) => [n.id, n]));
  const parentOf = (n: EtNode) => (n.parent !== null && n.parent !== n.id ? (byId.get(n.parent) ?? null) : null);
  const abs = (tsNs: number) => BigInt(kineto.baseUs) + BigInt(Math.floor(tsNs / 1000));

  // Numbering: ET id order, each op followed by its GPU events.
  const sorted = [...et.nodes].sort((a, b) => a.id - b.id);
  const newId = new Map<number, bigint>();
  const gpuIds = new Map<GpuLink, bigint>();
  let next = 0n;
  for (const n of sorted) {
    newId.set(n.id, next++);
    for (const g of link.gpuOf.get(n.id) ?? []) gpuIds.set(g, next++);
  }
  for (const g of [...link.unattached].sort((a, b) => a.event.tsNs - b.event.tsNs)) gpuIds.set(g, next++);
  const written = (n: EtNode) => !ET_PROCESS_ROOT.test(n.name);

  const nodes = new Map<bigint, ChakraNode>();
  const stats: ConvertedRank['stats'] = {
    nodes: 0,
    hostNodes: 0,
    gpuNodes: 0,
    gpuByKind: { kernel: 0, memcpy: 0, memset: 0 },
    collectives: {},
    gpuComputeMicros: 0,
    gpuComputeKinetoNs: 0,
    gpuKinetoNs: 0,
    dataDeps: 0,
    ctrlDeps: 0,
  };
  const pgPointers = new Set<number>();
  const pgNames = processGroupNames(et.nodes);
  for (const n of sorted) {
    if (!written(n)) continue;
    const op = link.opOf.get(n.id);
    const p = parentOf(n);
    const node: ChakraNode = {
      id: newId.get(n.id)!,
      name: n.name,
      type: NodeType.COMP_NODE,
      ctrlDeps: p && written(p) ? [newId.get(p.id)!] : [],
      dataDeps: [],
      startTimeMicros: op ? abs(op.tsNs) : 0n,
      durationMicros: op ? modelledHostMicros(link.exclusiveNs.get(op) ?? 0) : 0n,
      inputs: { values: pyRepr(n.inputs.values), shapes: pyRepr(n.inputs.shapes), types: pyRepr(n.inputs.types) },
      outputs: { values: pyRepr(n.outputs.values), shapes: pyRepr(n.outputs.shapes), types: pyRepr(n.outputs.types) },
      attrs: [...hostAttrs(n), makeAttr('is_cpu_op', 'bool_val', true)],
    };
    nodes.set(node.id, node);
    stats.hostNodes++;
    for (const g of link.gpuOf.get(n.id) ?? []) {
      const info = isNcclKernel(g.event.name) ? commInfo(g.event.name, n, parentOf) : null;
      if (info && info.pgName === null && info.pgPointer !== null) {
        if (pgNames.has(info.pgPointer)) info.pgName = pgNames.get(info.pgPointer)!;
        else pgPointers.add(info.pgPointer);
      }
      nodes.set(gpuIds.get(g)!, gpuNode(g, gpuIds.get(g)!, node, n, info));
    }
  }
  for (const g of link.unattached) {
    const info = isNcclKernel(g.event.name) ? commInfo(g.event.name, null, parentOf) : null;
    nodes.set(gpuIds.get(g)!, gpuNode(g, gpuIds.get(g)!, null, null, info));
  }

  function gpuNode(
    g: GpuLink,
    id: bigint,
    host: ChakraNode | null,
    launcher: EtNode | null,
    info: CommInfo | null,
  ): ChakraNode {
    const ev = g.event;
    const attrs: Attribute[] = [...(launcher ? hostAttrs(launcher) : []), makeAttr('is_cpu_op', 'bool_val', false)];
    if (ev.stream !== null) attrs.push(makeAttr('stream', 'int64_val', BigInt(ev.stream)));
    let type: number = NodeType.COMP_NODE;
    if (info) {
      const written = collectiveAttrs(info, 'a recorded tensor size');
      if ('why' in written) {
        diagnostics.add('nccl-kernel-as-compute', {
          message: `${ev.name.slice(0, 60)}: ${written.why}; written as a GPU COMP_NODE replayed from its duration`,
        });
      } else {
        type = NodeType.COMM_COLL_NODE;
        attrs.push(...written.attrs);
        stats.collectives[info.collective] = (stats.collectives[info.collective] ?? 0) + 1;
      }
    }
    if (
      type === NodeType.COMP_NODE &&
      (ev.kind === 'memcpy' || ev.kind === 'memset') &&
      ev.bytes !== null &&
      ev.bytes >= 0
    ) {
      attrs.push(makeAttr('tensor_size', 'uint64_val', BigInt(Math.round(ev.bytes))));
    }
    stats.gpuNodes++;
    stats.gpuByKind[ev.kind]++;
    stats.gpuKinetoNs += ev.durNs;
    const durationMicros = gpuMicros(ev.durNs);
    if (type === NodeType.COMP_NODE) {
      stats.gpuComputeMicros += Number(durationMicros);
      stats.gpuComputeKinetoNs += ev.durNs;
    }
    return {
      id,
      name: ev.name,
      type,
      ctrlDeps: host ? [host.id] : [],
      dataDeps: [],
      startTimeMicros: abs(ev.tsNs),
      durationMicros,
      inputs: launcher ? { ...host!.inputs! } : null,
      outputs: launcher ? { ...host!.outputs! } : null,
      attrs,
    };
  }
  if (pgPointers.size > 1) {
    diagnostics.add('process-groups-unnamed', {
      message:
        `${pgPointers.size} process groups seen by address, but this ET (schema ${et.schema}) records neither ` +
        `their names nor their ranks: every collective is taken to span all ranks`,
    });
  }

  // Data dependencies: depth-first from each thread root (then any op whose parent is missing), children in id order.
  const children = new Map<number, EtNode[]>();
  const roots: EtNode[] = [];
  for (const n of sorted) {
    if (!written(n)) continue;
    const p = parentOf(n);
    if (p && written(p)) {
      const l = children.get(p.id);
      if (l) l.push(n);
      else children.set(p.id, [n]);
    } else roots.push(n);
  }
  // A collective op with no NCCL kernel ran on the host (gloo, MPI) or over a group of one rank (NCCL launches
  // nothing):
  // it stays a host op, and the replay gives it no network traffic.
  const hostCollectives = new Map<string, number>();
  for (const n of sorted) {
    if (!HOST_COLLECTIVE_OP.test(n.name) || !link.opOf.has(n.id)) continue;
    const launched = [n, ...(children.get(n.id) ?? [])].some((x) =>
      (link.gpuOf.get(x.id) ?? []).some((g) => isNcclKernel(g.event.name)),
    );
    if (!launched) hostCollectives.set(n.name, (hostCollectives.get(n.name) ?? 0) + 1);
  }
  if (hostCollectives.size > 0) {
    const list = [...hostCollectives].map(([name, count]) => `${name} ×${count}`).join(', ');
    diagnostics.add('collective-without-gpu-kernel', {
      message:
        `${list}: no NCCL kernel in the trace (a host backend such as gloo, or a group of one rank): kept as ` +
        `host ops, so the replay gives them no network traffic`,
    });
  }
  roots.sort((a, b) => Number(ET_THREAD_ROOT.test(b.name)) - Number(ET_THREAD_ROOT.test(a.name)) || a.id - b.id);
  const etIdOfOp = new Map([...link.opOf].map(([id, op]) => [op, id]));
  const lastInStream = new Map<number | null, bigint>();
  const isInSubtree = (x: EtNode, root: EtNode) => {
    for (let a: EtNode | null = x, depth = 0; a && depth < et.nodes.length; a = parentOf(a), depth++)
      if (a === root) return true;
    return false;
  };
  const addDep = (node: ChakraNode, dep: bigint) => {
    if (dep !== node.id && !node.dataDeps.includes(dep)) node.dataDeps.push(dep);
  };
  // GPU nodes in launch order, for the per-stream chain across threads.
  const chains: bigint[][] = [];
  for (const root of roots) {
    const chain: bigint[] = [];
    chains.push(chain);
    let lastHost: bigint | null = null;
    let lastAny: bigint | null = null;
    const stack: EtNode[] = [root];
    while (stack.length) {
      const n = stack.pop()!;
      const node = nodes.get(newId.get(n.id)!)!;
      const op = link.opOf.get(n.id);
      const other = op ? link.interThread.get(op) : undefined;
      const otherId = other ? etIdOfOp.get(other) : undefined;
      if (otherId !== undefined) {
        // An async record function (e.g. gloo:all_reduce, run on the backend's thread) can enclose later ops of its
        // launching thread in the ET: waiting for one of those would be a cycle, and the tree already orders them.
        if (!isInSubtree(byId.get(otherId)!, n)) addDep(node, newId.get(otherId)!);
        else
          diagnostics.add('inter-thread-order-inside-op', {
            nodeId: node.id,
            message:
              `${n.name}: runs on another thread and the execution trace nests later ops of its launching thread ` +
              `inside it (an async record function): ordered by that nesting, not after the other thread's last ` +
              `op`,
          });
      }
      if (lastHost !== null) addDep(node, lastHost);
      lastHost = node.id;
      chain.push(node.id);
      lastAny = node.id;
      for (const g of link.gpuOf.get(n.id) ?? []) {
        const gn = nodes.get(gpuIds.get(g)!)!;
        if (lastAny !== null) addDep(gn, lastAny);
        lastAny = gn.id;
      }
      const kids = children.get(n.id) ?? [];
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
    }
  }
  const allGpu = [...gpuIds].sort((a, b) => a[0].event.tsNs - b[0].event.tsNs || a[0].event.index - b[0].event.index);
  for (const [g, id] of allGpu) {
    const node = nodes.get(id)!;
    const prev = lastInStream.get(g.event.stream);
    if (prev !== undefined) addDep(node, prev);
    lastInStream.set(g.event.stream, id);
  }

  const out = [...nodes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  let measured: MeasuredRankStats | null = null;
  if (window) {
    const etOfNode = new Map([...newId].map(([etId, id]) => [id, etId]));
    const linkOfNode = new Map([...gpuIds].map(([g, id]) => [id, g]));
    const graph = graphOfNodes(
      out,
      chains,
      (id) => {
        const e = etOfNode.get(id);
        return e === undefined ? null : (link.opOf.get(e) ?? null);
      },
      (id) => linkOfNode.get(id)?.event ?? null,
      (tid, t, d) => {
        const e = link.etIdAt(tid, t, d);
        return e === null ? null : (newId.get(e) ?? null);
      },
    );
    const timed = measureRank(kineto, window, graph);
    applyToNodes(out, timed, kineto, window, (i) => {
      const op = graph.hostOp(i);
      return op ? (link.exclusiveNs.get(op) ?? null) : null;
    });
    measured = timed.stats;
  }
  for (const n of out) {
    stats.dataDeps += n.dataDeps.length;
    stats.ctrlDeps += n.ctrlDeps.length;
  }
  stats.nodes = out.length;
  const metadata: GlobalMetadata = {
    version: '0.0.4',
    attrs: [
      makeAttr('schema', 'string_val', et.schema),
      ...(et.pid !== null ? [makeAttr('pid', 'uint64_val', BigInt(et.pid))] : []),
      ...(et.time !== null ? [makeAttr('time', 'string_val', et.time)] : []),
      ...(et.startTs !== null ? [makeAttr('start_ts', 'uint64_val', BigInt(et.startTs))] : []),
      ...(et.finishTs !== null ? [makeAttr('finish_ts', 'uint64_val', BigInt(et.finishTs))] : []),
      ...(kineto.distributed?.rank != null ? [makeAttr('rank', 'int64_val', BigInt(kineto.distributed.rank))] : []),
      makeAttr('converter', 'string_val', 'tracewatt import pytorch'),
      ...(measured ? measured.metadata : []),
    ],
  };
  return { metadata, nodes: out, stats, measured, diagnostics };
}

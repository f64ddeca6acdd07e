/**
 * Links a PyTorch execution trace (host operators) with the Kineto trace of the same run (timed host operators and
 * GPU activity), as HTA and Chakra's trace linker do, in two steps:
 *
 * 1. ET node ↔ Kineto host op. Newer Kineto writes each op's "Record function id", which is the ET node's rf_id:
 *    those link by id. Older traces (PyTorch ≤ 2.1) have no such id; there each host thread's ops are aligned by
 *    name in record-function order (ET rf_id order against Kineto's External id order, else start time), thread
 *    against thread. (Chakra's 2024-05 linker searched the whole trace outwards from the same index by name, which
 *    can take an op of another thread; aligning per thread matches every op of the real pairs exactly.)
 * 2. GPU event → host op: kernel/memcpy/memset → its runtime/driver call by correlation id → the host op that made
 *    the call: the op whose External id the call carries when that op encloses the call in time on the same thread
 *    (newer Kineto), else the innermost op enclosing the call on its thread (older Kineto reuses External id for the
 *    correlation, so the id is checked, not trusted), else the op that started last before it on that thread (as
 *    Chakra's older linker did). The GPU event then belongs to that op's nearest enclosing op present in the ET.
 *
 * GPU events whose launch is not in the trace (they were launched before profiling started) or falls outside the
 * span of the linked ops (another iteration) are left out and counted. Nothing else is dropped.
 */
import type { EtNode, EtTrace } from '../../formats/pytorch/et.js';
import { ET_PROCESS_ROOT, ET_THREAD_ROOT } from '../../formats/pytorch/et.js';
import type { KinetoCpuOp, KinetoGpuEvent, KinetoStep, KinetoTrace } from '../../formats/kineto/trace.js';
import { alignByName, countCommon } from './align.js';
import { lowerBound, upperBound } from './bisect.js';

export type GpuVia = 'external-id' | 'enclosing' | 'preceding';

export interface GpuLink {
  event: KinetoGpuEvent;
  /** ET node the event belongs to, or null (launched by an op the ET does not have). */
  etId: number | null;
  via: GpuVia;
}

export interface LinkStats {
  etOps: number;
  kinetoOps: number;
  linkedByRfId: number;
  linkedBySequence: number;
  /** ET ops with no Kineto op (they keep no duration). */
  etUnlinked: number;
  /** Kineto ops with no ET node (e.g. ProfilerStep#N). */
  kinetoUnlinked: number;
  gpu: {
    events: number;
    byExternalId: number;
    byEnclosing: number;
    byPreceding: number;
    notInEt: number;
    noLaunch: number;
    outside: number;
  };
}

export interface LinkResult {
  /** Kineto op of each linked ET node. */
  opOf: Map<number, KinetoCpuOp>;
  /** Exclusive time (ns) of each Kineto op: its duration less its children's, on its thread. */
  exclusiveNs: Map<KinetoCpuOp, number>;
  /** GPU events per ET node, in start order. */
  gpuOf: Map<number, GpuLink[]>;
  /** GPU events launched inside the iteration by ops the ET does not have. */
  unattached: GpuLink[];
  /** The Kineto op each linked Kineto op must follow from another thread (Chakra's inter-thread order). */
  interThread: Map<KinetoCpuOp, KinetoCpuOp>;
  steps: KinetoStep[];
  /** The ET node of the innermost linked op enclosing [t, t + d] on a Kineto thread (a runtime call), or null. */
  etIdAt(tid: number | string, tNs: number, durNs: number): number | null;
  stats: LinkStats;
  notes: string[];
}

/** Gap (ns) on a thread after which its next ops wait for the other threads (Chakra's linker: 1000 µs). */
export const INTER_THREAD_GAP_NS = 1_000_000;

const isRoot = (n: EtNode) => ET_PROCESS_ROOT.test(n.name) || ET_THREAD_ROOT.test(n.name);

function groupBy<T, K>(items: T[], key: (t: T) => K): Map<K, T[]> {
  const m = new Map<K, T[]>();
  for (const t of items) {
    const k = key(t);
    const l = m.get(k);
    if (l) l.push(t);
    else m.set(k, [t]);
  }
  return m;
}

/** Per thread: ops by start (outer first), each op's enclosing op, and exclusive times. */
export function nestOps(ops: KinetoCpuOp[]): {
  parent: Map<KinetoCpuOp, KinetoCpuOp | null>;
  exclusive: Map<KinetoCpuOp, number>;
  byThread: Map<string, KinetoCpuOp[]>;
} {
  const parent = new Map<KinetoCpuOp, KinetoCpuOp | null>();
  const exclusive = new Map<KinetoCpuOp, number>();
  const byThread = groupBy(ops, (o) => String(o.tid));
  for (const list of byThread.values()) {
    list.sort((x, y) => x.tsNs - y.tsNs || y.durNs - x.durNs || x.index - y.index);
    const stack: KinetoCpuOp[] = [];
    for (const op of list) {
      while (
        stack.length &&
        stack[stack.length - 1]!.tsNs + stack[stack.length - 1]!.durNs <= op.tsNs &&
        stack[stack.length - 1]!.durNs > 0
      )
        stack.pop();
      while (stack.length && stack[stack.length - 1]!.tsNs + stack[stack.length - 1]!.durNs < op.tsNs + op.durNs)
        stack.pop();
      const p = stack.length ? stack[stack.length - 1]! : null;
      parent.set(op, p);
      exclusive.set(op, op.durNs);
      if (p) exclusive.set(p, exclusive.get(p)! - op.durNs);
      stack.push(op);
    }
  }
  for (const [op, ns] of exclusive) if (ns < 0) exclusive.set(op, 0);
  return { parent, exclusive, byThread };
}

/** Innermost op of a thread's sorted ops enclosing [t, t + d]; else the last one started at or before t. */
export function hostOpAt(
  list: KinetoCpuOp[],
  parent: Map<KinetoCpuOp, KinetoCpuOp | null>,
  t: number,
  d: number,
): { op: KinetoCpuOp; enclosing: boolean } | null {
  const lo = upperBound(list.length, (k) => list[k]!.tsNs, t);
  if (lo === 0) return null;
  const last = list[lo - 1]!;
  for (let op: KinetoCpuOp | null | undefined = last; op; op = parent.get(op)) {
    if (op.tsNs <= t && op.tsNs + op.durNs >= t + d) return { op, enclosing: true };
  }
  return { op: last, enclosing: false };
}

export function linkTraces(et: EtTrace, kineto: KinetoTrace): LinkResult {
  const notes: string[] = [];
  const ops = et.nodes.filter((n) => !isRoot(n));
  const opOf = new Map<number, KinetoCpuOp>();
  const etOfOp = new Map<KinetoCpuOp, number>();
  const link = (n: EtNode, k: KinetoCpuOp) => {
    opOf.set(n.id, k);
    etOfOp.set(k, n.id);
  };
  // 1a. By Record function id.
  let linkedByRfId = 0;
  if (kineto.cpuOps.some((k) => k.recordFunctionId !== null)) {
    const byRf = new Map<number, EtNode>();
    for (const n of ops) if (n.rfId !== null) byRf.set(n.rfId, n);
    let wrongName = 0;
    for (const k of kineto.cpuOps) {
      if (k.recordFunctionId === null) continue;
      const n = byRf.get(k.recordFunctionId);
      if (!n || opOf.has(n.id)) continue;
      if (n.name !== k.name) {
        wrongName++;
        continue;
      }
      link(n, k);
      linkedByRfId++;
    }
    if (wrongName)
      notes.push(
        `${wrongName} Kineto ops carry a Record function id whose ET node has another name; left to the name alignment`,
      );
  }
  // 1b. The rest by per-thread name alignment.
  let linkedBySequence = 0;
  const etThreads = groupBy(
    ops.filter((n) => !opOf.has(n.id)),
    (n) => n.tid,
  );
  const kThreads = groupBy(
    kineto.cpuOps.filter((k) => !etOfOp.has(k)),
    (k) => String(k.tid),
  );
  const byExt = kineto.cpuOps.every((k) => k.externalId !== null);
  for (const l of etThreads.values()) l.sort((x, y) => (x.rfId ?? x.id) - (y.rfId ?? y.id) || x.id - y.id);
  for (const l of kThreads.values())
    l.sort(byExt ? (x, y) => x.externalId! - y.externalId! : (x, y) => x.tsNs - y.tsNs || x.index - y.index);
  const etNames = new Map([...etThreads].map(([t, l]) => [t, l.map((n) => n.name)]));
  const kNames = new Map([...kThreads].map(([t, l]) => [t, l.map((k) => k.name)]));
  const candidates: { e: number | null; k: string; score: number }[] = [];
  for (const [e, en] of etNames) for (const [k, kn] of kNames) candidates.push({ e, k, score: countCommon(en, kn) });
  candidates.sort((x, y) => y.score - x.score);
  const usedE = new Set<number | null>();
  const usedK = new Set<string>();
  for (const c of candidates) {
    if (c.score === 0 || usedE.has(c.e) || usedK.has(c.k)) continue;
    usedE.add(c.e);
    usedK.add(c.k);
    const el = etThreads.get(c.e)!;
    const kl = kThreads.get(c.k)!;
    for (const [i, j] of alignByName(etNames.get(c.e)!, kNames.get(c.k)!)) {
      link(el[i]!, kl[j]!);
      linkedBySequence++;
    }
  }
  if (linkedBySequence)
    notes.push(
      `${linkedBySequence} ops linked by aligning each host thread's op names in record-function order (` +
        `${byExt ? 'Kineto External id' : 'Kineto start time'} against ET rf_id)`,
    );

  // 2. GPU events → launching host op → ET node.
  const { parent, exclusive, byThread } = nestOps(kineto.cpuOps);
  const kByExt = new Map<number, KinetoCpuOp>();
  for (const k of kineto.cpuOps) if (k.externalId !== null) kByExt.set(k.externalId, k);
  let spanStart = Infinity;
  let spanEnd = -Infinity;
  for (const k of etOfOp.keys()) {
    spanStart = Math.min(spanStart, k.tsNs);
    spanEnd = Math.max(spanEnd, k.tsNs + k.durNs);
  }
  const gpuOf = new Map<number, GpuLink[]>();
  const unattached: GpuLink[] = [];
  const g = {
    events: kineto.gpu.length,
    byExternalId: 0,
    byEnclosing: 0,
    byPreceding: 0,
    notInEt: 0,
    noLaunch: 0,
    outside: 0,
  };
  for (const ev of kineto.gpu) {
    const launch = ev.correlation !== null ? kineto.launches.get(ev.correlation) : undefined;
    if (!launch) {
      g.noLaunch++;
      continue;
    }
    if (!(launch.tsNs >= spanStart && launch.tsNs <= spanEnd)) {
      g.outside++;
      continue;
    }
    const list = byThread.get(String(launch.tid));
    let host: KinetoCpuOp | null = null;
    let via: GpuVia = 'enclosing';
    const byId = launch.externalId !== null ? kByExt.get(launch.externalId) : undefined;
    if (
      byId &&
      byId.tid === launch.tid &&
      byId.tsNs <= launch.tsNs &&
      byId.tsNs + byId.durNs >= launch.tsNs + launch.durNs
    ) {
      host = byId;
      via = 'external-id';
    } else if (list) {
      const at = hostOpAt(list, parent, launch.tsNs, launch.durNs);
      if (at) {
        host = at.op;
        via = at.enclosing ? 'enclosing' : 'preceding';
      }
    }
    let etId: number | null = null;
    for (let op = host; op; op = parent.get(op) ?? null) {
      const id = etOfOp.get(op);
      if (id !== undefined) {
        etId = id;
        break;
      }
    }
    const gl: GpuLink = { event: ev, etId, via };
    if (etId === null) {
      g.notInEt++;
      unattached.push(gl);
      continue;
    }
    if (via === 'external-id') g.byExternalId++;
    else if (via === 'enclosing') g.byEnclosing++;
    else g.byPreceding++;
    const l = gpuOf.get(etId);
    if (l) l.push(gl);
    else gpuOf.set(etId, [gl]);
  }
  for (const l of gpuOf.values()) l.sort((x, y) => x.event.tsNs - y.event.tsNs || x.event.index - y.event.index);
  if (g.noLaunch)
    notes.push(
      `${g.noLaunch} GPU events have no launch in the trace (launched before profiling started, by the ` +
        `previous iteration): left out`,
    );
  if (g.outside)
    notes.push(
      `${g.outside} GPU events were launched outside the span of the ops the ET has (another iteration): left out`,
    );
  if (g.byPreceding)
    notes.push(
      `${g.byPreceding} GPU events were launched outside any host op: given to the op that started last before ` +
        `the launch on its thread`,
    );
  if (g.notInEt)
    notes.push(`${g.notInEt} GPU events were launched by host ops the ET does not have: written without a host parent`);

  const unlinked = ops.filter((n) => !opOf.has(n.id));
  if (unlinked.length) notes.push(unlinkedNote(unlinked));
  const linkedOps = new Set(etOfOp.keys());
  const steps = kineto.steps.filter((s) => [...linkedOps].some((k) => k.tsNs >= s.tsNs && k.tsNs < s.tsNs + s.durNs));
  const etIdAt = (tid: number | string, tNs: number, durNs: number): number | null => {
    const list = byThread.get(String(tid));
    const at = list ? hostOpAt(list, parent, tNs, durNs) : null;
    for (let op = at?.op ?? null; op; op = parent.get(op) ?? null) {
      const id = etOfOp.get(op);
      if (id !== undefined) return id;
    }
    return null;
  };
  return {
    opOf,
    exclusiveNs: exclusive,
    gpuOf,
    unattached,
    interThread: interThreadOrder(byThread, linkedOps),
    steps,
    etIdAt,
    stats: {
      etOps: ops.length,
      kinetoOps: kineto.cpuOps.length,
      linkedByRfId,
      linkedBySequence,
      etUnlinked: ops.length - opOf.size,
      kinetoUnlinked: kineto.cpuOps.length - etOfOp.size,
      gpu: g,
    },
    notes,
  };
}

/** ET ops the Kineto trace has no op for, counted and the most frequent names named (the text output says them). */
function unlinkedNote(unlinked: readonly EtNode[], top = 5): string {
  const byName = new Map<string, number>();
  for (const n of unlinked) byName.set(n.name, (byName.get(n.name) ?? 0) + 1);
  const named = [...byName].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, top);
  const more = byName.size - named.length;
  return (
    `${unlinked.length} ET op${unlinked.length === 1 ? ' has' : 's have'} no Kineto op (kept without a ` +
    `measured duration): ` +
    named.map(([n, c]) => `${n.length > 60 ? `${n.slice(0, 59)}…` : n} ×${c}`).join(', ') +
    (more > 0 ? `, and ${more} other name${more === 1 ? '' : 's'}` : '')
  );
}

/**
 * Chakra's inter-thread order: on each thread, an op that starts more than INTER_THREAD_GAP_NS after the previous
 * one ended (and the thread's first op) waits for the op of another thread that started last before it. Only ops
 * the ET has take part.
 */
export function interThreadOrder(
  byThread: Map<string, KinetoCpuOp[]>,
  linked: Set<KinetoCpuOp>,
): Map<KinetoCpuOp, KinetoCpuOp> {
  const out = new Map<KinetoCpuOp, KinetoCpuOp>();
  if (byThread.size < 2) return out;
  const threads = [...byThread.values()].map((l) => l.filter((k) => linked.has(k)));
  const lastBefore = (self: KinetoCpuOp[], t: number): KinetoCpuOp | null => {
    let best: KinetoCpuOp | null = null;
    for (const l of threads) {
      if (l === self) continue;
      const lo = lowerBound(l.length, (k) => l[k]!.tsNs, t);
      const c = lo > 0 ? l[lo - 1]! : null;
      if (c && (!best || c.tsNs > best.tsNs)) best = c;
    }
    return best;
  };
  for (const l of threads) {
    let prevEnd = -Infinity;
    for (let i = 0; i < l.length; i++) {
      const op = l[i]!;
      if (i === 0 || op.tsNs - prevEnd > INTER_THREAD_GAP_NS) {
        const dep = lastBefore(l, op.tsNs);
        if (dep) out.set(op, dep);
      }
      prevEnd = Math.max(prevEnd, op.tsNs + op.durNs);
    }
  }
  return out;
}

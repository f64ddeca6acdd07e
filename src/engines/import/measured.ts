/**
 * The measured timeline of one rank as per-node durations and delays (formats/chakra/measured.ts defines the
 * attributes and the replay rule), computed from the measured start and end of each node and the dependencies the
 * importer found. Applying the replay rule to the result gives every measured start back, except where a
 * dependency was ready after the node started (clock skew, a contradicted inference): such a delay is clamped to 0
 * and counted, and an inferred dependency that the measured times contradict is dropped and counted.
 *
 * All times are ns relative to the start of the measured iteration (the window).
 */
import { TracewattError } from '../../errors.js';

export interface MeasuredNode {
  host: boolean;
  /** Measured start and end; null for a host op the profiler did not time (it then takes no time). */
  startNs: number | null;
  endNs: number | null;
  /** Indices of the nodes it waits for (data and ctrl dependencies as written, the launcher included). */
  deps: number[];
  /** Index of the GPU node's launching host op, or -1. */
  launcher: number;
  /** Start of the launch call (runtime / driver), when known. */
  launchNs: number | null;
}

/** A host thread waiting in a CUDA synchronisation call for GPU nodes. */
export interface HostWait {
  /** A host node of the thread that waited (the innermost op enclosing the call): picks its chain. */
  at: number;
  callStartNs: number;
  callEndNs: number;
  awaited: number[];
  /** Found by elimination (no cuda_sync record names what was awaited). */
  inferred: boolean;
}

/** A GPU node waiting for a GPU node of another stream (cudaStreamWaitEvent → the event's record). */
export interface GpuWait {
  node: number;
  dep: number;
  inferred: boolean;
}

export interface MeasuredInput {
  nodes: MeasuredNode[];
  /** Host nodes per chain (a host thread's ops in the order the trace chains them). */
  chains: number[][];
  hostWaits: HostWait[];
  gpuWaits: GpuWait[];
}

export interface MeasuredStats {
  /** Nodes that would start after their measured start (a dependency ready too late): delay clamped to 0. */
  clamped: number;
  clampedNs: number;
  /** The first few clamped nodes (indices) and by how much, for a message. */
  clampedSamples: { node: number; ns: number; dep: number }[];
  /** Synchronisation dependencies written (host waits: one per awaited GPU node; GPU waits). */
  hostWaitDeps: number;
  gpuWaitDeps: number;
  /** Dependencies found by elimination (no cuda_sync record), of those written. */
  inferredDeps: number;
  /** Synchronisation dependencies the measured times contradict (the awaited node ended after the waiter began): not written. */
  contradicted: number;
  /** Host time spent blocked in synchronisation calls, moved from host durations into the dependencies. */
  blockedNs: number;
}

export interface MeasuredResult {
  durationNs: number[];
  delayNs: number[];
  /** NaN where the node has no launching op. */
  launchOffsetNs: number[];
  /** Dependencies to add: [node, dep], synchronisation waits the measured times agree with. */
  addedDeps: [number, number][];
  stats: MeasuredStats;
}

/** First index in `sorted` (ascending by key) whose key is ≥ x. */
function lowerBound(sorted: { t: number }[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.t < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function measureTimeline(input: MeasuredInput): MeasuredResult {
  const { nodes } = input;
  const n = nodes.length;
  const dur = new Array<number>(n).fill(0);
  const delay = new Array<number>(n).fill(0);
  const launchOffset = new Array<number>(n).fill(NaN);
  const stats: MeasuredStats = { clamped: 0, clampedNs: 0, clampedSamples: [], hostWaitDeps: 0, gpuWaitDeps: 0, inferredDeps: 0, contradicted: 0, blockedNs: 0 };

  // Durations: GPU nodes as measured; host ops up to the next op of their chain.
  for (let i = 0; i < n; i++) {
    const x = nodes[i]!;
    if (!x.host && x.startNs !== null && x.endNs !== null) dur[i] = x.endNs - x.startNs;
  }
  const chainOf = new Int32Array(n).fill(-1);
  const byTime: { t: number; i: number }[][] = [];
  input.chains.forEach((chain, c) => {
    let nextStart = Infinity;
    for (let k = chain.length - 1; k >= 0; k--) {
      const i = chain[k]!;
      chainOf[i] = c;
      const x = nodes[i]!;
      if (x.startNs === null || x.endNs === null) continue;
      dur[i] = Math.max(0, Math.min(x.endNs, nextStart) - x.startNs);
      nextStart = x.startNs;
    }
    byTime.push(chain.filter((i) => nodes[i]!.startNs !== null).map((i) => ({ t: nodes[i]!.startNs!, i })).sort((a, b) => a.t - b.t));
  });

  // Host waits: the first op of the chain that starts after the call waits for the awaited GPU nodes; the time the
  // op around the call spent blocked leaves its duration.
  const extra: number[][] = Array.from({ length: n }, () => []);
  const added: [number, number][] = [];
  for (const w of input.hostWaits) {
    const c = chainOf[w.at]!;
    if (c < 0) continue;
    const list = byTime[c]!;
    const k = lowerBound(list, w.callStartNs);
    const resume = k < list.length ? list[k]!.i : -1;
    const kept = w.awaited.filter((g) => {
      const end = nodes[g]!.endNs;
      if (resume >= 0 && end !== null && end > nodes[resume]!.startNs!) {
        stats.contradicted++;
        return false;
      }
      return true;
    });
    if (kept.length === 0) continue;
    const awaitedEnd = Math.max(...kept.map((g) => nodes[g]!.endNs ?? -Infinity));
    if (k > 0) {
      const h = list[k - 1]!.i;
      const s = nodes[h]!.startNs!;
      const from = Math.max(w.callStartNs, s);
      const to = Math.min(w.callEndNs, awaitedEnd, s + dur[h]!);
      if (to > from) {
        dur[h] = dur[h]! - (to - from);
        stats.blockedNs += to - from;
      }
    }
    if (resume < 0) continue;
    for (const g of kept) {
      if (extra[resume]!.includes(g) || nodes[resume]!.deps.includes(g)) continue;
      extra[resume]!.push(g);
      added.push([resume, g]);
      stats.hostWaitDeps++;
      if (w.inferred) stats.inferredDeps++;
    }
  }
  for (const w of input.gpuWaits) {
    const a = nodes[w.node]!;
    const b = nodes[w.dep]!;
    if (w.node === w.dep || a.deps.includes(w.dep) || extra[w.node]!.includes(w.dep)) continue;
    if (a.startNs !== null && b.endNs !== null && b.endNs > a.startNs) {
      stats.contradicted++;
      continue;
    }
    extra[w.node]!.push(w.dep);
    added.push([w.node, w.dep]);
    stats.gpuWaitDeps++;
    if (w.inferred) stats.inferredDeps++;
  }

  // Delays, in dependency order (a host op the profiler did not time starts when its dependencies are ready).
  const start = new Array<number>(n).fill(0);
  const users: number[][] = Array.from({ length: n }, () => []);
  const pending = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const deps = new Set([...nodes[i]!.deps, ...extra[i]!]);
    pending[i] = deps.size;
    for (const d of deps) users[d]!.push(i);
  }
  const ready: number[] = [];
  for (let i = 0; i < n; i++) if (pending[i] === 0) ready.push(i);
  let done = 0;
  while (ready.length) {
    const i = ready.pop()!;
    done++;
    const x = nodes[i]!;
    let at = 0;
    let last = -1;
    for (const d of new Set([...x.deps, ...extra[i]!])) {
      const t = d === x.launcher && x.launchNs !== null && nodes[d]!.startNs !== null ? x.launchNs : start[d]! + dur[d]!;
      if (t > at) {
        at = t;
        last = d;
      }
    }
    if (x.launcher >= 0 && x.launchNs !== null && nodes[x.launcher]!.startNs !== null) launchOffset[i] = x.launchNs - nodes[x.launcher]!.startNs!;
    if (x.startNs === null) start[i] = at;
    else {
      start[i] = x.startNs;
      const d = x.startNs - at;
      if (d < 0) {
        stats.clamped++;
        stats.clampedNs -= d;
        if (stats.clampedSamples.length < 5) stats.clampedSamples.push({ node: i, ns: -d, dep: last });
      } else delay[i] = d;
    }
    for (const u of users[i]!) if (--pending[u] === 0) ready.push(u);
  }
  if (done !== n) throw new TracewattError('INTERNAL', `${n - done} nodes sit on a dependency cycle (importer bug)`);
  return { durationNs: dur, delayNs: delay, launchOffsetNs: launchOffset, addedDeps: added, stats };
}

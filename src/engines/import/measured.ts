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
import { lowerBound } from './bisect.js';
import { visitInDependencyOrder } from '../trace/kahn.js';

/** The rank's nodes, one entry per node in each array. */
export interface MeasuredNodes {
  host: Uint8Array;
  /** Measured start and end; NaN for a host op the profiler did not time (it then takes no time). */
  startNs: Float64Array;
  endNs: Float64Array;
  /**
   * Indices of the nodes each waits for besides `ctrl` (each once); the synchronisation dependencies kept are added to
   * these arrays.
   */
  deps: number[][];
  /**
   * One more dependency of each node (its ctrl dependency: the enclosing or launching op; it may be in deps too), or
   * -1.
   */
  ctrl: Int32Array;
  /** Index of a GPU node's launching host op, or -1. */
  launcher: Int32Array;
  /** Start of the launch call (runtime / driver); NaN when unknown. */
  launchNs: Float64Array;
}

export function newMeasuredNodes(n: number): MeasuredNodes {
  return {
    host: new Uint8Array(n),
    startNs: new Float64Array(n).fill(NaN),
    endNs: new Float64Array(n).fill(NaN),
    deps: new Array(n),
    ctrl: new Int32Array(n).fill(-1),
    launcher: new Int32Array(n).fill(-1),
    launchNs: new Float64Array(n).fill(NaN),
  };
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

/** A host node that resumed its thread after another thread's host node it waited for (host-time.ts). */
export interface ThreadWait {
  node: number;
  dep: number;
}

export interface MeasuredInput {
  nodes: MeasuredNodes;
  /** Host nodes per chain (a host thread's ops in the order the trace chains them). */
  chains: number[][];
  hostWaits: HostWait[];
  gpuWaits: GpuWait[];
  threadWaits?: ThreadWait[];
  /** The node that waits for a host wait after the last op of its chain (the iteration's closing node), or -1. */
  lastResume: number;
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
  /** A host thread resuming after another thread's op it waited for (host-time.ts). */
  threadWaitDeps: number;
  /** Dependencies found by elimination (no cuda_sync record), of those written. */
  inferredDeps: number;
  /**
   * Synchronisation dependencies the measured times contradict (the awaited node ended after the waiter began): not
   * written.
   */
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
  /**
   * The host waits written as dependencies: the node enclosing the call (HostWait.at) and the span it was blocked,
   * from the call's start to the earlier of its return and the end of the awaited GPU work (ns, window-relative).
   */
  blocked: { at: number; fromNs: number; toNs: number }[];
  stats: MeasuredStats;
}

export function measureTimeline(input: MeasuredInput): MeasuredResult {
  const { host, startNs, endNs, deps, ctrl, launcher, launchNs } = input.nodes;
  const dependsOn = (i: number, j: number) => ctrl[i] === j || deps[i]!.includes(j);
  const n = host.length;
  const dur = new Array<number>(n).fill(0);
  const delay = new Array<number>(n).fill(0);
  const launchOffset = new Array<number>(n).fill(NaN);
  const stats: MeasuredStats = {
    clamped: 0,
    clampedNs: 0,
    clampedSamples: [],
    hostWaitDeps: 0,
    gpuWaitDeps: 0,
    threadWaitDeps: 0,
    inferredDeps: 0,
    contradicted: 0,
    blockedNs: 0,
  };
  const timed = (i: number) => !Number.isNaN(startNs[i]!) && !Number.isNaN(endNs[i]!);

  // Durations: GPU nodes as measured; host ops up to the next op of their chain.
  for (let i = 0; i < n; i++) if (!host[i] && timed(i)) dur[i] = endNs[i]! - startNs[i]!;
  const chainOf = new Int32Array(n).fill(-1);
  const byTime: { t: number; i: number }[][] = [];
  input.chains.forEach((chain, c) => {
    let nextStart = Infinity;
    for (let k = chain.length - 1; k >= 0; k--) {
      const i = chain[k]!;
      chainOf[i] = c;
      if (!timed(i)) continue;
      dur[i] = Math.max(0, Math.min(endNs[i]!, nextStart) - startNs[i]!);
      nextStart = startNs[i]!;
    }
    byTime.push(
      chain
        .filter(timed)
        .map((i) => ({ t: startNs[i]!, i }))
        .sort((a, b) => a.t - b.t),
    );
  });

  // Host waits: the first op of the chain that starts after the call waits for the awaited GPU nodes; the time the
  // op around the call spent blocked leaves its duration. (The dependencies kept join the nodes' own, in place.)
  const added: [number, number][] = [];
  const blocked: MeasuredResult['blocked'] = [];
  for (const w of input.hostWaits) {
    const c = chainOf[w.at]!;
    if (c < 0) continue;
    const list = byTime[c]!;
    const k = lowerBound(list.length, (m) => list[m]!.t, w.callStartNs);
    const resume = k < list.length ? list[k]!.i : input.lastResume;
    const kept = w.awaited.filter((g) => {
      if (resume >= 0 && endNs[g]! > startNs[resume]!) {
        stats.contradicted++;
        return false;
      }
      return true;
    });
    if (kept.length === 0) continue;
    let awaitedEnd = -Infinity;
    for (const g of kept) if (endNs[g]! > awaitedEnd) awaitedEnd = endNs[g]!;
    if (k > 0) {
      const h = list[k - 1]!.i;
      const s = startNs[h]!;
      const from = Math.max(w.callStartNs, s);
      const to = Math.min(w.callEndNs, awaitedEnd, s + dur[h]!);
      if (to > from) {
        dur[h] = dur[h]! - (to - from);
        stats.blockedNs += to - from;
      }
    }
    if (resume < 0) continue;
    blocked.push({ at: w.at, fromNs: w.callStartNs, toNs: Math.min(w.callEndNs, awaitedEnd) });
    for (const g of kept) {
      if (dependsOn(resume, g)) continue;
      deps[resume]!.push(g);
      added.push([resume, g]);
      stats.hostWaitDeps++;
      if (w.inferred) stats.inferredDeps++;
    }
  }
  /** A dependency the measured times agree with (the dependency ended before the node began), added; else counted. */
  const addWait = (node: number, dep: number): boolean => {
    if (node === dep || dependsOn(node, dep)) return false;
    if (endNs[dep]! > startNs[node]!) {
      stats.contradicted++;
      return false;
    }
    deps[node]!.push(dep);
    added.push([node, dep]);
    return true;
  };
  for (const w of input.gpuWaits) {
    if (!addWait(w.node, w.dep)) continue;
    stats.gpuWaitDeps++;
    if (w.inferred) stats.inferredDeps++;
  }
  for (const w of input.threadWaits ?? []) if (addWait(w.node, w.dep)) stats.threadWaitDeps++;

  // Delays, in dependency order (a host op the profiler did not time starts when its dependencies are ready).
  const start = new Float64Array(n);
  // Users of each node, as one array with offsets (deps are distinct; ctrl counts once, apart or among them).
  const ctrlApart = (i: number) => ctrl[i]! >= 0 && !deps[i]!.includes(ctrl[i]!);
  const pending = new Int32Array(n);
  const first = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const d = deps[i]!;
    pending[i] = d.length + (ctrlApart(i) ? 1 : 0);
    for (let k = 0; k < d.length; k++) first[d[k]! + 1]++;
    if (ctrlApart(i)) first[ctrl[i]! + 1]++;
  }
  for (let i = 0; i < n; i++) first[i + 1] += first[i]!;
  const users = new Int32Array(first[n]!);
  const fill = first.slice(0, n);
  for (let i = 0; i < n; i++) {
    const d = deps[i]!;
    for (let k = 0; k < d.length; k++) users[fill[d[k]!]!++] = i;
    if (ctrlApart(i)) users[fill[ctrl[i]!]!++] = i;
  }
  const done = visitInDependencyOrder(pending, first, users, (i) => {
    let at = 0;
    let last = -1;
    const l = launcher[i]!;
    const viaLaunch = l >= 0 && !Number.isNaN(launchNs[i]!) && !Number.isNaN(startNs[l]!);
    const d = deps[i]!;
    for (let k = -1; k < d.length; k++) {
      const j = k < 0 ? ctrl[i]! : d[k]!;
      if (j < 0) continue;
      const t = viaLaunch && j === l ? launchNs[i]! : start[j]! + dur[j]!;
      if (t > at) {
        at = t;
        last = j;
      }
    }
    if (viaLaunch) launchOffset[i] = launchNs[i]! - startNs[l]!;
    if (Number.isNaN(startNs[i]!)) start[i] = at;
    else {
      start[i] = startNs[i]!;
      const gap = startNs[i]! - at;
      if (gap < 0) {
        stats.clamped++;
        stats.clampedNs -= gap;
        if (stats.clampedSamples.length < 5) stats.clampedSamples.push({ node: i, ns: -gap, dep: last });
      } else delay[i] = gap;
    }
  });
  if (done !== n) throw new TracewattError('INTERNAL', `${n - done} nodes sit on a dependency cycle (importer bug)`);
  return { durationNs: dur, delayNs: delay, launchOffsetNs: launchOffset, addedDeps: added, blocked, stats };
}

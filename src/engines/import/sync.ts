/**
 * CUDA (and HIP) synchronisation in a Kineto trace: which GPU work each synchronising runtime call waited for.
 *
 * - cudaStreamSynchronize / cudaEventSynchronize: the host waits for the last GPU op launched on that stream before
 *   the call (Stream Sync) or before the event's cudaEventRecord (Event Sync);
 * - cudaDeviceSynchronize (and the context syncs): the host waits for the last op of every stream;
 * - synchronous copies (cudaMemcpy, hipMemcpyWithStream, …): the host waits for that copy; so does an asynchronous
 *   copy call (cudaMemcpyAsync, …) that returned only after its copy ended (a pageable copy blocks until it is done;
 *   the times cannot tell it from a pinned copy that finished within the call, and either way the host went on after
 *   the copy);
 * - cudaStreamWaitEvent: the first GPU op launched on the waiting stream after the call waits for the last op launched
 *   on the event's stream before its cudaEventRecord.
 * Newer Kineto writes a `cuda_sync` event per call naming the streams and the record (by correlation id): then this is
 * exact. Older traces record neither: the stream is found by elimination (the stream whose last op ended while the
 * call blocked; else the stream this thread launched to last), and a stream wait is taken as the next op the thread
 * launches waiting for the last op it launched on another stream (PyTorch's `wait_stream` pattern). Those are marked
 * inferred; measured.ts drops any the measured times contradict.
 */
import type { EventId, KinetoGpuEvent, KinetoLaunch, KinetoSync, KinetoTrace } from '../../formats/kineto/trace.js';
import { lowerBound } from './bisect.js';

/** A GPU event taken into the graph, with the start of its launch call (−Infinity when launched before the window). */
export interface LaunchedGpu {
  event: KinetoGpuEvent;
  launchNs: number;
  launchTid: number | string | null;
}

export interface SyncCall {
  call: KinetoLaunch;
  /** Indices into the LaunchedGpu list. */
  awaited: number[];
  inferred: boolean;
}

export interface SyncResult {
  hostWaits: SyncCall[];
  gpuWaits: { node: number; dep: number; inferred: boolean }[];
  /** Synchronising calls by kind, and those whose awaited work could not be found. */
  counts: Record<'streamSync' | 'eventSync' | 'deviceSync' | 'copySync' | 'streamWaitEvent' | 'unresolved', number>;
  /** Calls resolved from cuda_sync records, of all synchronising calls. */
  fromRecords: number;
}

const STREAM_SYNC = /^(cuda|hip)StreamSynchronize$|^cuStreamSynchronize$/;
const EVENT_SYNC = /^(cuda|hip)EventSynchronize$|^cuEventSynchronize$/;
const DEVICE_SYNC = /^(cuda|hip)(Device|Thread)Synchronize$|^cuCtxSynchronize$/;
const COPY_SYNC =
  /^(cuda|hip)Memcpy(2D|3D|ToSymbol|FromSymbol|WithStream|Peer)?$|^(cuda|hip)Memset$|^cuMemcpy(HtoD|DtoH|DtoD)?(_v2)?$/;
const ASYNC_COPY = /^(cuda|hip)Memcpy(2D|3D|Peer)?Async$|^cuMemcpy(HtoD|DtoH|DtoD)?Async(_v2)?$/;
const STREAM_WAIT = /^(cuda|hip)StreamWaitEvent$|^cuStreamWaitEvent$/;
const RECORD = /^(cuda|hip)EventRecord(WithFlags)?$|^cuEventRecord$/;

/** A GPU op that starts this long after it could have (launched, its stream free) was held back by something. */
const HELD_NS = 20_000;

/** Per stream, the GPU events in launch order, for "the last op launched on S before t". */
class StreamIndex {
  readonly byStream = new Map<number | null, number[]>();
  private readonly position: number[];
  constructor(private readonly gpu: LaunchedGpu[]) {
    gpu.forEach((g, i) => {
      const l = this.byStream.get(g.event.stream);
      if (l) l.push(i);
      else this.byStream.set(g.event.stream, [i]);
    });
    this.position = new Array<number>(gpu.length).fill(-1);
    for (const l of this.byStream.values()) {
      l.sort((a, b) => gpu[a]!.launchNs - gpu[b]!.launchNs || gpu[a]!.event.tsNs - gpu[b]!.event.tsNs);
      l.forEach((g, k) => (this.position[g] = k));
    }
  }

  /** The op launched on the same stream just before event i, or -1. */
  previous(i: number): number {
    const k = this.position[i]!;
    return k > 0 ? this.byStream.get(this.gpu[i]!.event.stream)![k - 1]! : -1;
  }

  /** The last event on `stream` launched before t (its launch call started before t), or -1. */
  lastBefore(stream: number | null, t: number): number {
    const l = this.byStream.get(stream);
    const k = l ? launchedBefore(this.gpu, l, t) : 0;
    return k > 0 ? l![k - 1]! : -1;
  }

  /** The first event on `stream` launched at or after t, or -1. */
  firstAfter(stream: number | null, t: number): number {
    const l = this.byStream.get(stream);
    const k = l ? launchedBefore(this.gpu, l, t) : 0;
    return l && k < l.length ? l[k]! : -1;
  }
}

/** How many events of `list` (indices into gpu, in launch order) were launched before t. */
function launchedBefore(gpu: LaunchedGpu[], list: number[], t: number): number {
  return lowerBound(list.length, (k) => gpu[list[k]!]!.launchNs, t);
}

export function findSyncs(trace: KinetoTrace, gpu: LaunchedGpu[], calls: KinetoLaunch[]): SyncResult {
  const idx = new StreamIndex(gpu);
  const syncByCorr = new Map<EventId, KinetoSync>();
  for (const s of trace.syncs) if (s.correlation !== null) syncByCorr.set(s.correlation, s);
  const byCorr = new Map<EventId, number>();
  gpu.forEach((g, i) => {
    if (g.event.correlation !== null) byCorr.set(g.event.correlation, i);
  });
  // Launches per thread in time order, for the stream a thread used last and the next op it launches.
  const byThread = new Map<string, number[]>();
  gpu.forEach((g, i) => {
    if (g.launchTid === null || !Number.isFinite(g.launchNs)) return;
    const k = String(g.launchTid);
    const l = byThread.get(k);
    if (l) l.push(i);
    else byThread.set(k, [i]);
  });
  for (const l of byThread.values()) l.sort((a, b) => gpu[a]!.launchNs - gpu[b]!.launchNs);
  const threadLaunch = (tid: number | string, t: number, after: boolean): number => {
    const l = byThread.get(String(tid));
    if (!l) return -1;
    const k = launchedBefore(gpu, l, t);
    return after ? (k < l.length ? l[k]! : -1) : k > 0 ? l[k - 1]! : -1;
  };
  const recordTime = (corr: EventId | null): number | null => {
    if (corr === null) return null;
    const r = trace.launches.get(corr);
    return r && RECORD.test(r.name) ? r.tsNs : null;
  };
  const res: SyncResult = {
    hostWaits: [],
    gpuWaits: [],
    counts: { streamSync: 0, eventSync: 0, deviceSync: 0, copySync: 0, streamWaitEvent: 0, unresolved: 0 },
    fromRecords: 0,
  };
  const end = (i: number) => gpu[i]!.event.tsNs + gpu[i]!.event.durNs;

  /**
   * The stream a blocking call waited on, by elimination: the last op (launched before) that ended while it blocked.
   */
  const inferStream = (call: KinetoLaunch): number => {
    const t0 = call.tsNs;
    const t1 = call.tsNs + call.durNs;
    let best = -1;
    for (const s of idx.byStream.keys()) {
      const i = idx.lastBefore(s, t0);
      if (i < 0) continue;
      const e = end(i);
      if (e >= t0 && e <= t1 && (best < 0 || e > end(best))) best = i;
    }
    return best >= 0 ? best : threadLaunch(call.tid, t0, false);
  };

  for (const call of calls) {
    const rec = syncByCorr.get(call.correlation);
    if (STREAM_SYNC.test(call.name)) {
      res.counts.streamSync++;
      const stream = rec?.stream ?? call.stream;
      const i = stream !== null && stream >= 0 ? idx.lastBefore(stream, call.tsNs) : inferStream(call);
      if (stream !== null && stream >= 0) res.fromRecords += rec ? 1 : 0;
      push(call, i >= 0 ? [i] : [], stream === null || stream < 0);
    } else if (EVENT_SYNC.test(call.name)) {
      res.counts.eventSync++;
      const at = recordTime(rec?.waitOnRecordCorrelation ?? null);
      const stream = rec?.waitOnStream ?? null;
      if (at !== null && stream !== null) {
        res.fromRecords++;
        const i = idx.lastBefore(stream, at);
        push(call, i >= 0 ? [i] : [], false);
      } else {
        const i = inferStream(call);
        push(call, i >= 0 ? [i] : [], true);
      }
    } else if (DEVICE_SYNC.test(call.name)) {
      res.counts.deviceSync++;
      const all: number[] = [];
      for (const s of idx.byStream.keys()) {
        const i = idx.lastBefore(s, call.tsNs);
        if (i >= 0) all.push(i);
      }
      push(call, all, false);
    } else if (COPY_SYNC.test(call.name)) {
      res.counts.copySync++;
      const i = byCorr.get(call.correlation);
      push(call, i !== undefined ? [i] : [], false);
    } else if (ASYNC_COPY.test(call.name)) {
      const i = byCorr.get(call.correlation);
      if (i !== undefined && end(i) <= call.tsNs + call.durNs) {
        res.counts.copySync++;
        push(call, [i], false);
      }
    } else if (STREAM_WAIT.test(call.name)) {
      res.counts.streamWaitEvent++;
      const at = recordTime(rec?.waitOnRecordCorrelation ?? null);
      let node = -1;
      let dep = -1;
      const recorded = rec !== undefined && rec.stream !== null && rec.waitOnStream !== null && at !== null;
      if (recorded) {
        res.fromRecords++;
        node = idx.firstAfter(rec.stream, call.tsNs);
        dep = idx.lastBefore(rec.waitOnStream, at);
      } else [node, dep] = heldWaiter(call.tsNs);
      if (!recorded && (node < 0 || dep < 0)) {
        dep = -1;
        node = threadLaunch(call.tid, call.tsNs, true);
        if (node >= 0) {
          // The last op this thread launched before the call on another stream than the waiting one.
          const l = byThread.get(String(call.tid)) ?? [];
          for (let k = launchedBefore(gpu, l, call.tsNs) - 1; k >= 0; k--) {
            if (gpu[l[k]!]!.event.stream !== gpu[node]!.event.stream) {
              dep = l[k]!;
              break;
            }
          }
        }
      }
      if (node >= 0 && dep >= 0 && gpu[node]!.event.stream !== gpu[dep]!.event.stream)
        res.gpuWaits.push({ node, dep, inferred: !recorded });
      else res.counts.unresolved++;
    }
  }
  return res;

  /**
   * A stream wait with no record of its streams, read from the times: the first op launched on some stream after the
   * call that was held back (it started well after both its launch and the previous op of its stream) and began just
   * after an op launched before the call on another stream ended — that op is what it waited for. [-1, -1] if none.
   */
  function heldWaiter(t: number): [number, number] {
    let best: [number, number] = [-1, -1];
    let bestGap = Infinity;
    for (const s of idx.byStream.keys()) {
      const g = idx.firstAfter(s, t);
      if (g < 0) continue;
      const start = gpu[g]!.event.tsNs;
      const prev = idx.previous(g);
      const ready = Math.max(gpu[g]!.launchNs, prev >= 0 ? end(prev) : -Infinity);
      if (start - ready < HELD_NS) continue;
      for (const r of idx.byStream.keys()) {
        if (r === s) continue;
        const d = idx.lastBefore(r, t);
        if (d < 0) continue;
        const gap = start - end(d);
        if (gap >= 0 && gap <= HELD_NS && gap < bestGap) {
          bestGap = gap;
          best = [g, d];
        }
      }
    }
    return best;
  }

  function push(call: KinetoLaunch, awaited: number[], inferred: boolean): void {
    if (awaited.length === 0) {
      res.counts.unresolved++;
      return;
    }
    res.hostWaits.push({ call, awaited, inferred });
  }
}

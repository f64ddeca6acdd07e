/**
 * Collective timing in ASTRA-sim's system layer (analytical, congestion-unaware), per the rules in
 * ../shared/notes/astra-sim-semantics.md:
 * - the collective is split into chunks of ⌊size / preferred-dataset-splits⌋ bytes (at least one
 *   byte per NPU for non-all-gathers, as ASTRA-sim enforces), each a stream with one phase per
 *   involved dimension;
 * - localBWAware all-reduce: reduce-scatter on every involved dimension but the last, all-reduce on
 *   the last, all-gather back in reverse order; baseline (and every other collective): the same
 *   collective on each involved dimension, reduce-scatter/all-to-all ascending, all-gather
 *   descending, each phase's output size feeding the next;
 * - one queue per dimension runs at most active-chunks-per-dimension phases at once; streams wait
 *   in arrival order (all chunks of one collective share a priority, so LIFO/FIFO only orders
 *   different collectives, which one comm slot per rank never runs together);
 * - phase costs: one endpoint-delay to start, per step the message time plus one endpoint-delay
 *   per received message, plus 3·⌊msg / local-mem-bw⌋ on reducing steps.
 * All members of a collective are in lockstep; where messages of one step differ in cost (direct
 * on a ring, a comm group spread over dimensions) the step takes the slowest message.
 */
import { InputError } from '../../errors.js';
import type { CollectiveImplName, CollectiveKind, SystemConfig } from '../../formats/astra/index.js';
import { hopsInDim, messageNs, p2pNs, route, type Cluster } from './network.js';

/** One dimension a phase runs on: a physical dimension, or the ring over a comm group's members. */
interface PhaseLink {
  p: number;
  impl: CollectiveImplName;
  /** Dimension whose energy per bit applies to the bytes of this phase. */
  energyDim: number;
  /** Queue the phase waits in (the dimension index; comm-group rings use their own queue). */
  queue: number;
  /** ns for a message of `bytes` to the peer `k` positions along. */
  linkNs(bytes: number, k: number): number;
}

interface Phase {
  kind: CollectiveKind;
  link: PhaseLink;
  inBytes: number;
  durationNs: number;
  /** Bytes each member sends in this phase. */
  sentBytes: number;
}

export interface CollectiveRequest {
  kind: CollectiveKind;
  bytes: number;
  /** Network dimensions to use (undefined = all). Must have one entry per dimension. */
  involvedDims?: boolean[];
  /** Members in ring order when a comm group smaller than the cluster; undefined = all ranks. */
  groupMembers?: number[];
}

export interface CollectiveTiming {
  durationNs: number;
  /** Bytes each member sends per network dimension. */
  bytesSentPerDim: number[];
  chunks: number;
}

const IMPL_KEY: Record<CollectiveKind, string> = {
  ALL_REDUCE: 'all-reduce-implementation',
  REDUCE_SCATTER: 'reduce-scatter-implementation',
  ALL_GATHER: 'all-gather-implementation',
  ALL_TO_ALL: 'all-to-all-implementation',
};

export class CollectiveModel {
  private readonly cache = new Map<string, CollectiveTiming>();
  private readonly lbwBytesPerNs: number;

  constructor(private readonly cluster: Cluster, private readonly sys: SystemConfig) {
    this.lbwBytesPerNs = sys.localMemBandwidthGBps;
  }

  timing(req: CollectiveRequest): CollectiveTiming {
    const key = `${req.kind}|${req.bytes}|${req.involvedDims?.join(',') ?? '*'}|${req.groupMembers?.join(',') ?? '*'}`;
    let t = this.cache.get(key);
    if (!t) {
      t = this.compute(req);
      this.cache.set(key, t);
    }
    return t;
  }

  private impl(kind: CollectiveKind, dim: number): CollectiveImplName {
    const list = this.sys.implementations[kind];
    if (!list) throw new InputError(`${this.sys.file}: the trace has a ${kind} collective but "${IMPL_KEY[kind]}" is missing`);
    const v = list[dim];
    if (!v) throw new InputError(`${this.sys.file}: "${IMPL_KEY[kind]}" has no entry for dimension ${dim}`);
    return v;
  }

  private links(req: CollectiveRequest, kind: CollectiveKind): PhaseLink[] {
    const c = this.cluster;
    if (req.groupMembers && req.groupMembers.length < c.totalNpus) {
      const m = req.groupMembers;
      if (m.length <= 1) return [];
      let energyDim = 0;
      for (let i = 0; i < m.length; i++) {
        const r = route(c, m[i], m[(i + 1) % m.length]);
        if (r) energyDim = Math.max(energyDim, r.dim);
      }
      const memo = new Map<string, number>();
      return [{
        p: m.length, impl: 'ring', energyDim, queue: c.dims.length,
        linkNs: (bytes, k) => {
          const mk = `${bytes}|${k}`;
          let v = memo.get(mk);
          if (v === undefined) {
            v = 0;
            for (let i = 0; i < m.length; i++) v = Math.max(v, p2pNs(c, m[i], m[(i + k) % m.length], bytes).ns);
            memo.set(mk, v);
          }
          return v;
        },
      }];
    }
    const out: PhaseLink[] = [];
    c.dims.forEach((d, i) => {
      if (d.npus === 1) return;
      if (req.involvedDims && !req.involvedDims[i]) return;
      out.push({
        p: d.npus, impl: this.impl(kind, i), energyDim: i, queue: i,
        linkNs: (bytes, k) => messageNs(c, i, hopsInDim(d, 0, k % d.npus), bytes),
      });
    });
    return out;
  }

  private phase(kind: CollectiveKind, link: PhaseLink, inBytes: number): Phase & { outBytes: number } {
    const ep = this.sys.endpointDelayNs;
    const red = (m: number) => 3 * Math.floor(m / this.lbwBytesPerNs);
    const { p, impl } = link;
    const m = Math.floor(inBytes / p);
    const outBytes = kind === 'REDUCE_SCATTER' ? m : kind === 'ALL_GATHER' ? inBytes * p : inBytes;
    let durationNs = ep;
    let sentBytes = 0;
    if (impl === 'ring') {
      const stepRed = link.linkNs(m, 1) + ep + red(m);
      const stepPlain = link.linkNs(m, 1) + ep;
      switch (kind) {
        case 'REDUCE_SCATTER': durationNs += (p - 1) * stepRed; sentBytes = (p - 1) * m; break;
        case 'ALL_REDUCE': durationNs += (p - 1) * (stepRed + stepPlain); sentBytes = 2 * (p - 1) * m; break;
        case 'ALL_GATHER': durationNs += (p - 1) * (link.linkNs(inBytes, 1) + ep); sentBytes = (p - 1) * inBytes; break;
        case 'ALL_TO_ALL': durationNs += ((p * (p - 1)) / 2) * stepPlain; sentBytes = ((p * (p - 1)) / 2) * m; break;
      }
    } else if (impl === 'direct') {
      const slowest = (bytes: number) => {
        let v = 0;
        for (let k = 1; k < p; k++) v = Math.max(v, link.linkNs(bytes, k));
        return v;
      };
      switch (kind) {
        case 'REDUCE_SCATTER': durationNs += slowest(m) + ep + red(m); sentBytes = (p - 1) * m; break;
        case 'ALL_REDUCE': durationNs += slowest(m) + ep + red(m) + slowest(m) + ep; sentBytes = 2 * (p - 1) * m; break;
        case 'ALL_GATHER': durationNs += slowest(inBytes) + ep; sentBytes = (p - 1) * inBytes; break;
        case 'ALL_TO_ALL': durationNs += slowest(m) + ep; sentBytes = (p - 1) * m; break;
      }
    } else {
      if ((p & (p - 1)) !== 0) {
        throw new InputError(`${this.sys.file}: halvingDoubling needs a power-of-two number of NPUs in a dimension, found ${p}`);
      }
      if (kind === 'ALL_TO_ALL') {
        throw new InputError(`${this.sys.file}: "all-to-all-implementation" halvingDoubling is not modelled; use ring or direct`);
      }
      const steps = Math.log2(p);
      if (kind === 'REDUCE_SCATTER' || kind === 'ALL_REDUCE') {
        for (let s = 0; s < steps; s++) {
          const msg = Math.floor(inBytes / 2 ** (s + 1));
          durationNs += link.linkNs(msg, 2 ** s) + ep + red(msg);
          sentBytes += msg;
        }
      }
      if (kind === 'ALL_REDUCE') {
        for (let s = steps - 1; s >= 0; s--) {
          const msg = Math.floor(inBytes / 2 ** (s + 1));
          durationNs += link.linkNs(msg, 2 ** s) + ep;
          sentBytes += msg;
        }
      }
      if (kind === 'ALL_GATHER') {
        for (let s = steps - 1; s >= 0; s--) {
          const msg = inBytes * 2 ** (steps - 1 - s);
          durationNs += link.linkNs(msg, 2 ** s) + ep;
          sentBytes += msg;
        }
      }
    }
    return { kind, link, inBytes, durationNs, sentBytes, outBytes };
  }

  /** The phases one chunk goes through. */
  private plan(req: CollectiveRequest, chunkBytes: number): Phase[] {
    const links = this.links(req, req.kind);
    const phases: Phase[] = [];
    let size = chunkBytes;
    const add = (kind: CollectiveKind, link: PhaseLink) => {
      const ph = this.phase(kind, link, size);
      phases.push(ph);
      size = ph.outBytes;
    };
    if (req.kind === 'ALL_REDUCE' && this.sys.collectiveOptimization === 'localBWAware' && links.length > 1) {
      for (let i = 0; i < links.length - 1; i++) add('REDUCE_SCATTER', links[i]);
      add('ALL_REDUCE', links[links.length - 1]);
      for (let i = links.length - 2; i >= 0; i--) add('ALL_GATHER', links[i]);
    } else {
      const ordered = req.kind === 'ALL_GATHER' ? [...links].reverse() : links;
      for (const l of ordered) add(req.kind, l);
    }
    return phases;
  }

  private compute(req: CollectiveRequest): CollectiveTiming {
    const bytesSentPerDim = new Array<number>(this.cluster.dims.length).fill(0);
    let size = req.bytes;
    if (size <= 0) return { durationNs: 0, bytesSentPerDim, chunks: 0 };
    const splits = this.sys.preferredDatasetSplits;
    let chunk = Math.floor(size / splits);
    if (req.kind !== 'ALL_GATHER' && this.cluster.totalNpus > chunk) {
      chunk = this.cluster.totalNpus;
      size = splits * chunk;
    }
    if (chunk === 0) chunk = 1;
    const chunks = Math.ceil(size / chunk);
    const phases = this.plan(req, chunk);
    if (phases.length === 0) return { durationNs: 0, bytesSentPerDim, chunks };
    for (const ph of phases) bytesSentPerDim[ph.link.energyDim] += ph.sentBytes * chunks;
    return { durationNs: simulateQueues(phases, chunks, this.sys.activeChunksPerDimension), bytesSentPerDim, chunks };
  }
}

/**
 * Runs `chunks` identical streams through their phases, one queue per dimension with at most
 * `active` running phases; returns when the last stream finishes. Events at the same time are
 * handled in the order they were scheduled; a stream entering its next queue is placed before the
 * freed slot of its previous queue is refilled.
 */
function simulateQueues(phases: Phase[], chunks: number, active: number): number {
  if (chunks === 1 || (active >= chunks && phases.length === 1)) {
    return phases.reduce((a, p) => a + p.durationNs, 0);
  }
  const waiting = new Map<number, number[]>();
  const running = new Map<number, number>();
  const stage = new Array<number>(chunks).fill(0);
  // events: [time, seq, stream]
  const events: [number, number, number][] = [];
  let seq = 0;
  const push = (t: number, s: number) => {
    events.push([t, seq++, s]);
    let i = events.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (cmp(events[parent], events[i]) <= 0) break;
      [events[parent], events[i]] = [events[i], events[parent]];
      i = parent;
    }
  };
  const pop = (): [number, number, number] => {
    const top = events[0];
    const last = events.pop()!;
    if (events.length > 0) {
      events[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < events.length && cmp(events[l], events[m]) < 0) m = l;
        if (r < events.length && cmp(events[r], events[m]) < 0) m = r;
        if (m === i) break;
        [events[m], events[i]] = [events[i], events[m]];
        i = m;
      }
    }
    return top;
  };
  const fill = (q: number, t: number) => {
    const w = waiting.get(q);
    if (!w) return;
    while (w.length > 0 && (running.get(q) ?? 0) < active) {
      const s = w.shift()!;
      running.set(q, (running.get(q) ?? 0) + 1);
      push(t + phases[stage[s]].durationNs, s);
    }
  };
  const enqueue = (s: number, t: number) => {
    const q = phases[stage[s]].link.queue;
    let w = waiting.get(q);
    if (!w) waiting.set(q, (w = []));
    w.push(s);
    fill(q, t);
  };
  for (let s = 0; s < chunks; s++) enqueue(s, 0);
  let end = 0;
  while (events.length > 0) {
    const [t, , s] = pop();
    end = t;
    const q = phases[stage[s]].link.queue;
    running.set(q, running.get(q)! - 1);
    stage[s]++;
    if (stage[s] < phases.length) enqueue(s, t);
    fill(q, t);
  }
  return end;
}

function cmp(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

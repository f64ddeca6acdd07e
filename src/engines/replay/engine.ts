/**
 * Discrete-event replay of all ranks of a Chakra trace, with ASTRA-sim's analytical
 * congestion-unaware semantics (../shared/notes/astra-sim-semantics.md) and an energy breakdown.
 *
 * Workload layer: a node is ready when every data and ctrl parent has finished; each rank has one
 * GPU, one CPU and one comm slot (collectives, sends and remote-memory loads/stores share the comm
 * slot; receives take none); ready nodes of a slot are issued lowest id first. A collective runs on
 * each member from the moment that member issues it (the k-th collective of a rank on a group matches
 * the k-th of every other member), and each member finishes it at its own time (collective.ts). Sends
 * and receives both finish when the message arrives (a receive posted later finishes when posted).
 *
 * Memory: nodes are read per rank through a window (`windowNodes` unfinished nodes per rank);
 * finished nodes are dropped, only their ids are kept (id-set.ts: about a bit per id when ids are
 * dense). The replay is exact as long as no node beyond the window could have started earlier than the
 * window let it load; the default window (65,536 nodes per rank) holds every trace in ../shared whole.
 */
import { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import {
  checkSystemAgainstNetwork, type CollectiveKind, type CommGroupConfig, type NetworkConfig, type PowerConfig,
  type RemoteMemoryConfig, type SystemConfig,
} from '../../formats/astra/index.js';
import {
  attrBool, attrBoolList, attrInt, attrNumber, attrString, commTypeName, NodeType, nodeTypeName, type ChakraNode,
} from '../../formats/chakra/index.js';
import { CollectiveModel, type CollectivePlan, type CollectiveStall } from './collective.js';
import { MinHeap } from './heap.js';
import { FinishedIds } from './id-set.js';
import { coordinates, makeCluster, p2pNs, type BandwidthUnit, type Cluster } from './network.js';
import { summarizeRun } from './result.js';
import type { RankSource, ReplayResult, ReplaySlice, Slot } from './types.js';

export interface ReplayOptions {
  system: SystemConfig;
  network: NetworkConfig;
  memory?: RemoteMemoryConfig;
  commGroups?: CommGroupConfig;
  power: PowerConfig;
  /** 'astra-sim' (default): "GB/s" read as GiB/s like ASTRA-sim; 'GBps': read plainly. */
  bandwidthUnit?: BandwidthUnit;
  /** Unfinished nodes held per rank before reading stops (default 65,536). */
  windowNodes?: number;
  diagnostics?: Diagnostics;
  /** Receives every executed node (for timelines); omit to keep memory bounded. */
  onSlice?: (slice: ReplaySlice) => void;
  /**
   * Called between simulation steps when onSlice is given; when it returns a promise the replay waits for it (a
   * timeline writer uses this to wait for its file to drain instead of buffering the whole timeline).
   */
  backpressure?: () => Promise<void> | undefined;
  /** The result's label (default "replay"). */
  label?: string;
  /**
   * Collectives whose members all issue them at the same ns reuse the timing of the first such one (default true;
   * exact, the timing only shifts with the arrival); false times each collective in full, for tests.
   */
  equalArrivalShortcut?: boolean;
}

const COLLECTIVES: Record<number, CollectiveKind> = { 0: 'ALL_REDUCE', 2: 'ALL_GATHER', 6: 'ALL_TO_ALL', 7: 'REDUCE_SCATTER' };
const BROADCAST = 5;
const J_PER_PJ = 1e-12;

type Key = number | string;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
function keyOf(id: bigint): Key {
  return id <= MAX_SAFE && id >= 0n ? Number(id) : id.toString();
}

type Op =
  | { kind: 'fixed'; durationNs: number }
  | { kind: 'coll'; coll: CollectiveKind; bytes: number; involved?: boolean[]; group: string }
  | { kind: 'send'; peer: number; bytes: number; tag: number }
  | { kind: 'recv'; peer: number; bytes: number; tag: number };

interface Rec {
  id: bigint;
  key: Key;
  name: string;
  slot: Slot;
  op: Op;
  /** Category for statistics and energy. */
  cat: 'gpu' | 'cpu' | 'mem' | 'comm' | 'none';
  pending: number;
  children: Rec[];
  startNs: number;
  energyJ?: number;
  memBytes: number;
  netBytesPerDim?: number[];
}

interface RankState {
  rank: number;
  file: string;
  src: RankSource;
  exhausted: boolean;
  loaded: Map<Key, Rec>;
  finished: FinishedIds;
  waitingOn: Map<Key, Rec[]>;
  ready: Record<Slot, MinHeap<Rec>>;
  busy: Record<Slot, boolean>;
  unfinished: number;
  nodes: number;
  collOrdinal: Map<string, number>;
  // accounting
  lastT: number;
  gpuOn: boolean;
  cpuOn: boolean;
  commOn: number;
  memOn: number;
  finishNs: number;
  gpuNs: number;
  cpuNs: number;
  commNs: number;
  memNs: number;
  wallNs: number;
  gpuCommNs: number;
  bytesSentPerDim: number[];
  memoryBytes: number;
  computeJ: number;
  memoryJ: number;
  networkJ: number;
}

/** The members of a collective and how it is planned: all ranks, the ranks along involved_dim, or a comm group. */
interface CollGroup {
  /** Matches the k-th collective of each member on this group. */
  key: string;
  /** Member ranks by member index (ring order for a comm group). */
  members: number[];
  indexOf(rank: number): number;
  /** Names everything the plan depends on besides kind and size. */
  planKey: string;
  involvedDims?: boolean[];
  commGroup: boolean;
}

interface CollInstance {
  key: string;
  group: CollGroup;
  issuedNs: number[];
  recs: (Rec | undefined)[];
  arrived: number;
  first: { rank: number; rec: Rec; op: Extract<Op, { kind: 'coll' }> };
}

/** A node finishing on a rank, or a collective finishing on all its members at the same ns. */
type Ev = { t: number; seq: number; rank: number; rec: Rec } | { t: number; seq: number; coll: CollInstance };

export async function replay(sources: RankSource[], opts: ReplayOptions): Promise<ReplayResult> {
  const sim = new Replay(sources, opts);
  return sim.run();
}

class Replay {
  private readonly diag: Diagnostics;
  private readonly cluster: Cluster;
  private readonly model: CollectiveModel;
  private readonly ranks: RankState[];
  private readonly events = new MinHeap<Ev>((a, b) => a.t < b.t || (a.t === b.t && a.seq < b.seq));
  private seq = 0;
  private now = 0;
  private eventCount = 0;
  private readonly colls = new Map<string, CollInstance>();
  private readonly collGroups = new Map<string, CollGroup>();
  private finishScratch = new Float64Array(0);
  private readonly mail = new Map<string, { arrivals: number[]; recvs: { rank: number; rec: Rec }[] }>();
  private readonly window: number;
  private readonly netPj: number[];

  constructor(sources: RankSource[], private readonly o: ReplayOptions) {
    this.diag = o.diagnostics ?? new Diagnostics();
    checkSystemAgainstNetwork(o.system, o.network, this.diag);
    this.cluster = makeCluster(o.network, o.bandwidthUnit ?? 'astra-sim');
    this.model = new CollectiveModel(this.cluster, o.system, { equalArrivalShortcut: o.equalArrivalShortcut });
    this.window = Math.max(16, o.windowNodes ?? 65_536);
    if (sources.length !== this.cluster.totalNpus) {
      throw new InputError(
        `the trace has ${sources.length} rank file(s) but ${o.network.file} describes ${this.cluster.totalNpus} NPUs ` +
        `(npus_count [${o.network.dims.map((d) => d.npus).join(', ')}]): give one <prefix>.<rank>.et per NPU`);
    }
    sources.forEach((s, i) => {
      if (s.rank !== i) throw new InputError(`rank files must be numbered 0..${sources.length - 1}; rank ${i} is missing (found ${s.file} as rank ${s.rank})`);
    });
    if (o.power.network.length < this.cluster.dims.length) {
      throw new InputError(`${o.power.file}: key "network" has ${o.power.network.length} entries but ${o.network.file} has ${this.cluster.dims.length} dimensions: give one energyPjPerBit per dimension`);
    }
    this.netPj = this.cluster.dims.map((_, i) => o.power.network[i].energyPjPerBit);
    const less = (a: Rec, b: Rec) => a.id < b.id;
    this.ranks = sources.map((src) => ({
      rank: src.rank, file: src.file, src, exhausted: false,
      loaded: new Map(), finished: new FinishedIds(), waitingOn: new Map(),
      ready: { gpu: new MinHeap(less), cpu: new MinHeap(less), comm: new MinHeap(less), none: new MinHeap(less) },
      busy: { gpu: false, cpu: false, comm: false, none: false },
      unfinished: 0, nodes: 0, collOrdinal: new Map(),
      lastT: 0, gpuOn: false, cpuOn: false, commOn: 0, memOn: 0,
      finishNs: 0, gpuNs: 0, cpuNs: 0, commNs: 0, memNs: 0, wallNs: 0, gpuCommNs: 0,
      bytesSentPerDim: new Array(this.cluster.dims.length).fill(0), memoryBytes: 0, computeJ: 0, memoryJ: 0, networkJ: 0,
    }));
  }

  async run(): Promise<ReplayResult> {
    for (const r of this.ranks) await this.refill(r);
    const dirty = new Set<RankState>(this.ranks);
    for (;;) {
      for (const r of dirty) this.issue(r);
      dirty.clear();
      const next = this.events.peek();
      if (!next) {
        const starving = this.ranks.filter((r) => !r.exhausted);
        if (starving.length === 0) break;
        for (const r of starving) {
          await this.refill(r, true);
          dirty.add(r);
        }
        continue;
      }
      this.now = next.t;
      while (this.events.size > 0 && this.events.peek()!.t === this.now) {
        const ev = this.events.pop()!;
        this.eventCount++;
        if ('coll' in ev) {
          const { group, recs } = ev.coll;
          for (let m = 0; m < recs.length; m++) {
            const r = this.ranks[group.members[m]];
            this.finish(r, recs[m]!);
            dirty.add(r);
          }
        } else {
          this.finish(this.ranks[ev.rank], ev.rec);
          dirty.add(this.ranks[ev.rank]);
        }
      }
      for (const r of dirty) if (!r.exhausted && r.unfinished < this.window / 2) await this.refill(r);
      const wait = this.o.backpressure?.();
      if (wait) await wait;
    }
    this.checkAllDone();
    return this.result();
  }

  // ---------------------------------------------------------------- loading

  private async refill(r: RankState, force = false): Promise<void> {
    while (!r.exhausted && (r.unfinished < this.window || force)) {
      const batch = await r.src.nextBatch();
      if (batch === null) {
        r.exhausted = true;
        this.dropDanglingDeps(r);
        return;
      }
      for (const n of batch) this.load(r, n);
      force = false;
    }
  }

  private load(r: RankState, n: ChakraNode): void {
    const key = keyOf(n.id);
    if (r.loaded.has(key) || r.finished.has(key)) {
      throw new InputError(`${r.file}: node id ${n.id} appears twice`);
    }
    const rec = this.classify(r, n, key);
    r.nodes++;
    r.unfinished++;
    r.loaded.set(key, rec);
    const seen = new Set<Key>();
    for (const list of [n.dataDeps, n.ctrlDeps]) {
      for (const d of list) {
        const dk = keyOf(d);
        if (seen.has(dk) || r.finished.has(dk)) continue;
        seen.add(dk);
        if (dk === key) {
          this.diag.add('replay.self-dependency', { file: r.file, nodeId: n.id, message: `${r.file}: node ${n.id} depends on itself; that dependency is ignored` });
          continue;
        }
        rec.pending++;
        const parent = r.loaded.get(dk);
        if (parent) parent.children.push(rec);
        else {
          let w = r.waitingOn.get(dk);
          if (!w) r.waitingOn.set(dk, (w = []));
          w.push(rec);
        }
      }
    }
    const waiters = r.waitingOn.get(key);
    if (waiters) {
      r.waitingOn.delete(key);
      for (const c of waiters) rec.children.push(c);
    }
    if (rec.pending === 0) r.ready[rec.slot].push(rec);
  }

  private dropDanglingDeps(r: RankState): void {
    for (const [dk, waiters] of r.waitingOn) {
      for (const c of waiters) {
        this.diag.add('replay.missing-dependency', {
          file: r.file, nodeId: c.id,
          message: `${r.file}: node ${c.id} depends on id ${dk}, which is not in the file; the dependency is ignored (ASTRA-sim stops on it)`,
        });
        if (--c.pending === 0) r.ready[c.slot].push(c);
      }
    }
    r.waitingOn.clear();
  }

  private where(r: RankState, n: ChakraNode): string {
    return `${r.file}: node ${n.id} ("${n.name}", ${nodeTypeName(n.type)})`;
  }

  private durationNs(r: RankState, n: ChakraNode): number {
    const ns = n.durationMicros * 1000n;
    if (ns > MAX_SAFE) throw new InputError(`${this.where(r, n)}: duration_micros ${n.durationMicros} is too large`);
    return ns === 0n ? 1 : Number(ns);
  }

  private intAttr(r: RankState, n: ChakraNode, name: string, required: string | null): number | undefined {
    const v = attrInt(n, name, this.diag);
    if (v === undefined) {
      if (required !== null) throw new InputError(`${this.where(r, n)} has no ${name} attribute${required ? `: ${required}` : ''}`);
      return undefined;
    }
    if (v > MAX_SAFE || v < -MAX_SAFE) throw new InputError(`${this.where(r, n)}: ${name} = ${v} is out of range`);
    return Number(v);
  }

  private classify(r: RankState, n: ChakraNode, key: Key): Rec {
    const sys = this.o.system;
    const rec: Rec = { id: n.id, key, name: n.name, slot: 'none', op: { kind: 'fixed', durationNs: 0 }, cat: 'none', pending: 0, children: [], startNs: 0, memBytes: 0 };
    const isCpu = attrBool(n, 'is_cpu_op', this.diag) ?? false;
    switch (n.type) {
      case NodeType.COMP_NODE: {
        rec.slot = isCpu ? 'cpu' : 'gpu';
        rec.cat = rec.slot;
        const tensor = this.intAttr(r, n, 'tensor_size', null) ?? 0;
        rec.memBytes = tensor;
        if (sys.rooflineEnabled && !isCpu) {
          if (tensor === 0) {
            rec.op = { kind: 'fixed', durationNs: 0 };
          } else {
            const ops = this.intAttr(r, n, 'num_ops', 'roofline-enabled needs num_ops on every GPU COMP_NODE (ASTRA-sim stalls without it)')!;
            const oi = ops / tensor;
            const perf = Math.min(sys.localMemBandwidthGBps * 1e9 * oi, sys.peakPerfTFlops * 1e12);
            rec.op = { kind: 'fixed', durationNs: Math.trunc((ops / perf) * 1e9) };
          }
        } else {
          rec.op = { kind: 'fixed', durationNs: this.durationNs(r, n) };
        }
        if (!isCpu) {
          const e = attrNumber(n, 'energy_j', this.diag);
          if (e !== undefined) rec.energyJ = e;
        }
        return rec;
      }
      case NodeType.MEM_LOAD_NODE:
      case NodeType.MEM_STORE_NODE: {
        const mem = this.o.memory;
        if (!mem || mem.memoryType === 'NO_MEMORY_EXPANSION') {
          throw new InputError(`${this.where(r, n)} needs a remote memory model: pass --memory with a memory-type other than NO_MEMORY_EXPANSION`);
        }
        const bytes = this.intAttr(r, n, 'tensor_size', 'MEM_LOAD/STORE nodes need their size')!;
        rec.slot = 'comm';
        rec.cat = 'mem';
        rec.memBytes = bytes;
        rec.op = { kind: 'fixed', durationNs: Math.floor(mem.latencyNs + bytes / mem.bandwidthGBps) };
        return rec;
      }
      case NodeType.COMM_SEND_NODE:
      case NodeType.COMM_RECV_NODE: {
        const send = n.type === NodeType.COMM_SEND_NODE;
        const peerName = send ? 'comm_dst' : 'comm_src';
        const peer = this.intAttr(r, n, peerName, '')!;
        if (peer < 0 || peer >= this.ranks.length) throw new InputError(`${this.where(r, n)}: ${peerName} ${peer} is not a rank of this trace (0..${this.ranks.length - 1})`);
        const bytes = this.intAttr(r, n, 'comm_size', '')!;
        const tag = this.intAttr(r, n, 'comm_tag', null) ?? 0;
        rec.slot = send ? 'comm' : 'none';
        rec.cat = 'comm';
        rec.op = { kind: send ? 'send' : 'recv', peer, bytes, tag };
        return rec;
      }
      case NodeType.COMM_COLL_NODE: {
        const type = attrInt(n, 'comm_type', this.diag);
        if (type === undefined) {
          if (isCpu) {
            this.diag.add('replay.cpu-collective-replayed', {
              file: r.file, nodeId: n.id,
              message: `${this.where(r, n)} is a CPU-side collective without comm_type; replayed from its duration on the CPU`,
            });
            rec.slot = 'cpu';
            rec.cat = 'cpu';
            rec.op = { kind: 'fixed', durationNs: this.durationNs(r, n) };
            return rec;
          }
          throw new InputError(`${this.where(r, n)} has no comm_type attribute`);
        }
        rec.slot = 'comm';
        rec.cat = 'comm';
        if (Number(type) === BROADCAST) {
          rec.op = { kind: 'fixed', durationNs: this.durationNs(r, n) };
          return rec;
        }
        const coll = COLLECTIVES[Number(type)];
        if (!coll) {
          throw new InputError(`${this.where(r, n)}: comm_type ${commTypeName(type)} is not simulated (ASTRA-sim's analytical backend models ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER, ALL_TO_ALL; BROADCAST is replayed)`);
        }
        const bytes = this.intAttr(r, n, 'comm_size',
          'the collective size is needed (ASTRA-sim logs "Attribute comm_size not found" and then stalls every rank); re-generate the trace with comm_size on every COMM_COLL node')!;
        const involved = attrBoolList(n, 'involved_dim', this.diag);
        if (involved && involved.length < this.cluster.dims.length) {
          throw new InputError(`${this.where(r, n)}: involved_dim has ${involved.length} entr${involved.length === 1 ? 'y' : 'ies'} but ${this.o.network.file} has ${this.cluster.dims.length} dimensions (ASTRA-sim reads past the list and stalls)`);
        }
        if (involved && involved.length > this.cluster.dims.length) {
          this.diag.add('replay.involved-dim-longer', { file: r.file, nodeId: n.id, message: `${this.where(r, n)}: involved_dim has more entries than the network has dimensions; the extra ones are ignored` });
        }
        const pg = attrString(n, 'pg_name', this.diag) ?? '';
        const group = pg === '' || pg === '0' ? '' : pg;
        if (group && !this.o.commGroups?.groups.has(group)) {
          throw new InputError(`${this.where(r, n)}: pg_name "${group}" is not defined${this.o.commGroups ? ` in ${this.o.commGroups.file}` : ' (no --comm-group file given)'}`);
        }
        rec.op = { kind: 'coll', coll, bytes, involved: involved?.slice(0, this.cluster.dims.length), group };
        return rec;
      }
      case NodeType.METADATA_NODE:
        return rec;
      default:
        this.diag.add('replay.unknown-node-type', { file: r.file, nodeId: n.id, message: `${this.where(r, n)}: node type not replayed; it takes no time` });
        return rec;
    }
  }

  // ---------------------------------------------------------------- issuing

  private issue(r: RankState): void {
    for (const slot of ['none', 'comm', 'gpu', 'cpu'] as const) {
      const heap = r.ready[slot];
      while (heap.size > 0 && (slot === 'none' || !r.busy[slot])) {
        const rec = heap.pop()!;
        this.start(r, rec);
      }
    }
  }

  private push(t: number, ev: Omit<Ev, 't' | 'seq'>): void {
    this.events.push({ t, seq: this.seq++, ...ev } as Ev);
  }

  private account(r: RankState): void {
    const dt = this.now - r.lastT;
    if (dt > 0) {
      const comm = r.commOn > 0;
      if (comm) r.commNs += dt;
      if (r.memOn > 0) r.memNs += dt;
      if (r.gpuOn && comm) r.gpuCommNs += dt;
      if (r.gpuOn || r.cpuOn || comm || r.memOn > 0) r.wallNs += dt;
    }
    r.lastT = this.now;
  }

  private setActive(r: RankState, rec: Rec, delta: 1 | -1): void {
    this.account(r);
    switch (rec.cat) {
      case 'gpu': r.gpuOn = delta > 0; break;
      case 'cpu': r.cpuOn = delta > 0; break;
      case 'comm': r.commOn += delta; break;
      case 'mem': r.memOn += delta; break;
      case 'none': break;
    }
  }

  private start(r: RankState, rec: Rec): void {
    if (rec.slot !== 'none') r.busy[rec.slot] = true;
    rec.startNs = this.now;
    this.setActive(r, rec, 1);
    const op = rec.op;
    switch (op.kind) {
      case 'fixed':
        this.push(this.now + op.durationNs, { rank: r.rank, rec });
        return;
      case 'send': {
        const { ns, dim } = p2pNs(this.cluster, r.rank, op.peer, op.bytes);
        const arrival = this.now + ns;
        rec.netBytesPerDim = this.cluster.dims.map((_, i) => (i === dim && op.peer !== r.rank ? op.bytes : 0));
        this.push(arrival, { rank: r.rank, rec });
        const box = this.mailbox(r.rank, op.peer, op.tag);
        const waiting = box.recvs.shift();
        if (waiting) this.push(Math.max(arrival, waiting.rec.startNs), { rank: waiting.rank, rec: waiting.rec });
        else box.arrivals.push(arrival);
        return;
      }
      case 'recv': {
        const box = this.mailbox(op.peer, r.rank, op.tag);
        const arrival = box.arrivals.shift();
        if (arrival !== undefined) this.push(Math.max(arrival, this.now), { rank: r.rank, rec });
        else box.recvs.push({ rank: r.rank, rec });
        return;
      }
      case 'coll':
        this.arrive(r, rec, op);
        return;
    }
  }

  /**
   * Who takes part in a collective of `rank`: the comm group named by pg_name; without one, all ranks, or (with
   * involved_dim) the ranks sharing `rank`'s coordinates in every dimension not involved, as in ASTRA-sim.
   */
  private collGroup(rank: number, op: Extract<Op, { kind: 'coll' }>): CollGroup {
    const c = this.cluster;
    if (op.group) {
      let g = this.collGroups.get(`pg:${op.group}`);
      if (!g) {
        const members = this.o.commGroups!.groups.get(op.group)!;
        const position = new Map(members.map((r, i) => [r, i]));
        // A comm group of the whole cluster uses every dimension (ASTRA-sim ignores involved_dim for it).
        const commGroup = members.length < c.totalNpus;
        g = { key: op.group, members, indexOf: (r) => position.get(r) ?? -1, planKey: `pg:${op.group}`, commGroup };
        this.collGroups.set(`pg:${op.group}`, g);
      }
      return g;
    }
    const involved = op.involved && op.involved.some((x) => !x) ? op.involved : undefined;
    const mine = involved ? coordinates(c, rank) : [];
    const fixed = involved ? mine.map((x, i) => (involved[i] ? '*' : String(x))) : [];
    const key = involved ? `@dims[${fixed.join(',')}]` : '';
    let g = this.collGroups.get(key);
    if (!g) {
      if (!involved) {
        const members = this.ranks.map((x) => x.rank);
        g = { key, members, indexOf: (r) => r, planKey: `dims:${op.involved?.join(',') ?? '*'}`, involvedDims: op.involved, commGroup: false };
      } else {
        const members: number[] = [];
        for (let q = 0; q < c.totalNpus; q++) {
          const xs = coordinates(c, q);
          if (xs.every((x, i) => involved[i] || x === mine[i])) members.push(q);
        }
        // Members ascend by rank, so a member's index counts along the involved dimensions only.
        const indexOf = (r: number) => {
          const xs = coordinates(c, r);
          let index = 0;
          let scale = 1;
          for (let i = 0; i < xs.length; i++) {
            if (!involved[i]) {
              if (xs[i] !== mine[i]) return -1;
              continue;
            }
            index += xs[i] * scale;
            scale *= c.dims[i].npus;
          }
          return index;
        };
        g = { key, members, indexOf, planKey: `dims:${involved.join(',')}`, involvedDims: involved, commGroup: false };
      }
      this.collGroups.set(key, g);
    }
    return g;
  }

  private mailbox(src: number, dst: number, tag: number) {
    const k = `${src}>${dst}#${tag}`;
    let b = this.mail.get(k);
    if (!b) this.mail.set(k, (b = { arrivals: [], recvs: [] }));
    return b;
  }

  private arrive(r: RankState, rec: Rec, op: Extract<Op, { kind: 'coll' }>): void {
    // Each group matches its collectives separately: the k-th of a rank on a group meets the k-th of every member.
    const group = this.collGroup(r.rank, op);
    const ordinal = r.collOrdinal.get(group.key) ?? 0;
    r.collOrdinal.set(group.key, ordinal + 1);
    const key = `${group.key}#${ordinal}`;
    const index = group.indexOf(r.rank);
    if (index < 0) {
      throw new InputError(`${r.file}: node ${rec.id} ("${rec.name}") is a collective of group "${op.group}" but rank ${r.rank} is not a member of it`);
    }
    let inst = this.colls.get(key);
    if (!inst) {
      const n = group.members.length;
      inst = { key, group, issuedNs: new Array<number>(n).fill(0), recs: new Array(n), arrived: 0, first: { rank: r.rank, rec, op } };
      this.colls.set(key, inst);
    }
    const f = inst.first;
    if (f.op.coll !== op.coll || f.op.bytes !== op.bytes) {
      throw new InputError(
        `collective #${ordinal} of group "${group.key || 'all ranks'}" differs between ranks: rank ${f.rank} node ${f.rec.id} is ${f.op.coll} of ${f.op.bytes} B, ` +
        `rank ${r.rank} node ${rec.id} is ${op.coll} of ${op.bytes} B`);
    }
    inst.issuedNs[index] = this.now;
    inst.recs[index] = rec;
    if (++inst.arrived < group.members.length) return;
    this.colls.delete(key);
    // Every member's finish depends on every member's start, so all are known once the last member is here.
    const plan = this.model.plan(`${group.planKey}|${op.coll}|${op.bytes}`, () => ({
      kind: op.coll, bytes: op.bytes, involvedDims: group.commGroup ? undefined : group.involvedDims,
      members: group.members, commGroup: group.commGroup,
    }));
    const n = group.members.length;
    if (this.finishScratch.length < n) this.finishScratch = new Float64Array(n);
    const finishNs = this.finishScratch.subarray(0, n);
    const stall = this.model.finishTimes(plan, inst.issuedNs, finishNs);
    if (stall) throw this.stallError(inst, plan, stall);
    let together = true;
    for (let m = 0; m < n; m++) {
      inst.recs[m]!.netBytesPerDim = plan.bytesSentPerDim[m];
      if (finishNs[m] !== finishNs[0]) together = false;
    }
    // One event when all members finish at the same ns (equal arrivals), else one per member.
    if (together) this.push(finishNs[0], { coll: inst });
    else for (let m = 0; m < n; m++) this.push(finishNs[m], { rank: group.members[m], rec: inst.recs[m]! });
  }

  private stallError(inst: CollInstance, plan: CollectivePlan, stall: CollectiveStall): InputError {
    const { first, group } = inst;
    const phaseName = (j: number) => {
      const ph = plan.phases[j];
      return `${ph.kind.toLowerCase().replace('_', '-')} on ${group.commGroup ? `comm group "${group.key}"` : `dimension ${ph.queue}`}`;
    };
    const shown = stall.running.slice(0, 4).map((w) => `rank ${group.members[w.member]} runs chunk ${w.chunk}'s ${phaseName(w.phase)}`);
    return new InputError(
      `collective ${first.op.coll} #${inst.key.split('#')[1]} of ${group.key ? `group "${group.key}"` : 'all ranks'} (rank ${first.rank} node ${first.rec.id}) ` +
      `deadlocks: the ranks reach it at different times and their queues run its ${plan.chunks} chunks' phases in different orders ` +
      `(${shown.join('; ')}${stall.running.length > 4 ? ' …' : ''}), each waiting for a peer busy with another chunk. ` +
      'ASTRA-sim stalls here as well ("Hardware Resource … has unreleased nodes"); use preferred-dataset-splits 1, more active-chunks-per-dimension, or collective-optimization baseline');
  }

  // ---------------------------------------------------------------- finishing

  private finish(r: RankState, rec: Rec): void {
    this.setActive(r, rec, -1);
    if (rec.slot !== 'none') r.busy[rec.slot] = false;
    const dur = this.now - rec.startNs;
    r.finishNs = Math.max(r.finishNs, this.now);
    let energyJ = 0;
    if (rec.cat === 'gpu') {
      r.gpuNs += dur;
      energyJ = rec.energyJ ?? this.o.power.gpu.activePowerW * dur * 1e-9;
      r.computeJ += energyJ;
      const mj = rec.memBytes * 8 * this.o.power.memory.energyPjPerBit * J_PER_PJ;
      r.memoryJ += mj;
      r.memoryBytes += rec.memBytes;
    } else if (rec.cat === 'cpu') {
      r.cpuNs += dur;
      r.memoryBytes += rec.memBytes;
      r.memoryJ += rec.memBytes * 8 * this.o.power.memory.energyPjPerBit * J_PER_PJ;
    } else if (rec.cat === 'mem') {
      r.memoryBytes += rec.memBytes;
      energyJ = rec.memBytes * 8 * this.o.power.memory.remoteEnergyPjPerBit * J_PER_PJ;
      r.memoryJ += energyJ;
    }
    if (rec.netBytesPerDim) {
      let e = 0;
      rec.netBytesPerDim.forEach((b, i) => {
        r.bytesSentPerDim[i] += b;
        e += b * 8 * this.netPj[i] * J_PER_PJ;
      });
      r.networkJ += e;
      energyJ += e;
    }
    this.o.onSlice?.({ rank: r.rank, slot: rec.slot, nodeId: rec.id, name: rec.name, startNs: rec.startNs, endNs: this.now, powerW: dur > 0 ? energyJ / (dur * 1e-9) : 0 });
    r.loaded.delete(rec.key);
    r.finished.add(rec.key);
    r.unfinished--;
    for (const c of rec.children) if (--c.pending === 0) r.ready[c.slot].push(c);
    rec.children = [];
  }

  private checkAllDone(): void {
    const stuck = this.ranks.filter((r) => r.unfinished > 0);
    if (stuck.length === 0) return;
    const reasons: string[] = [];
    for (const inst of this.colls.values()) {
      const missing = inst.group.members.filter((_, m) => inst.recs[m] === undefined);
      reasons.push(`collective ${inst.first.op.coll} #${inst.key.split('#')[1]} of ${inst.key.split('#')[0] ? `group "${inst.key.split('#')[0]}"` : 'all ranks'} ` +
        `(rank ${inst.first.rank} node ${inst.first.rec.id}) never reached by rank(s) ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ' …' : ''}`);
      if (reasons.length >= 3) break;
    }
    for (const [k, box] of this.mail) {
      for (const w of box.recvs) reasons.push(`rank ${w.rank} node ${w.rec.id} waits for a message ${k} that is never sent`);
      if (reasons.length >= 6) break;
    }
    const r = stuck[0];
    if (reasons.length === 0) {
      const cycle = findCycle([...r.loaded.values()]);
      reasons.push(cycle
        ? `${r.file}: dependency cycle ${cycle.map((x) => x.id).join(' → ')} → ${cycle[0].id}`
        : `${r.file}: nodes ${[...r.loaded.values()].slice(0, 3).map((x) => x.id).join(', ')} wait on parents that never finish`);
    }
    throw new InputError(`replay stalled at ${this.now} ns with ${stuck.reduce((a, x) => a + x.unfinished, 0)} unfinished node(s) on ${stuck.length} rank(s): ${reasons.join('; ')}`);
  }

  // ---------------------------------------------------------------- results

  private result(): ReplayResult {
    return summarizeRun(this.ranks.map((r) => ({
      rank: r.rank, file: r.file, finishNs: r.finishNs, gpuComputeNs: r.gpuNs, cpuComputeNs: r.cpuNs, commNs: r.commNs,
      remoteMemNs: r.memNs, wallNs: r.wallNs, overlapNs: r.gpuCommNs, bytesSentPerDim: r.bytesSentPerDim,
      memoryBytes: r.memoryBytes, computeJ: r.computeJ, memoryJ: r.memoryJ, networkJ: r.networkJ, nodes: r.nodes,
    })), {
      label: this.o.label ?? 'replay', network: this.o.network, power: this.o.power,
      bandwidthUnit: this.o.bandwidthUnit ?? 'astra-sim', events: this.eventCount, diagnostics: this.diag.summary(),
    });
  }
}

/** A dependency cycle among unfinished nodes (following parent → child edges), if there is one. */
function findCycle(nodes: Rec[]): Rec[] | null {
  const state = new Map<Rec, 1 | 2>();
  for (const root of nodes) {
    if (state.has(root)) continue;
    const path: Rec[] = [];
    const stack: { rec: Rec; i: number }[] = [{ rec: root, i: 0 }];
    state.set(root, 1);
    path.push(root);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.i < top.rec.children.length) {
        const c = top.rec.children[top.i++];
        const st = state.get(c);
        if (st === 1) return path.slice(path.indexOf(c));
        if (st === undefined) {
          state.set(c, 1);
          path.push(c);
          stack.push({ rec: c, i: 0 });
        }
      } else {
        state.set(top.rec, 2);
        path.pop();
        stack.pop();
      }
    }
  }
  return null;
}

/**
 * Discrete-event replay of all ranks of a Chakra trace, with ASTRA-sim's analytical
 * congestion-unaware semantics (docs/how-it-works.md, "Replay: conventions") and an energy breakdown.
 *
 * Workload layer: a node is ready when every data and ctrl parent has finished; each rank has one
 * GPU, one CPU and one comm slot (collectives, sends and remote-memory loads/stores share the comm
 * slot; receives take none); ready nodes of a slot are issued lowest id first. A collective runs on
 * each member from the moment that member issues it (the k-th collective of a rank on a group matches
 * the k-th of every other member), and each member finishes it at its own time (collective.ts). Sends
 * and receives both finish when the message arrives (a receive posted later finishes when posted).
 *
 * Memory: nodes are read per rank through a window (`windowNodes` unfinished nodes per rank) into
 * typed columns (node-table.ts, no object per node); finished nodes are dropped, only their ids are
 * kept (node-id-states.ts: about a bit per id when ids are dense). The replay is exact as long as no node beyond
 * the window could have started earlier than the window let it load; the default window (65,536 nodes
 * per rank) holds every trace the project is tested on whole.
 */
import { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import {
  checkSystemAgainstNetwork,
  type CommGroupConfig,
  type NetworkConfig,
  type PowerConfig,
  type RemoteMemoryConfig,
  type SystemConfig,
} from '../../formats/astra/index.js';
import { NodeClassifier } from './classify.js';
import { CollectiveModel } from './collective.js';
import { CollectiveMatcher, type CollInstance } from './collective-matching.js';
import { messageNeverSent } from './collective-sequence.js';
import { TimeQueue } from './heap.js';
import { FINISHED, NOT_SEEN } from './node-id-states.js';
import { makeCluster, p2pNs, type BandwidthUnit, type Cluster } from './network.js';
import { Category, NodeTable, OpKind, Resource, RESOURCES_IN_ISSUE_ORDER, type IdKey } from './node-table.js';
import { ByNameLedger, NodeRows, type NamedKind } from './by-name.js';
import {
  commPowerW,
  gpuNodeEnergyJ,
  networkEnergyJ,
  remoteMemoryEnergyJ,
  keptMemoryJ,
  wantedMemoryJ,
  type PowerSliceKind,
} from './ledger.js';
import { findRankClasses, type RankClasses } from './rank-classes.js';
import { SharedTables } from './shared-tables.js';
import { DecodedReplayNode, type ReplayNode } from './replay-node.js';
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
  /**
   * Per rank (by rank number), when it starts, ns: its nodes wait until then (an imported run's ranks at their
   * measured starts, load.ts measuredStartOffsets). Each rank's finishNs is then counted from its start. Absent: all at
   * 0.
   */
  rankStartNs?: number[];
  /**
   * Ranks with the same trace and peers in the same places (rank-classes.ts) are simulated once per class, when the
   * whole trace fits the window and no slices are asked for (default true; exact, and said in the diagnostics);
   * false simulates every rank.
   */
  identicalRanksOnce?: boolean;
  /**
   * Energy by node name (the result's byName rows), and the node names kept for it (default true). False leaves both
   * out, for callers that read only totals (sweep and study points): a generated LLM trace names most nodes apart
   * (micro-batch and layer in the name), and its tens of thousands of rows cost a third of such a replay. Names are
   * still kept for timelines (onSlice); without them, errors name a node by its file and id.
   */
  byName?: boolean;
}

const SLOT_NAMES: Slot[] = ['none', 'comm', 'gpu', 'cpu'];
/** By Category: the part of the modelled power a node drives (ledger.ts PowerTrack). */
const SLICE_KINDS: PowerSliceKind[] = ['none', 'gpu', 'cpu', 'mem', 'comm'];

interface RankState {
  rank: number;
  file: string;
  src: RankSource;
  /** Loads one node of this rank (the sink of src.readNodes; made at its first read). */
  loadNode: ((n: ReplayNode) => void) | null;
  /** No node of the rank starts before this, ns (ReplayOptions.rankStartNs). */
  startNs: number;
  exhausted: boolean;
  /** Touched by an event since it last issued (Replay.run). */
  dirty: boolean;
  nodes: NodeTable;
  /** Children loaded before a parent: parent id → child slots. */
  waitingOn: Map<IdKey, number[]>;
  /** Resource (index: Resource) busy. */
  busy: boolean[];
  unfinished: number;
  loadedNodes: number;
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
  /** Communication with no GPU compute; CPU with neither; remote memory with none of the three (ns). */
  commOnlyNs: number;
  hostOnlyNs: number;
  memOnlyNs: number;
  /**
   * Σ over communication-only time of dt / (communication nodes running): each such node's share, by difference
   * (by-name rows).
   */
  exposedClockNs: number;
  bytesSentPerDim: number[];
  memoryBytes: number;
  computeJ: number;
  memoryJ: number;
  networkJ: number;
}

/** A receive posted before its message: the rank and the node's slot. */
interface PostedRecv {
  rank: number;
  slot: number;
}

export async function replay(sources: RankSource[], opts: ReplayOptions): Promise<ReplayResult> {
  const sim = new Replay(sources, opts);
  return sim.run();
}

class Replay {
  private readonly diag: Diagnostics;
  private readonly cluster: Cluster;
  private readonly classifier: NodeClassifier;
  private readonly collectives: CollectiveMatcher;
  private readonly ranks: RankState[];
  /** The ranks simulated: all, or one per class of identical ranks. */
  private active: RankState[];
  private classes: RankClasses | null = null;
  /** A node finishing (a: rank, b: slot), or (payload) a collective finishing on all its members at the same ns. */
  private readonly events = new TimeQueue<CollInstance>();
  private pushed = 0;
  private now = 0;
  private eventCount = 0;
  /** Messages and posted receives per (source, destination, tag). */
  private readonly mail = new Map<number, Map<number, { arrivals: number[]; recvs: PostedRecv[] }>>();
  private readonly window: number;
  private readonly netPj: number[];
  /** Energy and time by kernel / op name and collective (by-name.ts). */
  private readonly byName = new ByNameLedger();
  /** Whether the rows by name are kept (ReplayOptions.byName). */
  private readonly byNameWanted: boolean;
  private readonly rows: NodeRows;
  /** The view of a decoded node (sources of ChakraNode batches). */
  private readonly decoded = new DecodedReplayNode();
  /** Ranks each simulated rank stands for (1 unless identical ranks are simulated once). */
  private weight: number[];

  constructor(
    sources: RankSource[],
    private readonly o: ReplayOptions,
  ) {
    this.diag = o.diagnostics ?? new Diagnostics();
    checkSystemAgainstNetwork(o.system, o.network, this.diag);
    this.cluster = makeCluster(o.network, o.bandwidthUnit ?? 'astra-sim');
    this.window = Math.max(16, o.windowNodes ?? 65_536);
    this.byNameWanted = o.byName !== false;
    if (sources.length !== this.cluster.totalNpus) {
      throw new InputError(
        `the trace has ${sources.length} rank file(s) but ${o.network.file} describes ${this.cluster.totalNpus} NPUs ` +
          `(npus_count [${o.network.dims.map((d) => d.npus).join(', ')}]): give one <prefix>.<rank>.et per NPU`,
      );
    }
    sources.forEach((s, i) => {
      if (s.rank !== i)
        throw new InputError(
          `rank files must be numbered 0..${sources.length - 1}; rank ${i} is missing (found ${s.file} as rank ` +
            `${s.rank})`,
        );
    });
    if (o.power.network.length < this.cluster.dims.length) {
      throw new InputError(
        `${o.power.file}: network: has ${o.power.network.length} entries but ${o.network.file} has ` +
          `${this.cluster.dims.length} dimensions: give one energyPjPerBit per dimension`,
      );
    }
    this.netPj = this.cluster.dims.map((_, i) => o.power.network[i].energyPjPerBit);
    this.classifier = new NodeClassifier({
      system: o.system,
      memory: o.memory,
      commGroups: o.commGroups,
      networkFile: o.network.file,
      dims: this.cluster.dims.length,
      ranks: sources.length,
      diag: this.diag,
      keepNames: this.byNameWanted || o.onSlice !== undefined,
    });
    const model = new CollectiveModel(this.cluster, o.system, { equalArrivalShortcut: o.equalArrivalShortcut });
    this.collectives = new CollectiveMatcher(this.cluster, o.commGroups, model, ({ rank, slot }) => {
      const r = this.ranks[rank];
      return { file: r.file, nodeId: r.nodes.id(slot), name: this.classifier.names.name(r.nodes.nameId[slot]) };
    });
    const starts = o.rankStartNs;
    if (starts && (starts.length !== sources.length || starts.some((t) => !Number.isFinite(t) || t < 0))) {
      throw new InputError(
        `rank start times: need one finite time ≥ 0 ns per rank (${sources.length}), got [${starts.join(', ')}]`,
      );
    }
    this.rows = new NodeRows(this.byName, this.classifier.names);
    this.ranks = sources.map((src, i) => ({
      rank: src.rank,
      file: src.file,
      src,
      loadNode: null,
      startNs: starts?.[i] ?? 0,
      exhausted: false,
      dirty: false,
      nodes: new NodeTable(),
      waitingOn: new Map(),
      busy: [false, false, false, false],
      unfinished: 0,
      loadedNodes: 0,
      lastT: 0,
      gpuOn: false,
      cpuOn: false,
      commOn: 0,
      memOn: 0,
      finishNs: 0,
      gpuNs: 0,
      cpuNs: 0,
      commNs: 0,
      memNs: 0,
      wallNs: 0,
      gpuCommNs: 0,
      commOnlyNs: 0,
      hostOnlyNs: 0,
      memOnlyNs: 0,
      exposedClockNs: 0,
      bytesSentPerDim: new Array(this.cluster.dims.length).fill(0),
      memoryBytes: 0,
      computeJ: 0,
      memoryJ: 0,
      networkJ: 0,
    }));
    this.active = this.ranks;
    this.weight = this.ranks.map(() => 1);
  }

  async run(): Promise<ReplayResult> {
    const staggered = this.ranks.some((r) => r.startNs > 0);
    const classesWanted = this.o.identicalRanksOnce !== false && !this.o.onSlice && !staggered;
    // Ranks with the same nodes share one table while they load (shared-tables.ts); each simulated rank gets its own
    // back.
    const shared = classesWanted ? new SharedTables() : null;
    // The table a rank gave up for a shared one is the next rank's: no new room per rank.
    let spare: NodeTable | null = null;
    // Ranks mostly hold as many nodes and edges as the rank before: room for that many is made at once (no growth
    // step by step; a smaller rank gives the rest back when loaded, NodeTable.fit).
    let previous = 0;
    let previousEdges = 0;
    for (const r of this.ranks) {
      if (spare) {
        spare.clear();
        r.nodes = spare;
        spare = null;
      }
      r.nodes.reserve(Math.min(previous, this.window), previous <= this.window ? previousEdges : 0);
      await this.refill(r);
      if (r.exhausted) {
        previous = r.loadedNodes;
        previousEdges = r.nodes.edges;
      }
      if (shared && r.exhausted) {
        const kept = shared.offer(r.rank, r.nodes);
        if (kept !== r.nodes) spare = r.nodes;
        r.nodes = kept;
      }
    }
    if (classesWanted && this.ranks.every((r) => r.exhausted)) this.simulateClassesOnce(shared!);
    if (shared) for (const rank of shared.sharingRanks()) this.ranks[rank].nodes = shared.restore(rank);
    // A rank that starts later is woken then (an event of no node: slot -1).
    for (const r of this.ranks) if (r.startNs > 0) this.push(r.startNs, r.rank, -1);
    // Ranks touched since they last issued, in the order first touched: the first `dirtyCount` of an array, and a mark
    // (a Set per ns step, or emptying the array each step, cost more).
    const dirty: RankState[] = [];
    let dirtyCount = 0;
    const touch = (r: RankState) => {
      if (r.dirty) return;
      r.dirty = true;
      dirty[dirtyCount++] = r;
    };
    for (const r of this.active) touch(r);
    for (;;) {
      for (let i = 0; i < dirtyCount; i++) {
        const r = dirty[i];
        r.dirty = false;
        this.issue(r);
      }
      dirtyCount = 0;
      if (this.events.size === 0) {
        const starving = this.active.filter((r) => !r.exhausted);
        if (starving.length === 0) break;
        for (const r of starving) {
          await this.refill(r, true);
          touch(r);
        }
        continue;
      }
      const events = this.events;
      this.now = events.topTime();
      while (events.size > 0 && events.topTime() === this.now) {
        events.pop();
        this.eventCount++;
        const coll = events.payload;
        if (coll) {
          const { group, slots } = coll;
          for (let m = 0; m < slots.length; m++) {
            const r = this.ranks[group.members[m]];
            this.finish(r, slots[m]);
            touch(r);
          }
        } else {
          const r = this.ranks[events.a];
          if (events.b >= 0) this.finish(r, events.b);
          touch(r);
        }
      }
      for (let i = 0; i < dirtyCount; i++) {
        const r = dirty[i];
        if (!r.exhausted && r.unfinished < this.window / 2) await this.refill(r);
      }
      const wait = this.o.backpressure?.();
      if (wait) await wait;
    }
    this.checkAllDone();
    return this.result();
  }

  /**
   * With every trace loaded and nothing run: simulate one rank per class of identical ranks, if there are such. The
   * ranks left out stop sharing tables (`shared`); the simulated ones are given theirs back by the caller.
   */
  private simulateClassesOnce(shared: SharedTables): void {
    const classes = findRankClasses(
      this.ranks.map((r) => r.nodes),
      this.cluster,
      this.classifier,
      this.collectives,
      (rank, table, s) => shared.peerAt(rank, table, s),
    );
    if (!classes) return;
    this.classes = classes;
    this.active = classes.representatives.map((rank) => this.ranks[rank]);
    this.weight = this.ranks.map(() => 0);
    for (let rank = 0; rank < this.ranks.length; rank++) this.weight[classes.representatives[classes.classOf[rank]]]++;
    const simulated = new Set(this.active);
    // The ranks left out hold no nodes: one empty table stands for all of them.
    const empty = new NodeTable();
    for (const r of this.ranks) {
      if (simulated.has(r)) continue;
      r.nodes = empty;
      shared.forget(r.rank);
    }
    const n = this.ranks.length;
    const k = classes.representatives.length;
    this.diag.add('replay.identical-ranks-simulated-once', {
      message:
        `the ${n} ranks form ${k} class${k === 1 ? '' : 'es'} of ranks with the same trace and their peers in ` +
        `the same places; ` +
        `each class was simulated once (ranks ${classes.representatives.slice(0, 8).join(', ')}` +
        `${k > 8 ? ' …' : ''}) and its times given to all its members ` +
        '(exact: they run alike; the library option identicalRanksOnce: false simulates every rank)',
    });
  }

  // ---------------------------------------------------------------- loading

  private async refill(r: RankState, force = false): Promise<void> {
    while (!r.exhausted && (r.unfinished < this.window || force)) {
      if (!(await this.loadBatch(r))) {
        r.exhausted = true;
        this.dropDanglingDeps(r);
        // No node comes any more: the table needs no room beyond what it holds.
        r.nodes.fit();
        return;
      }
      force = false;
    }
  }

  /** Loads the rank's next batch of nodes; false when its trace has none left. */
  private async loadBatch(r: RankState): Promise<boolean> {
    const src = r.src;
    // Made at the rank's first read, not with the rank states: closures made over every rank state as the replay is
    // set up keep that state alive through two scavenges, which then promote it (a replay of a few nodes costs more).
    if (src.readNodes) return src.readNodes((r.loadNode ??= (n) => this.load(r, n)), this.classifier.memo);
    const batch = await src.nextBatch();
    if (batch === null) return false;
    r.nodes.reserve(batch.length);
    for (const n of batch) this.load(r, this.decoded.of(n));
    return true;
  }

  private load(r: RankState, n: ReplayNode): void {
    const key = n.key;
    const table = r.nodes;
    if (table.ids.get(key) !== NOT_SEEN) throw new InputError(`${r.file}: node id ${n.id} appears twice`);
    const s = table.add(key);
    this.classifier.classify(table, s, n, r.file);
    r.loadedNodes++;
    r.unfinished++;
    this.addParents(r, s, key, n, false);
    this.addParents(r, s, key, n, true);
    const waiters = r.waitingOn.size > 0 ? r.waitingOn.get(key) : undefined;
    if (waiters) {
      r.waitingOn.delete(key);
      for (const c of waiters) table.addChild(s, c);
    }
    if (table.pending[s] === 0) table.ready[table.resource[s]].push(s);
  }

  /**
   * Counts each unfinished parent among the node's data (`ctrl`: control) dependencies once: not again where listed
   * twice, nor a control dependency that is a data dependency too.
   */
  private addParents(r: RankState, s: number, key: IdKey, n: ReplayNode, ctrl: boolean): void {
    const table = r.nodes;
    const count = n.depCount(ctrl);
    const counted = ctrl ? n.depCount(false) : 0;
    for (let i = 0; i < count; i++) {
      const dk = n.depKey(ctrl, i);
      if (listed(n, ctrl, i, dk) || listed(n, false, counted, dk)) continue;
      const parent = table.ids.get(dk);
      if (parent === FINISHED) continue;
      if (dk === key) {
        const d = n.dep(ctrl, i);
        this.diag.add('replay.self-dependency', {
          file: r.file,
          nodeId: d,
          message: `${r.file}: node ${d} depends on itself; that dependency is ignored`,
        });
        continue;
      }
      table.pending[s]++;
      if (parent >= 0) table.addChild(parent, s);
      else {
        let w = r.waitingOn.get(dk);
        if (!w) r.waitingOn.set(dk, (w = []));
        w.push(s);
      }
    }
  }

  private dropDanglingDeps(r: RankState): void {
    const table = r.nodes;
    for (const [dk, waiters] of r.waitingOn) {
      for (const c of waiters) {
        this.diag.add('replay.missing-dependency', {
          file: r.file,
          nodeId: table.id(c),
          message:
            `${r.file}: node ${table.id(c)} depends on id ${dk}, which is not in the file; the dependency is ` +
            `ignored (ASTRA-sim stops on it)`,
        });
        if (--table.pending[c] === 0) table.ready[table.resource[c]].push(c);
      }
    }
    r.waitingOn.clear();
  }

  // ---------------------------------------------------------------- issuing

  private issue(r: RankState): void {
    if (this.now < r.startNs) return;
    const table = r.nodes;
    for (const resource of RESOURCES_IN_ISSUE_ORDER) {
      const heap = table.ready[resource];
      while (heap.size > 0 && (resource === Resource.None || !r.busy[resource])) this.start(r, heap.pop());
    }
  }

  private push(t: number, rank: number, slot: number, coll: CollInstance | null = null): void {
    // Events at the same ns run in the order they were pushed.
    this.events.push(t, this.pushed++, rank, slot, coll);
  }

  private account(r: RankState): void {
    const dt = this.now - r.lastT;
    if (dt > 0) {
      const comm = r.commOn > 0;
      const mem = r.memOn > 0;
      if (comm) r.commNs += dt;
      if (mem) r.memNs += dt;
      if (r.gpuOn && comm) r.gpuCommNs += dt;
      if (r.gpuOn || r.cpuOn || comm || mem) r.wallNs += dt;
      // The ledger's time split (ledger.ts rankTimeSplit): GPU compute, then communication, host, remote memory.
      if (!r.gpuOn) {
        if (comm) {
          r.commOnlyNs += dt;
          r.exposedClockNs += dt / r.commOn;
        } else if (r.cpuOn) r.hostOnlyNs += dt;
        else if (mem) r.memOnlyNs += dt;
      }
    }
    r.lastT = this.now;
  }

  private setActive(r: RankState, category: number, delta: 1 | -1): void {
    this.account(r);
    switch (category) {
      case Category.Gpu:
        r.gpuOn = delta > 0;
        break;
      case Category.Cpu:
        r.cpuOn = delta > 0;
        break;
      case Category.Comm:
        r.commOn += delta;
        break;
      case Category.Mem:
        r.memOn += delta;
        break;
    }
  }

  private start(r: RankState, s: number): void {
    const table = r.nodes;
    const resource = table.resource[s];
    if (resource !== Resource.None) r.busy[resource] = true;
    table.startNs[s] = this.now;
    this.setActive(r, table.category[s], 1);
    table.exposedMark[s] = r.exposedClockNs;
    switch (table.op[s]) {
      case OpKind.Fixed:
        this.push(this.now + table.amount[s], r.rank, s);
        return;
      case OpKind.Send: {
        const peer = table.peer[s];
        const bytes = table.amount[s];
        const { ns, dim } = p2pNs(this.cluster, r.rank, peer, bytes);
        const arrival = this.now + ns;
        table.netBytesPerDim[s] = this.cluster.dims.map((_, i) => (i === dim && peer !== r.rank ? bytes : 0));
        this.push(arrival, r.rank, s);
        const box = this.mailbox(this.meetingPoint(r.rank), this.meetingPoint(peer), table.aux[s]);
        const waiting = box.recvs.shift();
        if (waiting)
          this.push(
            Math.max(arrival, this.ranks[waiting.rank].nodes.startNs[waiting.slot]),
            waiting.rank,
            waiting.slot,
          );
        else box.arrivals.push(arrival);
        return;
      }
      case OpKind.Recv: {
        const box = this.mailbox(this.meetingPoint(table.peer[s]), this.meetingPoint(r.rank), table.aux[s]);
        const arrival = box.arrivals.shift();
        if (arrival !== undefined) this.push(Math.max(arrival, this.now), r.rank, s);
        else box.recvs.push({ rank: r.rank, slot: s });
        return;
      }
      case OpKind.Collective: {
        const spec = this.classifier.specs[table.peer[s]];
        if (this.classes) {
          // Every member is this rank's class, issuing it now too.
          const alone = this.collectives.issuedByAll(r.rank, spec, table.amount[s], this.now);
          table.netBytesPerDim[s] = alone.bytesSentPerDim;
          this.push(alone.finishNs, r.rank, s);
          return;
        }
        const done = this.collectives.arrive(r.rank, s, spec, table.amount[s], this.now);
        if (!done) return;
        const { inst, plan, finishNs, together } = done;
        const members = inst.group.members;
        for (let m = 0; m < members.length; m++)
          this.ranks[members[m]].nodes.netBytesPerDim[inst.slots[m]] = plan.bytesSentPerDim[m];
        // One event when all members finish at the same ns (equal arrivals), else one per member.
        if (together) this.push(finishNs[0], -1, -1, inst);
        else for (let m = 0; m < members.length; m++) this.push(finishNs[m], members[m], inst.slots[m]);
      }
    }
  }

  /** Where messages of `rank` meet: the rank, or its class when classes are simulated once. */
  private meetingPoint(rank: number): number {
    return this.classes ? this.classes.classOf[rank] : rank;
  }

  private mailbox(src: number, dst: number, tag: number) {
    const pair = src * this.ranks.length + dst;
    let byTag = this.mail.get(pair);
    if (!byTag) this.mail.set(pair, (byTag = new Map()));
    let b = byTag.get(tag);
    if (!b) byTag.set(tag, (b = { arrivals: [], recvs: [] }));
    return b;
  }

  // ---------------------------------------------------------------- finishing

  private finish(r: RankState, s: number): void {
    const table = r.nodes;
    const category = table.category[s];
    const resource = table.resource[s];
    this.setActive(r, category, -1);
    if (resource !== Resource.None) r.busy[resource] = false;
    const startNs = table.startNs[s];
    const dur = this.now - startNs;
    r.finishNs = Math.max(r.finishNs, this.now);
    const power = this.o.power;
    const memBytes = table.op[s] === OpKind.Fixed ? table.aux[s] : 0;
    // The node's own energy (J), for the timeline: a GPU node's (compute + memory), or its network / remote-memory
    // energy.
    let energyJ = 0;
    if (category === Category.Gpu) {
      r.gpuNs += dur;
      energyJ = gpuNodeEnergyJ(table.energyJ[s], dur, power);
      // splitNodeEnergy, without an object per node.
      const wantedJ = wantedMemoryJ(table.energyMemoryJ[s], memBytes, power.memory.energyPjPerBit);
      const memoryJ = keptMemoryJ(energyJ, wantedJ);
      const computeJ = energyJ - memoryJ;
      if (memoryJ !== wantedJ) this.memoryClamped(r, s, energyJ, memoryJ);
      r.computeJ += computeJ;
      r.memoryJ += memoryJ;
      r.memoryBytes += memBytes;
      this.addToNamed('kernel', r, s, dur, computeJ, memoryJ, 0);
    } else if (category === Category.Cpu) {
      r.cpuNs += dur;
      r.memoryBytes += memBytes;
      this.addToNamed('cpu', r, s, dur, 0, 0, (power.hostPowerWPerRank ?? 0) * dur * 1e-9);
    } else if (category === Category.Mem) {
      r.memoryBytes += memBytes;
      energyJ = remoteMemoryEnergyJ(memBytes, power);
      r.memoryJ += energyJ;
      this.addToNamed('remote-memory', r, s, dur, 0, energyJ, 0);
    }
    const net = table.netBytesPerDim[s];
    let nodeNetworkJ = 0;
    if (net) {
      for (let i = 0; i < net.length; i++) r.bytesSentPerDim[i] += net[i];
      nodeNetworkJ = networkEnergyJ(net, this.netPj);
      r.networkJ += nodeNetworkJ;
      energyJ += nodeNetworkJ;
    }
    if (category === Category.Comm) this.commByName(r, s, dur, nodeNetworkJ);
    const key = table.key(s);
    if (this.o.onSlice) {
      this.o.onSlice({
        // Counted from the rank's start, as its finishNs is (so the timeline's power integrates to the ledger's
        // energy).
        rank: r.rank,
        slot: SLOT_NAMES[resource],
        nodeId: table.id(s),
        name: this.classifier.names.name(table.nameId[s]),
        startNs: startNs - r.startNs,
        endNs: this.now - r.startNs,
        kind: SLICE_KINDS[category],
        powerW: dur > 0 ? energyJ / (dur * 1e-9) : 0,
      });
    }
    r.unfinished--;
    table.releaseChildren(s);
    table.remove(s, key);
  }

  /** Adds a kernel's, host node's or remote-memory node's time and energy (J) to the row of its kind and name. */
  private addToNamed(
    kind: NamedKind,
    r: RankState,
    s: number,
    durNs: number,
    computeJ: number,
    memoryJ: number,
    hostJ: number,
  ): void {
    if (!this.byNameWanted) return;
    const row = this.rows.named(kind, r.nodes.nameId[s]);
    this.byName.addTo(row, durNs, this.weight[r.rank], computeJ, memoryJ, 0, 0, hostJ);
  }

  /** A communication node's row: its network energy and its share of the communication-only time at gpu.commPowerW. */
  private commByName(r: RankState, s: number, durNs: number, networkJ: number): void {
    if (!this.byNameWanted) return;
    const table = r.nodes;
    const op = table.op[s];
    let row: number;
    if (op === OpKind.Collective) {
      const spec = table.peer[s];
      const { coll, group } = this.classifier.specs[spec];
      row = this.rows.collective(spec, coll, group, table.amount[s]);
    } else {
      row = this.rows.p2pRow(op === OpKind.Send, table.amount[s]);
    }
    const exposedNs = r.exposedClockNs - table.exposedMark[s];
    this.byName.addTo(
      row,
      durNs,
      this.weight[r.rank],
      0,
      0,
      commPowerW(this.o.power.gpu) * exposedNs * 1e-9,
      networkJ,
      0,
    );
  }

  /** A GPU node whose DRAM part would exceed its energy: memory takes the whole node (counted, named). */
  private memoryClamped(r: RankState, s: number, nodeJ: number, memoryJ: number): void {
    const table = r.nodes;
    const attr = table.energyMemoryJ[s];
    this.diag.add('replay.memory-energy-exceeds-node', {
      file: r.file,
      nodeId: table.id(s),
      message:
        `${r.file}: node ${table.id(s)}: its DRAM energy (` +
        (Number.isNaN(attr)
          ? `tensor_size ${table.aux[s]} B × ${this.o.power.memory.energyPjPerBit} pJ/bit`
          : `energy_memory_j ${attr} J`) +
        `) ` +
        `is outside [0, the node's energy ${nodeJ} J]: memory counted as ${memoryJ} J, compute as the rest`,
    });
  }

  private checkAllDone(): void {
    const stuck = this.active.filter((r) => r.unfinished > 0);
    if (stuck.length === 0) return;
    const reasons: string[] = [];
    const nodeId = (rank: number, slot: number) => this.ranks[rank].nodes.id(slot);
    for (const inst of this.collectives.unfinished()) {
      const missing = inst.group.members.filter((_, m) => inst.slots[m] < 0);
      reasons.push(
        `collective ${inst.spec.coll} #${inst.ordinal} of ` +
          `${inst.group.key ? `group "${inst.group.key}"` : 'all ranks'} ` +
          `(rank ${inst.first.rank} node ${nodeId(inst.first.rank, inst.first.slot)}) never reached by rank(s) ` +
          `${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ' …' : ''}`,
      );
      if (reasons.length >= 3) break;
    }
    for (const [pair, byTag] of this.mail) {
      const src = Math.floor(pair / this.ranks.length);
      for (const [tag, box] of byTag) {
        for (const w of box.recvs) reasons.push(messageNeverSent(w.rank, nodeId(w.rank, w.slot), src, tag));
      }
      if (reasons.length >= 6) break;
    }
    const r = stuck[0];
    if (reasons.length === 0) {
      const table = r.nodes;
      const loaded = table.loadedSlots();
      const cycle = findCycle(loaded, (s) => table.children(s));
      reasons.push(
        cycle
          ? `${r.file}: dependency cycle ${cycle.map((s) => table.id(s)).join(' → ')} → ${table.id(cycle[0])}`
          : `${r.file}: nodes ${loaded
              .slice(0, 3)
              .map((s) => table.id(s))
              .join(', ')} wait on parents that never finish`,
      );
    }
    throw new InputError(
      `replay stalled at ${this.now} ns with ${stuck.reduce((a, x) => a + x.unfinished, 0)} unfinished node(s) ` +
        `on ${stuck.length} rank(s): ${reasons.join('; ')}`,
    );
  }

  // ---------------------------------------------------------------- results

  private result(): ReplayResult {
    const classes = this.classes;
    const res = summarizeRun(
      this.ranks.map(({ rank, file, loadedNodes }) => {
        // A member of a class simulated once has its representative's times.
        const r = classes ? this.ranks[classes.representatives[classes.classOf[rank]]] : this.ranks[rank];
        const started = this.ranks[rank].startNs;
        return {
          rank,
          file,
          finishNs: Math.max(0, r.finishNs - started),
          ...(this.o.rankStartNs ? { startOffsetNs: started } : {}),
          gpuComputeNs: r.gpuNs,
          cpuComputeNs: r.cpuNs,
          commNs: r.commNs,
          remoteMemNs: r.memNs,
          wallNs: r.wallNs,
          overlapNs: r.gpuCommNs,
          commOnlyNs: r.commOnlyNs,
          hostOnlyNs: r.hostOnlyNs,
          remoteMemOnlyNs: r.memOnlyNs,
          bytesSentPerDim: [...r.bytesSentPerDim],
          memoryBytes: r.memoryBytes,
          computeJ: r.computeJ,
          memoryJ: r.memoryJ,
          networkJ: r.networkJ,
          nodes: loadedNodes,
        };
      }),
      {
        label: this.o.label ?? 'replay',
        network: this.o.network,
        power: this.o.power,
        bandwidthUnit: this.o.bandwidthUnit ?? 'astra-sim',
        events: this.eventCount,
        diagnostics: this.diag.summary(),
        computeBand: this.classifier.bands.sums(),
        durationSources: { ...this.classifier.durationSources },
      },
    );
    const idleNs = res.ranks.reduce((a, x) => a + Math.max(0, res.makespanNs - x.gpuComputeNs - x.exposedCommNs), 0);
    if (this.byNameWanted)
      res.byName = this.byName.rows(
        { energyJ: res.energyJ.idle, timeNs: idleNs },
        res.makespanNs,
        res.ranks.length,
        this.o.power.networkIdlePowerWPerRank,
      );
    return res;
  }
}

/** The dependency `d` occurs among the node's data (`ctrl`: control) dependencies before index `end`. */
function listed(n: ReplayNode, ctrl: boolean, end: number, d: IdKey): boolean {
  for (let i = 0; i < end; i++) if (n.depKey(ctrl, i) === d) return true;
  return false;
}

/** A dependency cycle among unfinished nodes (following parent → child edges), if there is one. */
function findCycle(nodes: number[], childrenOf: (s: number) => number[]): number[] | null {
  const state = new Map<number, 1 | 2>();
  for (const root of nodes) {
    if (state.has(root)) continue;
    const path: number[] = [];
    const stack: { node: number; children: number[]; i: number }[] = [{ node: root, children: childrenOf(root), i: 0 }];
    state.set(root, 1);
    path.push(root);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.i < top.children.length) {
        const c = top.children[top.i++];
        const st = state.get(c);
        if (st === 1) return path.slice(path.indexOf(c));
        if (st === undefined) {
          state.set(c, 1);
          path.push(c);
          stack.push({ node: c, children: childrenOf(c), i: 0 });
        }
      } else {
        state.set(top.node, 2);
        path.pop();
        stack.pop();
      }
    }
  }
  return null;
}

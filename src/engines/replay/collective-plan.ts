/**
 * What one collective does in ASTRA-sim's system layer (astra-sim 518bd51, Sys::generate_collective and the native
 * algorithms in system/astraccl/native_collectives), turned into data the per-rank timing runs on:
 * - the collective is cut into chunks of ⌊size / preferred-dataset-splits⌋ bytes (at least one byte per NPU for
 *   non-all-gathers, whose size is then rounded up to splits × NPUs: an empty all-reduce still sends those bytes and
 *   takes their latency, as in ASTRA-sim); every chunk is a stream with the same list of phases. An empty all-gather
 *   makes no stream in ASTRA-sim and is never finished: refused;
 * - localBWAware all-reduce: reduce-scatter on every involved dimension but the last, all-reduce on the last,
 *   all-gather back in reverse order (the all-gathers ring the other way round); baseline and the other
 *   collectives: the same collective on each involved dimension, all-gathers in descending dimension order, each
 *   phase's output size feeding the next;
 * - a comm group smaller than the cluster is one ring over its members in file order: ring, or the system's single
 *   implementation on a 1-D network; its memory-bus delay is ASTRA-sim's fixed 10 ns of a "Local" ring instead
 *   of the endpoint delay;
 * - per phase, the step program of the algorithm: who each position sends to, the message sizes, and the delay
 *   after each receive (memory bus, plus the reduction 3·⌊bytes / local-mem-bw⌋ ns where ASTRA-sim processes
 *   the packet), found by replaying the algorithm's packet counters (`insert_packet`).
 * Members are numbered by their index in the collective's member list; every plan is independent of time.
 */
import { InputError } from '../../errors.js';
import { EMPTY_ALL_GATHER } from '../../formats/chakra/node-values.js';
import { type CollectiveImplName, IMPL_KEYS, type SystemConfig } from '../../formats/astra/index.js';
import type { CollectiveKind } from '../../vocab/collectives.js';
import { hopsInDim, messageNs, p2pNs, type Cluster } from './network.js';

/** ASTRA-sim's MemBus delay on a comm group's ring (RingTopology::Dimension::Local, Transmition::Fast). */
const LOCAL_RING_BUS_NS = 10;

export interface RingProgram {
  impl: 'ring';
  steps: number;
  msgBytes: number;
  /** ns from the k-th receive to the next send (or to the end of the phase after the last). */
  delayAfterNs: Float64Array;
}

export interface DirectProgram {
  impl: 'direct';
  /** 1, or 2 for all-reduce (reduce round, then gather round). */
  rounds: number;
  msgBytes: number;
  /** ns from the k-th receive (in time order, both rounds) to its bus event. */
  delayAfterNs: Float64Array;
}

export interface HalvingDoublingProgram {
  impl: 'halvingDoubling';
  steps: number;
  /** Partner of position x at step k: x XOR offsets[k]. */
  offsets: Int32Array;
  sizes: Float64Array;
  delayAfterNs: Float64Array;
}

export type StepProgram = RingProgram | DirectProgram | HalvingDoublingProgram;

export interface PhaseSpec {
  kind: CollectiveKind;
  program: StepProgram;
  /** Queue (dimension) the phase waits in on each rank. */
  queue: number;
  /** Ring direction: clockwise sends to position x + 1, anticlockwise to x − 1. */
  clockwise: boolean;
  /** ns between a stream's start and its first send. */
  busNs: number;
  groupSize: number;
  /** groups[g][x]: the member at ring position x of group g. */
  groups: Int32Array[];
  groupOf: Int32Array;
  positionOf: Int32Array;
  /**
   * linkNs[g][l][x]: ns of a message into position x of group g, for link l: ring: l = 0 (from the predecessor);
   * halving-doubling: l = step; direct: l = offset − 1 (from the position `offset` behind).
   */
  linkNs: Float64Array[][];
}

export interface CollectivePlan {
  chunks: number;
  phases: PhaseSpec[];
  /** Bytes each member sends per network dimension over the whole collective. */
  bytesSentPerDim: number[][];
}

export interface PlanRequest {
  kind: CollectiveKind;
  bytes: number;
  /** Physical dimensions used (undefined = all); ignored for comm groups. */
  involvedDims?: boolean[];
  /** Member ranks; the order is the ring order of a comm group. */
  members: readonly number[];
  /** True for a pg_name comm group smaller than the cluster: one ring over `members`. */
  commGroup: boolean;
}

const IMPL_KEY = IMPL_KEYS;

/**
 * The refusal of a collective whose kind the system gives no implementation for (ASTRA-sim throws "No collective
 * implementation found"), or null: replay's collective plans and export's repairs say it alike.
 */
export function missingImplementation(sys: SystemConfig, kind: CollectiveKind): string | null {
  return sys.implementations[kind]
    ? null
    : `${sys.file}: the trace has a ${kind} collective but "${IMPL_KEY[kind]}" is missing`;
}

/** Where a phase runs: a physical dimension over the members, or a comm group's ring. */
interface PhaseSite {
  impl: CollectiveImplName;
  queue: number;
  dim: number;
  groups: Int32Array[];
  groupOf: Int32Array;
  positionOf: Int32Array;
  busNs: number;
  /** ns of a message of `bytes` from position `from` to position `to` of group `g`; uniform over g on a dimension. */
  messageNs(g: number, from: number, to: number, bytes: number): number;
  /** Dimension a message from position `from` to `to` of group g travels on. */
  dimOf(g: number, from: number, to: number): number;
  uniform: boolean;
}

export class PlanBuilder {
  constructor(
    private readonly cluster: Cluster,
    private readonly sys: SystemConfig,
  ) {}

  build(req: PlanRequest): CollectivePlan {
    const dims = this.cluster.dims.length;
    const bytesSentPerDim = req.members.map(() => new Array<number>(dims).fill(0));
    let size = req.bytes;
    if (size < 0 || (size === 0 && req.kind === 'ALL_GATHER')) {
      throw new InputError(size < 0 ? `a collective of ${size} bytes: comm_size must be ≥ 0 bytes` : EMPTY_ALL_GATHER);
    }
    const splits = this.sys.preferredDatasetSplits;
    let chunk = Math.floor(size / splits);
    if (req.kind !== 'ALL_GATHER' && this.cluster.totalNpus > chunk) {
      chunk = this.cluster.totalNpus;
      size = splits * chunk;
    }
    if (chunk === 0) chunk = 1;
    const chunks = Math.ceil(size / chunk);
    const phases = this.phases(req, chunk, bytesSentPerDim);
    for (const row of bytesSentPerDim) for (let d = 0; d < dims; d++) row[d] *= chunks;
    return { chunks: phases.length ? chunks : 0, phases, bytesSentPerDim };
  }

  private impl(kind: CollectiveKind, dim: number): CollectiveImplName {
    const missing = missingImplementation(this.sys, kind);
    if (missing) throw new InputError(missing);
    const list = this.sys.implementations[kind]!;
    const v = list[dim];
    if (!v) throw new InputError(`${this.sys.file}: "${IMPL_KEY[kind]}" has no entry for dimension ${dim}`);
    return v;
  }

  private phases(req: PlanRequest, chunkBytes: number, sent: number[][]): PhaseSpec[] {
    const out: PhaseSpec[] = [];
    let size = chunkBytes;
    const add = (kind: CollectiveKind, site: PhaseSite, clockwise: boolean) => {
      const { spec, outBytes } = this.phase(kind, site, size, clockwise, sent);
      out.push(spec);
      size = outBytes;
    };
    if (req.commGroup) {
      if (req.members.length <= 1) return out;
      add(req.kind, this.groupSite(req), true);
      return out;
    }
    const sites = this.dimensionSites(req);
    if (req.kind === 'ALL_REDUCE' && this.sys.collectiveOptimization === 'localBWAware' && sites.length > 1) {
      for (let i = 0; i < sites.length - 1; i++) add('REDUCE_SCATTER', sites[i], true);
      add('ALL_REDUCE', sites[sites.length - 1], true);
      for (let i = sites.length - 2; i >= 0; i--) add('ALL_GATHER', sites[i], false);
    } else {
      const ordered = req.kind === 'ALL_GATHER' ? [...sites].reverse() : sites;
      for (const s of ordered) add(req.kind, s, true);
    }
    return out;
  }

  /** One site per involved dimension with more than one NPU; members are grouped by their other coordinates. */
  private dimensionSites(req: PlanRequest): PhaseSite[] {
    const c = this.cluster;
    const members = req.members;
    const indexOfRank = new Map<number, number>();
    members.forEach((r, i) => indexOfRank.set(r, i));
    const out: PhaseSite[] = [];
    let stride = 1;
    c.dims.forEach((d, dim) => {
      const here = stride;
      stride *= d.npus;
      if (d.npus === 1 || (req.involvedDims && !req.involvedDims[dim])) return;
      const impl = this.impl(req.kind, dim);
      const groupOf = new Int32Array(members.length).fill(-1);
      const positionOf = new Int32Array(members.length);
      const groups: Int32Array[] = [];
      members.forEach((rank, i) => {
        if (groupOf[i] >= 0) return;
        const coord = Math.floor(rank / here) % d.npus;
        const base = rank - coord * here;
        const g = new Int32Array(d.npus);
        for (let x = 0; x < d.npus; x++) {
          const m = indexOfRank.get(base + x * here);
          if (m === undefined) throw new Error(`collective members miss rank ${base + x * here} of dimension ${dim}`);
          g[x] = m;
          groupOf[m] = groups.length;
          positionOf[m] = x;
        }
        groups.push(g);
      });
      out.push({
        impl,
        queue: dim,
        dim,
        groups,
        groupOf,
        positionOf,
        busNs: this.sys.endpointDelayNs,
        uniform: true,
        messageNs: (_g, from, to, bytes) => messageNs(c, dim, hopsInDim(d, from, to), bytes),
        dimOf: () => dim,
      });
    });
    return out;
  }

  private groupSite(req: PlanRequest): PhaseSite {
    const c = this.cluster;
    const members = req.members;
    const missing = missingImplementation(this.sys, req.kind);
    if (missing) throw new InputError(missing);
    const list = this.sys.implementations[req.kind]!;
    // ASTRA-sim (CommunicatorGroup::get_collective_plan) keeps a single implementation, else falls back to ring.
    const impl = list.length > 1 ? 'ring' : list[0];
    const g = Int32Array.from(members, (_, i) => i);
    return {
      impl,
      queue: 0,
      dim: -1,
      groups: [g],
      groupOf: new Int32Array(members.length),
      positionOf: g,
      busNs: LOCAL_RING_BUS_NS,
      uniform: false,
      messageNs: (_g, from, to, bytes) => p2pNs(c, members[from], members[to], bytes).ns,
      dimOf: (_g, from, to) => p2pNs(c, members[from], members[to], 0).dim,
    };
  }

  private reductionNs(bytes: number): number {
    // PacketBundle::call: three passes of size / local_mem_bw (B/s) × 1e9, each truncated to whole ns.
    return 3 * Math.trunc((bytes / (this.sys.localMemBandwidthGBps * 1e9)) * 1e9);
  }

  private phase(
    kind: CollectiveKind,
    site: PhaseSite,
    inBytes: number,
    clockwise: boolean,
    sent: number[][],
  ): { spec: PhaseSpec; outBytes: number } {
    const p = site.groups[0].length;
    const outBytes =
      kind === 'REDUCE_SCATTER' ? Math.floor(inBytes / p) : kind === 'ALL_GATHER' ? inBytes * p : inBytes;
    const step = clockwise ? 1 : p - 1;
    // Message ns into each position, per group; on a dimension every group has the same times and shares one array.
    const links = (fromOf: (x: number) => number, bytes: number): Float64Array[] => {
      const one = (g: number) => Float64Array.from({ length: p }, (_v, x) => site.messageNs(g, fromOf(x), x, bytes));
      if (!site.uniform) return site.groups.map((_, g) => one(g));
      const shared = one(0);
      return site.groups.map(() => shared);
    };
    const red = (b: number) => this.reductionNs(b);
    const { program, linkNs, sends } = ALGORITHMS[site.impl]({
      kind,
      site,
      p,
      step,
      inBytes,
      links,
      red,
      file: this.sys.file,
    });
    site.groups.forEach((members, g) =>
      members.forEach((m, x) => {
        for (const [to, bytes] of sends(x)) sent[m][site.dimOf(g, x, to)] += bytes;
      }),
    );
    return {
      spec: {
        kind,
        program,
        queue: site.queue,
        clockwise,
        busNs: site.busNs,
        groupSize: p,
        groups: site.groups,
        groupOf: site.groupOf,
        positionOf: site.positionOf,
        linkNs,
      },
      outBytes,
    };
  }
}

/** What a collective algorithm gets to lay out one phase: the group, its size, the ring direction, the links. */
interface PhaseInput {
  kind: CollectiveKind;
  site: PhaseSite;
  p: number;
  /** Position offset of the next member: 1 clockwise, p − 1 anticlockwise. */
  step: number;
  inBytes: number;
  /** Message ns into each position, per group, for messages from `fromOf(x)` of `bytes`. */
  links: (fromOf: (x: number) => number, bytes: number) => Float64Array[];
  /** ns of reducing `bytes` in local memory. */
  red: (bytes: number) => number;
  file: string;
}

/** One phase's step program, its link times ([group][step] → per position) and what each position sends. */
interface PhaseLayout {
  program: StepProgram;
  linkNs: Float64Array[][];
  /** Messages position x sends: [to position, bytes]. */
  sends: (x: number) => [number, number][];
}

/**
 * ASTRA-sim's native collective algorithms, one entry each; a name added to CollectiveImplName without an entry here
 * (and a case in PhaseTimer.run) does not compile.
 */
const ALGORITHMS: Record<CollectiveImplName, (input: PhaseInput) => PhaseLayout> = {
  ring({ kind, site, p, step, inBytes, links, red }) {
    const program = ringProgram(kind, p, inBytes, site.busNs, red);
    const perGroup = links((x) => (x + p - step) % p, program.msgBytes);
    const { steps, msgBytes } = program;
    return { program, linkNs: perGroup.map((a) => [a]), sends: (x) => [[(x + step) % p, steps * msgBytes]] };
  },
  direct({ kind, site, p, step, inBytes, links, red }) {
    const program = directProgram(kind, p, inBytes, site.busNs, !site.uniform, red);
    const { msgBytes, rounds } = program;
    const byOffset = Array.from({ length: p - 1 }, (_, k) =>
      links((x) => (x + p - (((k + 1) * step) % p)) % p, msgBytes),
    );
    return {
      program,
      linkNs: site.groups.map((_, g) => byOffset.map((perGroup) => perGroup[g])),
      sends: (x) =>
        Array.from({ length: p - 1 }, (_, k) => [(x + (k + 1) * step) % p, rounds * msgBytes] as [number, number]),
    };
  },
  halvingDoubling({ kind, site, p, inBytes, links, red, file }) {
    if ((p & (p - 1)) !== 0) {
      throw new InputError(`${file}: halvingDoubling needs a power-of-two number of NPUs in a dimension, found ${p}`);
    }
    if (kind === 'ALL_TO_ALL') {
      throw new InputError(`${file}: "all-to-all-implementation" halvingDoubling is not modelled; use ring or direct`);
    }
    const program = halvingDoublingProgram(kind, p, inBytes, site.busNs, red);
    const bySteps = Array.from({ length: program.steps }, (_, k) =>
      links((x) => x ^ program.offsets[k], program.sizes[k]),
    );
    return {
      program,
      linkNs: site.groups.map((_, g) => bySteps.map((perGroup) => perGroup[g])),
      sends: (x) =>
        Array.from({ length: program.steps }, (_, k) => [x ^ program.offsets[k], program.sizes[k]] as [number, number]),
    };
  },
};
/**
 * The packet counters of ASTRA-sim's Ring/AllToAll/HalvingDoubling `insert_packet`: every stream start inserts
 * `perBlock` packets and every receive one more; packets come in blocks of `perBlock` unprocessed ("zero latency")
 * then `processedPerBlock` that are reduced when the collective reduces in that block (reduce-scatter always,
 * all-reduce on every other block). Returns, per insert after the stream start's, whether it is reduced.
 */
function reducedInserts(
  kind: CollectiveKind,
  perBlock: number,
  processedPerBlock: number,
  receives: number,
): boolean[] {
  let zero = 0;
  let nonZero = 0;
  let toggle = false;
  const insert = (): boolean => {
    if (zero === 0 && nonZero === 0) {
      zero = perBlock;
      nonZero = processedPerBlock;
      toggle = !toggle;
    }
    if (zero > 0) {
      zero--;
      return false;
    }
    nonZero--;
    return kind === 'REDUCE_SCATTER' || (kind === 'ALL_REDUCE' && toggle);
  };
  for (let i = 0; i < perBlock; i++) insert();
  return Array.from({ length: receives }, insert);
}

function ringProgram(
  kind: CollectiveKind,
  p: number,
  inBytes: number,
  busNs: number,
  red: (b: number) => number,
): RingProgram {
  const steps = kind === 'ALL_REDUCE' ? 2 * (p - 1) : kind === 'ALL_TO_ALL' ? (p * (p - 1)) / 2 : p - 1;
  return { impl: 'ring', steps, ...evenMessages(kind, p, inBytes, busNs, reducedInserts(kind, 1, p - 1, steps), red) };
}

function directProgram(
  kind: CollectiveKind,
  p: number,
  inBytes: number,
  busNs: number,
  localRing: boolean,
  red: (b: number) => number,
): DirectProgram {
  const rounds = kind === 'ALL_REDUCE' ? 2 : 1;
  // AllToAll::get_non_zero_latency_packets: (p − 1) per block, (p − 1)² on a Local ring.
  const reduced = reducedInserts(kind, p - 1, localRing ? (p - 1) * (p - 1) : p - 1, rounds * (p - 1));
  return { impl: 'direct', rounds, ...evenMessages(kind, p, inBytes, busNs, reduced, red) };
}

/**
 * Ring and direct send messages of one size, the input split p ways (all-gather: the whole input); each receive's
 * delay is the bus time, plus the message's reduction where that receive is reduced.
 */
function evenMessages(
  kind: CollectiveKind,
  p: number,
  inBytes: number,
  busNs: number,
  reduced: boolean[],
  red: (b: number) => number,
): { msgBytes: number; delayAfterNs: Float64Array } {
  const msgBytes = kind === 'ALL_GATHER' ? inBytes : Math.floor(inBytes / p);
  return { msgBytes, delayAfterNs: Float64Array.from(reduced, (r) => busNs + (r ? red(msgBytes) : 0)) };
}

/**
 * HalvingDoubling: partners 1, 2, 4 … apart with halving messages (gathers the other way round); a packet's
 * reduction is sized by the message it will send next, as in ASTRA-sim, where the bundle takes the current
 * msg_size after the partner and size have moved on.
 */
function halvingDoublingProgram(
  kind: CollectiveKind,
  p: number,
  inBytes: number,
  busNs: number,
  red: (b: number) => number,
): HalvingDoublingProgram {
  const log2p = Math.round(Math.log2(p));
  const steps = kind === 'ALL_REDUCE' ? 2 * log2p : log2p;
  const gather = kind === 'ALL_GATHER';
  let msg = gather ? inBytes : Math.floor(inBytes / 2);
  let offset = gather ? p / 2 : 1;
  let multiplier = gather ? 0.5 : 2;
  const reduced = reducedInserts(kind, 1, log2p - 1, steps);
  const offsets = new Int32Array(steps);
  const sizes = new Float64Array(steps);
  const delayAfterNs = new Float64Array(steps);
  // Insert 0 is the stream start's packet (message 1); insert k (the k-th receive's) makes message k + 1.
  for (let insert = 0; insert <= steps; insert++) {
    if (insert < steps) {
      offsets[insert] = offset;
      sizes[insert] = msg;
    }
    if (insert > 0) delayAfterNs[insert - 1] = busNs + (reduced[insert - 1] ? red(msg) : 0);
    offset = Math.trunc(offset * multiplier);
    msg = Math.trunc(msg / multiplier);
    if (offset === p && kind === 'ALL_REDUCE') {
      multiplier = 0.5;
      offset = Math.trunc(offset * multiplier);
      msg = Math.trunc(msg / multiplier);
    }
  }
  return { impl: 'halvingDoubling', steps, offsets, sizes, delayAfterNs };
}

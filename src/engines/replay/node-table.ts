/**
 * The loaded, unfinished nodes of one rank, in columns of typed arrays indexed by a slot number (no object per
 * node): what the replay needs of each node (its resource, its operation and sizes, energy, pending parents, its
 * children), the id → slot index, and per resource the ready nodes ordered by id. A finished node's slot is reused.
 * Node ids are kept as numbers when they fit a double exactly (they nearly always do); larger ids are kept as
 * bigints beside, so order and identity stay exact.
 */
import { NodeIdStates } from './node-id-states.js';
import { NO_NAME } from './names.js';

/** Resource a node occupies: the rank's GPU, CPU or comm slot, or none (receives, metadata). */
export enum Resource {
  None = 0,
  Comm = 1,
  Gpu = 2,
  Cpu = 3,
}
/** What a node's time and energy count as. */
export enum Category {
  None = 0,
  Gpu = 1,
  Cpu = 2,
  Mem = 3,
  Comm = 4,
}
export enum OpKind {
  Fixed = 0,
  Collective = 1,
  Send = 2,
  Recv = 3,
}

/** Issue order of the resources: receives first, then comm, GPU, CPU (as before the table existed). */
export const RESOURCES_IN_ISSUE_ORDER = [Resource.None, Resource.Comm, Resource.Gpu, Resource.Cpu] as const;

export type IdKey = number | string;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
export function idKey(id: bigint): IdKey {
  return id <= MAX_SAFE && id >= 0n ? Number(id) : id.toString();
}

const NO_SLOT = -1;

export class NodeTable {
  capacity = 0;
  /** The id as a number (exact up to 2^53; beyond, `bigIds` holds it). */
  idNumber = new Float64Array(0);
  resource = new Uint8Array(0);
  category = new Uint8Array(0);
  op = new Uint8Array(0);
  /** Fixed: duration ns; collective, send, receive: bytes. */
  amount = new Float64Array(0);
  /** Send/receive: the peer rank; collective: index of its spec (kind, involved dimensions, group). */
  peer = new Int32Array(0);
  /** Compute and remote-memory nodes: the bytes they move (tensor_size); send/receive: comm_tag. */
  aux = new Float64Array(0);
  /** energy_j of an annotated GPU node; NaN when absent. */
  energyJ = new Float64Array(0);
  /** energy_memory_j (the DRAM part of energy_j) of an annotated GPU node; NaN when absent. */
  energyMemoryJ = new Float64Array(0);
  startNs = new Float64Array(0);
  /** Communication nodes: the rank's exposed-communication clock when the node started (engine.ts, by-name rows). */
  exposedMark = new Float64Array(0);
  pending = new Int32Array(0);
  /** First child edge, or -1; edges chain through `edgeNext`. */
  firstEdge = new Int32Array(0);
  /** Node names as ids in the classifier's NameTable (timelines, energy by name); NO_NAME when not kept. */
  nameId = new Int32Array(0);
  /** Bytes the node sends per network dimension (comm nodes, once known). */
  netBytesPerDim: (number[] | undefined)[] = [];
  private readonly bigIds = new Map<number, bigint>();

  private edgeTarget = new Int32Array(0);
  private edgeNext = new Int32Array(0);
  private freeEdge = NO_SLOT;
  private freeEdgeCount = 0;
  private edgeCount = 0;
  /** Free slots chain through `pending` (slot → next free slot). */
  private freeSlot = NO_SLOT;
  private freeCount = 0;
  /** Slots ever handed out (the free ones included). */
  private used = 0;

  /** Every id of the rank: its slot while loaded, or finished. */
  ids = new NodeIdStates();
  /** Ready nodes per resource, lowest id first. */
  readonly ready: ReadyHeap[];

  constructor() {
    this.ready = [0, 1, 2, 3].map(() => new ReadyHeap(this));
  }

  /** A slot for a new node with id `key` (idKey), its columns reset. */
  add(key: IdKey): number {
    let s = this.freeSlot;
    if (s === NO_SLOT) {
      if (this.used === this.capacity) this.grow();
      s = this.used++;
    } else {
      this.freeSlot = this.pending[s];
      this.freeCount--;
    }
    if (typeof key === 'number') this.idNumber[s] = key;
    else {
      const id = BigInt(key);
      this.idNumber[s] = Number(id);
      this.bigIds.set(s, id);
    }
    this.resource[s] = Resource.None;
    this.category[s] = Category.None;
    this.op[s] = OpKind.Fixed;
    this.amount[s] = 0;
    this.peer[s] = 0;
    this.aux[s] = 0;
    this.energyJ[s] = NaN;
    this.energyMemoryJ[s] = NaN;
    this.startNs[s] = 0;
    this.exposedMark[s] = 0;
    this.pending[s] = 0;
    this.firstEdge[s] = NO_SLOT;
    this.nameId[s] = NO_NAME;
    this.ids.setLoaded(key, s);
    return s;
  }

  /** The node's id. */
  id(s: number): bigint {
    return (this.bigIds.size > 0 ? this.bigIds.get(s) : undefined) ?? BigInt(this.idNumber[s]);
  }

  key(s: number): IdKey {
    const big = this.bigIds.size > 0 ? this.bigIds.get(s) : undefined;
    return big === undefined ? this.idNumber[s] : big.toString();
  }

  /** Node `s` comes before node `t` in id order. */
  before(s: number, t: number): boolean {
    const a = this.idNumber[s];
    const b = this.idNumber[t];
    if (a !== b || this.bigIds.size === 0) return a < b;
    return this.id(s) < this.id(t);
  }

  addChild(parent: number, child: number): void {
    let e = this.freeEdge;
    if (e === NO_SLOT) {
      if (this.edgeCount === this.edgeTarget.length) this.growEdges();
      e = this.edgeCount++;
    } else {
      this.freeEdge = this.edgeNext[e];
      this.freeEdgeCount--;
    }
    this.edgeTarget[e] = child;
    this.edgeNext[e] = this.firstEdge[parent];
    this.firstEdge[parent] = e;
  }

  /** A parent finished: each child has one parent less, and is ready with none left; frees the edges. */
  releaseChildren(parent: number): void {
    let e = this.firstEdge[parent];
    this.firstEdge[parent] = NO_SLOT;
    while (e !== NO_SLOT) {
      const next = this.edgeNext[e];
      const child = this.edgeTarget[e];
      if (--this.pending[child] === 0) this.ready[this.resource[child]].push(child);
      this.edgeNext[e] = this.freeEdge;
      this.freeEdge = e;
      this.freeEdgeCount++;
      e = next;
    }
  }

  /** Children of `parent` in the order they were added. */
  children(parent: number): number[] {
    const out: number[] = [];
    for (let e = this.firstEdge[parent]; e !== NO_SLOT; e = this.edgeNext[e]) out.push(this.edgeTarget[e]);
    return out.reverse();
  }

  /** Frees the slot of a finished node; its id is kept as finished. */
  remove(s: number, key: IdKey): void {
    this.ids.setFinished(key);
    if (this.bigIds.size > 0) this.bigIds.delete(s);
    this.netBytesPerDim[s] = undefined;
    this.pending[s] = this.freeSlot;
    this.freeSlot = s;
    this.freeCount++;
  }

  /** Slots handed out so far: before any node finishes, the loaded nodes are slots 0 … size − 1 in file order. */
  get size(): number {
    return this.used;
  }

  /**
   * Whether `other` holds the same nodes as this table, slot for slot, before any has started: resources,
   * operations, sizes, energies, collective specs, pending parents and children, and ids up to one offset (ids only
   * order ready nodes). Send/receive peers may differ.
   */
  sameNodesAs(other: NodeTable): boolean {
    if (other === this) return this.freeCount === 0;
    const n = this.used;
    if (other.used !== n || this.freeCount !== 0 || other.freeCount !== 0 || this.bigIds.size !== other.bigIds.size)
      return false;
    if (n === 0) return true;
    const offset = this.bigIds.size > 0 ? 0 : other.idNumber[0] - this.idNumber[0];
    for (let s = 0; s < n; s++) {
      if (
        this.idNumber[s] + offset !== other.idNumber[s] ||
        this.resource[s] !== other.resource[s] ||
        this.category[s] !== other.category[s] ||
        this.op[s] !== other.op[s] ||
        this.amount[s] !== other.amount[s] ||
        this.aux[s] !== other.aux[s] ||
        this.pending[s] !== other.pending[s] ||
        !Object.is(this.energyJ[s], other.energyJ[s]) ||
        !Object.is(this.energyMemoryJ[s], other.energyMemoryJ[s]) ||
        (this.op[s] === OpKind.Collective && this.peer[s] !== other.peer[s])
      )
        return false;
      let e = this.firstEdge[s];
      let f = other.firstEdge[s];
      while (e !== NO_SLOT && f !== NO_SLOT) {
        if (this.edgeTarget[e] !== other.edgeTarget[f]) return false;
        e = this.edgeNext[e];
        f = other.edgeNext[f];
      }
      if (e !== f) return false;
    }
    for (const [s, id] of this.bigIds) if (other.bigIds.get(s) !== id) return false;
    return true;
  }

  /** Empties the table for another rank's nodes, keeping its room (a table no rank needs any more). */
  clear(): void {
    this.used = this.freeCount = this.edgeCount = this.freeEdgeCount = 0;
    this.freeSlot = this.freeEdge = NO_SLOT;
    this.bigIds.clear();
    this.ids = new NodeIdStates();
    for (const heap of this.ready) heap.size = 0;
    this.netBytesPerDim.length = 0;
  }

  /** Whether `other`'s nodes have the same names, slot for slot (sameNodesAs does not compare names). */
  sameNamesAs(other: NodeTable): boolean {
    const n = this.used;
    if (other.used !== n) return false;
    for (let s = 0; s < n; s++) if (this.nameId[s] !== other.nameId[s]) return false;
    return true;
  }

  /**
   * A copy of this table before any node has started, as loading a rank with the same nodes (sameNodesAs and
   * sameNamesAs) would have built it: ids shifted by `idOffset` (0 where ids above 2^53 are kept), and the peer of
   * each send / receive slot `p2pSlots[i]` set to `p2pPeers[i]`.
   */
  copyShifted(idOffset: number, p2pSlots: Int32Array, p2pPeers: Int32Array): NodeTable {
    if (this.freeCount !== 0 || (idOffset !== 0 && this.bigIds.size > 0))
      throw new Error('copyShifted: a table that has run, or shifted ids above 2^53');
    const t = new NodeTable();
    const n = this.used;
    t.reserve(n);
    if (t.edgeTarget.length < this.edgeCount) t.growEdges(this.edgeCount);
    t.used = n;
    const cols = [
      [this.idNumber, t.idNumber],
      [this.amount, t.amount],
      [this.aux, t.aux],
      [this.energyJ, t.energyJ],
      [this.energyMemoryJ, t.energyMemoryJ],
      [this.startNs, t.startNs],
      [this.exposedMark, t.exposedMark],
      [this.peer, t.peer],
      [this.pending, t.pending],
      [this.firstEdge, t.firstEdge],
      [this.nameId, t.nameId],
      [this.resource, t.resource],
      [this.category, t.category],
      [this.op, t.op],
    ] as const;
    for (const [from, to] of cols) (to as Float64Array).set((from as Float64Array).subarray(0, n));
    for (let s = 0; s < n; s++) {
      t.idNumber[s] += idOffset;
      t.ids.setLoaded(this.bigIds.size > 0 ? this.key(s) : t.idNumber[s], s);
    }
    for (const [s, id] of this.bigIds) t.bigIds.set(s, id);
    for (let i = 0; i < p2pSlots.length; i++) t.peer[p2pSlots[i]] = p2pPeers[i];
    t.edgeTarget.set(this.edgeTarget.subarray(0, this.edgeCount));
    t.edgeNext.set(this.edgeNext.subarray(0, this.edgeCount));
    t.edgeCount = this.edgeCount;
    t.freeEdge = this.freeEdge;
    t.freeEdgeCount = this.freeEdgeCount;
    this.ready.forEach((heap, i) => t.ready[i].copyFrom(heap));
    return t;
  }

  /** Slots of the loaded nodes. */
  loadedSlots(): number[] {
    return this.ids.loadedSlots();
  }

  /**
   * Makes room for `more` nodes beyond those loaded now, in one step (a batch about to be loaded), and for `edges`
   * more dependency edges (by default as many: a node has about one).
   */
  reserve(more: number, edges = more): void {
    const free = this.capacity - this.used + this.freeCount;
    if (more > free) this.grow(this.capacity + (more - free));
    const freeEdges = this.edgeTarget.length - this.edgeCount + this.freeEdgeCount;
    if (edges > freeEdges) this.growEdges(this.edgeTarget.length + (edges - freeEdges));
  }

  /** Dependency edges handed out so far (before any node finishes: the edges loaded). */
  get edges(): number {
    return this.edgeCount;
  }

  /**
   * Gives back the room beyond the slots and edges handed out (a rank whose whole trace is loaded: growth by half
   * leaves up to a third of the columns unused).
   */
  fit(): void {
    if (this.capacity > this.used) this.resize(this.used);
    if (this.edgeTarget.length > this.edgeCount) this.resizeEdges(this.edgeCount);
  }

  private grow(atLeast = 0): void {
    // Doubles while small (few copies for the typical rank of a few thousand nodes), then grows by half: a large
    // table holds up to a rank's whole window, and a doubling would leave much of it unused.
    const step = this.capacity < 16 ? 16 : this.capacity < 8192 ? this.capacity * 2 : Math.ceil(this.capacity * 1.5);
    this.resize(Math.max(step, atLeast));
  }

  /** Moves the columns to room for n slots (n ≥ the slots handed out). */
  private resize(n: number): void {
    // One buffer for all columns: one allocation per growth instead of one per column (ArrayBuffer allocations
    // are what growing cost).
    const buffer = new ArrayBuffer(n * (7 * 8 + 4 * 4 + 3));
    const keep = Math.min(n, this.capacity);
    let offset = 0;
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(buffer, offset, n);
      offset += n * 8;
      b.set(a.subarray(0, keep));
      return b;
    };
    const i32 = (a: Int32Array) => {
      const b = new Int32Array(buffer, offset, n);
      offset += n * 4;
      b.set(a.subarray(0, keep));
      return b;
    };
    const u8 = (a: Uint8Array) => {
      const b = new Uint8Array(buffer, offset, n);
      offset += n;
      b.set(a.subarray(0, keep));
      return b;
    };
    this.idNumber = f64(this.idNumber);
    this.amount = f64(this.amount);
    this.aux = f64(this.aux);
    this.energyJ = f64(this.energyJ);
    this.energyMemoryJ = f64(this.energyMemoryJ);
    this.startNs = f64(this.startNs);
    this.exposedMark = f64(this.exposedMark);
    this.peer = i32(this.peer);
    this.pending = i32(this.pending);
    this.firstEdge = i32(this.firstEdge);
    this.nameId = i32(this.nameId);
    this.resource = u8(this.resource);
    this.category = u8(this.category);
    this.op = u8(this.op);
    this.capacity = n;
  }

  private growEdges(atLeast = 0): void {
    const have = this.edgeTarget.length;
    this.resizeEdges(Math.max(have < 16 ? 16 : have < 8192 ? have * 2 : Math.ceil(have * 1.5), atLeast));
  }

  /** Moves the edges to room for n (n ≥ the edges handed out). */
  private resizeEdges(n: number): void {
    const keep = Math.min(n, this.edgeTarget.length);
    const buffer = new ArrayBuffer(n * 8);
    const target = new Int32Array(buffer, 0, n);
    target.set(this.edgeTarget.subarray(0, keep));
    const next = new Int32Array(buffer, n * 4, n);
    next.set(this.edgeNext.subarray(0, keep));
    this.edgeTarget = target;
    this.edgeNext = next;
  }
}

/** Ready slots of one resource, lowest node id first. */
export class ReadyHeap {
  private slots = new Int32Array(16);
  size = 0;

  constructor(private readonly table: NodeTable) {}

  /** The same slots in the same order as `other` (a heap of a table with the same nodes: NodeTable.copyShifted). */
  copyFrom(other: ReadyHeap): void {
    this.slots = other.slots.slice();
    this.size = other.size;
  }

  push(s: number): void {
    if (this.size === this.slots.length) {
      const b = new Int32Array(this.size * 2);
      b.set(this.slots);
      this.slots = b;
    }
    const { slots, table } = this;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!table.before(s, slots[parent])) break;
      slots[i] = slots[parent];
      i = parent;
    }
    slots[i] = s;
  }

  pop(): number {
    const { slots, table } = this;
    if (this.size === 0) throw new Error('pop from an empty ready heap');
    const top = slots[0];
    const last = slots[--this.size];
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const r = l + 1;
      const c = r < this.size && table.before(slots[r], slots[l]) ? r : l;
      if (!table.before(slots[c], last)) break;
      slots[i] = slots[c];
      i = c;
    }
    slots[i] = last;
    return top;
  }
}

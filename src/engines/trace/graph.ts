/**
 * Per-rank dependency graph facts (dangling dependencies, duplicate ids, nodes on or behind cycles) from node frames
 * as the node probe reads them, in one pass and without keeping the graph. Ids become dense integers (DenseIdMap:
 * exact, no bigint per node), and each node is classed when it arrives:
 * - clear: every dependency is on an earlier clear node: Kahn's algorithm removes it whatever follows;
 * - blocked: it depends on itself or on a blocked node: Kahn's algorithm never removes it;
 * - unknown: otherwise (a dependency on a node still to come, or on an unknown node).
 * Only unknown nodes keep their edges (blocked ones the few a cycle walk needs), and Kahn's algorithm runs on them at
 * the end (kahn.ts). A dependency on an id not seen yet that is below every new id so far is presumed dangling (ids
 * mostly ascend); if such an id turns up later after all, facts() says so and the rank is read again with nothing
 * presumed (graphFacts does that).
 */
import { DenseIdMap } from '../../formats/chakra/dense-id-map.js';
import type { KnownPackedLists, NodeProbe } from '../../formats/chakra/probe.js';
import { U64List } from '../../formats/chakra/u64-list.js';
import { bigintOf } from '../../formats/chakra/values.js';
import { DependencyMemo, MEMO_MIN_BYTES } from './dependency-memo.js';
import { BLOCKED, CLEAR, GrowingArray, UNKNOWN, kahn } from './kahn.js';

export interface GraphFacts {
  nodeCount: number;
  dataEdges: number;
  ctrlEdges: number;
  danglingData: number;
  danglingCtrl: number;
  /** First few (node, missing parent) pairs. */
  danglingSamples: { nodeId: bigint; parentId: bigint; kind: 'data' | 'ctrl' }[];
  /** Number of frames whose id repeats an earlier one, and the first few such ids. */
  duplicateCount: number;
  duplicateIds: bigint[];
  /** Nodes that lie on or behind a dependency cycle (never become ready). */
  nodesInCycles: number;
  /** Ids of one cycle, when there is one. */
  cycleSample: bigint[];
}

const SAMPLES = 10;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const DATA = 0;

/**
 * Feeds the nodes to a graph (`feed` may run twice) and returns its facts. `graph`: one to reuse (reset first), so
 * that a reader of many ranks allocates its tables once.
 */
export async function graphFacts(
  feed: (graph: DependencyGraph) => Promise<void> | void,
  graph = new DependencyGraph(true),
): Promise<GraphFacts> {
  graph.reset();
  await feed(graph);
  const facts = graph.presumedFacts();
  if (facts) return facts;
  const exact = new DependencyGraph(false);
  await feed(exact);
  return exact.facts();
}

export class DependencyGraph {
  private readonly index = new DenseIdMap();
  /** Per node: its id, class and kept edges. */
  private readonly nodes = new NodeColumns();
  private readonly bigIds = new Map<number, bigint>();
  private nodeCount = 0;
  private dataEdges = 0;
  private ctrlEdges = 0;
  /**
   * The node numbers of the first SAMPLES nodes whose id repeats an earlier one: every node is written at
   * [min(duplicateTotal, SAMPLES)] (the last place a scratch one) and stays there when it is a repeat (no branch
   * that only a repeat takes: code compiled before the first repeat would be thrown away at it).
   */
  private readonly duplicateNodes = new Int32Array(SAMPLES + 1);
  private duplicateTotal = 0;
  /** The largest id first seen so far (null: none; a bigint once an id above 2^53 − 1 came). */
  private maxNewId = -1;
  private maxNewBig: bigint | null = null;
  /**
   * Dependencies on ids not seen yet, in node and dependency order: node, kind, presumed dangling, id (−1: pendingBig).
   */
  private readonly pendingNode = new GrowingArray(Int32Array);
  private readonly pendingKind = new GrowingArray(Uint8Array);
  private readonly pendingPresumed = new GrowingArray(Uint8Array);
  private readonly pendingId = new GrowingArray(Float64Array);
  private readonly pendingBig = new Map<number, bigint>();
  /**
   * The kept edges (NodeColumns.edgeStart): a parent's node number, or −(k + 1) for pending dependency k (a later node,
   * or none).
   */
  private readonly edges = new GrowingArray(Float64Array);

  /** Scratch lists for nodes added by their bigint ids. */
  private readonly scratchData = new U64List();
  private readonly scratchCtrl = new U64List();
  /** The node numbers of the current node's data and ctrl dependencies (−1: not seen yet), looked up once. */
  private dataParents = new Int32Array(64);
  private ctrlParents = new Int32Array(64);
  /** Data dependency lists already classed, by their bytes (a node probe's packed list). */
  private readonly memo = new DependencyMemo();

  /**
   * `presumeDangling` true: a dependency on an id not seen yet that is below every new id so far is presumed
   * dangling (then read facts with presumedFacts(), which may ask for the nodes again: see graphFacts); false:
   * every such dependency is taken as possibly on a later node, and facts() is exact in one pass.
   */
  constructor(private readonly presumeDangling = false) {}

  /** The data dependency lists classed so far, for a node probe to leave those it finds undecoded. */
  get knownLists(): KnownPackedLists {
    return this.memo;
  }

  /** Whether a node with this id has been added. */
  has(id: bigint): boolean {
    return id <= MAX_SAFE ? this.index.get(Number(id)) >= 0 : this.index.getBig(id) >= 0;
  }

  /** Empties the graph for the next rank, keeping its memory. */
  reset(): void {
    this.index.clear();
    this.memo.clear();
    for (const list of [this.pendingNode, this.pendingKind, this.pendingPresumed, this.pendingId, this.edges])
      list.clear();
    this.bigIds.clear();
    this.pendingBig.clear();
    this.nodeCount = this.dataEdges = this.ctrlEdges = this.duplicateTotal = 0;
    this.maxNewId = -1;
    this.maxNewBig = null;
  }

  /** Adds the node the probe has just read, or a node given by its bigint id and dependencies. */
  add(probe: NodeProbe): void;
  add(id: bigint, dataDeps: readonly bigint[], ctrlDeps: readonly bigint[]): void;
  add(node: NodeProbe | bigint, dataDeps?: readonly bigint[], ctrlDeps?: readonly bigint[]): void {
    if (typeof node !== 'bigint') {
      this.addNode(node.idNumber, node.idBig, node.dataDeps, node.ctrlDeps, node);
      return;
    }
    const fill = (list: U64List, deps: readonly bigint[]) => {
      list.clear();
      const values = list.reserve(deps.length);
      for (const d of deps) {
        if (d > MAX_SAFE) list.setBig(list.count, d);
        values[list.count++] = d <= MAX_SAFE ? Number(d) : -1;
      }
      return list;
    };
    this.addNode(
      node <= MAX_SAFE ? Number(node) : -1,
      node,
      fill(this.scratchData, dataDeps!),
      fill(this.scratchCtrl, ctrlDeps!),
      null,
    );
  }

  /**
   * Adds a node: its id as a number (−1: idBig holds it) and its dependencies (`probe`: the probe that read them, or
   * null).
   */
  private addNode(id: number, idBig: bigint, data: U64List, ctrl: U64List, probe: NodeProbe | null): void {
    const v = this.nodeCount++;
    const nodes = this.nodes;
    nodes.makeRoomFor(v);
    const first = id >= 0 ? this.index.getOrAdd(id, v) : this.index.getOrAddBig(idBig, v);
    if (id < 0) this.bigIds.set(v, idBig);
    nodes.id[v] = id;
    this.duplicateNodes[Math.min(this.duplicateTotal, SAMPLES)] = v;
    this.duplicateTotal += first !== v ? 1 : 0;
    if (first === v) {
      if (id < 0) {
        if (this.maxNewBig === null || idBig > this.maxNewBig) this.maxNewBig = idBig;
      } else if (id > this.maxNewId) {
        this.maxNewId = id;
      }
    }
    this.ctrlEdges += ctrl.count;
    const pendingBefore = this.pendingId.count;
    if (this.dataParents.length < data.count) this.dataParents = new Int32Array(data.count * 2);
    if (this.ctrlParents.length < ctrl.count) this.ctrlParents = new Int32Array(ctrl.count * 2);
    // The data list's class: from the memo when the same bytes were classed before, else looked up (and memoised
    // when every dependency was known). A probe reading with this memo as its knownLists has looked the bytes up
    // already (and left a list it found undecoded).
    const memo = this.memo;
    const memoised =
      probe !== null && probe.dataDepsStart >= 0 && probe.dataDepsEnd - probe.dataDepsStart >= MEMO_MIN_BYTES;
    const entry =
      probe !== null && probe.knownLists === memo
        ? probe.dataDepsKnown
        : memoised
          ? memo.find(probe.cursor!.buf, probe.cursor!.view, probe.dataDepsStart, probe.dataDepsEnd)
          : -1;
    // An entry's facts read on every node (entry 0's when none is found), so that the code compiled before the first
    // hit already has every step a hit takes.
    const known = entry >= 0 ? entry : 0;
    const knownState = memo.stateOf(known);
    const knownParents = memo.parents;
    const knownAt = memo.parentsAt(known);
    const knownCount = memo.countOf(known);
    let dataState: number;
    let dataParents = this.dataParents;
    let dataAt = 0;
    let dataCount = data.count;
    if (entry >= 0) {
      dataState = knownState;
      dataParents = knownParents;
      dataAt = knownAt;
      dataCount = knownCount;
    } else {
      dataState = this.classify(v, data, this.dataParents, DATA);
      if (memoised && this.pendingId.count === pendingBefore) {
        memo.store(
          probe.cursor!.buf,
          probe.cursor!.view,
          probe.dataDepsStart,
          probe.dataDepsEnd,
          this.dataParents,
          data.count,
          dataState,
        );
      }
    }
    this.dataEdges += dataCount;
    const state = Math.max(dataState, this.classify(v, ctrl, this.ctrlParents, 1));
    nodes.state[v] = state;
    const edgeStart = this.edges.count;
    nodes.edgeStart[v] = edgeStart;
    if (state !== CLEAR) this.keepEdges(v, state, dataCount, dataParents, dataAt, ctrl.count, pendingBefore);
    nodes.edgeCount[v] = this.edges.count - edgeStart;
  }

  /**
   * The class node v's dependencies give it; those on ids not seen yet are kept for the end. Their node numbers are
   * left in `parents` (−1: not seen yet), for keepEdges.
   */
  private classify(v: number, deps: U64List, parents: Int32Array, kind: number): number {
    const values = deps.values;
    const index = this.index;
    const states = this.nodes.state;
    index.getAll(values, deps.count, parents);
    let state = CLEAR;
    for (let i = 0; i < deps.count; i++) {
      let parent = parents[i];
      const d = values[i];
      if (d < 0) parent = parents[i] = index.getBig(deps.valueAt(i));
      if (parent >= 0) {
        const s = parent === v ? BLOCKED : states[parent];
        if (s > state) state = s;
        continue;
      }
      const presumed =
        this.presumeDangling &&
        (d >= 0
          ? this.maxNewBig !== null || d < this.maxNewId
          : this.maxNewBig !== null && deps.valueAt(i) < this.maxNewBig);
      if (!presumed && state === CLEAR) state = UNKNOWN;
      if (d < 0) this.pendingBig.set(this.pendingId.count, deps.valueAt(i));
      this.pendingNode.push(v);
      this.pendingKind.push(kind);
      this.pendingPresumed.push(presumed ? 1 : 0);
      this.pendingId.push(d);
    }
    return state;
  }

  /**
   * Keeps the edges of an unknown node that can matter (to unknown or blocked nodes, to ids to come); of a blocked
   * one, those up to its first edge to a blocked node (where a cycle walk through it turns).
   */
  private keepEdges(
    v: number,
    state: number,
    dataCount: number,
    dataParents: Int32Array,
    dataAt: number,
    ctrlCount: number,
    pending: number,
  ): void {
    const afterData = this.keepEdgesOf(v, state, dataCount, dataParents, dataAt, pending);
    if (afterData >= 0) this.keepEdgesOf(v, state, ctrlCount, this.ctrlParents, 0, afterData);
  }

  /**
   * keepEdges for one list, its parents at parents[at, at + count) (`pending`: its first dependency's pending
   * number); the next pending number, or −1 when done.
   */
  private keepEdgesOf(
    v: number,
    state: number,
    count: number,
    parents: Int32Array,
    at: number,
    pending: number,
  ): number {
    const states = this.nodes.state;
    for (let i = 0; i < count; i++) {
      const parent = parents[at + i];
      if (parent < 0) {
        const k = pending++;
        if (this.pendingPresumed.values[k] === 0) this.edges.push(-(k + 1));
        continue;
      }
      const s = parent === v ? BLOCKED : states[parent];
      if (s === CLEAR) continue;
      this.edges.push(parent);
      if (state === BLOCKED && s === BLOCKED) return -1;
    }
    return pending;
  }

  private idOf(v: number): bigint {
    const id = this.nodes.id[v];
    return id >= 0 ? bigintOf(id) : this.bigIds.get(v)!;
  }

  /** The facts once every node is in (a graph that presumes nothing: see the constructor). */
  facts(): GraphFacts {
    if (this.presumeDangling)
      throw new Error('DependencyGraph.facts: this graph presumes dangling ids; use presumedFacts() (or graphFacts)');
    return this.presumedFacts()!;
  }

  /** The facts once every node is in; null when an id presumed dangling turned up after all (read again, exactly). */
  presumedFacts(): GraphFacts | null {
    const f: GraphFacts = {
      nodeCount: this.nodeCount,
      dataEdges: this.dataEdges,
      ctrlEdges: this.ctrlEdges,
      danglingData: 0,
      danglingCtrl: 0,
      danglingSamples: [],
      duplicateCount: this.duplicateTotal,
      duplicateIds: Array.from(this.duplicateNodes.subarray(0, Math.min(this.duplicateTotal, SAMPLES)), (v) =>
        this.idOf(v),
      ),
      nodesInCycles: 0,
      cycleSample: [],
    };
    // Each kept dependency is on a later node (an edge) or on none (dangling).
    const resolved = new Int32Array(this.pendingId.count);
    for (let k = 0; k < this.pendingId.count; k++) {
      const id = this.pendingId.values[k];
      const big = id < 0 ? this.pendingBig.get(k) : undefined;
      resolved[k] = id >= 0 ? this.index.get(id) : this.index.getBig(big!);
      if (resolved[k] >= 0) {
        if (this.pendingPresumed.values[k] === 1) return null;
        continue;
      }
      const kind = this.pendingKind.values[k];
      if (kind === DATA) f.danglingData++;
      else f.danglingCtrl++;
      if (f.danglingSamples.length < SAMPLES) {
        f.danglingSamples.push({
          nodeId: this.idOf(this.pendingNode.values[k]),
          parentId: big ?? bigintOf(id),
          kind: kind === DATA ? 'data' : 'ctrl',
        });
      }
    }
    const edges = this.edges.values;
    for (let e = 0; e < this.edges.count; e++) if (edges[e] < 0) edges[e] = resolved[-edges[e] - 1];
    const nodes = this.nodes;
    const cycles = kahn(this.nodeCount, nodes.state, nodes.edgeStart, nodes.edgeCount, edges);
    f.nodesInCycles = cycles.blocked;
    f.cycleSample = cycles.sample.map((v) => this.idOf(v));
    return f;
  }
}

/** Per node number: its id (an exact number, −1 for one in bigIds), class and kept edges, grown together. */
class NodeColumns {
  id = new Float64Array(1024);
  /** CLEAR, UNKNOWN or BLOCKED. */
  state = new Uint8Array(1024);
  /** The node's kept edges: edges[edgeStart[v], edgeStart[v] + edgeCount[v]). */
  edgeStart = new Int32Array(1024);
  edgeCount = new Int32Array(1024);

  /** Grows the columns to hold node v. */
  makeRoomFor(v: number): void {
    if (v < this.state.length) return;
    const size = this.state.length * 2;
    const grown = <T extends Float64Array | Int32Array | Uint8Array>(old: T, make: new (n: number) => T): T => {
      const next = new make(size);
      next.set(old as never);
      return next;
    };
    this.id = grown(this.id, Float64Array);
    this.state = grown(this.state, Uint8Array);
    this.edgeStart = grown(this.edgeStart, Int32Array);
    this.edgeCount = grown(this.edgeCount, Int32Array);
  }
}

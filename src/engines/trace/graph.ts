/**
 * Per-rank dependency graph facts: dangling dependencies, duplicate ids and cycles.
 * Nodes are added as they stream past; ids are mapped to dense indices so the graph costs a few
 * typed-array entries per edge rather than objects.
 */
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

export class DependencyGraph {
  private readonly index = new Map<bigint, number>();
  private readonly ids: bigint[] = [];
  private readonly depIds: bigint[] = [];
  private readonly depKinds: number[] = [];
  private readonly depStart: number[] = [0];
  private readonly duplicates: bigint[] = [];
  private duplicateTotal = 0;
  private dataEdges = 0;
  private ctrlEdges = 0;

  add(id: bigint, dataDeps: readonly bigint[], ctrlDeps: readonly bigint[]): void {
    if (this.index.has(id)) {
      if (this.duplicates.length < SAMPLES) this.duplicates.push(id);
      this.duplicateTotal++;
    } else {
      this.index.set(id, this.ids.length);
    }
    this.ids.push(id);
    for (const d of dataDeps) {
      this.depIds.push(d);
      this.depKinds.push(0);
    }
    for (const d of ctrlDeps) {
      this.depIds.push(d);
      this.depKinds.push(1);
    }
    this.dataEdges += dataDeps.length;
    this.ctrlEdges += ctrlDeps.length;
    this.depStart.push(this.depIds.length);
  }

  /** Whether a node with this id has been added. */
  has(id: bigint): boolean {
    return this.index.has(id);
  }

  facts(): GraphFacts {
    const n = this.ids.length;
    const facts: GraphFacts = {
      nodeCount: n, dataEdges: this.dataEdges, ctrlEdges: this.ctrlEdges, danglingData: 0, danglingCtrl: 0,
      danglingSamples: [], duplicateCount: this.duplicateTotal, duplicateIds: this.duplicates.slice(0, SAMPLES),
      nodesInCycles: 0, cycleSample: [],
    };
    // Children lists (CSR) over resolvable edges; dangling ones counted and left out.
    const indeg = new Int32Array(n);
    const childCount = new Int32Array(n + 1);
    const parentIdx = new Int32Array(this.depIds.length).fill(-1);
    for (let v = 0; v < n; v++) {
      for (let e = this.depStart[v]; e < this.depStart[v + 1]; e++) {
        const p = this.index.get(this.depIds[e]);
        if (p === undefined) {
          if (this.depKinds[e] === 0) facts.danglingData++;
          else facts.danglingCtrl++;
          if (facts.danglingSamples.length < SAMPLES) {
            facts.danglingSamples.push({ nodeId: this.ids[v], parentId: this.depIds[e], kind: this.depKinds[e] === 0 ? 'data' : 'ctrl' });
          }
          continue;
        }
        parentIdx[e] = p;
        indeg[v]++;
        childCount[p + 1]++;
      }
    }
    for (let i = 0; i < n; i++) childCount[i + 1] += childCount[i];
    const children = new Int32Array(childCount[n]);
    const fill = childCount.slice(0, n);
    for (let v = 0; v < n; v++) {
      for (let e = this.depStart[v]; e < this.depStart[v + 1]; e++) {
        const p = parentIdx[e];
        if (p >= 0) children[fill[p]++] = v;
      }
    }
    // Kahn's algorithm: what never reaches in-degree 0 is on or behind a cycle.
    const queue = new Int32Array(n);
    let head = 0;
    let tail = 0;
    for (let v = 0; v < n; v++) if (indeg[v] === 0) queue[tail++] = v;
    while (head < tail) {
      const v = queue[head++];
      for (let c = childCount[v]; c < childCount[v + 1]; c++) {
        const w = children[c];
        if (--indeg[w] === 0) queue[tail++] = w;
      }
    }
    facts.nodesInCycles = n - tail;
    if (facts.nodesInCycles > 0) facts.cycleSample = this.findCycle(indeg, parentIdx);
    return facts;
  }

  /** Walks parents among the unresolved nodes until one repeats: that loop is a cycle. */
  private findCycle(indeg: Int32Array, parentIdx: Int32Array): bigint[] {
    let v = indeg.findIndex((d) => d > 0);
    const seenAt = new Map<number, number>();
    const path: number[] = [];
    while (v >= 0 && !seenAt.has(v)) {
      seenAt.set(v, path.length);
      path.push(v);
      let next = -1;
      for (let e = this.depStart[v]; e < this.depStart[v + 1]; e++) {
        const p = parentIdx[e];
        if (p >= 0 && indeg[p] > 0) {
          next = p;
          break;
        }
      }
      v = next;
    }
    if (v < 0) return [];
    return path.slice(seenAt.get(v)).reverse().map((i) => this.ids[i]).slice(0, 50);
  }
}

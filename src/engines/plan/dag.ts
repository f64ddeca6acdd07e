/**
 * A directed acyclic graph of computations (activity on node): op i has a curve of time–energy options and
 * predecessors that must finish before it starts. Adjacency is stored in flat arrays (CSR) and a topological order
 * is computed once; longest-path passes over it are the planner's inner loop.
 */
import { InputError } from '../../errors.js';
import type { Curve } from './curve.js';

export class Dag {
  readonly size: number;
  /** Curve of each op (ops of the same kind share one). */
  readonly curveOf: Curve[];
  readonly predStart: Int32Array;
  readonly predList: Int32Array;
  readonly succStart: Int32Array;
  readonly succList: Int32Array;
  /** Every op after all its predecessors. */
  readonly order: Int32Array;

  constructor(curveOf: Curve[], preds: readonly (readonly number[])[]) {
    const n = curveOf.length;
    if (preds.length !== n) throw new Error(`Dag: ${n} ops but ${preds.length} predecessor lists`);
    this.size = n;
    this.curveOf = curveOf;
    this.predStart = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) this.predStart[i + 1] = this.predStart[i]! + preds[i]!.length;
    this.predList = new Int32Array(this.predStart[n]!);
    const succCount = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      let k = this.predStart[i]!;
      for (const p of preds[i]!) {
        if (!(p >= 0 && p < n) || p === i) throw new Error(`Dag: op ${i} has an invalid predecessor ${p}`);
        this.predList[k++] = p;
        succCount[p]!++;
      }
    }
    this.succStart = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) this.succStart[i + 1] = this.succStart[i]! + succCount[i]!;
    this.succList = new Int32Array(this.succStart[n]!);
    const fill = this.succStart.slice(0, n);
    for (let i = 0; i < n; i++)
      for (let k = this.predStart[i]!; k < this.predStart[i + 1]!; k++) this.succList[fill[this.predList[k]!]!++] = i;
    this.order = topologicalOrder(this);
  }

  /** Earliest finish of every op with durations `d`; returns the makespan. */
  earliestFinish(d: Float64Array, finish: Float64Array): number {
    let makespan = 0;
    for (let k = 0; k < this.size; k++) {
      const i = this.order[k]!;
      let start = 0;
      for (let p = this.predStart[i]!; p < this.predStart[i + 1]!; p++)
        start = Math.max(start, finish[this.predList[p]!]!);
      finish[i] = start + d[i]!;
      if (finish[i]! > makespan) makespan = finish[i]!;
    }
    return makespan;
  }

  /** Longest path from the start of every op to the end of the graph, its own duration included. */
  tails(d: Float64Array, tail: Float64Array): void {
    for (let k = this.size - 1; k >= 0; k--) {
      const i = this.order[k]!;
      let after = 0;
      for (let s = this.succStart[i]!; s < this.succStart[i + 1]!; s++)
        after = Math.max(after, tail[this.succList[s]!]!);
      tail[i] = after + d[i]!;
    }
  }

  makespan(d: Float64Array): number {
    return this.earliestFinish(d, new Float64Array(this.size));
  }
}

function topologicalOrder(g: Dag): Int32Array {
  const n = g.size;
  const indeg = new Int32Array(n);
  for (let i = 0; i < n; i++) indeg[i] = g.predStart[i + 1]! - g.predStart[i]!;
  const order = new Int32Array(n);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < n; i++) if (indeg[i] === 0) order[tail++] = i;
  while (head < tail) {
    const u = order[head++]!;
    for (let s = g.succStart[u]!; s < g.succStart[u + 1]!; s++) {
      const v = g.succList[s]!;
      if (--indeg[v]! === 0) order[tail++] = v;
    }
  }
  if (tail !== n)
    throw new InputError(`the computation graph has a cycle (${n - tail} of ${n} ops never become ready)`);
  return order;
}

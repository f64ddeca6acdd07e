/**
 * Kahn's algorithm over the nodes of a dependency graph (graph.ts) whose fate was not settled as they streamed
 * past: what never reaches in-degree 0 lies on or behind a cycle.
 */

type TypedArray = Float64Array | Int32Array | Uint8Array;

/** A list of numbers in a typed array that doubles when full. */
export class GrowingArray<T extends TypedArray> {
  count = 0;
  values: T;
  constructor(private readonly make: new (n: number) => T, capacity = 1024) {
    this.values = new make(capacity);
  }

  /** Empties the list, keeping its memory. */
  clear(): void {
    this.count = 0;
  }

  push(v: number): void {
    if (this.count === this.values.length) {
      const next = new this.make(this.count * 2);
      next.set(this.values as never);
      this.values = next;
    }
    this.values[this.count++] = v;
  }
}

/** A node's class in the dependency graph (graph.ts); the order matters (a node takes the highest of its parents'). */
export const CLEAR = 0;
export const UNKNOWN = 1;
export const BLOCKED = 2;

/**
 * Nodes 0…n−1 in their classes; an unknown or blocked node's kept parents are
 * edges[edgeStart[v], edgeStart[v] + edgeCount[v]) (−1: none). Kahn's algorithm runs on the unknown nodes (edges
 * from clear nodes are satisfied, from blocked ones never). Returns how many nodes are never removed and, when some
 * are, the node numbers of one cycle: from the first such node, walking to its first parent never removed.
 */
export function kahn(
  n: number, state: Uint8Array, edgeStart: Int32Array, edgeCount: Int32Array, edges: Float64Array,
): { blocked: number; sample: number[] } {
  if (state.subarray(0, n).every((s) => s === CLEAR)) return { blocked: 0, sample: [] };
  const counts = (p: number) => p >= 0 && state[p] !== CLEAR;
  // In-degree over edges that count; a blocked node gets 1, so that "never removed" reads indeg > 0 for all.
  const indeg = new Int32Array(n);
  const childCount = new Int32Array(n + 1);
  let unknown = 0;
  let blocked = 0;
  for (let v = 0; v < n; v++) {
    if (state[v] === BLOCKED) {
      blocked++;
      indeg[v] = 1;
    }
    if (state[v] !== UNKNOWN) continue;
    unknown++;
    for (let e = edgeStart[v]; e < edgeStart[v] + edgeCount[v]; e++) {
      const p = edges[e];
      if (!counts(p)) continue;
      indeg[v]++;
      if (state[p] === UNKNOWN) childCount[p + 1]++;
    }
  }
  for (let i = 0; i < n; i++) childCount[i + 1] += childCount[i];
  const children = new Int32Array(childCount[n]);
  const fill = childCount.slice(0, n);
  for (let v = 0; v < n; v++) {
    if (state[v] !== UNKNOWN) continue;
    for (let e = edgeStart[v]; e < edgeStart[v] + edgeCount[v]; e++) {
      const p = edges[e];
      if (p >= 0 && state[p] === UNKNOWN) children[fill[p]++] = v;
    }
  }
  const queue = new Int32Array(unknown);
  let head = 0;
  let tail = 0;
  for (let v = 0; v < n; v++) if (state[v] === UNKNOWN && indeg[v] === 0) queue[tail++] = v;
  while (head < tail) {
    const v = queue[head++];
    for (let c = childCount[v]; c < childCount[v + 1]; c++) {
      const w = children[c];
      if (--indeg[w] === 0) queue[tail++] = w;
    }
  }
  const never = blocked + unknown - tail;
  if (never === 0) return { blocked: 0, sample: [] };
  // Walk parents among the nodes never removed until one repeats: that loop is a cycle.
  let v = indeg.findIndex((d) => d > 0);
  const seenAt = new Map<number, number>();
  const path: number[] = [];
  while (v >= 0 && !seenAt.has(v)) {
    seenAt.set(v, path.length);
    path.push(v);
    let next = -1;
    for (let e = edgeStart[v]; e < edgeStart[v] + edgeCount[v]; e++) {
      const p = edges[e];
      if (p >= 0 && indeg[p] > 0) {
        next = p;
        break;
      }
    }
    v = next;
  }
  return { blocked: never, sample: v < 0 ? [] : path.slice(seenAt.get(v)).reverse().slice(0, 50) };
}

/**
 * Kahn's algorithm over the nodes of a dependency graph (graph.ts) whose fate was not settled as they streamed
 * past: what never reaches in-degree 0 lies on or behind a cycle.
 */

type TypedArray = Float64Array | Int32Array | Uint8Array;

/** A list of numbers in a typed array that doubles when full. */
export class GrowingArray<T extends TypedArray> {
  count = 0;
  values: T;
  constructor(
    private readonly make: new (n: number) => T,
    capacity = 1024,
  ) {
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

/**
 * Visits nodes 0…n−1 (n = pending.length) in dependency order, the last made ready first: a node once the count of
 * its dependencies not yet visited, `pending[i]` (used up), is 0; node i's users are users[first[i], first[i + 1]).
 * Returns how many it visited: fewer than n when the others lie on or behind a cycle.
 */
export function visitInDependencyOrder(
  pending: Int32Array,
  first: Int32Array,
  users: Int32Array,
  visit: (i: number) => void,
): number {
  const ready: number[] = [];
  for (let i = 0; i < pending.length; i++) if (pending[i] === 0) ready.push(i);
  let done = 0;
  while (ready.length) {
    const i = ready.pop()!;
    done++;
    visit(i);
    for (let k = first[i]!; k < first[i + 1]!; k++) if (--pending[users[k]!] === 0) ready.push(users[k]!);
  }
  return done;
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
 * (Each pass is a function of its own: a pass runs once, so its loop is compiled on the spot, and a small function
 * compiles faster than the whole algorithm would, once per loop.)
 */
export function kahn(
  n: number,
  state: Uint8Array,
  edgeStart: Int32Array,
  edgeCount: Int32Array,
  edges: Float64Array,
): { blocked: number; sample: number[] } {
  if (allClear(state, n)) return { blocked: 0, sample: [] };
  // In-degree over edges that count; a blocked node gets 1, so that "never removed" reads indeg > 0 for all.
  const indeg = new Int32Array(n);
  const childCount = new Int32Array(n + 1);
  const { unknown, blocked } = countParents(n, state, edgeStart, edgeCount, edges, indeg, childCount);
  for (let i = 0; i < n; i++) childCount[i + 1] += childCount[i];
  const children = listChildren(n, state, edgeStart, edgeCount, edges, childCount);
  const removed = removeReady(n, state, indeg, childCount, children, unknown);
  const never = blocked + unknown - removed;
  if (never === 0) return { blocked: 0, sample: [] };
  return { blocked: never, sample: cycleFrom(firstNeverRemoved(indeg, n), edgeStart, edgeCount, edges, indeg) };
}

function allClear(state: Uint8Array, n: number): boolean {
  for (let v = 0; v < n; v++) if (state[v] !== CLEAR) return false;
  return true;
}

/** Fills indeg (edges that count, 1 for a blocked node) and childCount[p + 1] (unknown children of p). */
function countParents(
  n: number,
  state: Uint8Array,
  edgeStart: Int32Array,
  edgeCount: Int32Array,
  edges: Float64Array,
  indeg: Int32Array,
  childCount: Int32Array,
): { unknown: number; blocked: number } {
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
      if (p < 0 || state[p] === CLEAR) continue;
      indeg[v]++;
      if (state[p] === UNKNOWN) childCount[p + 1]++;
    }
  }
  return { unknown, blocked };
}

/** The unknown children of each unknown node p: children[childCount[p], childCount[p + 1]). */
function listChildren(
  n: number,
  state: Uint8Array,
  edgeStart: Int32Array,
  edgeCount: Int32Array,
  edges: Float64Array,
  childCount: Int32Array,
): Int32Array {
  const children = new Int32Array(childCount[n]);
  const fill = childCount.slice(0, n);
  for (let v = 0; v < n; v++) {
    if (state[v] !== UNKNOWN) continue;
    for (let e = edgeStart[v]; e < edgeStart[v] + edgeCount[v]; e++) {
      const p = edges[e];
      if (p >= 0 && state[p] === UNKNOWN) children[fill[p]++] = v;
    }
  }
  return children;
}

/** Kahn's algorithm proper: removes unknown nodes as their in-degree reaches 0; returns how many it removed. */
function removeReady(
  n: number,
  state: Uint8Array,
  indeg: Int32Array,
  childCount: Int32Array,
  children: Int32Array,
  unknown: number,
): number {
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
  return tail;
}

function firstNeverRemoved(indeg: Int32Array, n: number): number {
  for (let v = 0; v < n; v++) if (indeg[v] > 0) return v;
  return -1;
}

/** Walks parents among the nodes never removed, from v, until one repeats: that loop is a cycle. */
function cycleFrom(
  v: number,
  edgeStart: Int32Array,
  edgeCount: Int32Array,
  edges: Float64Array,
  indeg: Int32Array,
): number[] {
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
  return v < 0 ? [] : path.slice(seenAt.get(v)).reverse().slice(0, 50);
}

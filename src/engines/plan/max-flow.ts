/**
 * Minimum cut of a network whose arcs have a lower and an upper bound on their flow (Dinic's max-flow algorithm,
 * float capacities, Infinity allowed). The planner's step: arcs are computations on the critical paths, the upper
 * bound is what shortening one costs per second, the lower bound what lengthening one saves per second; the minimum
 * cut is the cheapest set of computations to shorten (and to lengthen) that shortens every critical path by the same
 * amount (Phillips & Dessouky 1977).
 *
 * With lower bounds: a feasible flow first (demands routed from a super source to a super sink, with an infinite
 * arc sink → source), then the maximum flow from source to sink on top of it; the cut is what the source still
 * reaches. Its value is Σ upper bounds of arcs leaving the source side − Σ lower bounds of arcs entering it.
 */

/** Flow tolerance relative to the largest finite capacity. */
const RELATIVE_EPS = 1e-9;

export class FlowNetwork {
  private nodes = 0;
  private edges = 0;
  private head = new Int32Array(0);
  private next = new Int32Array(0);
  private to = new Int32Array(0);
  private cap = new Float64Array(0);
  private lower = new Float64Array(0);
  private level = new Int32Array(0);
  private cursor = new Int32Array(0);
  private queue = new Int32Array(0);
  private excess = new Float64Array(0);
  private eps = 0;

  /** Starts a new network with `nodes` nodes and room for `arcs` arcs. */
  reset(nodes: number, arcs: number): void {
    const n = nodes + 2; // + super source and super sink
    if (this.head.length < n) {
      this.head = new Int32Array(n * 2);
      this.level = new Int32Array(n * 2);
      this.cursor = new Int32Array(n * 2);
      this.queue = new Int32Array(n * 2);
      this.excess = new Float64Array(n * 2);
    }
    const m = 2 * (arcs + nodes + 1);
    if (this.to.length < m) {
      this.next = new Int32Array(m * 2);
      this.to = new Int32Array(m * 2);
      this.cap = new Float64Array(m * 2);
      this.lower = new Float64Array(m);
    }
    this.nodes = nodes;
    this.edges = 0;
    this.head.fill(-1, 0, n);
    this.excess.fill(0, 0, n);
    this.eps = 0;
  }

  /**
   * Adds arc u → v with flow bounds [lower, upper] and a starting flow (clamped into the bounds; a flow left from the
   * previous cut makes the next one cheap, since few nodes are then out of balance); returns the arc's index.
   */
  addArc(u: number, v: number, lower: number, upper: number, start = lower): number {
    const e = this.edges;
    const flow = Math.min(upper, Math.max(lower, start));
    this.link(u, v, upper - flow);
    this.link(v, u, flow - lower);
    this.lower[e >> 1] = lower;
    if (flow !== 0) {
      this.excess[v]! += flow;
      this.excess[u]! -= flow;
    }
    if (Number.isFinite(upper)) this.eps = Math.max(this.eps, upper * RELATIVE_EPS);
    return e >> 1;
  }

  /** Flow on arc `arc` (an index addArc returned) after minCut. */
  flow(arc: number): number {
    return this.lower[arc]! + this.cap[2 * arc + 1]!;
  }

  private link(u: number, v: number, c: number): void {
    const e = this.edges++;
    this.to[e] = v;
    this.cap[e] = c;
    this.next[e] = this.head[u]!;
    this.head[u] = e;
  }

  /**
   * Minimum cut between `source` and `sink`: `inSourceSide[v]` is set to 1 for the nodes on the source side.
   * Returns the cut value, Infinity when every cut is infinite, or null when no flow meets the lower bounds.
   */
  minCut(source: number, sink: number, inSourceSide: Uint8Array): number | null {
    const superSource = this.nodes;
    const superSink = this.nodes + 1;
    let demand = 0;
    for (let v = 0; v < this.nodes; v++) {
      const x = this.excess[v]!;
      if (x > 0) {
        this.link(superSource, v, x);
        this.link(v, superSource, 0);
        demand += x;
      } else if (x < 0) {
        this.link(v, superSink, -x);
        this.link(superSink, v, 0);
      }
    }
    const back = this.edges;
    this.link(sink, source, Infinity);
    this.link(source, sink, 0);
    const eps = Math.max(this.eps, 1e-12);
    const routed = demand > 0 ? this.maxFlow(superSource, superSink, eps) : 0;
    if (routed < demand - Math.max(eps, demand * RELATIVE_EPS)) return null;
    // The flow on sink → source is the flow already going from source to sink; close that arc and push more.
    const initial = this.cap[back + 1]!;
    this.cap[back] = 0;
    this.cap[back + 1] = 0;
    const more = this.maxFlow(source, sink, eps);
    if (more === Infinity) return Infinity;

    this.reach(source, eps, inSourceSide);
    return initial + more;
  }

  private maxFlow(s: number, t: number, eps: number): number {
    let total = 0;
    while (this.levels(s, t, eps)) {
      for (let v = 0; v < this.nodes + 2; v++) this.cursor[v] = this.head[v]!;
      const f = this.push(s, t, Infinity, eps);
      if (f === Infinity) return Infinity;
      if (f <= eps) break;
      total += f;
    }
    return total;
  }

  private levels(s: number, t: number, eps: number): boolean {
    this.level.fill(-1, 0, this.nodes + 2);
    let qh = 0;
    let qt = 0;
    this.queue[qt++] = s;
    this.level[s] = 0;
    while (qh < qt) {
      const u = this.queue[qh++]!;
      for (let e = this.head[u]!; e !== -1; e = this.next[e]!) {
        const v = this.to[e]!;
        if (this.level[v] === -1 && this.cap[e]! > eps) {
          this.level[v] = this.level[u]! + 1;
          this.queue[qt++] = v;
        }
      }
    }
    return this.level[t] !== -1;
  }

  /**
   * Blocking flow from `u` in the level graph: pushes up to `limit` along as many paths as it finds, returning the
   * amount pushed (recursive; depth is at most the number of nodes on a path).
   */
  private push(u: number, t: number, limit: number, eps: number): number {
    if (u === t) return limit;
    let pushed = 0;
    for (let e = this.cursor[u]!; e !== -1; e = this.next[e]!) {
      this.cursor[u] = e;
      const v = this.to[e]!;
      if (this.level[v] !== this.level[u]! + 1 || this.cap[e]! <= eps) continue;
      const f = this.push(v, t, Math.min(limit - pushed, this.cap[e]!), eps);
      if (f === Infinity) return Infinity;
      if (f > eps) {
        this.cap[e]! -= f;
        this.cap[e ^ 1]! += f;
        pushed += f;
        if (limit - pushed <= eps) return pushed;
      }
    }
    this.cursor[u] = -1;
    return pushed;
  }

  private reach(s: number, eps: number, mark: Uint8Array): void {
    mark.fill(0, 0, this.nodes);
    let qh = 0;
    let qt = 0;
    this.queue[qt++] = s;
    mark[s] = 1;
    while (qh < qt) {
      const u = this.queue[qh++]!;
      for (let e = this.head[u]!; e !== -1; e = this.next[e]!) {
        const v = this.to[e]!;
        if (v < this.nodes && !mark[v] && this.cap[e]! > eps) {
          mark[v] = 1;
          this.queue[qt++] = v;
        }
      }
    }
  }
}

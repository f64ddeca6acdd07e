/**
 * The modelled host time of an imported rank: the part of each host op's Kineto exclusive time that was its own work.
 * The modelled replay (like ASTRA-sim's workload layer) runs every host op of a rank on one CPU slot for its
 * duration_micros, one op at a time, and a GPU node for its modelled time. Two kinds of exclusive time are neither:
 *
 * - time blocked in a CUDA synchronisation call (sync.ts): the op the thread resumes with already depends on the
 *   awaited GPU work (measured.ts), so the replay waits for the modelled GPU work; kept in the op too, the replay
 *   would wait twice, and a what-if that makes the GPU faster could not shorten the wait;
 * - time other host threads' ops ran inside the op's span while it sat in it without a child of its own (the main
 *   thread in "## backward ##" while the autograd thread runs the backward ops): the slot runs those ops themselves,
 *   so the overlap would be run twice. (Only ops inside its span count: the op that waited is the one enclosing the
 *   other thread's work, never the other way round.) Where the other thread's last such op ended while the op still
 *   waited, the thread's next op (the one it resumed with) waits for it: a ThreadWait, written as a data dependency
 *   when the measured times agree (measured.ts).
 *
 * Both are cut from duration_micros. The measured attributes (measured_duration_ns, measured_delay_ns) are not
 * changed: the as-measured replay keeps its own rule (formats/chakra/measured.ts). Spans are held in columns, and
 * an op's exclusive stretches are worked out only for the few ops that other threads or synchronisations touch, so a
 * 100 MB trace costs a few typed arrays.
 */
import type { ThreadWait } from './measured.js';
import { lowerBound } from './bisect.js';

/** Host nodes' Kineto spans as columns (one entry per host node that Kineto timed); times in ns. */
export interface HostSpans {
  node: number[];
  /** The Kineto thread of each, as given (compared for equality only). */
  tid: (number | string)[];
  startNs: number[];
  endNs: number[];
}

type Interval = [number, number];

/** Sorted, merged intervals. */
function merge(list: Interval[]): Interval[] {
  const sorted = [...list].sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const [a, b] of sorted) {
    if (b <= a) continue;
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** The intersection of two sorted lists of disjoint intervals. */
function intersect(x: Interval[], y: Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const a = Math.max(x[i]![0], y[j]![0]);
    const b = Math.min(x[i]![1], y[j]![1]);
    if (b > a) out.push([a, b]);
    if (x[i]![1] < y[j]![1]) i++;
    else j++;
  }
  return out;
}

const length = (list: Interval[]) => list.reduce((a, [s, e]) => a + e - s, 0);

/** Two lists each sorted by `before` (a total order), merged. */
function mergeSorted(a: Int32Array, b: Int32Array, before: (x: number, y: number) => number): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = before(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

export class HostTime {
  /** Span indices by start (outer first), all threads. */
  private readonly byStart: Int32Array;
  /** Per span, its thread as a small number. */
  private readonly thread: Int32Array;
  /** Children of each span on its thread (CSR: childStart[i] … childStart[i + 1] in childList), in start order. */
  private readonly childStart: Int32Array;
  private readonly childList: Int32Array;
  /** Per thread, the merged spans of every other thread, as [a0, b0, a1, b1, …]. */
  private readonly foreign: Float64Array[];
  /** Per thread, its span indices by start. */
  private readonly own: Int32Array[];
  /** Per node: the stretches of its exclusive time that other threads' ops ran in (only nodes with some). */
  readonly overlapped = new Map<number, Interval[]>();
  /** The node each thread resumed with after waiting for another thread's op. */
  readonly threadWaits: ThreadWait[] = [];

  constructor(private readonly s: HostSpans) {
    const n = s.node.length;
    const tids = new Map<number | string, number>();
    this.thread = new Int32Array(n);
    const lists: number[][] = [];
    for (let i = 0; i < n; i++) {
      let t = tids.get(s.tid[i]!);
      if (t === undefined) {
        tids.set(s.tid[i]!, (t = tids.size));
        lists.push([]);
      }
      this.thread[i] = t;
      lists[t]!.push(i);
    }
    // By start, outer first (both importers give each thread's ops in that order already: then no sort is needed).
    const before = (a: number, b: number) =>
      s.startNs[a]! - s.startNs[b]! || s.endNs[b]! - s.endNs[a]! || s.node[a]! - s.node[b]!;
    this.own = lists.map((l) => {
      for (let k = 1; k < l.length; k++) if (before(l[k - 1]!, l[k]!) > 0) return Int32Array.from(l.sort(before));
      return Int32Array.from(l);
    });
    // All threads by start: the threads' sorted lists merged (the order is total, so as a sort of them all would give).
    this.byStart = this.own.reduce((a, b) => mergeSorted(a, b, before), new Int32Array(0));
    // Nesting per thread: the enclosing span is the innermost still open.
    const parent = new Int32Array(n).fill(-1);
    const count = new Int32Array(n + 1);
    const stack: number[] = [];
    for (const list of this.own) {
      stack.length = 0;
      for (const i of list) {
        while (stack.length && s.endNs[stack[stack.length - 1]!]! < s.endNs[i]!) stack.pop();
        if (stack.length) {
          parent[i] = stack[stack.length - 1]!;
          count[parent[i]! + 1]++;
        }
        stack.push(i);
      }
    }
    for (let i = 0; i < n; i++) count[i + 1] += count[i]!;
    this.childStart = count;
    this.childList = new Int32Array(count[n]!);
    const fill = count.slice(0, n);
    for (const list of this.own) for (const i of list) if (parent[i]! >= 0) this.childList[fill[parent[i]!]!++] = i;
    this.foreign = this.own.map((_, t) => {
      const out: number[] = [];
      if (this.own.length === 1) return new Float64Array(0);
      for (const i of this.byStart) {
        if (this.thread[i] === t || s.endNs[i]! <= s.startNs[i]!) continue;
        const last = out.length - 1;
        if (last > 0 && s.startNs[i]! <= out[last]!) out[last] = Math.max(out[last]!, s.endNs[i]!);
        else out.push(s.startNs[i]!, s.endNs[i]!);
      }
      return Float64Array.from(out);
    });
    if (this.own.length > 1) for (let i = 0; i < n; i++) this.overlap(i);
  }

  /** The stretches of span i on its thread where none of its children ran (its exclusive time). */
  private stretches(i: number): Interval[] {
    const { startNs, endNs } = this.s;
    const out: Interval[] = [];
    let at = startNs[i]!;
    for (let k = this.childStart[i]!; k < this.childStart[i + 1]!; k++) {
      const c = this.childList[k]!;
      if (startNs[c]! > at) out.push([at, startNs[c]!]);
      at = Math.max(at, endNs[c]!);
    }
    if (endNs[i]! > at) out.push([at, endNs[i]!]);
    return out;
  }

  /** Whether [a, b) meets a merged span of another thread than span i's. */
  private touchesForeign(i: number, a: number, b: number): boolean {
    const f = this.foreign[this.thread[i]!]!;
    // lowerBound over the spans' ends, inlined (called for every span).
    let lo = 0;
    let hi = f.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (f[2 * mid + 1]! < a + 1) lo = mid + 1;
      else hi = mid;
    }
    return lo < f.length / 2 && f[2 * lo]! < b;
  }

  /** Span i's overlap with other threads' ops inside its span, and the thread wait it ends in. */
  private overlap(i: number): void {
    const { node, startNs, endNs } = this.s;
    if (!this.touchesForeign(i, startNs[i]!, endNs[i]!)) return;
    const mine = this.stretches(i);
    if (!mine.some(([a, b]) => this.touchesForeign(i, a, b))) return;
    const inside: number[] = [];
    for (
      let k = lowerBound(this.byStart.length, (m) => startNs[this.byStart[m]!]!, startNs[i]!);
      k < this.byStart.length;
      k++
    ) {
      const j = this.byStart[k]!;
      if (startNs[j]! >= endNs[i]!) break;
      if (this.thread[j] !== this.thread[i] && endNs[j]! <= endNs[i]!) inside.push(j);
    }
    const over = intersect(mine, merge(inside.map((j): Interval => [startNs[j]!, endNs[j]!])));
    if (over.length === 0) return;
    this.overlapped.set(node[i]!, over);
    // The thread resumes after the other thread's last op that ended while this op waited in it.
    let last = -1;
    for (const j of inside) {
      if (startNs[j]! >= endNs[j]! || (last >= 0 && endNs[j]! <= endNs[last]!)) continue;
      const k = lowerBound(mine.length, (m) => mine[m]![0], endNs[j]! + 1) - 1;
      if (k >= 0 && endNs[j]! <= mine[k]![1]) last = j;
    }
    if (last < 0) return;
    const list = this.own[this.thread[i]!]!;
    const k = lowerBound(list.length, (m) => startNs[list[m]!]!, endNs[last]!);
    if (k < list.length) this.threadWaits.push({ node: node[list[k]!]!, dep: node[last]! });
  }

  /**
   * Per host node, the ns to cut from its exclusive time: the union of its other-thread overlap and the spans it was
   * blocked in synchronisation calls written as dependencies (`at`: the node enclosing the call), within its
   * exclusive stretches.
   */
  cutNs(blocked: { at: number; fromNs: number; toNs: number }[]): Map<number, number> {
    const waits = new Map<number, Interval[]>();
    for (const b of blocked) {
      const l = waits.get(b.at);
      if (l) l.push([b.fromNs, b.toNs]);
      else waits.set(b.at, [[b.fromNs, b.toNs]]);
    }
    const out = new Map<number, number>();
    const nodes = new Set([...this.overlapped.keys(), ...waits.keys()]);
    const spanOf = new Map<number, number>();
    this.s.node.forEach((node, i) => {
      if (nodes.has(node)) spanOf.set(node, i);
    });
    for (const node of nodes) {
      const i = spanOf.get(node);
      if (i === undefined) continue;
      const cut = length(
        intersect(this.stretches(i), merge([...(this.overlapped.get(node) ?? []), ...(waits.get(node) ?? [])])),
      );
      if (cut > 0) out.set(node, cut);
    }
    return out;
  }
}

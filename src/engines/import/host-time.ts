/**
 * The modelled host time of an imported rank: the part of each host op's Kineto exclusive time that was its own work.
 * The modelled replay (like ASTRA-sim's workload layer) runs every host op of a rank on one CPU slot for its
 * duration_micros, one op at a time, and a GPU node for its modelled time. Two kinds of exclusive time are neither:
 *
 * - time blocked in a CUDA synchronisation call (sync.ts): the op the thread resumes with already depends on the
 *   awaited GPU work (measured.ts), so the replay waits for the modelled GPU work; kept in the op too, the replay
 *   would wait twice, and a what-if that makes the GPU faster could not shorten the wait;
 * - time other host threads' ops ran while the op sat in it without a child of its own (the main thread in
 *   "## backward ##" while the autograd thread runs the backward ops): the slot runs those ops themselves, so the
 *   overlap would be run twice. Where the other thread's last such op ended while the op still waited, the thread's
 *   next op (the one it resumed with) waits for it (a ThreadWait, written as a data dependency when the measured times
 *   agree).
 *
 * Both are cut from duration_micros. The measured attributes (measured_duration_ns, measured_delay_ns) are not
 * changed: the as-measured replay keeps its own rule (formats/chakra/measured.ts). Times here are absolute Kineto ns.
 */
import type { ThreadWait } from './measured.js';

/** A host node's Kineto span, for the nesting. */
export interface HostSpan {
  node: number;
  tid: string;
  startNs: number;
  endNs: number;
}

type Interval = [number, number];

/** Sorted, merged intervals: total length and intersection with another such list. */
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

/** Per host node, the stretches of its span on its thread where none of its children ran (its exclusive time). */
function exclusiveStretches(spans: HostSpan[]): Map<number, Interval[]> {
  const byThread = new Map<string, HostSpan[]>();
  for (const s of spans) {
    const l = byThread.get(s.tid);
    if (l) l.push(s);
    else byThread.set(s.tid, [s]);
  }
  const out = new Map<number, Interval[]>();
  for (const list of byThread.values()) {
    list.sort((a, b) => a.startNs - b.startNs || b.endNs - a.endNs || a.node - b.node);
    const children = new Map<number, Interval[]>();
    const stack: HostSpan[] = [];
    for (const s of list) {
      while (stack.length && stack[stack.length - 1]!.endNs < s.endNs) stack.pop();
      const parent = stack[stack.length - 1];
      if (parent) {
        const c = children.get(parent.node);
        if (c) c.push([s.startNs, s.endNs]);
        else children.set(parent.node, [[s.startNs, s.endNs]]);
      }
      stack.push(s);
    }
    for (const s of list) {
      const own: Interval[] = [];
      let at = s.startNs;
      for (const [a, b] of merge(children.get(s.node) ?? [])) {
        if (a > at) own.push([at, a]);
        at = Math.max(at, b);
      }
      if (s.endNs > at) own.push([at, s.endNs]);
      out.set(s.node, own);
    }
  }
  return out;
}

export interface HostTime {
  /** Per host node: its exclusive stretches, and those other threads' ops ran in (before the blocked calls are known). */
  readonly stretches: Map<number, Interval[]>;
  readonly overlapped: Map<number, Interval[]>;
  /** The node each thread resumed with after waiting for another thread's op. */
  readonly threadWaits: ThreadWait[];
}

/** First index of `sorted` whose key is ≥ x. */
function lowerBound<T>(sorted: T[], key: (v: T) => number, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(sorted[mid]!) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The other-thread overlaps of each host node, and the thread waits they end in. An op's overlap is with the ops of
 * other threads that ran inside its span (so the op that waited is the one enclosing the other thread's work, never
 * the other way round), within its exclusive stretches.
 */
export function hostTime(spans: HostSpan[]): HostTime {
  const stretches = exclusiveStretches(spans);
  const overlapped = new Map<number, Interval[]>();
  const threadWaits: ThreadWait[] = [];
  const tids = [...new Set(spans.map((s) => s.tid))];
  if (tids.length < 2) return { stretches, overlapped, threadWaits };
  const byStart = [...spans].sort((a, b) => a.startNs - b.startNs || a.node - b.node);
  const starts = (s: HostSpan) => s.startNs;
  const own = new Map(tids.map((tid) => [tid, byStart.filter((s) => s.tid === tid)]));
  // Per thread, the merged spans of every other thread: a cheap test of whether an op can overlap at all.
  const foreign = new Map(tids.map((tid) => [tid, merge(spans.filter((s) => s.tid !== tid).map((s): Interval => [s.startNs, s.endNs]))]));
  const touches = (list: Interval[], [a, b]: Interval) => {
    const k = lowerBound(list, (x) => x[1], a + 1);
    return k < list.length && list[k]![0] < b;
  };
  for (const x of spans) {
    const mine = stretches.get(x.node)!;
    const others = foreign.get(x.tid)!;
    if (!mine.some((st) => touches(others, st))) continue;
    const inside: HostSpan[] = [];
    for (let k = lowerBound(byStart, starts, x.startNs); k < byStart.length && byStart[k]!.startNs < x.endNs; k++) {
      const y = byStart[k]!;
      if (y.tid !== x.tid && y.endNs <= x.endNs) inside.push(y);
    }
    const over = intersect(mine, merge(inside.map((y): Interval => [y.startNs, y.endNs])));
    if (over.length === 0) continue;
    overlapped.set(x.node, over);
    // The thread resumes after the other thread's last op that ended while this op waited in it.
    let last: HostSpan | null = null;
    for (const y of inside) {
      if (y.startNs < y.endNs && mine.some(([a, b]) => y.endNs >= a && y.endNs <= b) && (!last || y.endNs > last.endNs)) last = y;
    }
    if (!last) continue;
    const list = own.get(x.tid)!;
    const k = lowerBound(list, starts, last.endNs);
    if (k < list.length) threadWaits.push({ node: list[k]!.node, dep: last.node });
  }
  return { stretches, overlapped, threadWaits };
}

/**
 * Per host node, the ns to cut from its exclusive time: the union of its other-thread overlap and the spans it was
 * blocked in synchronisation calls written as dependencies, within its exclusive stretches.
 */
export function hostCutNs(t: HostTime, blocked: { at: number; fromNs: number; toNs: number }[]): Map<number, number> {
  const waits = new Map<number, Interval[]>();
  for (const b of blocked) {
    const l = waits.get(b.at);
    if (l) l.push([b.fromNs, b.toNs]);
    else waits.set(b.at, [[b.fromNs, b.toNs]]);
  }
  const out = new Map<number, number>();
  for (const node of new Set([...t.overlapped.keys(), ...waits.keys()])) {
    const own = t.stretches.get(node);
    if (!own) continue;
    const cut = length(intersect(own, merge([...(t.overlapped.get(node) ?? []), ...(waits.get(node) ?? [])])));
    if (cut > 0) out.set(node, cut);
  }
  return out;
}

/**
 * host-time.ts: what a host op's duration_micros leaves out for the modelled replay's one CPU slot — the span it
 * was blocked in a synchronisation written as a dependency, and the stretches other threads' ops (running inside it)
 * overlapped — and the thread waits those overlaps end in.
 */
import { describe, expect, it } from 'vitest';
import { hostCutNs, hostTime, type HostSpan } from '../../src/engines/import/host-time.js';

const span = (node: number, tid: string, startNs: number, endNs: number): HostSpan => ({ node, tid, startNs, endNs });

describe('host time', () => {
  // Main thread: 0 "backward" [0, 100) with a child 1 [10, 20) and a child 4 [60, 65); then 5 [110, 120).
  // Autograd thread: 2 [30, 50), 3 [70, 90) with a child 6 [75, 80).
  const spans = [span(0, 'main', 0, 100), span(1, 'main', 10, 20), span(4, 'main', 60, 65), span(5, 'main', 110, 120),
    span(2, 'ag', 30, 50), span(3, 'ag', 70, 90), span(6, 'ag', 75, 80)];

  it('cuts from the enclosing op the other thread\'s time inside its exclusive stretches, never the other way round', () => {
    const t = hostTime(spans);
    expect(t.stretches.get(0)).toEqual([[0, 10], [20, 60], [65, 100]]);
    expect(t.overlapped.get(0)).toEqual([[30, 50], [70, 90]]);
    // The autograd ops ran inside no op of the main thread's span… but the main op's span holds them: they keep their time.
    expect(t.overlapped.has(2)).toBe(false);
    expect(t.overlapped.has(3)).toBe(false);
    // The main thread resumes (node 5, at 110) after the autograd thread's last op (3, ended 90) in its wait.
    expect(t.threadWaits).toEqual([{ node: 5, dep: 3 }]);
    expect(hostCutNs(t, [])).toEqual(new Map([[0, 40]]));
  });

  it('adds the blocked spans of synchronisations, counting time overlapped twice once, within the exclusive stretches only', () => {
    const t = hostTime(spans);
    // Blocked [85, 95) in node 0 (5 ns of it overlapped by node 3 already), and [12, 18) in its child 1.
    const cut = hostCutNs(t, [{ at: 0, fromNs: 85, toNs: 95 }, { at: 1, fromNs: 12, toNs: 18 }]);
    expect(cut).toEqual(new Map([[0, 45], [1, 6]]));
  });

  it('one thread: no overlap, no thread wait', () => {
    const t = hostTime(spans.filter((s) => s.tid === 'main'));
    expect(t.overlapped.size).toBe(0);
    expect(t.threadWaits).toEqual([]);
  });
});

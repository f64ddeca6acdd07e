/**
 * host-time.ts: what a host op's duration_micros leaves out for the modelled replay's one CPU slot — the span it
 * was blocked in a synchronisation written as a dependency, and the stretches other threads' ops (running inside it)
 * overlapped — and the thread waits those overlaps end in.
 */
import { describe, expect, it } from 'vitest';
import { HostTime, type HostSpans } from '../../src/engines/import/host-time.js';

function spans(list: [number, string, number, number][]): HostSpans {
  return {
    node: list.map((x) => x[0]),
    tid: list.map((x) => x[1]),
    startNs: list.map((x) => x[2]),
    endNs: list.map((x) => x[3]),
  };
}

describe('host time', () => {
  // Main thread: 0 "backward" [0, 100) with children 1 [10, 20) and 4 [60, 65); then 5 [110, 120).
  // Autograd thread: 2 [30, 50), 3 [70, 90) with a child 6 [75, 80).
  const run: [number, string, number, number][] = [
    [0, 'main', 0, 100],
    [1, 'main', 10, 20],
    [4, 'main', 60, 65],
    [5, 'main', 110, 120],
    [2, 'ag', 30, 50],
    [3, 'ag', 70, 90],
    [6, 'ag', 75, 80],
  ];

  it(
    "cuts from the enclosing op the other thread's time inside its exclusive stretches, never the other way " + 'round',
    () => {
      const t = new HostTime(spans(run));
      // Node 0's exclusive stretches are [0, 10), [20, 60), [65, 100): the autograd ops fill [30, 50) and [70, 90) of
      // them.
      expect(t.overlapped).toEqual(
        new Map([
          [
            0,
            [
              [30, 50],
              [70, 90],
            ],
          ],
        ]),
      );
      // The main thread resumes (node 5, at 110) after the autograd thread's last op in its wait (3, ended 90).
      expect(t.threadWaits).toEqual([{ node: 5, dep: 3 }]);
      expect(t.cutNs([])).toEqual(new Map([[0, 40]]));
    },
  );

  it(
    'adds the blocked spans of synchronisations, counting time overlapped twice once, within the exclusive ' +
      'stretches only',
    () => {
      const t = new HostTime(spans(run));
      // Node 0 blocked [85, 95) (its first 5 ns overlapped by node 3 already: 5 ns more) and [55, 70) (of which [60,
      // 65)
      // is its child 4's: 10 ns more); its child 1 blocked [12, 18).
      const cut = t.cutNs([
        { at: 0, fromNs: 85, toNs: 95 },
        { at: 1, fromNs: 12, toNs: 18 },
        { at: 0, fromNs: 55, toNs: 70 },
      ]);
      expect(cut).toEqual(
        new Map([
          [0, 40 + 5 + 10],
          [1, 6],
        ]),
      );
    },
  );

  it('one thread: no overlap, no thread wait', () => {
    const t = new HostTime(spans(run.filter((s) => s[1] === 'main')));
    expect(t.overlapped.size).toBe(0);
    expect(t.threadWaits).toEqual([]);
    expect(t.cutNs([{ at: 5, fromNs: 112, toNs: 130 }])).toEqual(new Map([[5, 8]]));
  });
});

/** The replay's finished-id set against a plain Set, on dense, sparse, huge and string ids. */
import { describe, expect, it } from 'vitest';
import { FinishedIds } from '../../src/engines/replay/id-set.js';

function rng(seed: number) {
  return () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
}

describe('FinishedIds', () => {
  it('agrees with a Set on every membership query, across bitmap promotion', () => {
    const rand = rng(11);
    const ids = new FinishedIds();
    const ref = new Set<number | string>();
    const candidates: (number | string)[] = [];
    // Dense runs (promoted to bitmaps), sparse ids, ids near 2^53, block edges, and string ids.
    for (let i = 0; i < 30_000; i++) candidates.push(i);
    for (let i = 0; i < 5_000; i++) candidates.push(Math.floor(rand() * Number.MAX_SAFE_INTEGER));
    for (const b of [8191, 8192, 8193, 16383, 16384, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1]) candidates.push(b);
    candidates.push('9007199254740993', '18446744073709551615', '-1');
    // Add in a shuffled order, checking a random sample as we go.
    for (let i = candidates.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
    }
    let checks = 0;
    candidates.forEach((k, n) => {
      ids.add(k);
      ref.add(k);
      if (n % 97 === 0) {
        for (let q = 0; q < 50; q++) {
          const probe = q % 2 ? candidates[Math.floor(rand() * candidates.length)]! : Math.floor(rand() * 40_000);
          expect(ids.has(probe), `probe ${probe}`).toBe(ref.has(probe));
          checks++;
        }
      }
    });
    for (const k of candidates) expect(ids.has(k)).toBe(true);
    for (let k = 30_000; k < 40_000; k++) expect(ids.has(k)).toBe(ref.has(k));
    expect(ids.size).toBe(ref.size);
    ids.add(5);
    expect(ids.size).toBe(ref.size);
    expect(checks).toBeGreaterThan(10_000);
  });
});

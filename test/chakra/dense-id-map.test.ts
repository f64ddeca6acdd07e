/**
 * DenseIdMap, the graph's id index (direct table for small ids, hash table for the rest, a Map above 2^53 − 1) against
 * a plain
 * Map: dense ids from 0, strided ids from an offset, random sparse ids, and a mix that moves hashed ids into the
 * direct table as it grows.
 */
import { describe, expect, it } from 'vitest';
import { DenseIdMap } from '../../src/formats/chakra/dense-id-map.js';
import { seededRandom } from '../../scripts/replay-traces.mjs';

function agrees(ids: number[], misses: number[]): void {
  const index = new DenseIdMap();
  const ref = new Map<number, number>();
  // Disagreements collected, then compared once (an expect per id would be most of the test's time).
  const wrong: string[] = [];
  ids.forEach((id, n) => {
    const got = index.getOrAdd(id, n);
    if (got !== (ref.get(id) ?? n)) wrong.push(`getOrAdd ${id}: ${got}`);
    if (!ref.has(id)) ref.set(id, n);
  });
  for (const id of [...ids, ...misses])
    if (index.get(id) !== (ref.get(id) ?? -1)) wrong.push(`get ${id}: ${index.get(id)}`);
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(index.size).toBe(ref.size);
  index.clear();
  expect(index.size).toBe(0);
  expect(index.get(ids[0])).toBe(-1);
}

describe('DenseIdMap', () => {
  const rand = seededRandom(5);
  const randomIds = (n: number, below: number) => Array.from({ length: n }, () => Math.floor(rand() * below));
  it('agrees with a Map on dense, strided and sparse ids', () => {
    const misses = randomIds(20_000, 3e7);
    agrees(
      Array.from({ length: 150_000 }, (_, i) => i),
      misses,
    );
    agrees(
      Array.from({ length: 60_000 }, (_, i) => 500_000 + 3 * i),
      misses,
    );
    agrees(randomIds(40_000, Number.MAX_SAFE_INTEGER), misses);
  });
  it('agrees with a Map when hashed ids later fall in the direct table, and ids repeat', () => {
    const ids = [
      ...randomIds(30_000, 20_000_000),
      ...randomIds(30_000, 400_000),
      ...Array.from({ length: 100_000 }, (_, i) => i),
    ];
    agrees([...ids, ...ids.slice(0, 5_000)], randomIds(20_000, 3e7));
  });
});

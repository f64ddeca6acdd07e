/**
 * A rank's id index (loaded slot / finished / not seen) against a plain Map, on dense, sparse, huge and string ids,
 * as nodes load in order and finish out of order: across block promotion, compaction to bitmaps and expansion.
 */
import { describe, expect, it } from 'vitest';
import { FINISHED, NodeIdStates, NOT_SEEN } from '../../src/engines/replay/node-id-states.js';
import { seededRandom } from '../../scripts/replay-traces.mjs';

describe('NodeIdStates', () => {
  it('agrees with a Map on every lookup', () => {
    const rand = seededRandom(11);
    const index = new NodeIdStates();
    const ref = new Map<number | string, number>();
    const ids: (number | string)[] = [];
    for (let i = 0; i < 30_000; i++) ids.push(i);
    for (let i = 0; i < 4_000; i++) ids.push(Math.floor(rand() * Number.MAX_SAFE_INTEGER));
    for (const b of [4095, 4096, 4097, 8191, 8192, Number.MAX_SAFE_INTEGER]) ids.push(b);
    ids.push('9007199254740993', '18446744073709551615');
    // Mostly in order, with a few late ids into early blocks (which by then are bitmaps of finished ids).
    for (let i = 0; i < 200; i++) ids.push(30_000 + Math.floor(rand() * 5_000));
    for (let i = 0; i < 50; i++) ids.push(40_000 + i * 3);
    const unique = [...new Set(ids)];
    for (let i = 0; i < 300; i++) unique.push(50_000 + i);
    const loaded: (number | string)[] = [];
    let slot = 0;
    let checks = 0;
    const probe = (k: number | string) => {
      expect(index.get(k), `id ${k}`).toBe(ref.get(k) ?? NOT_SEEN);
      checks++;
    };
    for (const k of unique) {
      index.setLoaded(k, slot);
      ref.set(k, slot++);
      loaded.push(k);
      // Finish some loaded ids, mostly the oldest, so blocks empty behind the loading front.
      while (loaded.length > 0 && rand() < 0.6) {
        const j = rand() < 0.8 ? 0 : Math.floor(rand() * loaded.length);
        const [gone] = loaded.splice(j, 1);
        index.setFinished(gone);
        ref.set(gone, FINISHED);
      }
      if (slot % 37 === 0)
        for (let q = 0; q < 10; q++)
          probe(q % 2 ? unique[Math.floor(rand() * unique.length)] : Math.floor(rand() * 60_000));
    }
    for (const k of unique) probe(k);
    expect(index.loaded).toBe(loaded.length);
    expect(index.loadedSlots().sort((a, b) => a - b)).toEqual(loaded.map((k) => ref.get(k)!).sort((a, b) => a - b));
    expect(checks).toBeGreaterThan(40_000);
  });
});

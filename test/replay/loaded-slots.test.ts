/** The replay's loaded-node index against a plain Map, on dense, sparse, huge and string ids, as nodes come and go. */
import { describe, expect, it } from 'vitest';
import { LoadedSlots } from '../../src/engines/replay/loaded-slots.js';
import { seededRandom } from '../../scripts/replay-traces.mjs';

describe('LoadedSlots', () => {
  it('agrees with a Map on every lookup while ids are loaded and finished, across block promotion and release', () => {
    const rand = seededRandom(5);
    const index = new LoadedSlots();
    const ref = new Map<number | string, number>();
    const candidates: (number | string)[] = [];
    for (let i = 0; i < 20_000; i++) candidates.push(i);
    for (let i = 0; i < 3_000; i++) candidates.push(Math.floor(rand() * Number.MAX_SAFE_INTEGER));
    for (const b of [4095, 4096, 4097, 8191, 8192, Number.MAX_SAFE_INTEGER]) candidates.push(b);
    candidates.push('9007199254740993', '18446744073709551615');
    const unique = [...new Set(candidates)];
    let slot = 0;
    let checks = 0;
    const check = () => {
      for (let q = 0; q < 20; q++) {
        const probe = q % 2 ? unique[Math.floor(rand() * unique.length)] : Math.floor(rand() * 30_000);
        expect(index.get(probe), `probe ${probe}`).toBe(ref.get(probe));
        checks++;
      }
    };
    // Load in order (like a window over a file) and finish the older ones at random, so blocks fill and empty.
    for (const k of unique) {
      index.set(k, slot);
      ref.set(k, slot++);
      if (rand() < 0.7) {
        const keys = [...ref.keys()];
        const gone = keys[Math.floor(rand() * Math.min(keys.length, 200))];
        index.delete(gone);
        ref.delete(gone);
      }
      if (slot % 53 === 0) check();
    }
    expect(index.size).toBe(ref.size);
    expect(index.slots().sort((a, b) => a - b)).toEqual([...ref.values()].sort((a, b) => a - b));
    for (const [k, v] of ref) expect(index.get(k)).toBe(v);
    expect(checks).toBeGreaterThan(5_000);
  });
});

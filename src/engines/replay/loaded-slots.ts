/**
 * Node id → table slot of a rank's loaded (unfinished) nodes. Ids are mostly dense integers, so ids are grouped in
 * blocks of 4,096: a block holding 128 or more loaded nodes becomes an Int32Array (16 KiB, 4 bytes per id instead
 * of a Map entry's 40–50), freed again when its last node finishes. Sparse ids and ids kept as strings (above 2^53)
 * stay in a Map.
 */
import type { IdKey } from './node-table.js';

const BLOCK_BITS = 12;
const BLOCK_IDS = 1 << BLOCK_BITS;
const PROMOTE_AT = 128;

export class LoadedSlots {
  /** slot + 1 per id of the block; 0 = not loaded. */
  private readonly blocks = new Map<number, Int32Array>();
  /** Loaded ids per block in `blocks`. */
  private readonly blockCount = new Map<number, number>();
  private readonly loose = new Map<IdKey, number>();
  /** Loose numeric ids per block, to promote busy blocks. */
  private readonly looseCount = new Map<number, number>();
  size = 0;

  /** The slot of `key`, or undefined when it is not loaded. */
  get(key: IdKey): number | undefined {
    if (typeof key === 'number') {
      const block = this.blocks.get(Math.floor(key / BLOCK_IDS));
      if (block !== undefined) {
        const v = block[key % BLOCK_IDS];
        return v === 0 ? undefined : v - 1;
      }
    }
    return this.loose.get(key);
  }

  has(key: IdKey): boolean {
    return this.get(key) !== undefined;
  }

  /** Records `key` at `slot` (the key must not be loaded yet). */
  set(key: IdKey, slot: number): void {
    this.size++;
    if (typeof key === 'string') {
      this.loose.set(key, slot);
      return;
    }
    const b = Math.floor(key / BLOCK_IDS);
    const block = this.blocks.get(b);
    if (block !== undefined) {
      block[key % BLOCK_IDS] = slot + 1;
      this.blockCount.set(b, this.blockCount.get(b)! + 1);
      return;
    }
    this.loose.set(key, slot);
    const n = (this.looseCount.get(b) ?? 0) + 1;
    if (n < PROMOTE_AT) this.looseCount.set(b, n);
    else this.promote(b);
  }

  delete(key: IdKey): void {
    this.size--;
    if (typeof key === 'number') {
      const b = Math.floor(key / BLOCK_IDS);
      const block = this.blocks.get(b);
      if (block !== undefined) {
        block[key % BLOCK_IDS] = 0;
        const n = this.blockCount.get(b)! - 1;
        if (n > 0) this.blockCount.set(b, n);
        else {
          this.blocks.delete(b);
          this.blockCount.delete(b);
        }
        return;
      }
      const n = this.looseCount.get(b)! - 1;
      if (n > 0) this.looseCount.set(b, n);
      else this.looseCount.delete(b);
    }
    this.loose.delete(key);
  }

  /** Slots of all loaded nodes. */
  slots(): number[] {
    const out = [...this.loose.values()];
    for (const block of this.blocks.values()) for (const v of block) if (v !== 0) out.push(v - 1);
    return out;
  }

  private promote(b: number): void {
    const block = new Int32Array(BLOCK_IDS);
    const base = b * BLOCK_IDS;
    let n = 0;
    for (let i = 0; i < BLOCK_IDS; i++) {
      const slot = this.loose.get(base + i);
      if (slot === undefined) continue;
      this.loose.delete(base + i);
      block[i] = slot + 1;
      n++;
    }
    this.looseCount.delete(b);
    this.blocks.set(b, block);
    this.blockCount.set(b, n);
  }
}

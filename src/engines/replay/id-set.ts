/**
 * The set of finished node ids of one rank, which the replay keeps for the whole run (a later node may depend on
 * any earlier one). Ids are mostly dense integers, so a block of 8,192 ids that holds 64 or more members becomes a
 * 1 KiB bitmap: about one bit per id instead of a Set entry's 16–20 bytes. Sparse ids and ids above 2^53 (kept as
 * strings) stay in a plain Set.
 */
const BLOCK_BITS = 13;
const BLOCK_IDS = 1 << BLOCK_BITS;
const PROMOTE_AT = 64;

export class FinishedIds {
  private readonly bitmaps = new Map<number, Uint32Array>();
  private readonly loose = new Set<number | string>();
  /** Members per block still held in `loose`. */
  private readonly looseCount = new Map<number, number>();
  size = 0;

  has(key: number | string): boolean {
    if (typeof key === 'number') {
      const bits = this.bitmaps.get(Math.floor(key / BLOCK_IDS));
      if (bits !== undefined) {
        const i = key % BLOCK_IDS;
        return (bits[i >>> 5] & (1 << (i & 31))) !== 0;
      }
    }
    return this.loose.has(key);
  }

  add(key: number | string): void {
    if (this.has(key)) return;
    this.size++;
    if (typeof key === 'string') {
      this.loose.add(key);
      return;
    }
    const block = Math.floor(key / BLOCK_IDS);
    const bits = this.bitmaps.get(block);
    if (bits !== undefined) {
      const i = key % BLOCK_IDS;
      bits[i >>> 5] |= 1 << (i & 31);
      return;
    }
    this.loose.add(key);
    const n = (this.looseCount.get(block) ?? 0) + 1;
    if (n < PROMOTE_AT) this.looseCount.set(block, n);
    else this.promote(block);
  }

  /** Moves a block's members from the Set into a new bitmap (8,192 lookups, once per block). */
  private promote(block: number): void {
    const bits = new Uint32Array(BLOCK_IDS / 32);
    const base = block * BLOCK_IDS;
    for (let i = 0; i < BLOCK_IDS; i++) {
      if (this.loose.delete(base + i)) bits[i >>> 5] |= 1 << (i & 31);
    }
    this.looseCount.delete(block);
    this.bitmaps.set(block, bits);
  }
}

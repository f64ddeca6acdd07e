/**
 * What one rank knows of each node id: loaded at a table slot, finished, or not seen. The replay keeps finished ids
 * for the whole run (a later node may depend on any earlier one) and looks ids up on every load and finish.
 *
 * Ids are mostly dense integers, read in order, so they are grouped in blocks of 4,096: a block that holds 64 or
 * more ids becomes an Int32Array (slot + 1, or FINISHED_MARK), and once none of its ids is loaded any more and
 * later blocks are being loaded, a 512-byte bitmap of the finished ones (about a bit per id for the rest of the run).
 * The block used last is kept
 * at hand, so in-order ids rarely touch the Map. Sparse ids and ids kept as strings (above 2^53) stay in a Map.
 */
import type { IdKey } from './node-table.js';

export const NOT_SEEN = -2;
export const FINISHED = -1;

const BLOCK_BITS = 12;
const BLOCK_IDS = 1 << BLOCK_BITS;
const PROMOTE_AT = 64;
const FINISHED_MARK = -1;

interface Block {
  /** slot + 1 of loaded ids, FINISHED_MARK, or 0; null while the block is a bitmap. */
  slots: Int32Array | null;
  /** Finished ids, once no id of the block is loaded. */
  bits: Uint32Array | null;
  loaded: number;
}

export class NodeIdStates {
  private readonly blocks = new Map<number, Block>();
  /** Sparse and string ids: slot, or FINISHED. */
  private readonly loose = new Map<IdKey, number>();
  /** Loose numeric ids per block number, to promote busy blocks. */
  private readonly looseCount = new Map<number, number>();
  private lastNumber = NaN;
  private lastBlock: Block | undefined;
  /** Highest block number an id was loaded into: blocks below it are not being filled any more. */
  private highest = -Infinity;
  /** Loaded ids. */
  loaded = 0;

  /** The slot of a loaded id, FINISHED, or NOT_SEEN. */
  get(key: IdKey): number {
    if (typeof key === 'number') {
      const block = this.block(Math.floor(key / BLOCK_IDS));
      if (block !== undefined) {
        const i = key % BLOCK_IDS;
        if (block.slots !== null) {
          const v = block.slots[i];
          return v === 0 ? NOT_SEEN : v === FINISHED_MARK ? FINISHED : v - 1;
        }
        return (block.bits![i >>> 5] & (1 << (i & 31))) !== 0 ? FINISHED : NOT_SEEN;
      }
    }
    return this.loose.get(key) ?? NOT_SEEN;
  }

  /** Records a new id as loaded at `slot` (it must be NOT_SEEN). */
  setLoaded(key: IdKey, slot: number): void {
    this.loaded++;
    if (typeof key === 'number') {
      const b = Math.floor(key / BLOCK_IDS);
      if (b > this.highest) this.highest = b;
      const block = this.block(b);
      if (block !== undefined) {
        const slots = block.slots ?? this.expand(block);
        slots[key % BLOCK_IDS] = slot + 1;
        block.loaded++;
        return;
      }
      this.loose.set(key, slot);
      const n = (this.looseCount.get(b) ?? 0) + 1;
      if (n < PROMOTE_AT) this.looseCount.set(b, n);
      else this.promote(b);
      return;
    }
    this.loose.set(key, slot);
  }

  /** Marks a loaded id finished. */
  setFinished(key: IdKey): void {
    this.loaded--;
    if (typeof key === 'number') {
      const b = Math.floor(key / BLOCK_IDS);
      const block = this.block(b);
      if (block !== undefined) {
        block.slots![key % BLOCK_IDS] = FINISHED_MARK;
        if (--block.loaded === 0 && b < this.highest) this.compact(block);
        return;
      }
    }
    this.loose.set(key, FINISHED);
  }

  /** Slots of all loaded ids. */
  loadedSlots(): number[] {
    const out: number[] = [];
    for (const v of this.loose.values()) if (v >= 0) out.push(v);
    for (const block of this.blocks.values()) {
      if (block.slots) for (const v of block.slots) if (v > 0) out.push(v - 1);
    }
    return out;
  }

  private block(b: number): Block | undefined {
    if (b === this.lastNumber) return this.lastBlock;
    const block = this.blocks.get(b);
    if (block !== undefined) {
      this.lastNumber = b;
      this.lastBlock = block;
    }
    return block;
  }

  /** Moves a block's ids from the Map into a new block of slots (4,096 lookups, once per block). */
  private promote(b: number): void {
    const slots = new Int32Array(BLOCK_IDS);
    const base = b * BLOCK_IDS;
    let loaded = 0;
    for (let i = 0; i < BLOCK_IDS; i++) {
      const v = this.loose.get(base + i);
      if (v === undefined) continue;
      this.loose.delete(base + i);
      if (v === FINISHED) slots[i] = FINISHED_MARK;
      else {
        slots[i] = v + 1;
        loaded++;
      }
    }
    this.looseCount.delete(b);
    const block: Block = { slots, bits: null, loaded };
    this.blocks.set(b, block);
    this.lastNumber = b;
    this.lastBlock = block;
    if (loaded === 0 && b < this.highest) this.compact(block);
  }

  /** No id of the block is loaded: keep only which are finished, a bit each. */
  private compact(block: Block): void {
    const slots = block.slots!;
    const bits = new Uint32Array(BLOCK_IDS / 32);
    for (let i = 0; i < BLOCK_IDS; i++) if (slots[i] === FINISHED_MARK) bits[i >>> 5] |= 1 << (i & 31);
    block.bits = bits;
    block.slots = null;
  }

  /** A new id in a bitmap block: back to slots. */
  private expand(block: Block): Int32Array {
    const slots = new Int32Array(BLOCK_IDS);
    const bits = block.bits!;
    for (let i = 0; i < BLOCK_IDS; i++) if ((bits[i >>> 5] & (1 << (i & 31))) !== 0) slots[i] = FINISHED_MARK;
    block.slots = slots;
    block.bits = null;
    return slots;
  }
}

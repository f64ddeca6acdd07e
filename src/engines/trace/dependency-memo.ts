/**
 * Classified dependency lists, keyed by their packed bytes: a trace whose nodes repeat (a profiled iteration copied,
 * or the same dependency list on many nodes) classes each distinct list once. An entry is only made for a list whose
 * every dependency was already known, so its parents (node numbers) and the class they give are final: a later node
 * with the same bytes has the same parents (an id's node number never changes) and so the same class. Exact: a hit
 * compares every byte.
 */
import type { KnownPackedLists } from '../../formats/chakra/probe.js';

/** Lists shorter than this are classed directly (a few lookups cost less than hashing them). */
export const MEMO_MIN_BYTES = 24;
/** Table slots (a power of 2); entries stop being added at half of them. */
const SLOTS = 1 << 14;
const MAX_ENTRIES = SLOTS >> 1;

export class DependencyMemo implements KnownPackedLists {
  /** Per slot: entry number + 1 (0: empty). */
  private readonly slotEntry = new Int32Array(SLOTS);
  /** Per entry: hash, byte length, where its bytes and parents lie in the slabs, its class. */
  private entryCount = 0;
  private readonly entryHash = new Int32Array(MAX_ENTRIES);
  private readonly entryLength = new Int32Array(MAX_ENTRIES);
  private readonly entryWordsAt = new Int32Array(MAX_ENTRIES);
  private readonly entryParentsAt = new Int32Array(MAX_ENTRIES);
  private readonly entryCountOf = new Int32Array(MAX_ENTRIES);
  private readonly entryState = new Uint8Array(MAX_ENTRIES);
  /** Every entry's bytes as little-endian 32-bit words (the last 0–3 bytes as one more), one entry after another. */
  private words = new Int32Array(1 << 14);
  private wordsUsed = 0;
  /** Every entry's parents, one after another: where a hit's parents are read (parentsAt). */
  parents = new Int32Array(1 << 14);
  private parentsUsed = 0;
  private lookups = 0;
  private hits = 0;
  /** The last missed lookup's hash and slot, for store(). */
  private missHash = 0;
  private missSlot = -1;

  clear(): void {
    if (this.entryCount > 0) this.slotEntry.fill(0);
    this.entryCount = this.wordsUsed = this.parentsUsed = 0;
    this.lookups = this.hits = 0;
    this.missSlot = -1;
  }

  /** The entry holding the list in buf[start, end) (its bytes read through `view`, a view of buf), or −1. */
  find(buf: Uint8Array, view: DataView, start: number, end: number): number {
    this.missSlot = -1;
    const length = end - start;
    // Once the table is full, lookups go on only while at least a quarter of them hit (lists that never repeat
    // are not hashed in vain).
    if (length < MEMO_MIN_BYTES || (this.entryCount >= MAX_ENTRIES && this.hits * 4 < this.lookups)) return -1;
    this.lookups++;
    const hash = hashOf(view, start, end);
    const mask = SLOTS - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slotEntry[slot] - 1;
      if (entry < 0) {
        this.missHash = hash;
        this.missSlot = slot;
        return -1;
      }
      if (
        this.entryHash[entry] === hash &&
        this.entryLength[entry] === length &&
        this.sameBytes(entry, buf, view, start, end)
      ) {
        this.hits++;
        return entry;
      }
    }
  }

  /** Adds the list find() just missed, with its parents[0, count) and class. */
  store(
    buf: Uint8Array,
    view: DataView,
    start: number,
    end: number,
    parents: Int32Array,
    count: number,
    state: number,
  ): void {
    if (this.missSlot < 0 || this.entryCount >= MAX_ENTRIES) return;
    const entry = this.entryCount++;
    this.slotEntry[this.missSlot] = entry + 1;
    this.missSlot = -1;
    this.entryHash[entry] = this.missHash;
    this.entryLength[entry] = end - start;
    this.entryState[entry] = state;
    if (this.wordsUsed + (end - start) / 4 + 1 > this.words.length)
      this.words = grown(this.words, this.wordsUsed + (end - start) / 4 + 1);
    this.entryWordsAt[entry] = this.wordsUsed;
    let i = start;
    for (; i + 4 <= end; i += 4) this.words[this.wordsUsed++] = view.getInt32(i, true);
    this.words[this.wordsUsed++] = tailOf(buf, i, end);
    if (this.parentsUsed + count > this.parents.length) this.parents = grown(this.parents, this.parentsUsed + count);
    this.entryParentsAt[entry] = this.parentsUsed;
    this.entryCountOf[entry] = count;
    this.parents.set(parents.subarray(0, count), this.parentsUsed);
    this.parentsUsed += count;
  }

  /** The class an entry's parents give. */
  stateOf(entry: number): number {
    return this.entryState[entry];
  }

  /** How many dependencies an entry's list holds. */
  countOf(entry: number): number {
    return this.entryCountOf[entry];
  }

  /** Where an entry's parents start in `parents`. */
  parentsAt(entry: number): number {
    return this.entryParentsAt[entry];
  }

  private sameBytes(entry: number, buf: Uint8Array, view: DataView, start: number, end: number): boolean {
    const words = this.words;
    let w = this.entryWordsAt[entry];
    let i = start;
    for (; i + 4 <= end; i += 4) if (words[w++] !== view.getInt32(i, true)) return false;
    return words[w] === tailOf(buf, i, end);
  }
}

/** A copy of `array` with room for at least `size` elements. */
function grown<T extends Uint8Array | Int32Array>(array: T, size: number): T {
  const next = new (array.constructor as new (n: number) => T)(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

/**
 * A hash of buf[start, end) (at least MEMO_MIN_BYTES long) from its length and three of its words: cheap, and enough to
 * tell lists apart (a hit compares every byte anyway).
 */
function hashOf(view: DataView, start: number, end: number): number {
  let h = Math.imul(end - start, 0x9e3779b1);
  h = Math.imul(h ^ view.getInt32(start, true), 0x85ebca6b);
  h = Math.imul(h ^ view.getInt32(start + ((end - start) >> 1), true), 0xc2b2ae35);
  h = Math.imul(h ^ view.getInt32(end - 4, true), 0x9e3779b1);
  return h ^ (h >>> 15);
}

/** The last 0–3 bytes of a list as one integer (lists compared are of equal length). */
function tailOf(buf: Uint8Array, i: number, end: number): number {
  let t = 0;
  for (; i < end; i++) t = (t << 8) | buf[i];
  return t;
}

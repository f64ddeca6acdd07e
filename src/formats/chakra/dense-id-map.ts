/**
 * DenseIdMap: node ids (uint64) to the dense integers (node numbers) given with them. Ids in a dense run (a rank's
 * ids mostly are: PyTorch's from near 0, generated multi-rank traces' from the rank's first id) index a direct
 * table, one load a lookup; other ids up to 2^53 − 1 are kept exactly as doubles in an open-addressing table (no
 * bigint, no Map entry per node); larger ids, which only a bigint holds exactly, in a Map beside.
 */
/** A slot holds id + 1 (exact: ids here are at most 2^53 − 1), so that a fresh table's zeros are its empty slots. */
const EMPTY_KEY = 0;
const MIN_CAPACITY = 1024;
/**
 * The direct table covers ids [directBase, directBase + direct.length), directBase set by the first id added (less
 * DIRECT_BELOW, for ids a little below it). It grows to take an id up to DIRECT_MAX past its base when the id is less
 * than twice the ids held plus DIRECT_SLACK past it (so that it stays about as large as the ids it holds; sparse ids
 * go to the hash table).
 */
const DIRECT_MAX = 1 << 24;
const DIRECT_SLACK = 1 << 16;
const DIRECT_BELOW = 4096;

export class DenseIdMap {
  /**
   * Keys as id + 1 in a table left as allocated (zeros): never filled, so that only the pages ids land on are ever
   * touched (fresh memory costs page faults, and dense ids fill the table's low part only).
   */
  private keys = new Float64Array(MIN_CAPACITY);
  private values = new Int32Array(MIN_CAPACITY);
  private mask = MIN_CAPACITY - 1;
  private count = 0;
  /** Ids in the hash table (its load). */
  private hashCount = 0;
  private big: Map<bigint, number> | null = null;
  /** direct[id − directBase] is the index + 1 of an id it covers (0: absent); the hash table holds none of them. */
  private direct = new Int32Array(0);
  private directBase = 0;
  /** The lowest and highest entry used (low > high: none), so that clear() zeroes only that range. */
  private directLow = Infinity;
  private directHigh = -1;

  /** Forgets every id, keeping the tables' memory (fresh memory costs page faults). */
  clear(): void {
    if (this.hashCount > 0) this.keys.fill(EMPTY_KEY);
    if (this.directHigh >= this.directLow) this.direct.fill(0, this.directLow, this.directHigh + 1);
    this.directLow = Infinity;
    this.directHigh = -1;
    this.count = this.hashCount = 0;
    this.big = null;
  }

  /** Ids held. */
  get size(): number {
    return this.count + (this.big?.size ?? 0);
  }

  /** The index of id (a safe integer ≥ 0), or −1. */
  get(id: number): number {
    const k = id - this.directBase;
    if (k >= 0 && k < this.direct.length) return this.direct[k] - 1;
    const keys = this.keys;
    const mask = this.mask;
    const want = id + 1;
    for (let slot = slotOf(id) & mask; ; slot = (slot + 1) & mask) {
      const key = keys[slot];
      if (key === want) return this.values[slot];
      if (key === EMPTY_KEY) return -1;
    }
  }

  /**
   * get() of ids[0, count) into `into` (−1: absent), in one loop; an id of −1 (one above 2^53 − 1, kept as a bigint
   * beside the list) is left for the caller to look up with getBig (into holds −1 for it).
   */
  getAll(ids: Float64Array, count: number, into: Int32Array): void {
    const direct = this.direct;
    const base = this.directBase;
    const covered = direct.length;
    for (let i = 0; i < count; i++) {
      const id = ids[i];
      const k = id - base;
      into[i] = k >= 0 && k < covered ? direct[k] - 1 : id < 0 ? -1 : this.get(id);
    }
  }

  /** The index of id, or `index` after adding it when it was absent. */
  getOrAdd(id: number, index: number): number {
    // The first id of an empty index places the direct table.
    if (this.count === 0) this.directBase = Math.max(0, id - DIRECT_BELOW);
    const k = id - this.directBase;
    if (k >= this.direct.length && k < DIRECT_MAX && k < 2 * this.count + DIRECT_SLACK) this.growDirect(k);
    if (k >= 0 && k < this.direct.length) {
      const known = this.direct[k];
      if (known === 0) {
        this.direct[k] = index + 1;
        if (k < this.directLow) this.directLow = k;
        if (k > this.directHigh) this.directHigh = k;
        this.count++;
      }
      // One return for both cases, so that code compiled before the first repeated id is not thrown away at it.
      return (known !== 0 ? known : index + 1) - 1;
    }
    const keys = this.keys;
    const mask = this.mask;
    const want = id + 1;
    let slot = slotOf(id) & mask;
    for (; ; slot = (slot + 1) & mask) {
      const key = keys[slot];
      if (key === want) return this.values[slot];
      if (key === EMPTY_KEY) break;
    }
    keys[slot] = want;
    this.values[slot] = index;
    this.count++;
    if (++this.hashCount * 2 > keys.length) this.grow();
    return index;
  }

  /** get() for an id above 2^53 − 1. */
  getBig(id: bigint): number {
    return this.big?.get(id) ?? -1;
  }

  /** getOrAdd() for an id above 2^53 − 1. */
  getOrAddBig(id: bigint, index: number): number {
    const big = (this.big ??= new Map());
    const known = big.get(id);
    if (known !== undefined) return known;
    big.set(id, index);
    return index;
  }

  /** Grows the direct table to hold entry k, moving the hash table's ids it now covers into it. */
  private growDirect(k: number): void {
    let size = Math.max(this.direct.length * 2, MIN_CAPACITY);
    while (size <= k) size *= 2;
    const direct = new Int32Array(size);
    direct.set(this.direct);
    const keys = this.keys;
    let moved = false;
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot];
      const at = key - 1 - this.directBase;
      if (key === EMPTY_KEY || at < 0 || at >= size) continue;
      direct[at] = this.values[slot] + 1;
      if (at < this.directLow) this.directLow = at;
      if (at > this.directHigh) this.directHigh = at;
      moved = true;
    }
    this.direct = direct;
    // Rebuilt without the moved ids (an open-addressing table cannot simply drop entries).
    if (moved) this.rehash(keys.length);
  }

  private grow(): void {
    this.rehash(this.keys.length * 2);
  }

  /** The hash table at `capacity`, with its ids that the direct table does not cover. */
  private rehash(capacity: number): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const covered = this.direct.length;
    this.keys = new Float64Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.hashCount = 0;
    for (let i = 0; i < oldKeys.length; i++) {
      const key = oldKeys[i];
      const at = key - 1 - this.directBase;
      if (key === EMPTY_KEY || (at >= 0 && at < covered)) continue;
      let slot = slotOf(key - 1) & this.mask;
      while (this.keys[slot] !== EMPTY_KEY) slot = (slot + 1) & this.mask;
      this.keys[slot] = key;
      this.values[slot] = oldValues[i];
      this.hashCount++;
    }
  }
}

/**
 * A hash of a safe integer that spreads neighbours (dense runs are the direct table's; an identity-like hash here
 * would pile a run's ids into one long probe sequence wherever other ids sit among them).
 */
function slotOf(id: number): number {
  // Ids below 2^31 (nearly all) without the division.
  const low = id < 0x80000000 ? id : ((id % 0x100000000) | 0) ^ Math.imul((id / 0x100000000) | 0, 0x85ebca6b);
  const h = Math.imul(low, 0x9e3779b1);
  return h ^ (h >>> 15);
}

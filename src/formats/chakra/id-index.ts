/**
 * Node ids (uint64) to dense integers. Ids up to 2^53 − 1 are kept exactly as doubles in an open-addressing table
 * (no bigint, no Map entry per node); larger ids, which only a bigint holds exactly, in a Map beside. The hash keeps
 * consecutive ids in neighbouring slots (ids are mostly dense and deps point at recent ones, so lookups stay in
 * cache) while spreading strided ids.
 */
/** A slot holds id + 1 (exact: ids here are at most 2^53 − 1), so that a fresh table's zeros are its empty slots. */
const EMPTY_KEY = 0;
const MIN_CAPACITY = 1024;

export class IdIndex {
  /**
   * Keys as id + 1 in a table left as allocated (zeros): never filled, so that only the pages ids land on are ever
   * touched (fresh memory costs page faults, and dense ids fill the table's low part only).
   */
  private keys = new Float64Array(MIN_CAPACITY);
  private values = new Int32Array(MIN_CAPACITY);
  private mask = MIN_CAPACITY - 1;
  private count = 0;
  private big: Map<bigint, number> | null = null;

  /** Forgets every id, keeping the table's memory (fresh memory costs page faults). */
  clear(): void {
    this.keys.fill(EMPTY_KEY);
    this.count = 0;
    this.big = null;
  }

  /** Ids held. */
  get size(): number {
    return this.count + (this.big?.size ?? 0);
  }

  /** The index of id (a safe integer ≥ 0), or −1. */
  get(id: number): number {
    const keys = this.keys;
    const mask = this.mask;
    const want = id + 1;
    for (let slot = slotOf(id) & mask; ; slot = (slot + 1) & mask) {
      const key = keys[slot];
      if (key === want) return this.values[slot];
      if (key === EMPTY_KEY) return -1;
    }
  }

  /** The index of id, or `index` after adding it when it was absent. */
  getOrAdd(id: number, index: number): number {
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
    if (++this.count * 2 > keys.length) this.grow();
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

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const capacity = oldKeys.length * 2;
    this.keys = new Float64Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < oldKeys.length; i++) {
      const key = oldKeys[i];
      if (key === EMPTY_KEY) continue;
      let slot = slotOf(key - 1) & this.mask;
      while (this.keys[slot] !== EMPTY_KEY) slot = (slot + 1) & this.mask;
      this.keys[slot] = key;
      this.values[slot] = oldValues[i];
    }
  }
}

/** A hash of a safe integer that is the identity below 2^17 and keeps neighbours close above it. */
function slotOf(id: number): number {
  // Ids below 2^31 (nearly all) without the division.
  const h = id < 0x80000000 ? id : (id % 0x100000000 | 0) ^ Math.imul((id / 0x100000000) | 0, 0x9e3779b1);
  return h ^ (h >>> 17);
}

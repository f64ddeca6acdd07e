/** A reused list of uint64 values (a node's dependencies) kept as exact numbers where they fit. */
import { bigintOf, canonicalVarintAt, type WireCursor } from './cursor.js';

/** uint64 values (dependencies) as exact numbers; a value above 2^53 − 1 is −1 there and kept as a bigint beside. */
export class U64List {
  count = 0;
  /** Room for most nodes' lists from the start (reserve asks for one slot per byte): growing is rare, and compiled code
   * that never saw it grow is thrown away when it does. */
  values = new Float64Array(4096);
  private big: Map<number, bigint> | null = null;

  clear(): void {
    this.count = 0;
    this.big = null;
  }

  /** Room for `more` values past count. */
  reserve(more: number): Float64Array {
    const need = this.count + more;
    if (need > this.values.length) {
      const next = new Float64Array(Math.max(need, this.values.length * 2));
      next.set(this.values.subarray(0, this.count));
      this.values = next;
    }
    return this.values;
  }

  setBig(i: number, v: bigint): void {
    (this.big ??= new Map()).set(i, v);
  }

  /** Value i, exact. */
  valueAt(i: number): bigint {
    const v = this.values[i];
    return v >= 0 ? bigintOf(v) : this.big!.get(i)!;
  }

  toBigints(): bigint[] {
    const out = new Array<bigint>(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.valueAt(i);
    return out;
  }
}

/** A packed run of uint64 values from c.pos up to `stop`, appended to `list` (the cursor checks each). */
export function readPackedInto(c: WireCursor, list: U64List, stop: number): void {
  const buf = c.buf;
  let p = c.pos;
  // Every value takes at least one byte.
  const values = list.reserve(stop - p);
  let n = list.count;
  while (p < stop) {
    const packed = canonicalVarintAt(buf, p, stop);
    if (packed >= 0) {
      const length = packed & 7;
      values[n++] = (packed - length) / 8;
      p += length;
      continue;
    }
    c.pos = p;
    const v = c.uint64Number(stop);
    if (v < 0) list.setBig(n, c.lastBig);
    values[n++] = v;
    p = c.pos;
  }
  c.pos = p;
  list.count = n;
}

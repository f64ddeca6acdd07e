/** The attribute names a node probe looks for, matched against a name's bytes in place. */
import type { WireCursor } from './cursor.js';

/** One name asked for: its bytes and a view of them, and its slot. */
interface NameEntry {
  bytes: Buffer;
  view: DataView;
  slot: number;
}

/** The attribute names a probe looks for; a name's slot is its index in the list. */
export class AttributeNames {
  /** Candidates by a hash of length and first byte: most names are told apart by one lookup. */
  private readonly buckets: (NameEntry[] | null)[] = Array.from({ length: 256 }, () => null);

  constructor(readonly names: readonly string[]) {
    names.forEach((n, slot) => {
      const bytes = Buffer.from(n, 'utf8');
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      (this.buckets[bucketOf(bytes.length, bytes[0] ?? 0)] ??= []).push({ bytes, view, slot });
    });
  }

  /** Slot of the name in c.buf[start, end), or −1. Compares four bytes a step. */
  slotOf(c: WireCursor, start: number, end: number): number {
    const buf = c.buf;
    const length = end - start;
    const list = this.buckets[bucketOf(length, length > 0 ? buf[start] : 0)];
    if (list === null) return -1;
    const view = c.view;
    for (let k = 0; k < list.length; k++) {
      const want = list[k];
      if (want.bytes.length !== length) continue;
      let i = 0;
      while (i + 4 <= length && want.view.getInt32(i, true) === view.getInt32(start + i, true)) i += 4;
      if (i + 4 <= length) continue;
      while (i < length && want.bytes[i] === buf[start + i]) i++;
      if (i === length) return want.slot;
    }
    return -1;
  }
}

function bucketOf(length: number, firstByte: number): number {
  return (length * 29 + firstByte) & 255;
}

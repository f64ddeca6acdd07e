/**
 * Node names interned as small integers for one replay: a node table keeps a name id per node (4 bytes, no string
 * per node), the by-name rows are found by id, and a name read in place from a frame (replay-node.ts) is looked up
 * by its bytes, so a name seen before costs no string. Id −1 is "no name kept".
 */
import type { WireCursor } from '../../formats/chakra/index.js';

export const NO_NAME = -1;

export class NameTable {
  private readonly ids = new Map<string, number>();
  private readonly strings: string[] = [];
  /** Open addressing over the names' UTF-8 bytes: name id + 1 per slot (0: empty), and each slot's hash. */
  private slots = new Int32Array(16);
  private hashes = new Int32Array(16);
  /** The bytes of name id i: arena[start[i], start[i + 1]). */
  private arena = new Uint8Array(64);
  private start = new Int32Array(16);
  /** The id found or added last: ranks with the same nodes name them in the same order, so id + 1 is tried first. */
  private last = -1;

  /** Names interned. */
  get size(): number {
    return this.strings.length;
  }

  /** The name of an id ('' for NO_NAME). */
  name(id: number): string {
    return id < 0 ? '' : this.strings[id];
  }

  /** The id of a name, added when new. */
  idOf(name: string): number {
    const next = this.last + 1;
    if (next < this.strings.length && this.strings[next] === name) return (this.last = next);
    const id = this.ids.get(name);
    this.last = id !== undefined ? id : this.add(name, Buffer.from(name, 'utf8'));
    return this.last;
  }

  /**
   * The id of the (checked UTF-8) name in c.buf[from, to), added when new: no string is made for a name seen before.
   */
  idOfBytes(c: WireCursor, from: number, to: number): number {
    const buf = c.buf;
    const len = to - from;
    const next = this.last + 1;
    if (next < this.strings.length) {
      const a = this.start[next];
      if (this.start[next + 1] - a === len) {
        const arena = this.arena;
        let i = 0;
        while (i < len && arena[a + i] === buf[from + i]) i++;
        if (i === len) return (this.last = next);
      }
    }
    this.last = this.lookUp(c, from, to);
    return this.last;
  }

  private lookUp(c: WireCursor, from: number, to: number): number {
    const buf = c.buf;
    let h = 0x811c9dc5;
    for (let i = from; i < to; i++) h = Math.imul(h ^ buf[i], 0x01000193);
    const mask = this.slots.length - 1;
    const { slots, hashes, arena, start } = this;
    const len = to - from;
    for (let k = h & mask; ; k = (k + 1) & mask) {
      const v = slots[k];
      if (v === 0) break;
      if (hashes[k] !== h) continue;
      const id = v - 1;
      const a = start[id];
      if (start[id + 1] - a !== len) continue;
      let i = 0;
      while (i < len && arena[a + i] === buf[from + i]) i++;
      if (i === len) return id;
    }
    const name = c.stringAt(from, to);
    const id = this.ids.get(name);
    // Every id's bytes are in the index (add puts them there): a name met as a string first is found above.
    return id !== undefined ? id : this.add(name, buf.subarray(from, to));
  }

  private add(name: string, bytes: Uint8Array): number {
    const id = this.strings.length;
    this.strings.push(name);
    this.ids.set(name, id);
    if (id + 2 > this.start.length) {
      const start = new Int32Array(this.start.length * 2);
      start.set(this.start);
      this.start = start;
    }
    const a = this.start[id];
    if (a + bytes.length > this.arena.length) {
      const arena = new Uint8Array(Math.max(2 * this.arena.length, a + bytes.length));
      arena.set(this.arena);
      this.arena = arena;
    }
    this.arena.set(bytes, a);
    this.start[id + 1] = a + bytes.length;
    if (2 * (id + 1) > this.slots.length) this.rehash(this.slots.length * 2);
    else this.insert(id, hashOf(bytes));
    return id;
  }

  private insert(id: number, h: number): void {
    const mask = this.slots.length - 1;
    let k = h & mask;
    while (this.slots[k] !== 0) k = (k + 1) & mask;
    this.slots[k] = id + 1;
    this.hashes[k] = h;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    this.hashes = new Int32Array(size);
    for (let id = 0; id < this.strings.length; id++)
      this.insert(id, hashOf(this.arena.subarray(this.start[id], this.start[id + 1])));
  }
}

function hashOf(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h;
}

/**
 * A Node as the decoder returns it. Its attributes (ten or more small objects on a PyTorch node, most of the
 * decoder's allocations) stay as a checked copy of their wire bytes until `attrs` is read; `findAttr` decodes
 * only the one attribute asked for. Attributes never materialised are re-encoded from those bytes, so they
 * round-trip byte for byte. Once `attrs` has been read, the array is the truth and may be changed freely.
 */
import { decodeAttribute } from './decode-attribute.js';
import { WireCursor } from './cursor.js';
import type { Attribute, ChakraNode, IOInfo, Lossless } from './types.js';

const NAME_TAG = 0x0a; // AttributeProto field 1, length-delimited
const nameBytesCache = new Map<string, Buffer>();

function nameBytes(name: string): Buffer {
  let b = nameBytesCache.get(name);
  if (b === undefined) {
    b = Buffer.from(name, 'utf8');
    if (nameBytesCache.size < 1024) nameBytesCache.set(name, b);
  }
  return b;
}

export class DecodedNode implements ChakraNode {
  declare lossless?: Lossless;
  #attrs: Attribute[] | null = null;
  /**
   * Consecutive `field 10` entries (tag, length, AttributeProto) in #raw[#start, #end), checked; null once
   * materialised.
   */
  #raw: Buffer | null = null;
  #start = 0;
  #end = 0;

  constructor(
    public id: bigint,
    public name: string,
    public type: number,
    public ctrlDeps: bigint[],
    public dataDeps: bigint[],
    public startTimeMicros: bigint,
    public durationMicros: bigint,
    public inputs: IOInfo | null,
    public outputs: IOInfo | null,
  ) {}

  /** Hands the node its checked attribute entries (decode only). */
  setAttrBytes(raw: Buffer, start: number, end: number): void {
    this.#raw = raw;
    this.#start = start;
    this.#end = end;
    this.#attrs = null;
  }

  get attrs(): Attribute[] {
    if (this.#attrs === null) {
      const out: Attribute[] = [];
      const raw = this.#raw;
      if (raw !== null) {
        const c = new WireCursor(raw);
        for (let p = this.#start; p < this.#end; ) {
          c.pos = p + 1;
          const stop = c.length(this.#end);
          out.push(decodeAttribute(c, c.pos, stop));
          p = stop;
        }
      }
      this.#attrs = out;
      this.#raw = null;
    }
    return this.#attrs;
  }

  set attrs(v: Attribute[]) {
    this.#attrs = v;
    this.#raw = null;
  }

  /** The original attribute entries while `attrs` was never materialised, else null. */
  unmodifiedAttrBytes(): Buffer | null {
    if (this.#attrs !== null) return null;
    return this.#raw === null ? EMPTY : this.#raw.subarray(this.#start, this.#end);
  }

  /** True while the attributes are still bytes (findAttr then decodes just the one asked for). */
  get attrsAsBytes(): boolean {
    return this.#attrs === null;
  }

  /**
   * The first attribute with this name, decoded from the bytes as a fresh copy (change attributes through
   * setAttr). Only while attrsAsBytes; getAttr() chooses.
   */
  findAttr(name: string): Attribute | undefined {
    const raw = this.#raw;
    if (raw === null) return undefined;
    const end = this.#end;
    const want = nameBytes(name);
    const c = new WireCursor(raw);
    // Every entry's tag is the one byte 0x52 (field 10, length-delimited): decodeNode keeps other layouts decoded.
    for (let p = this.#start; p < end; ) {
      c.pos = p + 1;
      const stop = c.length(end);
      const start = c.pos;
      let candidate = true;
      if (raw[start] === NAME_TAG) {
        c.pos = start + 1;
        const nlen = c.varintNumber(stop);
        candidate = nlen === want.length && raw.compare(want, 0, nlen, c.pos, c.pos + nlen) === 0;
      }
      // A name that is not the first field (non-canonical order), or is absent, is compared after decoding.
      if (candidate) {
        const a = decodeAttribute(c, start, stop);
        if (a.name === name) return a;
      }
      p = stop;
    }
    return undefined;
  }

  toJSON(): ChakraNode {
    const { id, name, type, ctrlDeps, dataDeps, startTimeMicros, durationMicros, inputs, outputs, attrs, lossless } =
      this;
    return {
      id,
      name,
      type,
      ctrlDeps,
      dataDeps,
      startTimeMicros,
      durationMicros,
      inputs,
      outputs,
      attrs,
      ...(lossless ? { lossless } : {}),
    };
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * The one protocol-buffers reader every Chakra path uses: a `WireCursor` holds the buffer and the read position,
 * and each read advances it (protobuf-es' BinaryReader has the same shape). Reads take the end of the message they
 * are in, so a field that runs past it fails there. Problems throw WireError with the absolute buffer position;
 * the frame scanner (frames.ts) turns that into a ChakraDecodeError naming file, stream offset and frame.
 */
import { isUtf8 } from 'node:buffer';
import { WireError, bigintOf, canonicalVarintAt, stringOf } from './values.js';

export { WireError, bigintOf, canonicalVarintAt } from './values.js';

export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_I32 = 5;

const EMPTY = Buffer.alloc(0);
const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE_BIG = BigInt(Number.MIN_SAFE_INTEGER);

export class WireCursor {
  /** Read position in `buf`; every read advances it. */
  pos = 0;
  /** Set when a varint used more bytes than needed, or a bool was not 0/1 (re-encoding normalises both). */
  nonCanonical = false;
  /** The last tag nextField read: field number, wire type, and where it starts. */
  field = 0;
  wireType = 0;
  tagPos = 0;
  /** The value of the last `uint64Number` that did not fit 2^53. */
  lastBig = 0n;
  /** The buffer read, and a view of it for reading four bytes at a time (set together: see reset). */
  buf: Buffer;
  view: DataView;
  /**
   * The whole memory under `buf` as aligned 32-bit words (buf[i] lies in words[(byteOffset + i) >> 2]), for isAscii.
   */
  private words: Int32Array;
  private byteOffset: number;

  constructor(buf: Buffer = EMPTY, pos = 0) {
    this.buf = buf;
    this.view = viewOf(buf);
    this.words = wordsOf(buf);
    this.byteOffset = buf.byteOffset;
    this.pos = pos;
  }

  /**
   * Reads `buf` from `pos` on. (The view is made here, per buffer, not where a read first needs it: a branch that
   * compiled code has not seen taken throws that code away when it is.)
   */
  reset(buf: Buffer, pos = 0): void {
    if (buf !== this.buf) {
      this.buf = buf;
      this.view = viewOf(buf);
      this.words = wordsOf(buf);
      this.byteOffset = buf.byteOffset;
    }
    this.pos = pos;
  }

  /**
   * A varint of at most `maxBytes` bytes (≤ 7, so exact as a number); −1, the cursor unmoved, for a longer one.
   * Every varint read starts here.
   */
  private shortVarint(end: number, maxBytes: number): number {
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    let result = 0;
    let mul = 1;
    for (let i = 0; i < maxBytes; i++) {
      if (p >= end) throw new WireError(start, 'varint runs past the end of its message');
      const b = buf[p++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) {
        if (b === 0 && i > 0) this.nonCanonical = true;
        this.pos = p;
        return result;
      }
      mul *= 128;
    }
    return -1;
  }

  /** The value of a canonicalVarintAt result at pos, the cursor moved past it. */
  private unpack(packed: number): number {
    const length = packed & 7;
    this.pos += length;
    return (packed - length) / 8;
  }

  /** Unsigned varint that must fit in 2^53 (tags, lengths, enums). */
  varintNumber(end: number): number {
    const start = this.pos;
    const packed = canonicalVarintAt(this.buf, start, end);
    if (packed >= 0) return this.unpack(packed);
    const short = this.shortVarint(end, 7);
    if (short >= 0) return short;
    // Longer varints (negative int32 enums) are read exactly, then checked.
    const big = this.varint64(end);
    const asSigned = BigInt.asIntN(64, big);
    if (asSigned >= MIN_SAFE_BIG && asSigned <= MAX_SAFE_BIG) return Number(asSigned);
    throw new WireError(start, `varint value ${big} does not fit where a small integer was expected`);
  }

  /**
   * Reads the next field's tag into `field`, `wireType` and `tagPos`; false at `end`. (Walkers that call other
   * walkers copy the three first: those overwrite them.)
   */
  nextField(end: number): boolean {
    if (this.pos >= end) return false;
    this.tagPos = this.pos;
    const tag = this.tag(end);
    this.field = tag >>> 3;
    this.wireType = tag & 7;
    return true;
  }

  /** A field tag: at most 32 bits, field number ≥ 1. */
  tag(end: number): number {
    const p = this.pos;
    if (p < end) {
      const b = this.buf[p];
      if (b >= 8 && b < 0x80) {
        this.pos = p + 1;
        return b;
      }
    }
    const tag = this.varintNumber(end);
    if (tag > 0xffffffff || tag < 8) throw new WireError(p, `invalid field tag ${tag} (corrupt data)`);
    return tag;
  }

  /** Unsigned 64-bit varint as bigint, exact. */
  varint64(end: number): bigint {
    const n = this.uint64Number(end);
    return n >= 0 ? bigintOf(n) : this.lastBig;
  }

  /**
   * Unsigned 64-bit varint as a number when it is at most 2^53 − 1, else −1 with the exact value in `lastBig`:
   * 64-bit ids never pass through a float unchecked.
   */
  uint64Number(end: number): number {
    const packed = canonicalVarintAt(this.buf, this.pos, end);
    if (packed >= 0) return this.unpack(packed);
    const short = this.shortVarint(end, 7);
    if (short >= 0) return short;
    const start = this.pos;
    let p = start;
    let big = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (p >= end) throw new WireError(start, 'varint runs past the end of its message');
      const b = this.buf[p++];
      big |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        if (b === 0) this.nonCanonical = true; // (a varint of 8 or more bytes)
        this.pos = p;
        big = BigInt.asUintN(64, big);
        if (big <= MAX_SAFE_BIG) return Number(big);
        this.lastBig = big;
        return -1;
      }
      shift += 7n;
    }
    throw new WireError(start, 'varint longer than 10 bytes (corrupt data)');
  }

  /** Advances over a varint of up to 10 bytes without building its value (same checks as varint64). */
  skipVarint(end: number): void {
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    for (let i = 0; i < 10; i++) {
      if (p >= end) throw new WireError(start, 'varint runs past the end of its message');
      const b = buf[p++];
      if (b < 0x80) {
        if (b === 0 && i > 0) this.nonCanonical = true;
        this.pos = p;
        return;
      }
    }
    throw new WireError(start, 'varint longer than 10 bytes (corrupt data)');
  }

  /** Signed int64 from a varint (two's complement). */
  int64(end: number): bigint {
    const v = this.varint64(end);
    return v >= 0x8000000000000000n ? BigInt.asIntN(64, v) : v;
  }

  /** int32 from a varint: negative values are sign-extended to 10 bytes on the wire. */
  int32(end: number): number {
    const packed = canonicalVarintAt(this.buf, this.pos, end);
    if (packed >= 0 && packed < 2 ** 34) return this.unpack(packed);
    const v = this.shortVarint(end, 5);
    return v >= 0 ? v | 0 : Number(BigInt.asIntN(32, this.varint64(end)));
  }

  uint32(end: number): number {
    const v = this.shortVarint(end, 5);
    return v >= 0 ? v >>> 0 : Number(BigInt.asUintN(32, this.varint64(end)));
  }

  sint32(end: number): number {
    const n = this.uint32(end);
    return (n >>> 1) ^ -(n & 1);
  }

  sint64(end: number): bigint {
    const n = this.varint64(end);
    return (n >> 1n) ^ -(n & 1n);
  }

  /** A bool: any varint, non-zero = true; a value other than 0/1 is non-canonical. */
  bool(end: number): boolean {
    const v = this.varint64(end);
    if (v > 1n) this.nonCanonical = true;
    return v !== 0n;
  }

  fixed32(end: number): number {
    return this.buf.readUInt32LE(this.take(end, 4));
  }
  sfixed32(end: number): number {
    return this.buf.readInt32LE(this.take(end, 4));
  }
  fixed64(end: number): bigint {
    return this.buf.readBigUInt64LE(this.take(end, 8));
  }
  sfixed64(end: number): bigint {
    return this.buf.readBigInt64LE(this.take(end, 8));
  }
  double(end: number): number {
    return this.buf.readDoubleLE(this.take(end, 8));
  }
  float(end: number): number {
    return this.buf.readFloatLE(this.take(end, 4));
  }

  /** Reads a length prefix and returns the end position of the payload, checked against `end`. */
  length(end: number): number {
    const p = this.pos;
    if (p < end) {
      const b = this.buf[p];
      if (b < 0x80) {
        if (b > end - p - 1)
          throw new WireError(p, `length ${b} runs past the end of its message (${end - p - 1} bytes left)`);
        this.pos = p + 1;
        return p + 1 + b;
      }
    }
    const len = this.varintNumber(end);
    if (len > end - this.pos) {
      throw new WireError(p, `length ${len} runs past the end of its message (${end - this.pos} bytes left)`);
    }
    return this.pos + len;
  }

  /** A length-delimited UTF-8 string (short ASCII ones interned). */
  string(end: number): string {
    const stop = this.length(end);
    const start = this.pos;
    this.pos = stop;
    return this.stringAt(start, stop);
  }

  /** The UTF-8 string in buf[start, stop) (short ASCII ones interned); the cursor does not move. */
  stringAt(start: number, stop: number): string {
    return stringOf(this.buf, start, stop);
  }

  /** Advances over a length-delimited string, checking that it is UTF-8 (what `string` checks). */
  checkString(end: number): void {
    const stop = this.length(end);
    this.checkUtf8(this.pos, stop);
    this.pos = stop;
  }

  /** Throws unless buf[start, stop) is valid UTF-8 (the check `string` makes). */
  checkUtf8(start: number, stop: number): void {
    if (!this.isAscii(start, stop) && !isUtf8(this.buf.subarray(start, stop)))
      throw new WireError(start, 'string field is not valid UTF-8');
  }

  /** A length-delimited bytes field, copied. */
  bytes(end: number): Uint8Array {
    const stop = this.length(end);
    const out = new Uint8Array(stop - this.pos);
    out.set(this.buf.subarray(this.pos, stop));
    this.pos = stop;
    return out;
  }

  /** Skips the payload of the field nextField read last. */
  skipField(end: number): void {
    this.skip(end, this.wireType, this.tagPos);
  }

  /** Skips one field's payload of the given wire type (its tag at tagPos). */
  skip(end: number, wireType: number, tagPos: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.skipVarint(end);
        return;
      case WIRE_I64:
        this.take(end, 8);
        return;
      case WIRE_LEN:
        this.pos = this.length(end);
        return;
      case WIRE_I32:
        this.take(end, 4);
        return;
      default:
        throw new WireError(
          tagPos,
          `invalid wire type ${wireType} (groups and types 6–7 do not occur in Chakra traces)`,
        );
    }
  }

  /** True when buf[start, end) holds only ASCII bytes (which is then valid UTF-8). */
  isAscii(start: number, end: number): boolean {
    const buf = this.buf;
    if (end - start < 4) {
      for (let i = start; i < end; i++) if (buf[i] >= 0x80) return false;
      return true;
    }
    // The first and last four bytes as DataView loads (they may overlap the words between), and the whole aligned
    // words between as Int32Array loads (cheaper), four a step while they last.
    const view = this.view;
    let high = view.getInt32(start, true) | view.getInt32(end - 4, true);
    const at = this.byteOffset;
    const words = this.words;
    let w = (start + at + 3) >> 2;
    const stop = (end + at) >> 2;
    for (; w + 4 <= stop; w += 4) high |= words[w] | words[w + 1] | words[w + 2] | words[w + 3];
    for (; w < stop; w++) high |= words[w];
    return (high & 0x80808080) === 0;
  }

  /** Advances over n bytes and returns where they start. */
  private take(end: number, n: number): number {
    const p = this.pos;
    if (end - p < n) throw new WireError(p, `${n}-byte value runs past the end of its message`);
    this.pos = p + n;
    return p;
  }
}

function viewOf(b: Buffer): DataView {
  return new DataView(b.buffer, b.byteOffset, b.length);
}

/** The whole memory under b as 32-bit words from its start (aligned). */
function wordsOf(b: Buffer): Int32Array {
  return new Int32Array(b.buffer, 0, b.buffer.byteLength >> 2);
}

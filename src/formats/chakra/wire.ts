/**
 * Protocol-buffers wire primitives over a Buffer, with one module-level cursor for speed.
 * Decoding problems throw WireError carrying the absolute buffer position; callers translate that
 * into a ChakraDecodeError with file, stream offset and frame index.
 */
import { isUtf8 } from 'node:buffer';

export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_I32 = 5;

export class WireError extends Error {
  constructor(readonly position: number, readonly problem: string) {
    super(problem);
  }
}

/** Current read position; every read function advances it. */
export let pos = 0;
export function seek(p: number): void {
  pos = p;
}

/** Set when a varint used more bytes than needed, or a bool was not 0/1 (re-encoding normalises both). */
export let nonMinimalVarint = false;
export function clearNonMinimal(): void {
  nonMinimalVarint = false;
}
export function markNonCanonical(): void {
  nonMinimalVarint = true;
}

/** Unsigned varint that must fit in 2^53 (tags, lengths, enums). */
export function readVarintNumber(buf: Buffer, end: number): number {
  let result = 0;
  let mul = 1;
  const start = pos;
  for (let i = 0; i < 8; i++) {
    if (pos >= end) throw new WireError(start, 'varint runs past the end of its message');
    const b = buf[pos++];
    result += (b & 0x7f) * mul;
    if (b < 0x80) {
      if (b === 0 && i > 0) nonMinimalVarint = true;
      return result;
    }
    mul *= 128;
  }
  // Longer varints (negative int32 enums) are read exactly, then checked.
  pos = start;
  const big = readVarintBigint(buf, end);
  const asSigned = BigInt.asIntN(64, big);
  if (asSigned >= BigInt(Number.MIN_SAFE_INTEGER) && asSigned <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(asSigned);
  throw new WireError(start, `varint value ${big} does not fit where a small integer was expected`);
}

/** A field tag: at most 32 bits, field number ≥ 1. */
export function readTag(buf: Buffer, end: number): number {
  const start = pos;
  const tag = readVarintNumber(buf, end);
  if (tag > 0xffffffff || tag < 8) throw new WireError(start, `invalid field tag ${tag} (corrupt data)`);
  return tag;
}

/** BigInts are heap objects: small values (flags, enums, counters) come from a shared table. */
const SMALL_BIGINTS: bigint[] = Array.from({ length: 4096 }, (_, i) => BigInt(i));
/** Larger values recur close together (a node's deps are recent ids): a direct-mapped cache shares them. */
const RECENT_SLOTS = 2048;
const recentKey = new Float64Array(RECENT_SLOTS).fill(-1);
const recentValue: bigint[] = new Array<bigint>(RECENT_SLOTS).fill(0n);

function bigintOf(n: number): bigint {
  if (n < 4096) return SMALL_BIGINTS[n];
  const slot = n & (RECENT_SLOTS - 1);
  if (recentKey[slot] === n) return recentValue[slot];
  const v = BigInt(n);
  recentKey[slot] = n;
  recentValue[slot] = v;
  return v;
}

/** Unsigned 64-bit varint as bigint, exact. */
export function readVarintBigint(buf: Buffer, end: number): bigint {
  let result = 0;
  let mul = 1;
  const start = pos;
  for (let i = 0; i < 7; i++) {
    if (pos >= end) throw new WireError(start, 'varint runs past the end of its message');
    const b = buf[pos++];
    result += (b & 0x7f) * mul;
    if (b < 0x80) {
      if (b === 0 && i > 0) nonMinimalVarint = true;
      return bigintOf(result);
    }
    mul *= 128;
  }
  let big = BigInt(result);
  let shift = 49n;
  for (let i = 7; i < 10; i++) {
    if (pos >= end) throw new WireError(start, 'varint runs past the end of its message');
    const b = buf[pos++];
    big |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) {
      if (b === 0) nonMinimalVarint = true;
      return BigInt.asUintN(64, big);
    }
    shift += 7n;
  }
  throw new WireError(start, 'varint longer than 10 bytes (corrupt data)');
}

/** Advances over a varint of up to 10 bytes without building its value (same checks as readVarintBigint). */
export function skipVarint(buf: Buffer, end: number): void {
  const start = pos;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw new WireError(start, 'varint runs past the end of its message');
    const b = buf[pos++];
    if (b < 0x80) {
      if (b === 0 && i > 0) nonMinimalVarint = true;
      return;
    }
  }
  throw new WireError(start, 'varint longer than 10 bytes (corrupt data)');
}

/** Signed int64 from a varint (two's complement). */
export function readInt64(buf: Buffer, end: number): bigint {
  const v = readVarintBigint(buf, end);
  return v >= 0x8000000000000000n ? BigInt.asIntN(64, v) : v;
}

/** int32 from a varint: negative values are sign-extended to 10 bytes on the wire. */
export function readInt32(buf: Buffer, end: number): number {
  const start = pos;
  let result = 0;
  let mul = 1;
  for (let i = 0; i < 5; i++) {
    if (pos >= end) throw new WireError(start, 'varint runs past the end of its message');
    const b = buf[pos++];
    result += (b & 0x7f) * mul;
    if (b < 0x80) {
      if (b === 0 && i > 0) nonMinimalVarint = true;
      return result | 0;
    }
    mul *= 128;
  }
  pos = start;
  return Number(BigInt.asIntN(32, readVarintBigint(buf, end)));
}

export function readUint32(buf: Buffer, end: number): number {
  const start = pos;
  let result = 0;
  let mul = 1;
  for (let i = 0; i < 5; i++) {
    if (pos >= end) throw new WireError(start, 'varint runs past the end of its message');
    const b = buf[pos++];
    result += (b & 0x7f) * mul;
    if (b < 0x80) {
      if (b === 0 && i > 0) nonMinimalVarint = true;
      return result >>> 0;
    }
    mul *= 128;
  }
  pos = start;
  return Number(BigInt.asUintN(32, readVarintBigint(buf, end)));
}

export function readSint32(buf: Buffer, end: number): number {
  const n = readUint32(buf, end);
  return (n >>> 1) ^ -(n & 1);
}

export function readSint64(buf: Buffer, end: number): bigint {
  const n = readVarintBigint(buf, end);
  return (n >> 1n) ^ -(n & 1n);
}

export function readFixed32(buf: Buffer, end: number): number {
  need(buf, end, 4);
  const v = buf.readUInt32LE(pos);
  pos += 4;
  return v;
}

export function readSfixed32(buf: Buffer, end: number): number {
  need(buf, end, 4);
  const v = buf.readInt32LE(pos);
  pos += 4;
  return v;
}

export function readFixed64(buf: Buffer, end: number): bigint {
  need(buf, end, 8);
  const v = buf.readBigUInt64LE(pos);
  pos += 8;
  return v;
}

export function readSfixed64(buf: Buffer, end: number): bigint {
  need(buf, end, 8);
  const v = buf.readBigInt64LE(pos);
  pos += 8;
  return v;
}

export function readDouble(buf: Buffer, end: number): number {
  need(buf, end, 8);
  const v = buf.readDoubleLE(pos);
  pos += 8;
  return v;
}

export function readFloat(buf: Buffer, end: number): number {
  need(buf, end, 4);
  const v = buf.readFloatLE(pos);
  pos += 4;
  return v;
}

/** Reads a length prefix and returns the end position of the payload, checked against `end`. */
export function readLength(buf: Buffer, end: number): number {
  const start = pos;
  const len = readVarintNumber(buf, end);
  if (len > end - pos) {
    throw new WireError(start, `length ${len} runs past the end of its message (${end - pos} bytes left)`);
  }
  return pos + len;
}


/** Short ASCII strings (attribute names, enum-like values) repeat on every node: intern them. */
const INTERN_SLOTS = 4096;
const INTERN_MAX_BYTES = 40;
const interned: (string | undefined)[] = new Array(INTERN_SLOTS);

export function readString(buf: Buffer, end: number): string {
  const stop = readLength(buf, end);
  const start = pos;
  pos = stop;
  const len = stop - start;
  if (len === 0) return '';
  if (len > INTERN_MAX_BYTES) return decodeUtf8(buf, start, stop);
  let h = 0x811c9dc5;
  for (let i = start; i < stop; i++) {
    const c = buf[i];
    if (c >= 0x80) return decodeUtf8(buf, start, stop);
    h = Math.imul(h ^ c, 0x01000193);
  }
  const slot = (h >>> 0) & (INTERN_SLOTS - 1);
  const hit = interned[slot];
  if (hit !== undefined && hit.length === len) {
    let same = true;
    for (let i = 0; i < len; i++) {
      if (hit.charCodeAt(i) !== buf[start + i]) {
        same = false;
        break;
      }
    }
    if (same) return hit;
  }
  const s = buf.toString('latin1', start, stop);
  interned[slot] = s;
  return s;
}

/** Word views of the last buffer scanned, for testing four bytes at a time. */
let wordsOf: Buffer | null = null;
let words: Int32Array = new Int32Array(0);
let wordsFrom = 0;

/** True when buf[start, end) holds only ASCII bytes (which is then valid UTF-8). */
export function isAsciiRange(buf: Buffer, start: number, end: number): boolean {
  let i = start;
  if (end - start >= 32) {
    if (buf !== wordsOf) {
      wordsOf = buf;
      wordsFrom = (buf.byteOffset + 3) & ~3;
      words = new Int32Array(buf.buffer, wordsFrom, (buf.byteOffset + buf.length - wordsFrom) >> 2);
    }
    const head = wordsFrom - buf.byteOffset;
    for (; i < end && ((i - head) & 3) !== 0; i++) if (buf[i] >= 0x80) return false;
    const stopWord = (end - head) >> 2;
    for (let w = (i - head) >> 2; w < stopWord; w++) if ((words[w] & 0x80808080) !== 0) return false;
    i = head + stopWord * 4;
  }
  for (; i < end; i++) if (buf[i] >= 0x80) return false;
  return true;
}

function decodeUtf8(buf: Buffer, start: number, stop: number): string {
  const s = buf.toString('utf8', start, stop);
  // toString replaces bad sequences with U+FFFD; only then is the (rarer) exact check needed.
  if (s.includes('\uFFFD') && !isUtf8(buf.subarray(start, stop))) {
    throw new WireError(start, 'string field is not valid UTF-8');
  }
  return s;
}

export function readBytes(buf: Buffer, end: number): Uint8Array {
  const stop = readLength(buf, end);
  const out = new Uint8Array(stop - pos);
  out.set(buf.subarray(pos, stop));
  pos = stop;
  return out;
}

/** Skips one field's payload of the given wire type. */
export function skipField(buf: Buffer, end: number, wireType: number, tagPos: number): void {
  switch (wireType) {
    case WIRE_VARINT:
      readVarintBigint(buf, end);
      return;
    case WIRE_I64:
      need(buf, end, 8);
      pos += 8;
      return;
    case WIRE_LEN:
      pos = readLength(buf, end);
      return;
    case WIRE_I32:
      need(buf, end, 4);
      pos += 4;
      return;
    default:
      throw new WireError(tagPos, `invalid wire type ${wireType} (groups and types 6–7 do not occur in Chakra traces)`);
  }
}

function need(buf: Buffer, end: number, n: number): void {
  if (end - pos < n) throw new WireError(pos, `${n}-byte value runs past the end of its message`);
}

/**
 * AttributeProto decoding, and the structural check that lets a node keep its attributes as bytes until they
 * are read (decoded-node.ts). Both raise the same WireErrors at the same offsets for bad input.
 */
import { isUtf8 } from 'node:buffer';
import { ATTR_MEMBER_BY_FIELD, type AttrMember, type ScalarType } from './schema.js';
import type { AttrScalarValue, AttrValue, Attribute, Lossless } from './types.js';
import {
  WIRE_I32, WIRE_I64, WIRE_LEN, WIRE_VARINT, WireError, isAsciiRange, pos, readBytes, readDouble, readFixed32, readFixed64,
  readFloat, readInt32, readInt64, readLength, readSfixed32, readSfixed64, readSint32, readSint64, readString,
  markNonCanonical, readTag, readUint32, readVarintBigint, seek, skipField, skipVarint,
} from './wire.js';

/** Oneof members indexed by field number, with numeric scalar codes for a fast switch. */
const SCALAR_CODES: Record<ScalarType, number> = {
  double: 0, float: 1, int32: 2, int64: 3, uint32: 4, uint64: 5, sint32: 6, sint64: 7,
  fixed32: 8, fixed64: 9, sfixed32: 10, sfixed64: 11, bool: 12, string: 13, bytes: 14,
};
interface FastMember { member: AttrMember; code: number; wire: number }
const MEMBER_AT: (FastMember | undefined)[] = [];
for (const m of ATTR_MEMBER_BY_FIELD.values()) {
  MEMBER_AT[m.field] = { member: m, code: SCALAR_CODES[m.scalar], wire: wireTypeOf(m.scalar) };
}

export function wrongWire(tagPos: number, message: string, field: number, name: string, got: number, want: string): WireError {
  return new WireError(tagPos, `${message}.${name} (field ${field}) has wire type ${got}, expected ${want}`);
}

export function keepUnknown(l: Lossless | undefined, field: number, buf: Buffer, tagPos: number): Lossless {
  const out = l ?? {};
  (out.unknown ??= []).push({ field, bytes: Uint8Array.prototype.slice.call(buf, tagPos, pos) });
  return out;
}

export function markExplicit(l: Lossless | undefined, field: number): Lossless {
  const out = l ?? {};
  out.explicitDefaults = (out.explicitDefaults ?? 0) | (1 << field);
  return out;
}

export function markUnpacked(l: Lossless | undefined, field: number): Lossless {
  const out = l ?? {};
  out.unpacked = (out.unpacked ?? 0) | (1 << field);
  return out;
}

/** Checks the wire type of AttributeProto's name (1) or doc_string (2). */
function stringWire(tagPos: number, field: number, wt: number): void {
  if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'AttributeProto', field, field === 1 ? 'name' : 'doc_string', wt, '2');
}

/** The oneof member at a field number with its wire type checked; undefined for an unknown field (readTag refuses 0). */
function memberAt(tagPos: number, field: number, wt: number): FastMember | undefined {
  const fast = MEMBER_AT[field];
  if (fast === undefined) return undefined;
  const want = fast.member.list ? WIRE_LEN : fast.wire;
  if (wt !== want) throw wrongWire(tagPos, 'AttributeProto', field, fast.member.kind, wt, String(want));
  return fast;
}

/** Checks a tag inside an XxxList; true when it opens a packed run. */
function listTag(tagPos: number, field: number, wt: number, fast: FastMember): boolean {
  if (field !== 1) throw new WireError(tagPos, `${fast.member.kind} list has field ${field}; only field 1 (values) exists`);
  if (wt === WIRE_LEN && fast.wire !== WIRE_LEN) return true;
  if (wt !== fast.wire) throw new WireError(tagPos, `${fast.member.kind}.values has wire type ${wt}, expected ${fast.wire} or 2 (packed)`);
  return false;
}

export function decodeAttribute(buf: Buffer, start: number, end: number): Attribute {
  const attr: Attribute = { name: '', docString: '', kind: null, value: null };
  let lossless: Lossless | undefined;
  seek(start);
  while (pos < end) {
    const tagPos = pos;
    const tag = readTag(buf, end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1 || field === 2) {
      stringWire(tagPos, field, wt);
      const s = readString(buf, end);
      if (field === 1) attr.name = s;
      else attr.docString = s;
      if (s === '') lossless = markExplicit(lossless, field);
      continue;
    }
    const fast = memberAt(tagPos, field, wt);
    if (fast === undefined) {
      skipField(buf, end, wt, tagPos);
      lossless = keepUnknown(lossless, field, buf, tagPos);
      continue;
    }
    if (fast.member.list) {
      const stop = readLength(buf, end);
      const r = decodeList(buf, pos, stop, fast);
      attr.value = r.values;
      if (r.unpacked) lossless = markUnpacked(lossless, field);
    } else {
      attr.value = readScalar(buf, end, fast.code);
    }
    attr.kind = fast.member.kind;
  }
  if (lossless) attr.lossless = lossless;
  return attr;
}

export function wireTypeOf(scalar: ScalarType): number {
  switch (scalar) {
    case 'double': case 'fixed64': case 'sfixed64':
      return WIRE_I64;
    case 'float': case 'fixed32': case 'sfixed32':
      return WIRE_I32;
    case 'string': case 'bytes':
      return WIRE_LEN;
    default:
      return WIRE_VARINT;
  }
}

function readScalar(buf: Buffer, end: number, code: number): AttrScalarValue {
  switch (code) {
    case 0: return readDouble(buf, end);
    case 1: return readFloat(buf, end);
    case 2: return readInt32(buf, end);
    case 3: return readInt64(buf, end);
    case 4: return readUint32(buf, end);
    case 5: return readVarintBigint(buf, end);
    case 6: return readSint32(buf, end);
    case 7: return readSint64(buf, end);
    case 8: return readFixed32(buf, end);
    case 9: return readFixed64(buf, end);
    case 10: return readSfixed32(buf, end);
    case 11: return readSfixed64(buf, end);
    case 12: {
      const v = readVarintBigint(buf, end);
      if (v > 1n) markNonCanonical();
      return v !== 0n;
    }
    case 13: return readString(buf, end);
    default: return readBytes(buf, end);
  }
}

/** XxxList message: `repeated T values = 1`, packed or not. */
function decodeList(buf: Buffer, start: number, end: number, fast: FastMember): { values: AttrValue; unpacked: boolean } {
  const values: AttrScalarValue[] = [];
  let unpacked = false;
  seek(start);
  while (pos < end) {
    const tagPos = pos;
    const tag = readTag(buf, end);
    if (listTag(tagPos, tag >>> 3, tag & 7, fast)) {
      const stop = readLength(buf, end);
      while (pos < stop) values.push(readScalar(buf, stop, fast.code));
    } else {
      values.push(readScalar(buf, end, fast.code));
      if (fast.wire !== WIRE_LEN) unpacked = true;
    }
  }
  return { values, unpacked };
}

/**
 * Checks an AttributeProto's structure (tags, wire types, lengths, UTF-8, list layout) without building values.
 * Leaves the cursor at `end`.
 */
export function checkAttribute(buf: Buffer, start: number, end: number): void {
  seek(start);
  while (pos < end) {
    const tagPos = pos;
    const tag = readTag(buf, end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1 || field === 2) {
      stringWire(tagPos, field, wt);
      checkString(buf, end);
      continue;
    }
    const fast = memberAt(tagPos, field, wt);
    if (fast === undefined) skipField(buf, end, wt, tagPos);
    else if (fast.member.list) checkList(buf, readLength(buf, end), fast);
    else skipScalar(buf, end, fast.code);
  }
}

/** Advances over a length-delimited string, checking that it is UTF-8. */
export function checkString(buf: Buffer, end: number): void {
  const stop = readLength(buf, end);
  if (!isAsciiRange(buf, pos, stop) && !isUtf8(buf.subarray(pos, stop))) throw new WireError(pos, 'string field is not valid UTF-8');
  seek(stop);
}

/** Advances over one scalar of the given code, with the checks readScalar makes. */
function skipScalar(buf: Buffer, end: number, code: number): void {
  switch (code) {
    case 0: case 9: case 11:
      readDouble(buf, end);
      return;
    case 1: case 8: case 10:
      readFixed32(buf, end);
      return;
    case 12:
      if (pos < end && buf[pos] <= 1) seek(pos + 1);
      else readScalar(buf, end, code);
      return;
    case 13:
      checkString(buf, end);
      return;
    case 14:
      seek(readLength(buf, end));
      return;
    default:
      skipVarint(buf, end);
  }
}

function checkList(buf: Buffer, end: number, fast: FastMember): void {
  while (pos < end) {
    const tagPos = pos;
    const tag = readTag(buf, end);
    if (listTag(tagPos, tag >>> 3, tag & 7, fast)) {
      const stop = readLength(buf, end);
      while (pos < stop) skipScalar(buf, stop, fast.code);
    } else {
      skipScalar(buf, end, fast.code);
    }
  }
}

/**
 * AttributeProto decoding, and the bookkeeping of what re-encoding needs beyond values (unknown fields, explicit
 * defaults, unpacked lists). attribute-walk.ts checks the same structure without building values.
 */
import { listTag, memberAt, stringWire, type FastMember } from './attribute-members.js';
import type { AttrScalarValue, AttrValue, Attribute, Lossless } from './types.js';
import { WIRE_LEN, type WireCursor } from './cursor.js';

export { wireTypeOf, wrongWire } from './attribute-members.js';

export function keepUnknown(
  l: Lossless | undefined,
  field: number,
  buf: Buffer,
  tagPos: number,
  end: number,
): Lossless {
  const out = l ?? {};
  (out.unknown ??= []).push({ field, bytes: Uint8Array.prototype.slice.call(buf, tagPos, end) });
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

export function decodeAttribute(c: WireCursor, start: number, end: number): Attribute {
  const attr: Attribute = { name: '', docString: '', kind: null, value: null };
  let lossless: Lossless | undefined;
  c.pos = start;
  while (c.nextField(end)) {
    const { field, wireType: wt, tagPos } = c;
    if (field === 1 || field === 2) {
      stringWire(tagPos, field, wt);
      const s = c.string(end);
      if (field === 1) attr.name = s;
      else attr.docString = s;
      if (s === '') lossless = markExplicit(lossless, field);
      continue;
    }
    const fast = memberAt(tagPos, field, wt);
    if (fast === undefined) {
      c.skipField(end);
      lossless = keepUnknown(lossless, field, c.buf, tagPos, c.pos);
      continue;
    }
    if (fast.member.list) {
      const stop = c.length(end);
      const r = decodeList(c, stop, fast);
      attr.value = r.values;
      if (r.unpacked) lossless = markUnpacked(lossless, field);
    } else {
      attr.value = readScalar(c, end, fast.code);
    }
    attr.kind = fast.member.kind;
  }
  if (lossless) attr.lossless = lossless;
  return attr;
}

function readScalar(c: WireCursor, end: number, code: number): AttrScalarValue {
  switch (code) {
    case 0:
      return c.double(end);
    case 1:
      return c.float(end);
    case 2:
      return c.int32(end);
    case 3:
      return c.int64(end);
    case 4:
      return c.uint32(end);
    case 5:
      return c.varint64(end);
    case 6:
      return c.sint32(end);
    case 7:
      return c.sint64(end);
    case 8:
      return c.fixed32(end);
    case 9:
      return c.fixed64(end);
    case 10:
      return c.sfixed32(end);
    case 11:
      return c.sfixed64(end);
    case 12:
      return c.bool(end);
    case 13:
      return c.string(end);
    default:
      return c.bytes(end);
  }
}

/** XxxList message up to `end`: `repeated T values = 1`, packed or not. */
function decodeList(c: WireCursor, end: number, fast: FastMember): { values: AttrValue; unpacked: boolean } {
  const values: AttrScalarValue[] = [];
  let unpacked = false;
  while (c.nextField(end)) {
    if (listTag(c, fast)) {
      const stop = c.length(end);
      while (c.pos < stop) values.push(readScalar(c, stop, fast.code));
    } else {
      values.push(readScalar(c, end, fast.code));
      if (fast.wire !== WIRE_LEN) unpacked = true;
    }
  }
  return { values, unpacked };
}

/**
 * AttributeProto: its decoder, and the walk that checks its structure (tags, wire types, lengths, UTF-8, list
 * layout) without building values, which is what the node probe (probe.ts) and the lazy node (decoded-node.ts)
 * rely on. Both raise the same WireErrors at the same offsets for bad input.
 */
import { ATTR_MEMBER_BY_FIELD, type AttrMember, type ScalarType } from './schema.js';
import type { AttrScalarValue, AttrValue, Attribute, Lossless } from './types.js';
import { WIRE_I32, WIRE_I64, WIRE_LEN, WIRE_VARINT, WireError, type WireCursor } from './cursor.js';

/** Oneof members indexed by field number, with numeric scalar codes for a fast switch. */
const SCALAR_CODES: Record<ScalarType, number> = {
  double: 0, float: 1, int32: 2, int64: 3, uint32: 4, uint64: 5, sint32: 6, sint64: 7,
  fixed32: 8, fixed64: 9, sfixed32: 10, sfixed64: 11, bool: 12, string: 13, bytes: 14,
};
const BOOL = SCALAR_CODES.bool;
interface FastMember { member: AttrMember; code: number; wire: number }
const MEMBER_AT: (FastMember | undefined)[] = [];
for (const m of ATTR_MEMBER_BY_FIELD.values()) {
  MEMBER_AT[m.field] = { member: m, code: SCALAR_CODES[m.scalar], wire: wireTypeOf(m.scalar) };
}

/** What walkAttribute found in one AttributeProto. */
export class AttributeLayout {
  /** The (last) name's bytes, or −1 when the attribute has none. */
  nameStart = -1;
  nameEnd = -1;
  /** Field number of the (last) oneof member set, 0 when none is; its payload starts at valueStart. */
  member = 0;
  valueStart = -1;
  /** The canonical layout: name, an optional doc_string, then exactly one member, nothing else. */
  simple = false;
}

export function wrongWire(tagPos: number, message: string, field: number, name: string, got: number, want: string): WireError {
  return new WireError(tagPos, `${message}.${name} (field ${field}) has wire type ${got}, expected ${want}`);
}

export function keepUnknown(l: Lossless | undefined, field: number, buf: Buffer, tagPos: number, end: number): Lossless {
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

/** Checks the wire type of AttributeProto's name (1) or doc_string (2). */
function stringWire(tagPos: number, field: number, wt: number): void {
  if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'AttributeProto', field, field === 1 ? 'name' : 'doc_string', wt, '2');
}

/** The oneof member at a field number with its wire type checked; undefined for an unknown field (tags refuse 0). */
function memberAt(tagPos: number, field: number, wt: number): FastMember | undefined {
  const fast = MEMBER_AT[field];
  if (fast === undefined) return undefined;
  const want = fast.member.list ? WIRE_LEN : fast.wire;
  if (wt !== want) throw wrongWire(tagPos, 'AttributeProto', field, fast.member.kind, wt, String(want));
  return fast;
}

/** Checks the tag just read inside an XxxList; true when it opens a packed run. */
function listTag(c: WireCursor, fast: FastMember): boolean {
  const { field, wireType: wt, tagPos } = c;
  if (field !== 1) throw new WireError(tagPos, `${fast.member.kind} list has field ${field}; only field 1 (values) exists`);
  if (wt === WIRE_LEN && fast.wire !== WIRE_LEN) return true;
  if (wt !== fast.wire) throw new WireError(tagPos, `${fast.member.kind}.values has wire type ${wt}, expected ${fast.wire} or 2 (packed)`);
  return false;
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

function readScalar(c: WireCursor, end: number, code: number): AttrScalarValue {
  switch (code) {
    case 0: return c.double(end);
    case 1: return c.float(end);
    case 2: return c.int32(end);
    case 3: return c.int64(end);
    case 4: return c.uint32(end);
    case 5: return c.varint64(end);
    case 6: return c.sint32(end);
    case 7: return c.sint64(end);
    case 8: return c.fixed32(end);
    case 9: return c.fixed64(end);
    case 10: return c.sfixed32(end);
    case 11: return c.sfixed64(end);
    case 12: return c.bool(end);
    case 13: return c.string(end);
    default: return c.bytes(end);
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

/**
 * Walks an AttributeProto, checking what decodeAttribute checks without building values, and notes its layout in
 * `found` when given. Leaves the cursor at `end`.
 */
export function walkAttribute(c: WireCursor, start: number, end: number, found: AttributeLayout | null): void {
  let nameStart = -1;
  let nameEnd = -1;
  let member = 0;
  let valueStart = -1;
  // Layout state: 0 before the name, 1 after it, 2 after a doc_string, 3 after the member; -1 once not canonical.
  let layout = 0;
  c.pos = start;
  while (c.nextField(end)) {
    const { field, wireType: wt, tagPos } = c;
    if (field === 1 || field === 2) {
      stringWire(tagPos, field, wt);
      const stop = c.length(end);
      c.checkUtf8(c.pos, stop);
      if (field === 1) {
        layout = layout === 0 ? 1 : -1;
        nameStart = c.pos;
        nameEnd = stop;
      } else {
        layout = layout === 1 ? 2 : -1;
      }
      c.pos = stop;
      continue;
    }
    const fast = memberAt(tagPos, field, wt);
    if (fast === undefined) {
      layout = -1;
      c.skipField(end);
      continue;
    }
    layout = layout === 1 || layout === 2 ? 3 : -1;
    member = field;
    valueStart = c.pos;
    if (fast.member.list) checkList(c, c.length(end), fast);
    else skipScalar(c, end, fast.code);
  }
  if (found !== null) {
    found.nameStart = nameStart;
    found.nameEnd = nameEnd;
    found.member = member;
    found.valueStart = valueStart;
    found.simple = layout === 3;
  }
}

/** Advances over one scalar of the given code, with the checks readScalar makes. */
function skipScalar(c: WireCursor, end: number, code: number): void {
  switch (code) {
    case 0: case 9: case 11:
      c.double(end);
      return;
    case 1: case 8: case 10:
      c.fixed32(end);
      return;
    case BOOL:
      if (c.pos < end && c.buf[c.pos] <= 1) c.pos++;
      else c.bool(end);
      return;
    case 13:
      c.checkString(end);
      return;
    case 14:
      c.pos = c.length(end);
      return;
    default:
      c.skipVarint(end);
  }
}

function checkList(c: WireCursor, end: number, fast: FastMember): void {
  while (c.nextField(end)) {
    if (listTag(c, fast)) {
      const stop = c.length(end);
      while (c.pos < stop) skipScalar(c, stop, fast.code);
    } else {
      skipScalar(c, end, fast.code);
    }
  }
}

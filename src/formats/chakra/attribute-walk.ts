/**
 * Walking an AttributeProto: checking what the decoder (decode-attribute.ts) checks, with the same WireErrors at
 * the same offsets, without building values; and noting its layout (name, member, canonical or not) for the node
 * probe. walkSimpleAttribute takes the layout nearly every attribute has in a few steps; walkAttribute takes any.
 */
import { BOOL, MEMBER_AT, SCALAR_CODES, listTag, memberAt, stringWire, type FastMember } from './attribute-members.js';
import { WIRE_LEN, WIRE_VARINT, canonicalVarintAt, type WireCursor } from './cursor.js';

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
  /** A simple varint member's value when it took at most 7 bytes (read on the way), else −1. */
  number = -1;
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
    found.number = -1;
  }
}

/** By oneof field number, how walkSimpleAttribute reads the member: not at all, a varint, a bool, a string. */
const NOT_SIMPLE = 0;
const PLAIN_VARINT = 1;
const BOOL_VARINT = 2;
const STRING = 3;
const SIMPLE_MEMBERS = Uint8Array.from({ length: 33 }, (_, field) => {
  const fast = MEMBER_AT[field];
  if (fast === undefined || fast.member.list) return NOT_SIMPLE;
  if (fast.code === SCALAR_CODES.string) return STRING;
  if (fast.wire !== WIRE_VARINT) return NOT_SIMPLE;
  return fast.code === BOOL ? BOOL_VARINT : PLAIN_VARINT;
});

/**
 * walkAttribute for the layout nearly every attribute has: an ASCII name shorter than 128 bytes, then one member
 * (a one- or two-byte tag), a canonical varint or an ASCII string, that ends the message. False, having noted
 * nothing, for anything else: walkAttribute then checks it (callers try this first). `checkName` false: the caller
 * checks the name itself.
 */
export function walkSimpleAttribute(
  c: WireCursor,
  start: number,
  end: number,
  found: AttributeLayout | null,
  checkName = true,
): boolean {
  const buf = c.buf;
  if (end - start < 4 || buf[start] !== 0x0a || buf[start + 1] >= 0x80) return false;
  const nameStart = start + 2;
  const nameEnd = nameStart + buf[start + 1];
  if (nameEnd + 2 > end) return false;
  let q = nameEnd;
  let tag = buf[q++];
  if (tag >= 0x80) {
    const high = buf[q++];
    if (high === 0 || high >= 0x80) return false;
    tag = (tag & 0x7f) | (high << 7);
  }
  const member = tag >>> 3;
  const kind = member < SIMPLE_MEMBERS.length ? SIMPLE_MEMBERS[member] : NOT_SIMPLE;
  const valueStart = q;
  let number = -1;
  if (kind === STRING) {
    // A canonical length, then ASCII bytes up to `end`.
    const packed = (tag & 7) === WIRE_LEN ? canonicalVarintAt(buf, q, end) : -1;
    if (packed < 0) return false;
    const length = packed & 7;
    if (q + length + (packed - length) / 8 !== end || !c.isAscii(q + length, end)) return false;
  } else {
    if (kind === NOT_SIMPLE || (tag & 7) !== WIRE_VARINT) return false;
    // A canonical varint of at most 10 bytes (a bool: the one byte 0 or 1), ending exactly at `end`; its value kept
    // when it fits 7 bytes.
    let b = 0x80;
    let mul = 1;
    number = 0;
    while (b >= 0x80 && q < end && q - valueStart < 10) {
      b = buf[q++];
      number += (b & 0x7f) * mul;
      mul *= 128;
    }
    if (
      b >= 0x80 ||
      q !== end ||
      (b === 0 && q - valueStart > 1) ||
      (kind === BOOL_VARINT && (q - valueStart > 1 || b > 1))
    )
      return false;
    if (q - valueStart > 7) number = -1;
  }
  if (checkName && !c.isAscii(nameStart, nameEnd)) return false;
  c.pos = end;
  if (found !== null) {
    found.nameStart = nameStart;
    found.nameEnd = nameEnd;
    found.member = member;
    found.valueStart = valueStart;
    found.simple = true;
    found.number = number;
  }
  return true;
}

/** Advances over one scalar of the given code, with the checks readScalar makes. */
function skipScalar(c: WireCursor, end: number, code: number): void {
  switch (code) {
    case 0:
    case 9:
    case 11:
      c.double(end);
      return;
    case 1:
    case 8:
    case 10:
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

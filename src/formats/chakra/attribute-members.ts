/**
 * AttributeProto's oneof members as the attribute decoder and walker use them: by field number, with a numeric
 * code per scalar type for a fast switch, and the wire-type checks (one wording of each error) both make.
 */
import { ATTR_MEMBER_BY_FIELD, type AttrMember, type ScalarType } from './schema.js';
import { WIRE_I32, WIRE_I64, WIRE_LEN, WIRE_VARINT, WireError, type WireCursor } from './cursor.js';

export const SCALAR_CODES: Record<ScalarType, number> = {
  double: 0,
  float: 1,
  int32: 2,
  int64: 3,
  uint32: 4,
  uint64: 5,
  sint32: 6,
  sint64: 7,
  fixed32: 8,
  fixed64: 9,
  sfixed32: 10,
  sfixed64: 11,
  bool: 12,
  string: 13,
  bytes: 14,
};
export const BOOL = SCALAR_CODES.bool;
export interface FastMember {
  member: AttrMember;
  code: number;
  wire: number;
}
/** Oneof members indexed by field number. */
export const MEMBER_AT: (FastMember | undefined)[] = [];
for (const m of ATTR_MEMBER_BY_FIELD.values()) {
  MEMBER_AT[m.field] = { member: m, code: SCALAR_CODES[m.scalar], wire: wireTypeOf(m.scalar) };
}

export function wrongWire(
  tagPos: number,
  message: string,
  field: number,
  name: string,
  got: number,
  want: string,
): WireError {
  return new WireError(tagPos, `${message}.${name} (field ${field}) has wire type ${got}, expected ${want}`);
}

/** Checks the wire type of AttributeProto's name (1) or doc_string (2). */
export function stringWire(tagPos: number, field: number, wt: number): void {
  if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'AttributeProto', field, field === 1 ? 'name' : 'doc_string', wt, '2');
}

/** The oneof member at a field number with its wire type checked; undefined for an unknown field (tags refuse 0). */
export function memberAt(tagPos: number, field: number, wt: number): FastMember | undefined {
  const fast = MEMBER_AT[field];
  if (fast === undefined) return undefined;
  const want = fast.member.list ? WIRE_LEN : fast.wire;
  if (wt !== want) throw wrongWire(tagPos, 'AttributeProto', field, fast.member.kind, wt, String(want));
  return fast;
}

/** Checks the tag just read inside an XxxList; true when it opens a packed run. */
export function listTag(c: WireCursor, fast: FastMember): boolean {
  const { field, wireType: wt, tagPos } = c;
  if (field !== 1)
    throw new WireError(tagPos, `${fast.member.kind} list has field ${field}; only field 1 (values) exists`);
  if (wt === WIRE_LEN && fast.wire !== WIRE_LEN) return true;
  if (wt !== fast.wire)
    throw new WireError(tagPos, `${fast.member.kind}.values has wire type ${wt}, expected ${fast.wire} or 2 (packed)`);
  return false;
}

export function wireTypeOf(scalar: ScalarType): number {
  switch (scalar) {
    case 'double':
    case 'fixed64':
    case 'sfixed64':
      return WIRE_I64;
    case 'float':
    case 'fixed32':
    case 'sfixed32':
      return WIRE_I32;
    case 'string':
    case 'bytes':
      return WIRE_LEN;
    default:
      return WIRE_VARINT;
  }
}

/**
 * Decodes Chakra messages (GlobalMetadata, Node, AttributeProto, IOInfo) from protobuf wire bytes.
 * Unknown fields are kept as raw bytes and explicit default values are remembered, so that
 * encode(decode(x)) reproduces x byte for byte (see encode.ts).
 */
import { isUtf8 } from 'node:buffer';
import { LazyIOInfo } from './io-info.js';
import { ATTR_MEMBER_BY_FIELD, type AttrMember, type ScalarType } from './schema.js';
import type { AttrScalarValue, AttrValue, Attribute, ChakraNode, GlobalMetadata, IOInfo, Lossless } from './types.js';
import {
  WIRE_I32, WIRE_I64, WIRE_LEN, WIRE_VARINT, WireError, pos, readBytes, readDouble, readFixed32, readFixed64,
  readFloat, readInt32, readInt64, readLength, readSfixed32, readSfixed64, readSint32, readSint64, readString,
  markNonCanonical, readTag, readUint32, readVarintBigint, readVarintNumber, seek, skipField,
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

const NODE_FIELD_NAMES = ['', 'id', 'name', 'type', 'ctrl_deps', 'data_deps', 'start_time_micros', 'duration_micros', 'inputs', 'outputs', 'attr'];

function wrongWire(tagPos: number, message: string, field: number, name: string, got: number, want: string): WireError {
  return new WireError(tagPos, `${message}.${name} (field ${field}) has wire type ${got}, expected ${want}`);
}

function keepUnknown(l: Lossless | undefined, field: number, buf: Buffer, tagPos: number): Lossless {
  const out = l ?? {};
  (out.unknown ??= []).push({ field, bytes: Uint8Array.prototype.slice.call(buf, tagPos, pos) });
  return out;
}

function markExplicit(l: Lossless | undefined, field: number): Lossless {
  const out = l ?? {};
  out.explicitDefaults = (out.explicitDefaults ?? 0) | (1 << field);
  return out;
}

function markUnpacked(l: Lossless | undefined, field: number): Lossless {
  const out = l ?? {};
  out.unpacked = (out.unpacked ?? 0) | (1 << field);
  return out;
}

/** Decodes a Node occupying buf[start, end). */
export function decodeNode(buf: Buffer, start: number, end: number): ChakraNode {
  const node: ChakraNode = {
    id: 0n, name: '', type: 0, ctrlDeps: [], dataDeps: [], startTimeMicros: 0n, durationMicros: 0n,
    inputs: null, outputs: null, attrs: [],
  };
  let lossless: Lossless | undefined;
  seek(start);
  while (pos < end) {
    const tagPos = pos;
    const tag = readTag(buf, end);
    const field = tag >>> 3;
    const wt = tag & 7;
    switch (field) {
      case 1:
      case 6:
      case 7: {
        if (wt !== WIRE_VARINT) throw wrongWire(tagPos, 'Node', field, NODE_FIELD_NAMES[field], wt, '0 (varint)');
        const v = readVarintBigint(buf, end);
        if (field === 1) node.id = v;
        else if (field === 6) node.startTimeMicros = v;
        else node.durationMicros = v;
        if (v === 0n) lossless = markExplicit(lossless, field);
        break;
      }
      case 2:
        if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'Node', field, 'name', wt, '2 (length-delimited)');
        node.name = readString(buf, end);
        if (node.name === '') lossless = markExplicit(lossless, field);
        break;
      case 3:
        if (wt !== WIRE_VARINT) throw wrongWire(tagPos, 'Node', field, 'type', wt, '0 (varint)');
        node.type = readInt32(buf, end);
        if (node.type === 0) lossless = markExplicit(lossless, field);
        break;
      case 4:
      case 5: {
        const list = field === 4 ? node.ctrlDeps : node.dataDeps;
        if (wt === WIRE_LEN) {
          const stop = readLength(buf, end);
          if (stop === pos) lossless = markExplicit(lossless, field);
          while (pos < stop) list.push(readVarintBigint(buf, stop));
        } else if (wt === WIRE_VARINT) {
          list.push(readVarintBigint(buf, end));
          lossless = markUnpacked(lossless, field);
        } else {
          throw wrongWire(tagPos, 'Node', field, NODE_FIELD_NAMES[field], wt, '2 (packed) or 0');
        }
        break;
      }
      case 8:
      case 9: {
        if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'Node', field, NODE_FIELD_NAMES[field], wt, '2 (length-delimited)');
        const stop = readLength(buf, end);
        const io = new LazyIOInfo(checkIOInfo(buf, pos, stop), decodeWholeIOInfo);
        if (field === 8) node.inputs = io;
        else node.outputs = io;
        break;
      }
      case 10: {
        if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'Node', field, 'attr', wt, '2 (length-delimited)');
        const stop = readLength(buf, end);
        node.attrs.push(decodeAttribute(buf, pos, stop));
        break;
      }
      case 11:
        throw new WireError(tagPos, 'Node field 11 is the pre-2023-10-10 (proto2-era) "attribute" field: this trace uses an old Chakra schema that tracewatt does not read; re-convert it with a current chakra_converter');
      case 0:
        throw new WireError(tagPos, 'field number 0 is invalid (corrupt data)');
      default:
        skipField(buf, end, wt, tagPos);
        lossless = keepUnknown(lossless, field, buf, tagPos);
    }
  }
  if (lossless) node.lossless = lossless;
  return node;
}

/**
 * Checks an IOInfo's structure and UTF-8 without building its strings; returns a copy of its bytes.
 * Leaves the cursor at `end`.
 */
function checkIOInfo(buf: Buffer, start: number, end: number): Buffer {
  seek(start);
  while (pos < end) {
    const tagPos = pos;
    const tag = readTag(buf, end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field >= 1 && field <= 3) {
      if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'IOInfo', field, ['', 'values', 'shapes', 'types'][field], wt, '2');
      const stop = readLength(buf, end);
      for (let i = pos; i < stop; i++) {
        if (buf[i] >= 0x80) {
          if (!isUtf8(buf.subarray(pos, stop))) throw new WireError(pos, 'string field is not valid UTF-8');
          break;
        }
      }
      seek(stop);
    } else {
      skipField(buf, end, wt, tagPos);
    }
  }
  // A copy from Node's small-buffer pool: a view would keep the whole 1 MiB read chunk alive.
  const copy = Buffer.allocUnsafe(end - start);
  buf.copy(copy, 0, start, end);
  return copy;
}

function decodeWholeIOInfo(raw: Buffer): IOInfo {
  return decodeIOInfo(raw, 0, raw.length);
}

export function decodeIOInfo(buf: Buffer, start: number, end: number): IOInfo {
  const io: IOInfo = { values: '', shapes: '', types: '' };
  let lossless: Lossless | undefined;
  seek(start);
  while (pos < end) {
    const tagPos = pos;
    const tag = readTag(buf, end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field >= 1 && field <= 3) {
      if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'IOInfo', field, ['', 'values', 'shapes', 'types'][field], wt, '2');
      const s = readString(buf, end);
      if (field === 1) io.values = s;
      else if (field === 2) io.shapes = s;
      else io.types = s;
      if (s === '') lossless = markExplicit(lossless, field);
    } else if (field === 0) {
      throw new WireError(tagPos, 'field number 0 is invalid (corrupt data)');
    } else {
      skipField(buf, end, wt, tagPos);
      lossless = keepUnknown(lossless, field, buf, tagPos);
    }
  }
  seek(end);
  if (lossless) io.lossless = lossless;
  return io;
}

export function decodeMetadata(buf: Buffer, start: number, end: number): GlobalMetadata {
  const md: GlobalMetadata = { version: '', attrs: [] };
  let lossless: Lossless | undefined;
  seek(start);
  while (pos < end) {
    const tagPos = pos;
    const tag = readTag(buf, end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field === 1) {
      if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'GlobalMetadata', 1, 'version', wt, '2');
      md.version = readString(buf, end);
      if (md.version === '') lossless = markExplicit(lossless, 1);
    } else if (field === 2) {
      if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'GlobalMetadata', 2, 'attr', wt, '2');
      const stop = readLength(buf, end);
      md.attrs.push(decodeAttribute(buf, pos, stop));
    } else if (field === 0) {
      throw new WireError(tagPos, 'field number 0 is invalid (corrupt data)');
    } else {
      skipField(buf, end, wt, tagPos);
      lossless = keepUnknown(lossless, field, buf, tagPos);
    }
  }
  if (lossless) md.lossless = lossless;
  return md;
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
      if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'AttributeProto', field, field === 1 ? 'name' : 'doc_string', wt, '2');
      const s = readString(buf, end);
      if (field === 1) attr.name = s;
      else attr.docString = s;
      if (s === '') lossless = markExplicit(lossless, field);
      continue;
    }
    const fast = MEMBER_AT[field];
    if (fast === undefined) {
      if (field === 0) throw new WireError(tagPos, 'field number 0 is invalid (corrupt data)');
      skipField(buf, end, wt, tagPos);
      lossless = keepUnknown(lossless, field, buf, tagPos);
      continue;
    }
    const member = fast.member;
    if (member.list) {
      if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'AttributeProto', field, member.kind, wt, '2');
      const stop = readLength(buf, end);
      const r = decodeList(buf, pos, stop, fast);
      attr.value = r.values;
      if (r.unpacked) lossless = markUnpacked(lossless, field);
    } else {
      if (wt !== fast.wire) throw wrongWire(tagPos, 'AttributeProto', field, member.kind, wt, String(fast.wire));
      attr.value = readScalar(buf, end, fast.code);
    }
    attr.kind = member.kind;
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
  const member = fast.member;
  const want = fast.wire;
  let unpacked = false;
  seek(start);
  while (pos < end) {
    const tagPos = pos;
    const tag = readTag(buf, end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field !== 1) {
      throw new WireError(tagPos, `${member.kind} list has field ${field}; only field 1 (values) exists`);
    }
    if (wt === WIRE_LEN && want !== WIRE_LEN) {
      const stop = readLength(buf, end);
      while (pos < stop) values.push(readScalar(buf, stop, fast.code));
    } else if (wt === want) {
      values.push(readScalar(buf, end, fast.code));
      if (want !== WIRE_LEN) unpacked = true;
    } else {
      throw new WireError(tagPos, `${member.kind}.values has wire type ${wt}, expected ${want} or 2 (packed)`);
    }
  }
  return { values, unpacked };
}

/**
 * True when a frame is a GlobalMetadata rather than a Node: metadata has only fields 1 and 2,
 * both length-delimited, whereas a Node's field 1 (id) is a varint and nodes carry fields ≥ 3.
 */
export function isMetadataFrame(buf: Buffer, start: number, end: number): boolean {
  seek(start);
  try {
    while (pos < end) {
      const tagPos = pos;
      const tag = readTag(buf, end);
      const field = tag >>> 3;
      const wt = tag & 7;
      if (field > 2 || wt !== WIRE_LEN) return false;
      skipField(buf, end, wt, tagPos);
    }
    return true;
  } catch {
    return false;
  }
}

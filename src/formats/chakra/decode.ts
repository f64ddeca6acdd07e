/**
 * Decodes Chakra messages (GlobalMetadata, Node, AttributeProto, IOInfo) from protobuf wire bytes.
 * Unknown fields are kept as raw bytes and explicit default values are remembered, so that
 * encode(decode(x)) reproduces x byte for byte (see encode.ts).
 */
import { checkAttribute, decodeAttribute, keepUnknown, markExplicit, markUnpacked, wrongWire } from './decode-attribute.js';
import { DecodedNode } from './decoded-node.js';
import { LazyIOInfo, checkIOInfo } from './io-info.js';
import { keep, keptIn } from './slab.js';
import type { Attribute, ChakraNode, GlobalMetadata, Lossless } from './types.js';
import {
  WIRE_LEN, WIRE_VARINT, WireError, pos, readInt32, readLength, readString, readTag, readVarintBigint, seek, skipField,
} from './wire.js';

export { decodeAttribute, wireTypeOf } from './decode-attribute.js';
export { decodeIOInfo } from './io-info.js';

const NODE_FIELD_NAMES = ['', 'id', 'name', 'type', 'ctrl_deps', 'data_deps', 'start_time_micros', 'duration_micros', 'inputs', 'outputs', 'attr'];

/** Decodes a Node occupying buf[start, end). */
export function decodeNode(buf: Buffer, start: number, end: number): ChakraNode {
  const node = new DecodedNode(0n, '', 0, [], [], 0n, 0n, null, null);
  let lossless: Lossless | undefined;
  // Attribute entries are kept as bytes when they are contiguous, each with the one-byte tag.
  let attrStart = -1;
  let attrEnd = -1;
  let attrsAsBytes = true;
  // IOInfo payloads, checked now and decoded on first read.
  let inStart = -1;
  let inEnd = -1;
  let outStart = -1;
  let outEnd = -1;
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
        if (field === 8) inStart = pos;
        else outStart = pos;
        checkIOInfo(buf, pos, stop);
        if (field === 8) inEnd = stop;
        else outEnd = stop;
        break;
      }
      case 10: {
        if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'Node', field, 'attr', wt, '2 (length-delimited)');
        if (pos !== tagPos + 1 || (attrStart >= 0 && tagPos !== attrEnd)) attrsAsBytes = false;
        if (attrStart < 0) attrStart = tagPos;
        const stop = readLength(buf, end);
        checkAttribute(buf, pos, stop);
        attrEnd = stop;
        break;
      }
      case 11:
        throw new WireError(tagPos, 'Node field 11 is the pre-2023-10-10 (proto2-era) "attribute" field: this trace uses an old Chakra schema that tracewatt does not read; re-convert it with a current chakra_converter');
      default:
        skipField(buf, end, wt, tagPos);
        lossless = keepUnknown(lossless, field, buf, tagPos);
    }
  }
  if (attrStart >= 0 && !attrsAsBytes) {
    node.attrs = decodeAttributeFields(buf, start, end);
    attrStart = -1;
  }
  if (inStart >= 0 || outStart >= 0 || attrStart >= 0) {
    // One copy holds every lazily decoded part (they are usually adjacent, at the end of the frame).
    const lo = Math.min(inStart < 0 ? end : inStart, outStart < 0 ? end : outStart, attrStart < 0 ? end : attrStart);
    const hi = Math.max(inEnd, outEnd, attrEnd);
    const shift = keep(buf, lo, hi) - lo;
    const raw = keptIn;
    if (inStart >= 0) node.inputs = new LazyIOInfo(raw, inStart + shift, inEnd + shift);
    if (outStart >= 0) node.outputs = new LazyIOInfo(raw, outStart + shift, outEnd + shift);
    if (attrStart >= 0) node.setAttrBytes(raw, attrStart + shift, attrEnd + shift);
  }
  if (lossless) node.lossless = lossless;
  return node;
}

/** Decodes every field-10 entry of an already checked Node frame (layouts that are not kept as bytes). */
function decodeAttributeFields(buf: Buffer, start: number, end: number): Attribute[] {
  const attrs: Attribute[] = [];
  seek(start);
  while (pos < end) {
    const tagPos = pos;
    const tag = readTag(buf, end);
    if (tag >>> 3 === 10) {
      const stop = readLength(buf, end);
      attrs.push(decodeAttribute(buf, pos, stop));
      seek(stop);
    } else {
      skipField(buf, end, tag & 7, tagPos);
    }
  }
  return attrs;
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
    } else {
      skipField(buf, end, wt, tagPos);
      lossless = keepUnknown(lossless, field, buf, tagPos);
    }
  }
  if (lossless) md.lossless = lossless;
  return md;
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

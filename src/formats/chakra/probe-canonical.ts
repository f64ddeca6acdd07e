/**
 * The fast path of NodeProbe.read: a Node's fields 1–10 in the order and encodings the encoder writes them (every
 * tag one byte, canonical varints of at most 7 bytes, ASCII strings, the common attribute layouts), read with local
 * positions and small inlined helpers, and noted exactly as the general walk notes them. It stops before the first
 * field it does not take (good or bad) and says where: the general walk goes on from there, and it alone checks and
 * refuses what this does not take, so the verdict on every frame is the general walk's.
 */
import { canonicalVarintAt, type WireCursor } from './cursor.js';
import { walkSimpleAttribute } from './attribute-walk.js';
import type { NodeProbe } from './probe.js';
import type { U64List } from './u64-list.js';

/** The one-byte tag of Node fields 1–10 in the wire type the encoder writes. */
const CANONICAL_TAGS = [-1, 0x08, 0x12, 0x18, 0x22, 0x2a, 0x30, 0x38, 0x42, 0x4a, 0x52];
/** IOInfo's fields (values, shapes, types): each a string. */
const IO_VALUES_TAG = 0x0a;
const IO_TYPES_TAG = 0x1a;
const INT32_LIMIT = 2 ** 31;

/**
 * Reads the canonical fields of the Node at c.buf[start, end) into `probe` (reset by its caller); returns where it
 * stopped, with probe.lastField the highest field number read. A field is noted only once all of it is taken.
 * (One loop with one call of each helper: the compiler inlines a helper into a few call sites, not a dozen.)
 */
export function readCanonicalFields(probe: NodeProbe, c: WireCursor, start: number, end: number): number {
  const buf = c.buf;
  const firstAbove = probe.firstAbove;
  let p = start;
  let last = 0;
  while (p < end) {
    const tag = buf[p];
    const field = tag >>> 3;
    if (field === 0 || field > 10 || tag !== CANONICAL_TAGS[field] || field < last || (field === last && field !== 10))
      break;
    // Every field starts with a varint: the value, or the payload's length.
    const packed = canonicalVarintAt(buf, p + 1, end);
    if (packed < 0) break;
    const length = packed & 7;
    const value = (packed - length) / 8;
    const from = p + 1 + length;
    let to = from;
    if (field === 1 || field === 3 || field === 6 || field === 7) {
      if (field === 1) probe.idNumber = value;
      else if (field === 6) probe.startNumber = value;
      else if (field === 7) {
        probe.durationNumber = value;
        probe.durationTag = p;
        probe.durationEnd = from;
      } else if (value < INT32_LIMIT) {
        probe.type = value;
      } else {
        break;
      }
      if (value === 0) probe.explicitDefaults |= 1 << field;
    } else {
      to = from + value;
      if (to > end) break;
      if (field === 10) {
        // An attribute entry; entries that follow each other with one-byte tags leave attrsAsBytes as it is.
        // A name that is one asked for is valid UTF-8 (it equals a string's encoding); others are checked.
        const layout = probe.layout;
        if (!walkSimpleAttribute(c, from, to, layout, false)) break;
        const slot = probe.names === null ? -1 : probe.names.slotOf(c, layout.nameStart, layout.nameEnd);
        if (slot < 0 && !c.isAscii(layout.nameStart, layout.nameEnd)) break;
        if (probe.attrStart < 0) probe.attrStart = p;
        probe.noteSlot(slot, from, to, layout);
        probe.attrEnd = to;
      } else if (field === 4 || field === 5) {
        // A data_deps list read before (knownLists) is not decoded again. Looked up and noted on every list (−1 for
        // ctrl_deps and without knownLists), so that the same steps run whether it is found or not.
        const known = probe.knownLists;
        const entry = field === 5 && known !== null ? known.find(buf, c.view, from, to) : -1;
        probe.dataDepsKnown = entry;
        if (
          entry < 0 &&
          !readPackedValues(buf, from, to, probe.keepDeps ? (field === 4 ? probe.ctrlDeps : probe.dataDeps) : null)
        )
          break;
        if (to === from) probe.explicitDefaults |= 1 << field;
        if (field === 5) {
          probe.dataDepsStart = from;
          probe.dataDepsEnd = to;
        }
      } else if (field === 2) {
        if (!c.isAscii(from, to)) break;
        probe.nameStart = from;
        probe.nameEnd = to;
        if (to === from) probe.explicitDefaults |= 1 << 2;
      } else {
        if (!asciiStrings(c, from, to)) break;
        if (field === 8) {
          probe.inputsStart = from;
          probe.inputsEnd = to;
        } else {
          probe.outputsStart = from;
          probe.outputsEnd = to;
        }
      }
    }
    for (let k = last; k < field; k++) firstAbove[k] = p;
    last = field;
    p = to;
  }
  probe.lastField = last;
  return p;
}

/**
 * Whether buf[start, end) is filled by canonical varints of at most 7 bytes; appended to `list` when given (and it
 * is left as it was when not).
 */
function readPackedValues(buf: Uint8Array, start: number, end: number, list: U64List | null): boolean {
  if (list === null) {
    for (let q = start; q < end; ) {
      const packed = canonicalVarintAt(buf, q, end);
      if (packed < 0) return false;
      q += packed & 7;
    }
    return true;
  }
  const values = list.reserve(end - start);
  let n = list.count;
  for (let q = start; q < end; ) {
    // Ids below 2^14 (one or two bytes) in integer steps: dependency lists are long and their ids mostly small.
    const low = buf[q];
    if (low < 0x80) {
      values[n++] = low;
      q++;
      continue;
    }
    const high = q + 1 < end ? buf[q + 1] : 0;
    if (high !== 0 && high < 0x80) {
      values[n++] = (low & 0x7f) | (high << 7);
      q += 2;
      continue;
    }
    const packed = canonicalVarintAt(buf, q, end);
    if (packed < 0) return false;
    const length = packed & 7;
    values[n++] = (packed - length) / 8;
    q += length;
  }
  list.count = n;
  return true;
}

/**
 * Whether the IOInfo message in c.buf[start, end) is only its three string fields, canonical and ASCII. Most are
 * ASCII throughout (strings shorter than 128 bytes have one-byte lengths): one check of the whole message then
 * stands for each string's.
 */
function asciiStrings(c: WireCursor, start: number, end: number): boolean {
  const buf = c.buf;
  const allAscii = c.isAscii(start, end);
  let p = start;
  while (p < end) {
    const tag = buf[p];
    if (tag < IO_VALUES_TAG || tag > IO_TYPES_TAG || (tag & 7) !== 2) return false;
    const packed = canonicalVarintAt(buf, p + 1, end);
    if (packed < 0) return false;
    const length = packed & 7;
    const from = p + 1 + length;
    const to = from + (packed - length) / 8;
    if (to > end || !(allAscii || c.isAscii(from, to))) return false;
    p = to;
  }
  return true;
}

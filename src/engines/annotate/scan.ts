/**
 * Wire-level scan of a Chakra Node frame for the annotate fast path: where the name, duration_micros and the end
 * of the attributes are, and the values of is_cpu_op, num_ops and tensor_size, without decoding the node. Anything
 * outside the canonical layout the fast path can splice answers SLOW, for the full decoder.
 */
import { NodeType } from '../../formats/chakra/index.js';
import { ANNOTATION_ATTRS, UTIL_PREFIX } from './plan.js';

/** What a node frame scan found (module-level scratch: no allocation per node). */
export const S = {
  type: 0,
  nameS: -1,
  nameE: -1,
  durS: -1,
  durE: -1,
  durVal: 0,
  insDur: 0,
  insAttr: 0,
  isCpu: false,
  flops: 0,
  bytes: 0,
};
export const OK = 0;
/** Not a compute node: copy as is. */
export const PASS = 1;
/** Use the full decoder. */
export const SLOW = 2;

const ATTR_IS_CPU = 1;
const ATTR_NUM_OPS = 2;
const ATTR_TENSOR = 3;
const ATTR_OURS = 4;
const COMP = NodeType.COMP_NODE;

/** End of the last varint read by rv. */
export let vpos = 0;

/** Unsigned varint at p; NaN when longer than 7 bytes (may not fit 2^53) or cut off at `end`. */
export function rv(buf: Uint8Array, p: number, end: number): number {
  // One byte (most tags, lengths and small values) without the loop.
  if (p < end) {
    const b = buf[p];
    if (b < 0x80) {
      vpos = p + 1;
      return b;
    }
  }
  return rvLong(buf, p, end);
}

function rvLong(buf: Uint8Array, p: number, end: number): number {
  let r = 0;
  let mul = 1;
  for (let i = 0; i < 7; i++) {
    if (p >= end) return NaN;
    const b = buf[p++];
    r += (b & 0x7f) * mul;
    if (b < 0x80) {
      vpos = p;
      return r;
    }
    mul *= 128;
  }
  return NaN;
}

/** Skips a field payload; returns the new position or -1. */
function skip(buf: Uint8Array, p: number, end: number, wt: number): number {
  switch (wt) {
    case 0:
      for (let i = 0; i < 10; i++) {
        if (p >= end) return -1;
        if (buf[p++] < 0x80) return p;
      }
      return -1;
    case 1:
      return p + 8 <= end ? p + 8 : -1;
    case 2: {
      const len = rv(buf, p, end);
      if (!(len >= 0) || vpos + len > end) return -1;
      return vpos + len;
    }
    case 5:
      return p + 4 <= end ? p + 4 : -1;
    default:
      return -1;
  }
}

/** The attribute names the scan looks for, by length, with their codes. */
export class AttrNames {
  readonly byLength: { bytes: Uint8Array; view: DataView; code: number }[][] = [];
  constructor(components: string[]) {
    const add = (n: string, code: number) => {
      const bytes = new Uint8Array(Buffer.from(n, 'utf8'));
      (this.byLength[bytes.length] ??= []).push({ bytes, view: new DataView(bytes.buffer), code });
    };
    add('is_cpu_op', ATTR_IS_CPU);
    add('num_ops', ATTR_NUM_OPS);
    add('tensor_size', ATTR_TENSOR);
    for (const n of Object.values(ANNOTATION_ATTRS)) add(n, ATTR_OURS);
    for (const c of components) add(UTIL_PREFIX + c, ATTR_OURS);
  }

  /** Code of the attribute named buf[s, s + len) (dv views buf), or 0. Compares four bytes a step. */
  code(buf: Uint8Array, dv: DataView, s: number, len: number): number {
    const list = this.byLength[len];
    if (list === undefined) return 0;
    for (let k = 0; k < list.length; k++) {
      const c = list[k];
      let i = 0;
      while (i + 4 <= len && c.view.getInt32(i, true) === dv.getInt32(s + i, true)) i += 4;
      if (i + 4 <= len) continue;
      const b = c.bytes;
      while (i < len && b[i] === buf[s + i]) i++;
      if (i === len) return c.code;
    }
    return 0;
  }
}

/**
 * Scans a node frame buf[s, e) (dv views buf). Fills S; returns OK (a compute node with a canonical layout), PASS (not a compute
 * node) or SLOW.
 */
export function scanNode(buf: Uint8Array, dv: DataView, s: number, e: number, names: AttrNames): number {
  let type = 0;
  let nameS = -1;
  let nameE = -1;
  let durS = -1;
  let durE = -1;
  let durVal = 0;
  let insDur = e;
  let insAttr = e;
  let isCpu = false;
  let flops = 0;
  let bytes = 0;
  let p = s;
  let last = 0;
  while (p < e) {
    const tagPos = p;
    // One-byte varints (every tag below field 16, most lengths) are read inline.
    let tag = buf[p];
    if (tag < 0x80) {
      p++;
    } else {
      tag = rv(buf, p, e);
      p = vpos;
    }
    if (!(tag > 0)) return SLOW;
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field < last) return SLOW;
    if (field > 7 && last <= 7) insDur = tagPos;
    if (field > 10 && last <= 10) insAttr = tagPos;
    last = field;
    if (field === 3) {
      if (wt !== 0) return SLOW;
      const t = rv(buf, p, e);
      if (!(t >= 0)) return SLOW;
      p = vpos;
      type = t;
      if (t !== COMP) return PASS;
      continue;
    }
    if (field > 3 && type !== COMP) return PASS;
    if (field === 7) {
      if (wt !== 0) return SLOW;
      const d = rv(buf, p, e);
      if (!(d >= 0)) return SLOW;
      durS = tagPos;
      durVal = d;
      p = durE = vpos;
      continue;
    }
    if (wt === 2) {
      let len = p < e ? buf[p] : 0x80;
      if (len < 0x80) {
        p++;
      } else {
        len = rv(buf, p, e);
        if (!(len >= 0)) return SLOW;
        p = vpos;
      }
      const end = p + len;
      if (end > e) return SLOW;
      if (field === 2) {
        nameS = p;
        nameE = end;
      } else if (field === 10 && p < end && buf[p] === 0x0a) {
        // AttributeProto: name (1) first in a canonical encoding.
        const nlen = rv(buf, p + 1, end);
        if (!(nlen >= 0) || vpos + nlen > end) return SLOW;
        const code = names.code(buf, dv, vpos, nlen);
        if (code !== 0) {
          if (code === ATTR_OURS) return SLOW;
          let q = vpos + nlen;
          if (q < end && buf[q] === 0x12) {
            q = skip(buf, q + 1, end, 2); // doc_string
            if (q < 0) return SLOW;
          }
          if (q >= end) return SLOW;
          const atag = rv(buf, q, end);
          // Plain varint members only: int32 (7), int64 (9), uint32 (11), uint64 (13), bool (27).
          if (!(atag >= 0) || (atag & 7) !== 0) return SLOW;
          const member = atag >>> 3;
          if (member !== 7 && member !== 9 && member !== 11 && member !== 13 && member !== 27) return SLOW;
          const v = rv(buf, vpos, end);
          if (!(v >= 0) || vpos !== end) return SLOW; // too large, negative (10-byte) or trailing fields
          if (code === ATTR_IS_CPU) isCpu = v !== 0;
          else if (code === ATTR_NUM_OPS) flops = v;
          else bytes = v;
        }
      }
      p = end;
      continue;
    }
    p = skip(buf, p, e, wt);
    if (p < 0) return SLOW;
  }
  if (type !== COMP) return PASS;
  S.type = type;
  S.nameS = nameS;
  S.nameE = nameE;
  S.durS = durS;
  S.durE = durE;
  S.durVal = durVal;
  S.insDur = insDur;
  S.insAttr = insAttr;
  S.isCpu = isCpu;
  S.flops = flops;
  S.bytes = bytes;
  return OK;
}

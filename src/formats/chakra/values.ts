/**
 * Value helpers under the wire cursor: the inlinable fast path of every varint read, and memo tables shared by every
 * cursor (pure caches: a hit returns what a miss would build).
 */
import { isUtf8 } from 'node:buffer';

/** A problem at an absolute buffer position; the frame scanner words it with file, offset and frame. */
export class WireError extends Error {
  constructor(
    readonly position: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

/*
 * BigInts are heap objects: small values come from a table, larger ones recur close together (a node's deps are
 * recent ids) and share a direct-mapped slot; short ASCII strings (attribute names) repeat on every node and are
 * interned.
 */
const SMALL_BIGINTS: bigint[] = Array.from({ length: 4096 }, (_, i) => BigInt(i));
const RECENT_SLOTS = 2048;
const recentKey = new Float64Array(RECENT_SLOTS).fill(-1);
const recentValue: bigint[] = new Array<bigint>(RECENT_SLOTS).fill(0n);
const INTERN_SLOTS = 4096;
const INTERN_MAX_BYTES = 40;
const interned: (string | undefined)[] = new Array(INTERN_SLOTS);

/**
 * The canonical varint of at most 7 bytes (below 2^49) at buf[p], before `end`, packed as value × 8 + its length
 * in bytes; −1 for anything else (longer, over-long, cut off), which the cursor's methods then read, check and
 * report. The fast path of every varint read: small and pure, so the compiler inlines it into hot loops.
 * Unpack with `packed & 7` (exact: ToInt32 keeps the low bits of any safe integer), never `packed % 8`: once a value
 * above 2^31 has passed a call site, `%` there is a floating-point library call, five times slower.
 */
export function canonicalVarintAt(buf: Uint8Array, p: number, end: number): number {
  if (p >= end) return -1;
  let b = buf[p];
  if (b < 0x80) return b * 8 + 1;
  let value = b & 0x7f;
  let mul = 1;
  // Every continuation byte takes the same steps (the multiplier first), so that 2-byte values already give the
  // compiler the feedback that 3-byte ones need.
  for (let q = p + 1; q < end && q - p < 7; ) {
    mul *= 128;
    b = buf[q++];
    value += (b & 0x7f) * mul;
    if (b < 0x80) return b === 0 ? -1 : value * 8 + (q - p);
  }
  return -1;
}

/** The bigint of a non-negative safe integer, shared with earlier reads of the same value. */
export function bigintOf(n: number): bigint {
  if (n < 4096) return SMALL_BIGINTS[n];
  const slot = n & (RECENT_SLOTS - 1);
  if (recentKey[slot] === n) return recentValue[slot];
  const v = BigInt(n);
  recentKey[slot] = n;
  recentValue[slot] = v;
  return v;
}

/** The UTF-8 string in buf[start, stop); short ASCII ones interned. Throws WireError when it is not UTF-8. */
export function stringOf(buf: Buffer, start: number, stop: number): string {
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

function decodeUtf8(buf: Buffer, start: number, stop: number): string {
  const s = buf.toString('utf8', start, stop);
  // toString replaces bad sequences with U+FFFD; only then is the (rarer) exact check needed.
  if (s.includes('\uFFFD') && !isUtf8(buf.subarray(start, stop))) {
    throw new WireError(start, 'string field is not valid UTF-8');
  }
  return s;
}

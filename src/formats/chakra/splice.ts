/**
 * Writing frames that are mostly copies of input frames, for engines that change a few fields and keep every other
 * byte: runs of frames copied as they are, and spliced frames (one varint field replaced or inserted, bytes
 * inserted, the length prefix recomputed). Bytes in, bytes out: what the fields mean is the engine's business; the
 * positions come from the node probe (probe.ts).
 *
 * Node 20's Buffer.copy of part of a buffer allocates a Uint8Array view per call; at a few frames per microsecond
 * that allocation, not the copying, is the cost. Short ranges are copied four bytes at a time through DataViews
 * (one per buffer, made when the buffer changes), long ones natively.
 */
import { ByteSink, putVarint, varintLen } from './encode.js';

/** Ranges at least this long are copied natively: past it the view allocation costs less than the word loop. */
const NATIVE_COPY_BYTES = 96;
const EMPTY = new Uint8Array(0);

/** A DataView over all of b. Made where buffers change (per chunk, per flush), never per frame. */
export function viewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** Copies src[s, e) to dst at p (the caller checked the room), short ranges through the DataViews. */
export function copyRange(
  src: Uint8Array,
  sv: DataView,
  s: number,
  e: number,
  dst: Uint8Array,
  dv: DataView,
  p: number,
): void {
  const n = e - s;
  if (n >= NATIVE_COPY_BYTES) {
    dst.set(src.subarray(s, e), p);
    return;
  }
  let i = 0;
  for (; i + 4 <= n; i += 4) dv.setUint32(p + i, sv.getUint32(s + i, true), true);
  for (; i < n; i++) dst[p + i] = src[s + i];
}

/**
 * The change made to one frame: src[cut, resume) (an old varint field, or nothing when cut = resume) becomes the
 * varint field `tag` = `value`; at `at` (resume ≤ at) go `bytes`, then the varint `trailer` when it is ≥ 0.
 */
export class FrameEdit {
  cut = 0;
  resume = 0;
  /** A one-byte tag (field < 16). */
  tag = 0;
  value = 0;
  at = 0;
  bytes: Uint8Array = EMPTY;
  trailer = -1;
}

/** An output buffer for copied and spliced frames. */
export class SpliceSink extends ByteSink {
  /** Views buf. */
  dv: DataView;

  constructor(initialSize?: number) {
    super(initialSize);
    this.dv = viewOf(this.buf);
  }

  override ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    super.ensure(n);
    this.dv = viewOf(this.buf);
  }

  /** Appends src[s, e); sv views src. */
  copy(src: Uint8Array, sv: DataView, s: number, e: number): void {
    const n = e - s;
    if (n <= 0) return;
    this.ensure(n);
    copyRange(src, sv, s, e, this.buf, this.dv, this.pos);
    this.pos += n;
  }

  /** Appends the whole of `b` (no view to allocate). */
  put(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Appends the message src[s, e) (sv views src) with `edit` made, as a frame with its length prefix. */
  splice(src: Uint8Array, sv: DataView, s: number, e: number, edit: FrameEdit): void {
    const { cut, resume, at, value, bytes, trailer } = edit;
    if (!(value >= 0 && value <= Number.MAX_SAFE_INTEGER && trailer <= Number.MAX_SAFE_INTEGER)) {
      this.spliceLarge(src, s, e, edit);
      return;
    }
    const trailerLen = trailer >= 0 ? varintLen(trailer) : 0;
    const valueLen = varintLen(value);
    const len = cut - s + 1 + valueLen + (at - resume) + bytes.length + trailerLen + (e - at);
    this.ensure(len + 10);
    const b = this.buf;
    const dv = this.dv;
    let p = putVarint(b, this.pos, len);
    if (at === e && resume - cut === 1 + valueLen) {
      // The field keeps its length: one copy, the value patched in place.
      copyRange(src, sv, s, e, b, dv, p);
      putVarint(b, p + (cut - s) + 1, value);
      p += e - s;
    } else {
      copyRange(src, sv, s, cut, b, dv, p);
      p += cut - s;
      b[p++] = edit.tag;
      p = putVarint(b, p, value);
      copyRange(src, sv, resume, at, b, dv, p);
      p += at - resume;
    }
    b.set(bytes, p);
    p += bytes.length;
    if (trailer >= 0) p = putVarint(b, p, trailer);
    if (at !== e) {
      copyRange(src, sv, at, e, b, dv, p);
      p += e - at;
    }
    this.pos = p;
  }

  /** splice() for values past 2^53, written as the codec's encoder writes them. */
  private spliceLarge(src: Uint8Array, s: number, e: number, edit: FrameEdit): void {
    const body = new ByteSink(e - s + edit.bytes.length + 32);
    const write = (from: number, to: number) => body.raw(src.subarray(from, to));
    write(s, edit.cut);
    body.varint(edit.tag);
    body.varint(edit.value);
    write(edit.resume, edit.at);
    body.raw(edit.bytes);
    if (edit.trailer >= 0) body.varint(edit.trailer);
    write(edit.at, e);
    this.varint(body.pos);
    this.put(body.view());
  }
}

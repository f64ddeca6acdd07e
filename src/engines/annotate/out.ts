/**
 * Buffered output file for the annotate engine: the codec's growable ByteSink, flushed to a file handle, with a
 * byte-range copy cheap enough to call once per frame.
 *
 * Node 20's Buffer.copy of part of a buffer allocates a Uint8Array view per call; at a few frames per microsecond
 * that allocation, not the copying, is the cost. Short ranges are copied here four bytes at a time through
 * DataViews (one per buffer, made when the buffer changes), long ones natively.
 */
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ByteSink, putVarint } from '../../formats/chakra/encode.js';
import { ensureDir } from '../../formats/chakra/writer.js';
import type { BufferPool } from './buffers.js';

/** Ranges at least this long are copied natively: past it the view allocation costs less than the word loop. */
const NATIVE_COPY_BYTES = 96;

/** A DataView over all of b. Made where buffers change (per chunk, per flush), never per frame. */
export function viewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** Copies src[s, e) to dst at p (the caller checked the room), short ranges through the DataViews. */
export function copyRange(src: Uint8Array, sv: DataView, s: number, e: number, dst: Uint8Array, dv: DataView, p: number): void {
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
 * Output file opened and written synchronously from one buffer. An annotate thread has nothing else to do while
 * its output goes to the page cache, and writing it there in the thread costs less than handing it to libuv's
 * pool, which competes for the same cores (opening asynchronously cost about 1 ms a rank).
 */
export class RawOut extends ByteSink {
  /** Views buf. */
  dv: DataView;

  private fd: number | null;

  private constructor(readonly file: string, fd: number, private readonly pool: BufferPool) {
    super(0);
    this.fd = fd;
    this.buf = pool.take();
    this.dv = viewOf(this.buf);
  }

  /** Opens `file` for writing, with a buffer from `pool`. */
  static async open(file: string, pool: BufferPool): Promise<RawOut> {
    const dir = path.dirname(path.resolve(file));
    if (!existsSync(dir)) await ensureDir(dir);
    return new RawOut(file, openSync(file, 'w'), pool);
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

  /**
   * Appends an annotated frame of `len` bytes: its length prefix, src[s, cut), duration_micros = dur (field 7),
   * src[resume, ins), `tail`, the varint `ref`, then src[ins, e). sv views src; dur (of varint length durLen) and
   * ref are safe integers.
   */
  annotated(
    len: number, src: Uint8Array, sv: DataView, s: number, cut: number, resume: number, ins: number, e: number,
    dur: number, durLen: number, tail: Uint8Array, ref: number,
  ): void {
    this.ensure(len + 10);
    const b = this.buf;
    const dv = this.dv;
    let p = putVarint(b, this.pos, len);
    if (ins === e && resume - cut === 1 + durLen) {
      // The duration keeps its length: one copy, the value patched in place.
      copyRange(src, sv, s, e, b, dv, p);
      putVarint(b, p + (cut - s) + 1, dur);
      p += e - s;
    } else {
      copyRange(src, sv, s, cut, b, dv, p);
      p += cut - s;
      b[p++] = 0x38; // field 7, varint
      p = putVarint(b, p, dur);
      copyRange(src, sv, resume, ins, b, dv, p);
      p += ins - resume;
    }
    b.set(tail, p);
    p = putVarint(b, p + tail.length, ref);
    if (ins !== e) {
      copyRange(src, sv, ins, e, b, dv, p);
      p += e - ins;
    }
    this.pos = p;
  }

  /** Appends the whole of `b` (no view to allocate). */
  put(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Writes what is buffered. */
  flush(): void {
    const n = this.pos;
    let off = 0;
    try {
      while (off < n) off += writeSync(this.fd!, this.buf, off, n - off);
    } catch (e) {
      // writeSync's errors (ENOSPC, EIO) do not say which file.
      throw Object.assign(e as Error, { path: this.file });
    }
    this.pos = 0;
  }

  /** Writes the rest, closes the file and hands the buffer back; once only (later calls do nothing). */
  close(): void {
    const fd = this.fd;
    if (fd === null) return;
    try {
      this.flush();
    } finally {
      this.fd = null;
      closeSync(fd);
      this.pool.give(this.buf);
    }
  }
}

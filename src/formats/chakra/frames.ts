/**
 * The frame scanner: every command reads a trace's frames (`varint(len) ‖ message`) through it. It takes the
 * stream's chunks, hands out one whole frame at a time in place (a frame cut by a chunk boundary is joined into a
 * reused buffer of its own, nothing else is copied), applies the one length-prefix rule (at most 5 bytes, at most
 * MAX_FRAME_BYTES), decodes and checks the GlobalMetadata when the first frame is one, and words every problem the
 * same way: a ChakraDecodeError naming file, byte offset and frame index, and what was expected.
 */
import type { Diagnostics } from '../../diagnostics.js';
import { ChakraDecodeError } from '../../errors.js';
import { fileReadError } from '../file-chunks.js';
import { WireCursor, WireError } from './cursor.js';
import { decodeMetadata, isMetadataFrame } from './decode.js';
import type { ChunkBufferPool } from './source.js';
import type { GlobalMetadata } from './types.js';

/** Frames longer than this are treated as corruption rather than buffered. */
export const MAX_FRAME_BYTES = 512 * 1024 * 1024;
/** A frame length is a varint of at most 5 bytes (2^35 − 1 ≥ MAX_FRAME_BYTES). */
const MAX_PREFIX_BYTES = 5;
const MIN_JOIN_BYTES = 64 * 1024;
const EMPTY = Buffer.alloc(0);

export interface FrameScannerOptions {
  /** Receives counts of odd-but-usable input (zero-length frames, non-canonical varints). */
  diagnostics?: Diagnostics;
  /** Size of a plain file: a frame running past it is refused at once rather than waited for. */
  knownSize?: number | null;
  /** Where the buffer that joins cut frames comes from and goes back to (release()). */
  pool?: ChunkBufferPool;
}

export class FrameScanner {
  /** The cursor every reader of this stream's frames uses (its buffer is `buf`). */
  readonly cursor = new WireCursor();
  /** The bytes frames are read from; valid until the next append(). */
  buf: Buffer = EMPTY;
  /** First byte of `buf` not handed out yet. */
  pos = 0;
  /** Stream offset of buf[0]. */
  offset = 0;
  /** The current frame: its length prefix starts at frameStart, its message is buf[start, end). */
  frameStart = 0;
  start = 0;
  end = 0;
  /** Index of the current frame (of the next one while next() is reading its prefix). */
  frameIndex = 0;
  /** Frames handed out so far, the metadata included. */
  framesRead = 0;
  /** The current frame is the GlobalMetadata (frame 0 only); `metadata` holds it, checked. */
  isMetadata = false;
  metadata: GlobalMetadata | null = null;
  /** Stream bytes appended so far. */
  received = 0;

  private readonly knownSize: number | null;
  /** What follows a joined frame in the chunk it was completed from; read once `buf` is done. */
  private rest: Buffer | null = null;
  private join: Buffer | null = null;
  private ended = false;

  constructor(
    readonly file: string,
    private readonly options: FrameScannerOptions = {},
  ) {
    this.knownSize = options.knownSize ?? null;
  }

  /** Appends the stream's next chunk, once next() has handed out every whole frame before it. */
  append(chunk: Buffer): void {
    if (this.rest !== null) throw new Error('FrameScanner.append before the frames of the last chunk were read');
    this.received += chunk.length;
    const left = this.buf.length - this.pos;
    if (left === 0) {
      this.offset += this.buf.length;
      this.use(chunk);
      return;
    }
    // A frame cut by the boundary: join its bytes so far with what completes it, or with the whole chunk when that
    // is not enough (or its length prefix is not readable yet).
    const need = bytesToComplete(this.buf, this.pos, chunk);
    const take = need >= 0 && need < chunk.length ? need : chunk.length;
    const old = this.join;
    const join = this.joinBuffer(left + take);
    if (join === old && this.buf.buffer === join.buffer && this.buf.byteOffset === join.byteOffset)
      join.copyWithin(0, this.pos, this.buf.length);
    else join.set(this.buf.subarray(this.pos), 0);
    if (old !== null && join !== old) this.options.pool?.give(old);
    join.set(take === chunk.length ? chunk : chunk.subarray(0, take), left);
    this.offset += this.pos;
    this.use(join.subarray(0, left + take));
    if (take < chunk.length) this.rest = chunk.subarray(take);
  }

  /** The stream has ended: a frame left incomplete is now an error (and a stream without bytes too). */
  finish(): void {
    this.ended = true;
    if (this.received === 0)
      throw new ChakraDecodeError(
        { file: this.file, offset: 0, frameIndex: 0 },
        'empty file: a Chakra trace has at least one frame',
      );
  }

  /**
   * Advances to the next whole frame; false when the bytes so far hold none (append more), or at the end of a
   * finished stream. Throws ChakraDecodeError for a bad length prefix, a truncated frame or a bad metadata frame.
   *
   * The common frame (not the first, a one- or two-byte length prefix, whole in the buffer, not empty) is taken
   * here; everything else by nextOther(). Compiled code carries no path that ran before the compiler's feedback was
   * kept (a file's first frame ran then): taking such a path later throws the code away (a "deopt"), at every new
   * file. So the first frame, chunk ends and the rest live apart from this.
   */
  next(): boolean {
    if (this.cursor.nonCanonical) this.noteNonCanonical();
    const buf = this.buf;
    const p = this.pos;
    if (this.framesRead > 0 && p + 2 < buf.length) {
      let len = buf[p];
      let q = p + 1;
      if (len >= 0x80) {
        const high = buf[q++];
        len = high < 0x80 ? (len & 0x7f) | (high << 7) : 0;
      }
      const frameEnd = q + len;
      if (len > 0 && frameEnd <= buf.length && (this.knownSize === null || this.offset + frameEnd <= this.knownSize)) {
        this.frameIndex = this.framesRead++;
        this.frameStart = p;
        this.start = q;
        this.end = this.pos = frameEnd;
        this.isMetadata = false;
        return true;
      }
    }
    return this.nextOther();
  }

  /** next() for every other case: the first frame, a long or cut prefix, a frame the buffer cuts, an empty frame. */
  private nextOther(): boolean {
    for (;;) {
      const buf = this.buf;
      const end = buf.length;
      const p = this.pos;
      this.frameIndex = this.framesRead;
      if (p >= end) {
        if (this.rest === null) return false;
        this.offset += end;
        this.use(this.rest);
        this.rest = null;
        continue;
      }
      let len = 0;
      let mul = 1;
      let q = p;
      let complete = false;
      for (let i = 0; i < MAX_PREFIX_BYTES && q < end; i++) {
        const b = buf[q++];
        len += (b & 0x7f) * mul;
        mul *= 128;
        if (b < 0x80) {
          complete = true;
          break;
        }
      }
      if (!complete) {
        if (q - p >= MAX_PREFIX_BYTES)
          this.fail(p, `frame length prefix is longer than ${MAX_PREFIX_BYTES} bytes (corrupt data)`);
        if (this.ended)
          this.fail(p, `file ends inside a frame length prefix (${end - p} byte(s) left): truncated trace`);
        return false;
      }
      if (len > MAX_FRAME_BYTES)
        this.fail(p, `frame length ${len} exceeds ${MAX_FRAME_BYTES} bytes: corrupt length prefix`);
      const frameEnd = q + len;
      if (this.knownSize !== null && this.offset + frameEnd > this.knownSize) {
        this.fail(
          p,
          `frame length ${len} runs past end of file (${this.knownSize - (this.offset + q)} bytes left): ` +
            `truncated or corrupt trace`,
        );
      }
      if (frameEnd > end) {
        if (this.ended)
          this.fail(p, `frame length ${len} runs past end of file (${end - q} bytes left): truncated trace`);
        return false;
      }
      if (len === 0) {
        this.options.diagnostics?.add('zero-length-frame', {
          file: this.file,
          message:
            `zero-length frame ${this.frameIndex} at byte ${this.offset + p}; Chakra's Python reader stops ` +
            `reading there`,
        });
      }
      this.frameStart = p;
      this.start = q;
      this.end = this.pos = frameEnd;
      this.framesRead++;
      this.isMetadata = this.frameIndex === 0 && isMetadataFrame(buf, q, frameEnd);
      if (this.isMetadata) {
        try {
          this.metadata = decodeMetadata(this.cursor, q, frameEnd);
        } catch (e) {
          throw this.error(e);
        }
      }
      return true;
    }
  }

  /** Offset in the stream of the end of the last frame handed out. */
  get consumed(): number {
    return this.offset + this.pos;
  }

  /**
   * A WireError met while reading the current frame, as the ChakraDecodeError naming file, offset and frame; other
   * errors as they are.
   */
  error(e: unknown): unknown {
    if (!(e instanceof WireError)) return e;
    const where = e.position !== this.frameStart ? ` (frame starts at byte ${this.offset + this.frameStart})` : '';
    return this.located(this.offset + e.position, `${e.problem}${where}`);
  }

  /**
   * Reads the stream's next chunk into the scanner; false at its end (then finish()ed). A failing source (a gzip
   * stream cut short or corrupt, a file that cannot be read) is an error naming the file and the offset reached.
   */
  async fill(chunks: AsyncIterator<Buffer>): Promise<boolean> {
    for (;;) {
      let r: IteratorResult<Buffer>;
      try {
        r = await chunks.next();
      } catch (e) {
        throw this.streamError(e);
      }
      if (r.done) {
        this.finish();
        return false;
      }
      if (r.value.length === 0) continue;
      this.append(r.value);
      return true;
    }
  }

  /** Hands the join buffer back to the pool. */
  release(): void {
    if (this.join && this.options.pool) this.options.pool.give(this.join);
    this.join = null;
    this.buf = EMPTY;
    this.rest = null;
  }

  private streamError(e: unknown): Error {
    const err = e as NodeJS.ErrnoException;
    const at = (problem: string) =>
      new ChakraDecodeError({ file: this.file, offset: this.received, frameIndex: this.frameIndex }, problem);
    if (err?.code === 'Z_BUF_ERROR' || /unexpected end/i.test(String(err?.message))) {
      return at('gzip stream cut short (unexpected end of compressed data): truncated file');
    }
    if (err?.code === 'Z_DATA_ERROR') return at(`corrupt gzip data (${err.message})`);
    return fileReadError(this.file, e);
  }

  /** Throws the error for a problem at buf[position] of the current frame. */
  private fail(position: number, problem: string): never {
    throw this.located(this.offset + position, problem);
  }

  private located(offset: number, problem: string): ChakraDecodeError {
    const hint = this.frameIndex === 0 ? notChakraHint(this.file) : '';
    return new ChakraDecodeError({ file: this.file, offset, frameIndex: this.frameIndex }, `${problem}${hint}`);
  }

  /** Counts the frame just read as one that used non-canonical varints (its readers flagged them on the cursor). */
  private noteNonCanonical(): void {
    this.cursor.nonCanonical = false;
    this.options.diagnostics?.add('non-canonical-varint', {
      file: this.file,
      message:
        `frame ${this.frameIndex} at byte ${this.offset + this.frameStart} uses non-canonical varints ` +
        `(over-long, or a bool other than 0/1); re-encoding normalises them`,
    });
  }

  private use(b: Buffer): void {
    this.buf = b;
    this.pos = 0;
    this.cursor.reset(b);
  }

  /**
   * A buffer of at least n bytes for joining: the last one when it is large enough (the caller gives back a replaced
   * one).
   */
  private joinBuffer(n: number): Buffer {
    const old = this.join;
    if (old !== null && old.length >= n) return old;
    const pool = this.options.pool;
    this.join =
      pool?.size !== undefined && n <= pool.size
        ? pool.take()
        : Buffer.allocUnsafe(Math.max(n, MIN_JOIN_BYTES, 2 * (old?.length ?? 0)));
    return this.join;
  }
}

/**
 * Bytes `next` must supply to complete the frame that starts at rest[from] (its length prefix may itself be
 * split), or −1 when the prefix is not readable from the two.
 */
function bytesToComplete(rest: Buffer, from: number, next: Buffer): number {
  const have = rest.length - from;
  let len = 0;
  let mul = 1;
  for (let i = 0; i < MAX_PREFIX_BYTES; i++) {
    const b = i < have ? rest[from + i] : i - have < next.length ? next[i - have] : -1;
    if (b < 0) return -1;
    len += (b & 0x7f) * mul;
    mul *= 128;
    if (b < 0x80) return len > MAX_FRAME_BYTES ? -1 : Math.max(0, i + 1 + len - have);
  }
  return -1;
}

/**
 * What to say when the first frame of a file does not decode: a JSON trace is imported first — a Kineto trace alone
 * (`*.pt.trace.json`, TensorBoard's plugin output) with `import kineto`, an execution trace with its Kineto trace with
 * `import pytorch`.
 */
export function notChakraHint(file: string): string {
  const both =
    '`tracewatt import kineto <trace>... --out <prefix>` for Kineto traces alone, `tracewatt import pytorch ' +
    '--dir <folder> --out <prefix>` ' +
    'for execution traces with their Kineto traces; then give <prefix>';
  if (/\.json(\.gz)?$/i.test(file)) {
    const kineto = /(pt\.trace|kineto|trace)\.json(\.gz)?$/i.test(file) && !/\bet\.json/i.test(file);
    return kineto
      ? ' — this looks like a Kineto (torch.profiler) trace, not a Chakra .et file: convert it first with ' +
          '`tracewatt import kineto ' +
          `${file} --out <prefix>\` (or, with its execution trace, \`tracewatt import pytorch --dir <folder> ` +
          `--out <prefix>\`), then give <prefix>`
      : ` — this looks like a JSON trace, not a Chakra .et file: convert it first with ${both}`;
  }
  return ` — is this a Chakra .et file? (a PyTorch trace: ${both})`;
}

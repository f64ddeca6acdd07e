/**
 * Streaming Chakra trace reader: a file is `varint(len) ‖ message` frames, the first a
 * GlobalMetadata (absent in some real traces), every later one a Node. Reads in 1 MiB chunks with
 * memory bounded by the largest frame, accepts gzip (1f 8b), and reports every problem as a
 * ChakraDecodeError naming file, byte offset and frame index. Never yields fewer nodes silently.
 */
import { closeSync, createReadStream, openSync, readSync, statSync, type Stats } from 'node:fs';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Diagnostics } from '../../diagnostics.js';
import { ChakraDecodeError, InputError } from '../../errors.js';
import { decodeMetadata, decodeNode, isMetadataFrame } from './decode.js';
import type { ChakraNode, GlobalMetadata } from './types.js';
import { WireError, clearNonMinimal, nonMinimalVarint } from './wire.js';

/** Frames longer than this are treated as corruption rather than buffered. */
export const MAX_FRAME_BYTES = 512 * 1024 * 1024;
const CHUNK_BYTES = 1 << 20;
const EMPTY = Buffer.alloc(0);

export interface ReadOptions {
  /** Receives counts of odd-but-usable input (non-canonical encodings, zero-length frames…). */
  diagnostics?: Diagnostics;
}

export interface TraceReader {
  readonly file: string;
  /** The GlobalMetadata frame, or null when the first frame is already a Node. */
  readonly metadata: GlobalMetadata | null;
  readonly compressed: boolean;
  /** Nodes in file order, in batches (one per input chunk): the fast path. */
  batches(): AsyncGenerator<ChakraNode[]>;
  [Symbol.asyncIterator](): AsyncGenerator<ChakraNode>;
  /** Decompressed bytes consumed so far. */
  readonly bytesRead: number;
  /** Frames decoded so far, metadata included. */
  readonly framesRead: number;
}

/** Decodes frames out of a growing byte window; shared by the streaming and in-memory readers. */
class FrameDecoder {
  metadata: GlobalMetadata | null = null;
  frameIndex = 0;
  /** Stream offset of window[0]. */
  windowOffset = 0;
  window: Buffer = EMPTY;
  start = 0;

  constructor(readonly file: string, readonly diagnostics: Diagnostics | undefined, readonly knownSize: number | null) {}

  /** The rest of the last chunk, decoded once the frame that straddled into it is done. */
  private queued: Buffer | null = null;

  append(chunk: Buffer): void {
    if (this.queued) {
      // Not decoded since the last append: join everything (rare; the readers alternate).
      chunk = Buffer.concat([this.queued, chunk]);
      this.queued = null;
    }
    if (this.start >= this.window.length) {
      this.windowOffset += this.window.length;
      this.window = chunk;
      this.start = 0;
      return;
    }
    const rest = this.window.subarray(this.start);
    this.windowOffset += this.start;
    this.start = 0;
    // Only the frame that straddles the boundary is joined; copying the whole 1 MiB chunk behind it cost 5% of decode.
    const need = straddleBytes(rest, chunk);
    if (need < 0 || need >= chunk.length) {
      this.window = Buffer.concat([rest, chunk]);
    } else {
      this.window = Buffer.concat([rest, chunk.subarray(0, need)]);
      this.queued = chunk.subarray(need);
    }
  }

  /**
   * Decodes every complete frame into `out`. With `final`, an incomplete frame is an error
   * (truncated file) instead of waiting for more bytes.
   */
  decodeAvailable(out: ChakraNode[], final: boolean): void {
    const queued = this.queued;
    if (queued) {
      this.decodeWindow(out, false);
      this.queued = null;
      if (this.start >= this.window.length) {
        this.windowOffset += this.window.length;
        this.window = queued;
      } else {
        this.window = Buffer.concat([this.window.subarray(this.start), queued]);
        this.windowOffset += this.start;
      }
      this.start = 0;
    }
    this.decodeWindow(out, final);
  }

  get consumed(): number {
    return this.windowOffset + this.start;
  }

  private fail(position: number, problem: string, frameStart?: number): never {
    const offset = this.windowOffset + position;
    const where = frameStart !== undefined && frameStart !== position ? ` (frame starts at byte ${this.windowOffset + frameStart})` : '';
    const hint = this.frameIndex === 0 ? ' — is this a Chakra .et file?' : '';
    throw new ChakraDecodeError({ file: this.file, offset, frameIndex: this.frameIndex }, `${problem}${where}${hint}`);
  }

  private decodeWindow(out: ChakraNode[], final: boolean): void {
    const buf = this.window;
    const end = buf.length;
    let p = this.start;
    while (p < end) {
      // Length prefix.
      let len = 0;
      let mul = 1;
      let q = p;
      let complete = false;
      for (let i = 0; i < 5 && q < end; i++) {
        const b = buf[q++];
        len += (b & 0x7f) * mul;
        mul *= 128;
        if (b < 0x80) {
          complete = true;
          break;
        }
      }
      if (!complete) {
        if (q - p >= 5) this.fail(p, 'frame length prefix is longer than 5 bytes (corrupt data)');
        if (final) this.fail(p, `file ends inside a frame length prefix (${end - p} byte(s) left): truncated trace`);
        break;
      }
      if (len > MAX_FRAME_BYTES) this.fail(p, `frame length ${len} exceeds ${MAX_FRAME_BYTES} bytes: corrupt length prefix`);
      const frameEnd = q + len;
      if (this.knownSize !== null && this.windowOffset + frameEnd > this.knownSize) {
        this.fail(p, `frame length ${len} runs past end of file (${this.knownSize - (this.windowOffset + q)} bytes left): truncated or corrupt trace`);
      }
      if (frameEnd > end) {
        if (final) this.fail(p, `frame length ${len} runs past end of file (${end - q} bytes left): truncated trace`);
        break;
      }
      if (len === 0) {
        this.diagnostics?.add('zero-length-frame', {
          file: this.file,
          message: `zero-length frame ${this.frameIndex} at byte ${this.windowOffset + p}; Chakra's Python reader stops reading there`,
        });
      }
      clearNonMinimal();
      try {
        if (this.frameIndex === 0 && isMetadataFrame(buf, q, frameEnd)) {
          this.metadata = decodeMetadata(buf, q, frameEnd);
        } else {
          out.push(decodeNode(buf, q, frameEnd));
        }
      } catch (e) {
        if (e instanceof WireError) this.fail(e.position, e.problem, p);
        throw e;
      }
      if (nonMinimalVarint) {
        this.diagnostics?.add('non-canonical-varint', {
          file: this.file,
          message: `frame ${this.frameIndex} at byte ${this.windowOffset + p} uses non-canonical varints (over-long, or a bool other than 0/1); re-encoding normalises them`,
        });
      }
      this.frameIndex++;
      p = frameEnd;
    }
    this.start = p;
  }
}

/**
 * Bytes `next` must supply to complete the frame that starts `rest` (its length prefix may itself be split), or
 * -1 when the prefix is not readable from the two.
 */
function straddleBytes(rest: Buffer, next: Buffer): number {
  let len = 0;
  let mul = 1;
  for (let i = 0; i < 5; i++) {
    const b = i < rest.length ? rest[i] : i - rest.length < next.length ? next[i - rest.length] : -1;
    if (b < 0) return -1;
    len += (b & 0x7f) * mul;
    mul *= 128;
    if (b < 0x80) return len > MAX_FRAME_BYTES ? -1 : Math.max(0, i + 1 + len - rest.length);
  }
  return -1;
}

/** Reads a trace from any byte source (a file stream, a decompressor, a generator in tests). */
export async function openTraceSource(
  file: string,
  chunks: AsyncIterable<Buffer>,
  options: ReadOptions & { knownSize?: number | null; compressed?: boolean } = {},
): Promise<TraceReader> {
  const dec = new FrameDecoder(file, options.diagnostics, options.knownSize ?? null);
  const it = chunks[Symbol.asyncIterator]();
  let done = false;
  let first: ChakraNode[] = [];

  const pull = async (): Promise<boolean> => {
    let r: IteratorResult<Buffer>;
    try {
      r = await it.next();
    } catch (e) {
      throw streamError(file, dec, e);
    }
    if (r.done) {
      done = true;
      return false;
    }
    dec.append(r.value);
    return true;
  };

  // Closes the source (and its file descriptor) on errors and when a consumer stops early.
  const close = async () => {
    done = true;
    await it.return?.();
  };

  // Decode until the first frame is known, so `metadata` is ready when open resolves.
  try {
    while (dec.frameIndex === 0) {
      if (!(await pull())) {
        if (dec.window.length - dec.start === 0 && dec.frameIndex === 0 && dec.consumed === 0) {
          throw new ChakraDecodeError({ file, offset: 0, frameIndex: 0 }, 'empty file: a Chakra trace has at least one frame');
        }
        dec.decodeAvailable(first, true);
        break;
      }
      dec.decodeAvailable(first, false);
    }
  } catch (e) {
    await close();
    throw e;
  }

  async function* batches(): AsyncGenerator<ChakraNode[]> {
    try {
      if (first.length > 0) {
        const b = first;
        first = [];
        yield b;
      }
      while (!done) {
        const more = await pull();
        const out: ChakraNode[] = [];
        dec.decodeAvailable(out, !more);
        if (out.length > 0) yield out;
      }
    } finally {
      if (!done) await close();
    }
  }

  return {
    file,
    get metadata() {
      return dec.metadata;
    },
    compressed: options.compressed ?? false,
    batches,
    async *[Symbol.asyncIterator]() {
      for await (const batch of batches()) yield* batch;
    },
    get bytesRead() {
      return dec.consumed;
    },
    get framesRead() {
      return dec.frameIndex;
    },
  };
}

function streamError(file: string, dec: FrameDecoder, e: unknown): Error {
  const err = e as NodeJS.ErrnoException;
  const loc = { file, offset: dec.windowOffset + dec.window.length, frameIndex: dec.frameIndex };
  if (err?.code === 'Z_BUF_ERROR' || /unexpected end/i.test(String(err?.message))) {
    return new ChakraDecodeError(loc, 'gzip stream cut short (unexpected end of compressed data): truncated file');
  }
  if (err?.code === 'Z_DATA_ERROR') {
    return new ChakraDecodeError(loc, `corrupt gzip data (${err.message})`);
  }
  if (err?.code === 'EISDIR' || err?.code === 'ENOENT' || err?.code === 'EACCES') {
    return new InputError(`${file}: cannot read (${err.code})`);
  }
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * The bytes of a `.et` file as a stream of chunks, decompressed when the file starts with the gzip
 * magic (1f 8b); `size` is the file size for plain files (null for gzip). Missing or unreadable
 * files are InputErrors.
 */
export interface TraceBytes {
  chunks: AsyncIterable<Buffer>;
  compressed: boolean;
  size: number | null;
  /** File bytes read so far (compressed bytes for gzip), for progress. */
  fileBytesRead(): number;
  /** Releases the file early. */
  close(): void;
}

/** Where reused chunk buffers come from and go back to (a thread's pool of equal buffers). */
export interface ChunkBufferPool {
  /** A buffer of at least 1 MiB, contents undefined. */
  take(): Buffer;
  give(b: Buffer): void;
}

export interface TraceBytesOptions {
  /**
   * Plain files only: read synchronously into two reused buffers, in turn, 1 MiB at a time. Each chunk is then
   * valid only until the one after the next is requested, so only a consumer that copies what it keeps past that
   * may ask for this (the annotate engine does; the frame decoder here does not). Saves allocating every chunk,
   * which on a rank of many MiB set off full garbage collections; and for a thread with nothing else to do
   * meanwhile (an annotate worker), a read from the page cache costs less in its own thread than handed to
   * libuv's pool, which competes for the same cores. A pool: the two buffers are taken from it and given back by
   * close(), so that a thread reading many files allocates none per file.
   */
  reuseBuffers?: boolean | ChunkBufferPool;
}

/** Chunks of a plain file read into two alternating buffers (see TraceBytesOptions.reuseBuffers); fd is open. */
function reusedChunks(fd: number, pool: ChunkBufferPool | null): { chunks: AsyncGenerator<Buffer>; bytesRead: () => number; close: () => void } {
  let position = 0;
  let open = true;
  let bufs: Buffer[] | null = null;
  const closeFile = () => {
    if (open) closeSync(fd);
    open = false;
  };
  async function* chunks(): AsyncGenerator<Buffer> {
    if (!open) throw new Error('trace bytes read after close()');
    try {
      const b = (bufs = pool ? [pool.take(), pool.take()] : [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)]);
      if (b.some((x) => x.length < CHUNK_BYTES)) throw new RangeError(`chunk buffers must hold ${CHUNK_BYTES} bytes`);
      for (let i = 0; open; i ^= 1) {
        const n = readSync(fd, b[i], 0, CHUNK_BYTES, position);
        if (n === 0) break;
        position += n;
        yield b[i].subarray(0, n);
      }
    } finally {
      closeFile();
    }
  }
  const close = () => {
    closeFile();
    // The last chunks stay valid until here: the buffers go back to the pool only now.
    if (pool && bufs) for (const b of bufs) pool.give(b);
    bufs = null;
  };
  return { chunks: chunks(), bytesRead: () => position, close };
}

/**
 * Opens a trace file and reads its first two bytes (gzip's magic is 1f 8b): a stat, an open and a 2-byte read, done
 * synchronously (a few microseconds; the thread asking either has nothing else to do or is about to read the file).
 * InputErrors name the file; the descriptor is closed on any failure.
 */
function openProbe(file: string): { fd: number; size: number; gzip: boolean } {
  let st: Stats;
  try {
    st = statSync(file);
  } catch (e) {
    throw new InputError(`${file}: no such file (${(e as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  if (!st.isFile()) throw new InputError(`${file}: not a regular file`);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    // Stat'ed but not opened (permissions).
    throw new InputError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    const head = Buffer.alloc(2);
    const n = readSync(fd, head, 0, 2, 0);
    return { fd, size: st.size, gzip: n >= 2 && head[0] === 0x1f && head[1] === 0x8b };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

export async function openTraceBytes(file: string, options: TraceBytesOptions = {}): Promise<TraceBytes> {
  const { fd, size, gzip } = openProbe(file);
  if (options.reuseBuffers && !gzip) {
    const r = reusedChunks(fd, typeof options.reuseBuffers === 'object' ? options.reuseBuffers : null);
    return { chunks: r.chunks, compressed: false, size, fileBytesRead: r.bytesRead, close: r.close };
  }
  closeSync(fd);
  return streamed(file, size, gzip);
}

/** Chunks through a read stream (and gunzip). */
function streamed(file: string, size: number, gzip: boolean): TraceBytes {
  const raw = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  const common = { fileBytesRead: () => raw.bytesRead, close: () => void raw.destroy() };
  if (!gzip) return { chunks: raw, compressed: false, size, ...common };
  const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
  return { chunks: pipeline(raw, gunzip, () => {}) as AsyncIterable<Buffer>, compressed: true, size: null, ...common };
}

/** Opens a `.et` file (plain or gzip) for streaming. */
export async function openTrace(file: string, options: ReadOptions = {}): Promise<TraceReader> {
  const { chunks, compressed, size } = await openTraceBytes(file);
  return openTraceSource(file, chunks, { ...options, knownSize: size, compressed });
}

/** Reads a whole trace into memory (convenient for small traces and tests). */
export async function readTraceFile(
  file: string,
  options: ReadOptions = {},
): Promise<{ metadata: GlobalMetadata | null; nodes: ChakraNode[]; compressed: boolean }> {
  const reader = await openTrace(file, options);
  const nodes: ChakraNode[] = [];
  for await (const batch of reader.batches()) for (const n of batch) nodes.push(n);
  return { metadata: reader.metadata, nodes, compressed: reader.compressed };
}

/** Decodes an uncompressed trace already in memory. */
export function decodeTraceBuffer(
  buf: Buffer,
  file = '<buffer>',
  options: ReadOptions = {},
): { metadata: GlobalMetadata | null; nodes: ChakraNode[] } {
  if (buf.length === 0) {
    throw new ChakraDecodeError({ file, offset: 0, frameIndex: 0 }, 'empty file: a Chakra trace has at least one frame');
  }
  const dec = new FrameDecoder(file, options.diagnostics, buf.length);
  dec.append(buf);
  const nodes: ChakraNode[] = [];
  dec.decodeAvailable(nodes, true);
  return { metadata: dec.metadata, nodes };
}

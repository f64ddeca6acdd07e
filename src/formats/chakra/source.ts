/**
 * The bytes of a trace file as a stream of chunks: plain files read synchronously into reused buffers, gzip files
 * (first bytes 1f 8b) through a decompressor. Opening problems are InputErrors naming the file; problems while
 * reading are mapped by the frame scanner (frames.ts), which knows where in the stream they happened.
 */
import { closeSync, createReadStream, openSync, readSync, statSync, type Stats } from 'node:fs';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { InputError } from '../../errors.js';
import { fileReadError } from '../file-chunks.js';

export const CHUNK_BYTES = 1 << 20;

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
  /** Size of the buffers take() returns, when they all have one. */
  readonly size?: number;
  /** A buffer of at least 1 MiB, contents undefined. */
  take(): Buffer;
  give(b: Buffer): void;
}

export interface TraceBytesOptions {
  /**
   * Plain files only: read synchronously into two reused buffers, in turn, 1 MiB at a time. Each chunk is then
   * valid only until the one after the next is requested, so only a consumer that copies what it keeps past that
   * may ask for this (the frame scanner does: it joins a cut frame into its own buffer). Saves allocating every
   * chunk: fresh memory costs page faults (on this project's VM about 3 ms per MiB, more than decoding it) and
   * on a rank of many MiB sets off full garbage collections; and a read from the page cache costs less in the
   * reading thread than handed to libuv's pool, which competes for the same cores. A pool: the two buffers are
   * taken from it and given back by close(), so that a thread reading many files allocates none per file.
   */
  reuseBuffers?: boolean | ChunkBufferPool;
}

/** Chunks of a plain file read into two alternating buffers (see TraceBytesOptions.reuseBuffers); fd is open. */
function reusedChunks(
  fd: number,
  pool: ChunkBufferPool | null,
): { chunks: AsyncGenerator<Buffer>; bytesRead: () => number; close: () => void } {
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
      const b = (bufs = pool
        ? [pool.take(), pool.take()]
        : [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)]);
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
    throw fileReadError(file, e);
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

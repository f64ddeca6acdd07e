/**
 * Streaming Chakra trace reader: frames (frames.ts) decoded into nodes (decode.ts). Reads 1 MiB chunks with memory
 * bounded by the largest frame, accepts gzip (1f 8b), and reports every problem as a ChakraDecodeError naming
 * file, byte offset and frame index. Never yields fewer nodes silently.
 */
import type { Diagnostics } from '../../diagnostics.js';
import { NodeDecoder } from './decode.js';
import { FrameScanner } from './frames.js';
import { openTraceBytes, type ChunkBufferPool } from './source.js';
import type { ChakraNode, GlobalMetadata } from './types.js';

export { MAX_FRAME_BYTES } from './frames.js';
export { openTraceBytes, type ChunkBufferPool } from './source.js';

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

/** Decodes every whole frame the scanner holds into `out`. */
function decodeAvailable(frames: FrameScanner, decoder: NodeDecoder, out: ChakraNode[]): void {
  try {
    while (frames.next()) if (!frames.isMetadata) out.push(decoder.decode(frames.cursor, frames.start, frames.end));
  } catch (e) {
    throw frames.error(e);
  }
}

/** Reads a trace from any byte source (a file stream, a decompressor, a generator in tests). */
export async function openTraceSource(
  file: string,
  chunks: AsyncIterable<Buffer>,
  options: ReadOptions & { knownSize?: number | null; compressed?: boolean; close?: () => void } = {},
): Promise<TraceReader> {
  const frames = new FrameScanner(file, { diagnostics: options.diagnostics, knownSize: options.knownSize });
  const decoder = new NodeDecoder();
  const it = chunks[Symbol.asyncIterator]();
  let done = false;
  let first: ChakraNode[] = [];

  // Closes the source (and its file descriptor) on errors and when a consumer stops early.
  const close = async () => {
    done = true;
    await it.return?.();
    options.close?.();
  };
  const pull = async (): Promise<boolean> => {
    const more = await frames.fill(it);
    if (!more) done = true;
    return more;
  };

  // Decode until the first frame is known, so `metadata` is ready when open resolves.
  try {
    while (frames.framesRead === 0 && !done) {
      await pull();
      decodeAvailable(frames, decoder, first);
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
        await pull();
        const out: ChakraNode[] = [];
        decodeAvailable(frames, decoder, out);
        if (out.length > 0) yield out;
      }
    } finally {
      await close();
    }
  }

  return {
    file,
    get metadata() {
      return frames.metadata;
    },
    compressed: options.compressed ?? false,
    batches,
    async *[Symbol.asyncIterator]() {
      for await (const batch of batches()) yield* batch;
    },
    get bytesRead() {
      return frames.consumed;
    },
    get framesRead() {
      return frames.framesRead;
    },
  };
}

/** Opens a `.et` file (plain or gzip) for streaming. */
export async function openTrace(file: string, options: ReadOptions = {}): Promise<TraceReader> {
  const source = await openTraceBytes(file, { reuseBuffers: true });
  return openTraceSource(file, source.chunks, {
    ...options,
    knownSize: source.size,
    compressed: source.compressed,
    close: source.close,
  });
}

/**
 * The GlobalMetadata of a trace file (null when its first frame is a Node), reading no further than its first
 * frame: no node is decoded. `pool`: chunk buffers to reuse (a caller reading many files).
 */
export async function readTraceMetadata(
  file: string,
  options: ReadOptions & { pool?: ChunkBufferPool } = {},
): Promise<GlobalMetadata | null> {
  const source = await openTraceBytes(file, { reuseBuffers: options.pool ?? true });
  const frames = new FrameScanner(file, {
    diagnostics: options.diagnostics,
    knownSize: source.size,
    pool: options.pool,
  });
  const it = source.chunks[Symbol.asyncIterator]();
  try {
    let more = true;
    while (more) {
      more = await frames.fill(it);
      try {
        if (frames.next()) return frames.metadata;
      } catch (e) {
        throw frames.error(e);
      }
    }
    return null;
  } finally {
    await it.return?.();
    source.close();
    frames.release();
  }
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
  const frames = new FrameScanner(file, { diagnostics: options.diagnostics, knownSize: buf.length });
  if (buf.length > 0) frames.append(buf);
  frames.finish();
  const nodes: ChakraNode[] = [];
  decodeAvailable(frames, new NodeDecoder(), nodes);
  return { metadata: frames.metadata, nodes };
}

/**
 * A trace file's frames, read in place: the file opened (gzip or plain; a plain file is read into reused buffers),
 * each chunk handed to the frame scanner, and the caller's `take` run to consume the whole frames the scanner then
 * holds. Every problem (the file, the decompressor, a frame, or a WireError thrown by `take` while it reads a frame)
 * comes out in the scanner's one wording. This is how inspect, validate and annotate read; the node reader
 * (reader.ts) pulls from the same scanner.
 */
import { FrameScanner, type FrameScannerOptions } from './frames.js';
import { openTraceBytes, type ChunkBufferPool, type TraceBytes } from './source.js';

export interface FrameStreamOptions extends Omit<FrameScannerOptions, 'knownSize' | 'pool'> {
  /** Where the chunk buffers and the scanner's join buffer come from (a thread reading many files). */
  pool?: ChunkBufferPool;
}

export class FrameStream {
  private constructor(
    readonly frames: FrameScanner,
    private readonly source: TraceBytes,
  ) {}

  /** Opens `file` (InputError naming it when it cannot be read). */
  static async open(file: string, options: FrameStreamOptions = {}): Promise<FrameStream> {
    const source = await openTraceBytes(file, { reuseBuffers: options.pool ?? true });
    return new FrameStream(new FrameScanner(file, { ...options, knownSize: source.size }), source);
  }

  get compressed(): boolean {
    return this.source.compressed;
  }

  /** File bytes read so far (compressed bytes for gzip), for progress. */
  fileBytesRead(): number {
    return this.source.fileBytesRead();
  }

  /**
   * Reads the stream to its end: `take(frames)` after each chunk, and once more once the stream has ended (when a
   * frame left incomplete is an error). `take` must consume every whole frame (call next() until it is false).
   */
  async read(take: (frames: FrameScanner) => void | Promise<void>): Promise<void> {
    const frames = this.frames;
    const chunks = this.source.chunks[Symbol.asyncIterator]();
    try {
      while (await frames.fill(chunks)) await take(frames);
      await take(frames);
    } catch (e) {
      throw frames.error(e);
    }
  }

  /** Closes the file and hands the scanner's buffer back; the frames' bytes are gone after this. */
  close(): void {
    this.source.close();
    this.frames.release();
  }
}

/** Opens `file`, reads all of it through `take`, and closes it. */
export async function readFrames(
  file: string,
  take: (frames: FrameScanner) => void | Promise<void>,
  options: FrameStreamOptions = {},
): Promise<FrameStream> {
  const stream = await FrameStream.open(file, options);
  try {
    await stream.read(take);
  } finally {
    stream.close();
  }
  return stream;
}

/**
 * Streaming Chakra trace writer: frames are encoded into a 1 MiB buffer and flushed with
 * back-pressure, so memory stays bounded whatever the trace size. A path ending in `.gz` is gzipped.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { OutputSet, outputError, TEMP_OPEN_FLAGS } from '../output.js';
import { ByteSink, encodeMetadataFrame, encodeNodeFrame } from './encode.js';
import type { ChakraNode, GlobalMetadata } from './types.js';

const FLUSH_BYTES = 1 << 20;

/**
 * Creates a folder and its missing parents one level at a time. (Node's recursive mkdir can spin
 * forever under /proc; this fails at once with the first level that cannot be made.)
 */
export async function ensureDir(dir: string): Promise<void> {
  const abs = path.resolve(dir);
  const missing: string[] = [];
  let at = abs;
  let st = await stat(at).catch(() => null);
  while (!st) {
    missing.push(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
    st = await stat(at).catch(() => null);
  }
  if (st && !st.isDirectory()) {
    throw Object.assign(new Error(`${at} is not a folder`), { code: 'ENOTDIR', path: at });
  }
  for (const d of missing.reverse()) {
    await mkdir(d).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
  }
}

export class TraceWriter {
  private readonly sink = new ByteSink(FLUSH_BYTES * 2);
  private nodes = 0;
  private bytes = 0;

  private constructor(
    readonly file: string,
    private readonly out: Writable,
    private readonly fileStream: Writable,
    private readonly done: Promise<void>,
    /** The set this file belongs to; owned (committed by close(), discarded by abort()) when not given to create(). */
    private readonly set: OutputSet,
    private readonly ownSet: boolean,
  ) {}

  /**
   * Creates the file's temporary name in `options.set` (or in a set of its own, locked, when not given) and writes
   * the metadata frame when given. close() completes the file; the set's commit() renames it to `file` (close()
   * commits a set of its own), so an interrupted write never leaves a partial trace under the real name.
   */
  static async create(
    file: string,
    metadata: GlobalMetadata | null,
    options: { gzip?: boolean; set?: OutputSet } = {},
  ): Promise<TraceWriter> {
    const set = options.set ?? OutputSet.open(file);
    let tmp: string;
    try {
      tmp = set.file(file);
    } catch (e) {
      if (!options.set) set.discard();
      throw e;
    }
    const fileStream = createWriteStream(tmp, { flags: TEMP_OPEN_FLAGS });
    const gzip = options.gzip ?? file.endsWith('.gz');
    const head: Writable = gzip ? createGzip() : fileStream;
    if (gzip) head.pipe(fileStream);
    const done = new Promise<void>((resolve, reject) => {
      fileStream.on('close', resolve);
      fileStream.on('error', reject);
      head.on('error', reject);
    });
    // Keep an unobserved rejection from crashing the process before close() awaits it.
    done.catch(() => {});
    const w = new TraceWriter(file, head, fileStream, done, set, !options.set);
    if (metadata) encodeMetadataFrame(w.sink, metadata);
    return w;
  }

  /** Bytes encoded so far (flushed or still buffered), before any gzip. */
  get bytesWritten(): number {
    return this.bytes + this.sink.pos;
  }

  /** Encodes one node; resolves immediately unless the buffer had to be flushed. */
  write(node: ChakraNode): Promise<void> | void {
    encodeNodeFrame(this.sink, node);
    this.nodes++;
    if (this.sink.pos >= FLUSH_BYTES) return this.flush();
  }

  async writeAll(nodes: Iterable<ChakraNode>): Promise<void> {
    for (const n of nodes) {
      const p = this.write(n);
      if (p) await p;
    }
  }

  private async flush(): Promise<void> {
    if (this.sink.pos === 0) return;
    const chunk = Buffer.from(this.sink.view());
    this.bytes += chunk.length;
    this.sink.reset();
    if (!this.out.write(chunk)) {
      await new Promise<void>((resolve, reject) => {
        const onError = (e: Error) => reject(outputError(this.file, e));
        this.out.once('error', onError);
        this.out.once('drain', () => {
          this.out.off('error', onError);
          resolve();
        });
      });
    }
  }

  /**
   * Flushes and closes; resolves when the file is complete on disk (under its real name when the writer owns its
   * set; else once the set is committed). A write error is discarded and thrown naming the file.
   */
  async close(): Promise<{ nodes: number; bytes: number }> {
    try {
      await this.flush();
      this.out.end();
      await this.done;
    } catch (e) {
      await this.abort();
      throw outputError(this.file, e);
    }
    if (this.ownSet) this.set.commit();
    return { nodes: this.nodes, bytes: this.bytes };
  }

  /** Abandons the file: its own set is discarded (nothing left on disk); a shared set is the caller's to discard. */
  async abort(): Promise<void> {
    this.out.destroy();
    this.fileStream.destroy();
    await this.done.catch(() => undefined);
    if (this.ownSet) this.set.discard();
  }
}

/**
 * Writes a whole trace, into `set` when given (committed by its owner), else by itself (locked, renamed when complete).
 */
export async function writeTraceFile(
  file: string,
  metadata: GlobalMetadata | null,
  nodes: Iterable<ChakraNode>,
  set?: OutputSet,
): Promise<void> {
  const w = await TraceWriter.create(file, metadata, { set });
  try {
    await w.writeAll(nodes);
  } catch (e) {
    await w.abort();
    throw e;
  }
  await w.close();
}

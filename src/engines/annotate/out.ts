/**
 * Buffered output file for the annotate engine: the codec's splice sink (copied and spliced frames), flushed to a
 * file handle.
 */
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { SpliceSink, viewOf } from '../../formats/chakra/splice.js';
import { ensureDir } from '../../formats/chakra/writer.js';
import type { BufferPool } from './buffers.js';

export { viewOf };

/**
 * Output file opened and written synchronously from one buffer. An annotate thread has nothing else to do while
 * its output goes to the page cache, and writing it there in the thread costs less than handing it to libuv's
 * pool, which competes for the same cores (opening asynchronously cost about 1 ms a rank).
 */
export class RawOut extends SpliceSink {
  private fd: number | null;

  private constructor(
    readonly file: string,
    fd: number,
    private readonly pool: BufferPool,
  ) {
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

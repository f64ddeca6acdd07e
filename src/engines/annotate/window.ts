/**
 * The input bytes being scanned: what the previous chunk left unconsumed (a frame cut by the chunk boundary)
 * followed by the next chunk. A chunk that starts on a frame boundary is used as it is; otherwise both are copied
 * into one buffer reused from chunk to chunk (and grown by doubling for frames longer than a chunk).
 */
import type { BufferPool } from './buffers.js';
import { viewOf } from './out.js';

const EMPTY = Buffer.alloc(0);

export class InputWindow {
  /** The window; valid until the next append. */
  buf: Buffer = EMPTY;
  /** Views buf. */
  view = viewOf(EMPTY);
  /** First byte not consumed yet. */
  start = 0;
  /** Stream offset of buf[0]. */
  offset = 0;
  private own: Buffer | null = null;
  /** Whether buf lies in own (from its start). */
  private inOwn = false;

  constructor(private readonly pool: BufferPool) {}

  append(chunk: Buffer): void {
    const rest = this.buf.length - this.start;
    if (rest <= 0) {
      this.offset += this.buf.length;
      this.buf = chunk;
      this.view = viewOf(chunk);
      this.start = 0;
      this.inOwn = false;
      return;
    }
    const need = rest + chunk.length;
    let own = this.own;
    if (!own || own.length < need) {
      const next = need <= this.pool.size ? this.pool.take() : Buffer.allocUnsafe(Math.max(need, 2 * (own?.length ?? 0)));
      next.set(this.buf.subarray(this.start), 0);
      if (own) this.pool.give(own);
      this.own = own = next;
    } else if (this.inOwn) {
      own.copyWithin(0, this.start, this.buf.length);
    } else {
      own.set(this.buf.subarray(this.start), 0);
    }
    own.set(chunk, rest);
    this.offset += this.start;
    this.buf = own.subarray(0, need);
    this.view = viewOf(this.buf);
    this.start = 0;
    this.inOwn = true;
  }

  /** Hands the reused buffer back to the pool. */
  release(): void {
    if (this.own) this.pool.give(this.own);
    this.own = null;
    this.inOwn = false;
    this.buf = EMPTY;
  }
}

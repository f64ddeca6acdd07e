/**
 * Buffers of one size kept for reuse across the files one thread reads (and, for annotate, writes). Every chunk,
 * join and output buffer is otherwise a fresh megabyte of external memory per file: page faults, and churn that
 * makes V8 run full collections.
 */
export class BufferPool {
  private readonly free: Buffer[] = [];

  constructor(
    readonly size: number,
    private readonly keep = 16,
  ) {}

  /** A buffer of `size` bytes, contents undefined. */
  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(this.size);
  }

  /** Buffers ready for reuse. */
  get available(): number {
    return this.free.length;
  }

  /** Hands a buffer back; one of another size (grown for a large frame) is left to the collector. */
  give(b: Buffer): void {
    if (b.length === this.size && this.free.length < this.keep && !this.free.includes(b)) this.free.push(b);
  }
}

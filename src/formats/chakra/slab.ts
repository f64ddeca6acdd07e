/**
 * Keeps the parts of a frame that are decoded lazily (IOInfo, attributes) as one copy per node, cut from shared
 * 16 KiB slabs: no Buffer object per node, and a node kept alive pins at most one slab, never the 1 MiB chunk it
 * was read from. One Slab per decoding stream.
 */
const SLAB_BYTES = 16 * 1024;
const OWN_BUFFER_BYTES = 2 * 1024;

export class Slab {
  private slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  private used = 0;
  /** The buffer the last keep() copied into. */
  keptIn: Buffer = this.slab;

  /** Copies buf[start, end) and returns its offset inside `keptIn`. */
  keep(buf: Buffer, start: number, end: number): number {
    const len = end - start;
    if (len > OWN_BUFFER_BYTES) {
      this.keptIn = Buffer.allocUnsafeSlow(len);
      buf.copy(this.keptIn, 0, start, end);
      return 0;
    }
    if (this.used + len > SLAB_BYTES) {
      this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.used = 0;
    }
    const at = this.used;
    // A plain view and set() skip Buffer.copy's argument handling, which costs as much as the copy here.
    this.slab.set(new Uint8Array(buf.buffer, buf.byteOffset + start, len), at);
    this.used += len;
    this.keptIn = this.slab;
    return at;
  }
}

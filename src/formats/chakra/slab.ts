/**
 * Keeps the parts of a frame that are decoded lazily (IOInfo, attributes) as one copy per node, cut from shared
 * 16 KiB slabs: no Buffer object per node, and a node kept alive pins at most one slab, never the 1 MiB chunk it
 * was read from.
 */
const SLAB_BYTES = 16 * 1024;
const OWN_BUFFER_BYTES = 2 * 1024;

let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let slabPos = 0;

/** The buffer the last keep() copied into. */
export let keptIn: Buffer = slab;

/** Copies buf[start, end) and returns its offset inside `keptIn`. */
export function keep(buf: Buffer, start: number, end: number): number {
  const len = end - start;
  if (len > OWN_BUFFER_BYTES) {
    keptIn = Buffer.allocUnsafeSlow(len);
    buf.copy(keptIn, 0, start, end);
    return 0;
  }
  if (slabPos + len > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabPos = 0;
  }
  const at = slabPos;
  // A plain view and set() skip Buffer.copy's argument handling, which costs as much as the copy here.
  slab.set(new Uint8Array(buf.buffer, buf.byteOffset + start, len), at);
  slabPos += len;
  keptIn = slab;
  return at;
}

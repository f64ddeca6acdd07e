/** The pool of equal buffers annotate's threads keep across ranks: the codec's (its frame reads take from it too). */
export { BufferPool } from '../../formats/chakra/buffer-pool.js';

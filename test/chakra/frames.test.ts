/**
 * The frame scanner on real trace bytes: every frame handed out whole and at its offset whatever the chunking
 * (frames cut anywhere, inside length prefixes too, frames longer than the pooled buffers), a cut frame joined
 * into one reused buffer while the rest of the chunk is read in place.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BufferPool } from '../../src/formats/chakra/buffer-pool.js';
import { FrameScanner } from '../../src/formats/chakra/frames.js';
import { astraRef } from '../helpers/astra-reference.js';
import { shipped } from '../helpers/traces.js';

/** Frame boundaries of a whole trace: [start of length prefix, end of frame] pairs, by the plain definition. */
function framesOf(bytes: Buffer): [number, number][] {
  const out: [number, number][] = [];
  for (let p = 0; p < bytes.length; ) {
    let len = 0;
    let mul = 1;
    let q = p;
    let b: number;
    do {
      b = bytes[q++];
      len += (b & 0x7f) * mul;
      mul *= 128;
    } while (b >= 0x80);
    out.push([p, q + len]);
    p = q + len;
  }
  return out;
}

/** Splits bytes into chunks of the given sizes, cycling through them. */
function chunked(bytes: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let p = 0, k = 0; p < bytes.length; k++) {
    const n = Math.min(sizes[k % sizes.length], bytes.length - p);
    out.push(Buffer.from(bytes.subarray(p, p + n)));
    p += n;
  }
  return out;
}

/** Feeds chunks through a scanner and collects every frame it hands out, with its stream offset. */
function reassemble(chunks: Buffer[], pool: BufferPool): { offset: number; bytes: Buffer }[] {
  const frames = new FrameScanner('<chunks>', { pool });
  const seen: { offset: number; bytes: Buffer }[] = [];
  const drain = () => {
    while (frames.next())
      seen.push({
        offset: frames.offset + frames.frameStart,
        bytes: Buffer.from(frames.buf.subarray(frames.frameStart, frames.end)),
      });
  };
  for (const c of chunks) {
    frames.append(c);
    drain();
  }
  frames.finish();
  drain();
  frames.release();
  return seen;
}

/**
 * Chunkings that cut frames at every kind of place (inside length prefixes, inside frames, on boundaries), with pools
 * smaller than frames.
 */
const COARSE: [number[], number][] = [
  [[1 << 20], (1 << 20) + (1 << 16)],
  [[65536, 13], 1024],
  [[4093, 7, 1], 4096],
];
const FINE: [number[], number][] = [
  [[7, 1, 300, 4096], 256],
  [[3], 16],
  [[1, 2], 8],
];

function checkChunkings(file: string, chunkings: [number[], number][]) {
  const bytes = readFileSync(file);
  const frames = framesOf(bytes);
  for (const [sizes, poolBytes] of chunkings) {
    const seen = reassemble(chunked(bytes, sizes), new BufferPool(poolBytes));
    expect(seen.map((f) => f.offset)).toEqual(frames.map(([s]) => s));
    for (const [i, [s, e]] of frames.entries()) expect(Buffer.compare(seen[i].bytes, bytes.subarray(s, e))).toBe(0);
  }
}

describe('frame scanner', () => {
  it('hands out every frame of a real trace at its offset, whatever the chunking', () => {
    checkChunkings(shipped('chakra-tests', 'feeder_tests_chakra.0.et'), COARSE);
    checkChunkings(shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce.0.et'), [...COARSE, ...FINE]);
  });

  it('reads a chunk in place and joins only the frame a boundary cuts, into one reused buffer', () => {
    const frames = new FrameScanner('<chunks>');
    const a = Buffer.from([3, 1, 2, 3, 2]);
    frames.append(a);
    expect(frames.buf).toBe(a);
    expect(frames.next()).toBe(true);
    expect(frames.next()).toBe(false);
    // The cut frame (length 2) is completed by the next chunk's first two bytes; the rest is read in place.
    const b = Buffer.from([9, 9, 1, 7]);
    frames.append(b);
    expect([...frames.buf]).toEqual([2, 9, 9]);
    const joined = frames.buf;
    expect(frames.next()).toBe(true);
    expect(frames.offset + frames.frameStart).toBe(4);
    expect(frames.next()).toBe(true);
    expect(frames.buf.buffer).toBe(b.buffer);
    expect(frames.offset + frames.frameStart).toBe(7);
    expect([...frames.buf.subarray(frames.start, frames.end)]).toEqual([7]);
    expect(frames.next()).toBe(false);
    frames.append(Buffer.from([2, 5]));
    expect(frames.next()).toBe(false);
    frames.append(Buffer.from([6, 1, 1]));
    // The second cut frame reuses the first one's join buffer.
    expect(frames.buf.buffer).toBe(joined.buffer);
    expect(frames.buf.byteOffset).toBe(joined.byteOffset);
    expect([...frames.buf]).toEqual([2, 5, 6]);
    expect(frames.next()).toBe(true);
    expect(frames.next()).toBe(true);
    expect(frames.next()).toBe(false);
    frames.finish();
    expect(frames.next()).toBe(false);
    expect(frames.framesRead).toBe(5);
  });
});

describe('frame scanner on more real traces (shipped and vendored)', () => {
  it('hands out every frame of the ASTRA-sim roofline and custom-collective traces, at fine chunkings too', () => {
    checkChunkings(astraRef('traces', 'comp_roof4', 'c.0.et'), [...COARSE, ...FINE]);
    checkChunkings(
      shipped('astra-sim', 'custom_collectives', 'custom_ring_allreduce_8npus_1MB', 'custom_allreduce.0.et'),
      [...COARSE, ...FINE],
    );
  });
});

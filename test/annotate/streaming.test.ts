/**
 * The annotate engine's streaming parts on real trace bytes: the input window across chunk boundaries (frames cut
 * anywhere, frames longer than the pooled buffers), and the double-buffered output through flushes and growth.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BufferPool } from '../../src/engines/annotate/buffers.js';
import { RawOut, viewOf } from '../../src/engines/annotate/out.js';
import { rv, vpos } from '../../src/engines/annotate/scan.js';
import { InputWindow } from '../../src/engines/annotate/window.js';
import { describeShared, shared } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

/** Frame boundaries of a whole trace: [start of length prefix, end of frame] pairs. */
function framesOf(bytes: Buffer): [number, number][] {
  const out: [number, number][] = [];
  for (let p = 0; p < bytes.length; ) {
    const len = rv(bytes, p, bytes.length);
    out.push([p, vpos + len]);
    p = vpos + len;
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

/** Feeds chunks through an InputWindow and collects every complete frame, with its stream offset. */
function reassemble(chunks: Buffer[], pool: BufferPool): { offset: number; bytes: Buffer }[] {
  const win = new InputWindow(pool);
  const seen: { offset: number; bytes: Buffer }[] = [];
  for (const c of chunks) {
    win.append(c);
    const b = win.buf;
    expect(win.view.byteLength).toBe(b.length);
    let p = win.start;
    while (p < b.length) {
      const len = rv(b, p, b.length);
      if (Number.isNaN(len) || vpos + len > b.length) break;
      seen.push({ offset: win.offset + p, bytes: Buffer.from(b.subarray(p, vpos + len)) });
      p = vpos + len;
    }
    win.start = p;
  }
  win.release();
  return seen;
}

/** Chunkings that cut frames at every kind of place (inside length prefixes, inside frames, on boundaries), with pools smaller than frames. */
const COARSE: [number[], number][] = [[[1 << 20], (1 << 20) + (1 << 16)], [[65536, 13], 1024], [[4093, 7, 1], 4096]];
const FINE: [number[], number][] = [[[7, 1, 300, 4096], 256], [[3], 16], [[1, 2], 8]];

function checkWindow(file: string, chunkings: [number[], number][]) {
  const bytes = readFileSync(file);
  const frames = framesOf(bytes);
  for (const [sizes, poolBytes] of chunkings) {
    const pool = new BufferPool(poolBytes);
    const seen = reassemble(chunked(bytes, sizes), pool);
    expect(seen.map((f) => f.offset)).toEqual(frames.map(([s]) => s));
    for (const [i, [s, e]] of frames.entries()) expect(Buffer.compare(seen[i].bytes, bytes.subarray(s, e))).toBe(0);
  }
}

describe('annotate input window', () => {
  it('yields every frame of a real trace at its offset, whatever the chunking', () => {
    checkWindow(shipped('chakra-tests', 'feeder_tests_chakra.0.et'), COARSE);
    checkWindow(shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce.0.et'), [...COARSE, ...FINE]);
  });

  it('uses a chunk that starts on a frame boundary as it is, and reuses its own buffer otherwise', () => {
    const pool = new BufferPool(64);
    const win = new InputWindow(pool);
    const a = Buffer.from([3, 1, 2, 3, 2]);
    win.append(a);
    expect(win.buf).toBe(a);
    win.start = 4; // one frame consumed; a cut frame (length 2) left
    win.append(Buffer.from([9, 9, 1, 7]));
    const own = win.buf;
    expect([...win.buf]).toEqual([2, 9, 9, 1, 7]);
    expect(win.offset).toBe(4);
    win.start = 3;
    win.append(Buffer.from([8]));
    expect(win.buf.buffer).toBe(own.buffer);
    expect(win.buf.byteOffset).toBe(own.byteOffset);
    expect([...win.buf]).toEqual([1, 7, 8]);
    expect(win.offset).toBe(7);
  });
});

describeShared('annotate input window on ../shared traces', () => {
  it('yields every frame of the shared PyTorch and ASTRA-sim traces', () => {
    checkWindow(shared('traces', 'chakra-tests', 'feeder_tests_chakra.0.et'), COARSE);
    checkWindow(shared('astra-sim-reference', 'traces', 'comp_roof4', 'c.0.et'), [...COARSE, ...FINE]);
    checkWindow(shared('traces', 'astra-sim', 'examples', 'system', 'custom_collectives', 'custom_ring_allreduce_8npus_1MB', 'custom_allreduce.0.et'), [...COARSE, ...FINE]);
  });
});

describe('annotate output file', () => {
  it('writes every byte in order through flushes and growth past the pooled size', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-out-'));
    const src = readFileSync(shipped('chakra-tests', 'feeder_tests_chakra.0.et'));
    const sv = viewOf(src);
    const pool = new BufferPool(512);
    const out = await RawOut.open(path.join(dir, 'o.et'), pool);
    const expected: Buffer[] = [];
    let p = 0;
    for (let k = 0; p < src.length; k++) {
      // Ranges from 0 bytes to several pooled buffers long, copied and put alternately.
      const n = Math.min([0, 1, 5, 95, 96, 300, 2000][k % 7], src.length - p);
      if (k % 2) out.copy(src, sv, p, p + n);
      else out.put(src.subarray(p, p + n));
      expected.push(src.subarray(p, p + n));
      p += n;
      if (k % 5 === 0 || out.pos >= 400) out.flush();
    }
    out.close();
    out.close(); // a second close does nothing (the file is closed once)
    expect(Buffer.compare(readFileSync(path.join(dir, 'o.et')), Buffer.concat(expected))).toBe(0);
  });
});

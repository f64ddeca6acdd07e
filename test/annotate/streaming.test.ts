/**
 * The annotate engine's output file on real trace bytes: every byte in order through flushes and growth. (The
 * input side, frames across chunk boundaries, is the codec's frame scanner: test/chakra/frames.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BufferPool } from '../../src/engines/annotate/buffers.js';
import { RawOut, viewOf } from '../../src/engines/annotate/out.js';
import { shipped } from '../helpers/traces.js';

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

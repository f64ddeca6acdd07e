/** The wire cursor's fast paths must agree with the plain byte-by-byte definition. */
import { describe, expect, it } from 'vitest';
import { WireCursor } from '../../src/formats/chakra/cursor.js';

function asciiByLoop(buf: Buffer, s: number, e: number): boolean {
  for (let i = s; i < e; i++) if (buf[i] >= 0x80) return false;
  return true;
}

describe('wire primitives', () => {
  it('isAscii agrees with a byte loop at every alignment, length and position of a high byte', () => {
    let checked = 0;
    // Memory of a length that is not a multiple of 4 too (its last bytes in no whole word), read up to its end.
    for (const [size, offset] of [300, 207].flatMap((n) => [0, 1, 2, 3, 5, n - 200].map((o) => [n, o]))) {
      const backing = Buffer.alloc(size, 0x41);
      const buf = backing.subarray(offset, offset + 200);
      for (const [s, e] of [
        [0, 200],
        [1, 33],
        [3, 70],
        [7, 39],
        [0, 31],
        [10, 10],
        [198, 200],
      ]) {
        for (let high = s - 1; high <= e; high++) {
          buf.fill(0x41);
          if (high >= 0 && high < buf.length) buf[high] = 0x80 + (high % 128);
          expect(new WireCursor(buf).isAscii(s, e), `offset ${offset} [${s}, ${e}) high ${high}`).toBe(
            asciiByLoop(buf, s, e),
          );
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('recent 64-bit values come back equal whether or not they were cached', () => {
    const values = [5000n, 5000n + 2048n, 5000n, 2n ** 48n + 5000n, 5000n, 2n ** 63n + 1n, 123456789012n];
    for (const v of values) {
      const bytes: number[] = [];
      let x = v;
      do {
        const b = Number(x & 0x7fn);
        x >>= 7n;
        bytes.push(x > 0n ? b | 0x80 : b);
      } while (x > 0n);
      expect(new WireCursor(Buffer.from(bytes)).varint64(bytes.length)).toBe(v);
    }
  });
});

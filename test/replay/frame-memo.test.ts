/** The replay's memo of frames (src/engines/replay/frame-memo.ts) keys records by the frame's bytes as they were. */
import { describe, expect, it } from 'vitest';
import { FrameMemo, frameHash, type FrameRecord } from '../../src/engines/replay/frame-memo.js';
import { WireCursor } from '../../src/formats/chakra/index.js';

const record = (key: number): FrameRecord => ({
  key,
  deps: new Float64Array(0),
  dataCount: 0,
  resource: 0,
  category: 0,
  op: 0,
  amount: 0,
  peer: 0,
  aux: 0,
  energyJ: NaN,
  energyMemoryJ: NaN,
  nameId: -1,
  durationSource: -1,
  gpu: false,
});

describe('FrameMemo', () => {
  it('finds a frame by its bytes, and keeps a copy of them (the chunk buffer they came from is reused)', () => {
    const memo = new FrameMemo();
    const buf = Buffer.from('0123456789abcdefghij');
    const c = new WireCursor(buf);
    const h = frameHash(c, 2, 15);
    memo.put(c, 2, 15, h, record(1));
    expect(memo.get(c, 2, 15, h)?.key).toBe(1);
    expect(memo.get(c, 2, 14, frameHash(c, 2, 14))).toBeUndefined();
    // The buffer is overwritten: the old hash with the new bytes is not the kept frame.
    buf.write('ZZZZZZZZZZZZZZZZZZZZ');
    expect(memo.get(c, 2, 15, h)).toBeUndefined();
    // Another buffer holding the kept bytes finds it.
    const again = new WireCursor(Buffer.from('xx23456789abcdeyy'));
    expect(memo.get(again, 2, 15, frameHash(again, 2, 15))?.key).toBe(1);
  });

  it('closes, keeping nothing, once frames do not repeat', () => {
    const memo = new FrameMemo();
    const c = new WireCursor(Buffer.alloc(8));
    for (let i = 0; memo.open && i < 100_000; i++) {
      c.buf.writeUInt32LE(i, 0);
      const h = frameHash(c, 0, 8);
      if (memo.get(c, 0, 8, h) === undefined) memo.put(c, 0, 8, h, record(i));
    }
    expect(memo.open).toBe(false);
    c.buf.writeUInt32LE(3, 0);
    expect(memo.get(c, 0, 8, frameHash(c, 0, 8))).toBeUndefined();
  });
});

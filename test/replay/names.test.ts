/** The replay's name table (src/engines/replay/names.ts): one id per name, whether met as bytes or as a string. */
import { describe, expect, it } from 'vitest';
import { NameTable, NO_NAME } from '../../src/engines/replay/names.js';
import { WireCursor } from '../../src/formats/chakra/index.js';

describe('NameTable', () => {
  it('gives a name one id through its bytes and its string, across growth, UTF-8 and the empty name included', () => {
    const names = new NameTable();
    const list = [
      '',
      'gemm',
      'ALL_REDUCE',
      'aten::mm',
      'größe',
      '名前',
      ...Array.from({ length: 5000 }, (_, i) => `kernel_${i}`),
    ];
    const buf = Buffer.from(list.join('\u0000'), 'utf8');
    const c = new WireCursor(buf);
    const ranges: [number, number][] = [];
    let p = 0;
    for (const n of list) {
      const len = Buffer.byteLength(n, 'utf8');
      ranges.push([p, p + len]);
      p += len + 1;
    }
    // Half first as strings, half first as bytes; then every one both ways.
    const ids = list.map((n, i) => (i % 2 === 0 ? names.idOf(n) : names.idOfBytes(c, ranges[i]![0], ranges[i]![1])));
    expect(new Set(ids).size).toBe(list.length);
    list.forEach((n, i) => {
      expect(names.idOf(n)).toBe(ids[i]);
      expect(names.idOfBytes(c, ranges[i]![0], ranges[i]![1])).toBe(ids[i]);
      expect(names.name(ids[i]!)).toBe(n);
    });
    expect(names.size).toBe(list.length);
    expect(names.name(NO_NAME)).toBe('');
  });

  it('finds names met again in their first order, in reverse and skipping (the next id is only a first guess)', () => {
    const names = new NameTable();
    const list = Array.from({ length: 300 }, (_, i) => `n${String(i % 100).padStart(2, '0')}_${Math.floor(i / 100)}`);
    const buf = Buffer.from(list.join(''), 'utf8');
    const c = new WireCursor(buf);
    const at = (i: number) => names.idOfBytes(c, i * 5, i * 5 + 5);
    const ids = list.map((_, i) => at(i));
    expect(new Set(ids).size).toBe(list.length);
    for (const order of [
      list.map((_, i) => i),
      list.map((_, i) => list.length - 1 - i),
      list.map((_, i) => (i * 7) % list.length),
    ]) {
      for (const i of order) expect(at(i), list[i]).toBe(ids[i]);
    }
    expect(names.size).toBe(list.length);
  });
});

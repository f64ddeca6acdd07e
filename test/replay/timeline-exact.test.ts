/**
 * Timeline times are exact: integer ns written as µs with at most 3 decimals, and no two slices on one track
 * overlap when a viewer adds `ts + dur` in floating point (speedscope nested such slices before). Checked on a
 * generated multi-rank trace (llama2-7b, dp 2 × tp 2 × pp 2, 1F1B) replayed through the CLI.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exactSlice } from '../../src/formats/trace-event/index.js';
import { cli, generateLlama } from '../helpers/cli.js';

interface Slice {
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur: number;
  args: { startNs: number; endNs: number };
}

/** At most 3 decimals, as JSON prints the number. */
const threeDecimals = (x: number) => /^-?\d+(\.\d{1,3})?$/.test(JSON.stringify(x));

describe('exactSlice', () => {
  it('keeps ts + dur at or below the end for every back-to-back pair of a long run of odd integers', () => {
    let shortened = 0;
    for (let s = 0, k = 0; k < 20_000; k++) {
      const e = s + 1 + ((k * 7919) % 100_003);
      const a = exactSlice(s, e);
      expect(a.ts + a.dur).toBeLessThanOrEqual(e / 1000);
      expect(e / 1000 - (a.ts + a.dur)).toBeLessThan(0.0011);
      expect(threeDecimals(a.ts) && threeDecimals(a.dur)).toBe(true);
      if (a.dur * 1000 !== e - s) shortened++;
      s = e;
    }
    // Rounding bites now and then; most slices keep their exact duration.
    expect(shortened).toBeGreaterThan(0);
    expect(shortened).toBeLessThan(20_000 / 4);
  });
});

describe('replay --timeline', () => {
  it('writes slices that never overlap on a track, with exact integer-ns times in args', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-tl-exact-'));
    const prefix = path.join(dir, 'llama');
    const gen = await generateLlama(prefix, '--dp 2 --tp 2 --pp 2 --global-batch 8 --seq 1024');
    expect(gen.code, gen.err).toBe(0);
    const tl = path.join(dir, 'tl.json');
    const rep = await cli([
      'replay',
      prefix,
      '--system',
      `${prefix}.system.json`,
      '--network',
      `${prefix}.network.yml`,
      '--timeline',
      tl,
    ]);
    expect(rep.code, rep.err).toBe(0);
    const doc = JSON.parse(await readFile(tl, 'utf8')) as { traceEvents: Slice[] };
    const slices = doc.traceEvents.filter((e) => e.ph === 'X');
    const tracks = new Map<string, Slice[]>();
    for (const s of slices) {
      const k = `${s.pid}/${s.tid}`;
      tracks.set(k, [...(tracks.get(k) ?? []), s]);
    }
    expect(new Set(slices.map((s) => s.pid)).size).toBe(8);
    let backToBack = 0;
    for (const [track, list] of tracks) {
      list.sort((a, b) => a.ts - b.ts);
      for (let i = 0; i < list.length; i++) {
        const s = list[i]!;
        expect(Number.isInteger(s.args.startNs) && Number.isInteger(s.args.endNs), track).toBe(true);
        expect(s.ts).toBe(s.args.startNs / 1000);
        expect(threeDecimals(s.ts) && threeDecimals(s.dur), track).toBe(true);
        if (i === 0) continue;
        const prev = list[i - 1]!;
        if (prev.args.endNs === s.args.startNs) backToBack++;
        expect(
          prev.ts + prev.dur,
          `${track}: slice at ${prev.ts} µs runs into the next at ${s.ts} µs`,
        ).toBeLessThanOrEqual(s.ts);
      }
    }
    expect(backToBack).toBeGreaterThan(100);
  }, 60_000);
});

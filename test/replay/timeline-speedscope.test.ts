/**
 * A replay timeline opened in a real offline viewer: speedscope (its npm package, a devDependency) in headless
 * Chromium, through scripts/view-timeline.mjs. Checks that speedscope's trace-event importer read the file (it
 * shows the first track's title and the number of tracks) and saves a screenshot. Skipped, with a message, when
 * chromium or speedscope is missing (CI: apt-get install -y chromium; npm ci installs speedscope).
 */
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, generateLlama } from '../helpers/cli.js';
// @ts-expect-error: a plain .mjs script without types
import { findChromium, findSpeedscope, viewTimeline } from '../../scripts/view-timeline.mjs';

const ready = Boolean(findChromium()) && Boolean(findSpeedscope());
if (!ready) {
  console.warn(
    '[tracewatt tests] chromium or speedscope not found: the speedscope timeline test is skipped ' +
      '(apt-get install -y chromium; npm ci installs speedscope; or set TRACEWATT_CHROMIUM / TRACEWATT_SPEEDSCOPE)',
  );
}

describe.skipIf(!ready)('replay --timeline in speedscope', () => {
  it('speedscope imports the timeline of a generated 8-rank trace and draws it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-speedscope-test-'));
    const prefix = path.join(dir, 'llama');
    expect((await generateLlama(prefix, '--dp 2 --tp 2 --pp 2 --global-batch 8 --seq 1024')).code).toBe(0);
    const tl = path.join(dir, 'tl.json');
    expect(
      (
        await cli([
          'replay',
          prefix,
          '--system',
          `${prefix}.system.json`,
          '--network',
          `${prefix}.network.yml`,
          '--timeline',
          tl,
        ])
      ).code,
    ).toBe(0);
    const png = path.join(dir, 'speedscope.png');
    const { title } = (await viewTimeline(tl, png)) as { title: string | null };
    // 8 ranks, each with its GPU, communication and receive tracks (and extra receive lanes).
    expect(title).toMatch(/^rank 0 \(pid 0\), GPU compute \(tid 1\) \(1\/(\d+)\)$/);
    expect(Number(/\/(\d+)\)$/.exec(title!)![1])).toBeGreaterThanOrEqual(8 * 3);
    const shot = await readFile(png);
    expect(shot.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect((await stat(png)).size).toBeGreaterThan(5_000);
    console.log(`[tracewatt tests] speedscope screenshot: ${png}`);
  }, 180_000);
});

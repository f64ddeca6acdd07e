#!/usr/bin/env node
/**
 * Opens a `tracewatt replay --timeline` file in speedscope (its npm package, offline: no server, no network) in
 * headless Chromium and saves a screenshot, so a timeline can be looked at on a machine without a display.
 *
 *   node scripts/view-timeline.mjs <timeline.json> <out.png> [--width 1280] [--height 800]
 *
 * Prints one line: the title speedscope shows for the first track (e.g. "rank 0 (pid 0), GPU compute (tid 1)
 * (1/48)"), which proves the importer read the file. Exits 2 when chromium or speedscope is missing.
 * Chromium: $TRACEWATT_CHROMIUM or chromium / chromium-browser on the PATH. speedscope: the devDependency, or
 * $TRACEWATT_SPEEDSCOPE (a folder holding speedscope's package.json).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CHROMIUM_FLAGS, findChromium } from './lib/chromium.mjs';

export { findChromium };

const run = promisify(execFile);

/** speedscope's release folder (index.html and its bundle), or undefined. */
export function findSpeedscope() {
  if (process.env.TRACEWATT_SPEEDSCOPE) {
    const dir = path.join(process.env.TRACEWATT_SPEEDSCOPE, 'dist', 'release');
    return existsSync(path.join(dir, 'index.html')) ? dir : undefined;
  }
  try {
    const pkg = createRequire(import.meta.url).resolve('speedscope/package.json');
    const dir = path.join(path.dirname(pkg), 'dist', 'release');
    return existsSync(path.join(dir, 'index.html')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Loads `timeline` into speedscope as its CLI does (a script calling speedscope.loadFileFromBase64, named in the
 * URL's #localProfilePath), screenshots it to `png` and returns the track title speedscope rendered.
 */
export async function viewTimeline(timeline, png, { width = 1280, height = 800 } = {}) {
  const chromium = findChromium();
  const release = findSpeedscope();
  if (!chromium)
    throw Object.assign(new Error('chromium not found (PATH or TRACEWATT_CHROMIUM)'), { code: 'NO_VIEWER' });
  if (!release)
    throw Object.assign(
      new Error('speedscope not found (npm ci installs it as a devDependency, or set TRACEWATT_SPEEDSCOPE)'),
      { code: 'NO_VIEWER' },
    );
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-speedscope-'));
  try {
    const base64 = (await readFile(timeline)).toString('base64');
    const script = path.join(dir, 'profile.js');
    await writeFile(
      script,
      `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(timeline))}, ${JSON.stringify(base64)})\n`,
    );
    const url = `${pathToFileURL(path.join(release, 'index.html')).href}#localProfilePath=${script}`;
    const chrome = (profile, ...args) =>
      run(
        chromium,
        [
          ...CHROMIUM_FLAGS,
          `--user-data-dir=${path.join(dir, profile)}`,
          `--window-size=${width},${height}`,
          '--virtual-time-budget=15000',
          ...args,
          url,
        ],
        { timeout: 120_000, maxBuffer: 256 * 1024 * 1024 },
      );
    const { stdout } = await chrome('dom', '--dump-dom');
    await chrome('shot', `--screenshot=${path.resolve(png)}`);
    // The toolbar's title: "<profile name> (i/n)".
    const text = stdout
      .replace(/<[^>]+>/g, '\n')
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
    const i = text.findIndex((t) => /^\(\d+\/\d+\)$/.test(t));
    return { title: i > 0 ? `${text[i - 1]} ${text[i]}` : null, dom: stdout };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args.splice(i, 2)[1]) : dflt;
  };
  const width = opt('--width', 1280);
  const height = opt('--height', 800);
  if (args.length !== 2) {
    console.error('usage: node scripts/view-timeline.mjs <timeline.json> <out.png> [--width 1280] [--height 800]');
    process.exit(2);
  }
  try {
    const { title } = await viewTimeline(args[0], args[1], { width, height });
    if (!title) {
      console.error(`speedscope did not show a profile for ${args[0]} (no track title in the page)`);
      process.exit(1);
    }
    console.log(`${args[1]}: speedscope shows ${title}`);
  } catch (e) {
    console.error(e.message);
    process.exit(e.code === 'NO_VIEWER' ? 2 : 1);
  }
}

/**
 * Opens a full report in headless Chromium (Debian's `chromium` package) and checks that every plot rendered:
 * the DOM Chromium parsed holds one <svg> per figure with its marks, each SVG is laid out with a non-zero size,
 * and its mark groups have non-empty bounding boxes. Saves a screenshot of the page in a temp folder.
 * Skipped, with a message, when no chromium is installed (CI: apt-get install -y chromium).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/html.js';
import { allFixtures, EXPECTED_PLOTS } from './fixtures.js';
// @ts-expect-error: a plain .mjs script without types
import { CHROMIUM_FLAGS, findChromium } from '../../scripts/lib/chromium.mjs';

const run = promisify(execFile);

const chromium = findChromium();
if (!chromium) {
  console.warn(
    '[tracewatt tests] chromium not found (PATH, or TRACEWATT_CHROMIUM): the headless-browser report test is ' +
      'skipped (apt-get install -y chromium)',
  );
}

/** Appended to a copy of the page: measures every plot after layout and writes the numbers into the DOM. */
const PROBE =
  `<script>
const plots = [...document.querySelectorAll('figure.plot')].map((fig) => {
  const svgs = ` +
  `fig.querySelectorAll('svg');
  const svg = svgs[0];
  const box = svg ? svg.getBoundingClientRect() : { width: ` +
  `0, height: 0 };
  const groups = svg ? [...svg.querySelectorAll('g.role-mark')] : [];
  const items = ` +
  `groups.reduce((n, g) => n + g.querySelectorAll(':scope > path, :scope > line, :scope > text').length, 0);
  ` +
  `const drawn = groups.filter((g) => { const b = g.getBBox(); return b.width > 0 || b.height > 0; }).length;
  ` +
  `return { id: fig.dataset.plot, svgs: svgs.length, width: box.width, height: box.height, groups: groups.length, ` +
  `drawn, items };
});
const pre = document.createElement('pre');
pre.id = 'probe';
pre.textContent = ` +
  `JSON.stringify(plots);
document.body.appendChild(pre);
</script>`;

interface Probe {
  id: string;
  svgs: number;
  width: number;
  height: number;
  groups: number;
  drawn: number;
  items: number;
}

async function chrome(userDir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    chromium!,
    [...CHROMIUM_FLAGS, `--user-data-dir=${userDir}`, '--window-size=1280,4000', ...args],
    { timeout: 90_000, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

describe.skipIf(!chromium)('report in headless Chromium', () => {
  it('renders every plot with its marks and saves a screenshot', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-report-chromium-'));
    const html = await buildReport(allFixtures());
    const page = path.join(dir, 'report.html');
    const probed = path.join(dir, 'report-probe.html');
    await writeFile(page, html);
    await writeFile(probed, html.replace('</body>', `${PROBE}\n</body>`));

    // The DOM Chromium builds from the page itself.
    const dom = await chrome(path.join(dir, 'profile-dom'), '--dump-dom', pathToFileURL(page).href);
    const figures = [...dom.matchAll(/<figure class="plot" data-plot="([^"]+)">([\s\S]*?)<\/figure>/g)];
    expect(figures.map((m) => m[1])).toEqual(EXPECTED_PLOTS);
    // No error text anywhere on the page (vega's or the page's own).
    expect(dom).not.toMatch(/\b(Error|NaN|undefined|Infinity)\b/);
    for (const [, id, body] of figures) {
      expect(body!.match(/<svg\b/g), id).toHaveLength(1);
      // Every case-study plot says what it shows in one line above it (the first: the page's headline sentence).
      if (id!.startsWith('case-') && id !== 'case-knobs')
        expect(body, id).toMatch(/^<p class="takeaway">[^<]{20,}<\/p><svg/);
      expect(body!.match(/class="mark-[a-z]+ role-mark /g)?.length ?? 0, id).toBeGreaterThan(0);
    }

    // Layout: every SVG has a size and every mark group something drawn.
    const probedDom = await chrome(path.join(dir, 'profile-probe'), '--dump-dom', pathToFileURL(probed).href);
    const json = /<pre id="probe">([\s\S]*?)<\/pre>/.exec(probedDom)?.[1];
    expect(json, 'probe output missing from the DOM').toBeDefined();
    const probes = JSON.parse(json!.replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as Probe[];
    expect(probes.map((p) => p.id)).toEqual(EXPECTED_PLOTS);
    for (const p of probes) {
      expect(p.svgs, p.id).toBe(1);
      expect(p.width, p.id).toBeGreaterThan(200);
      expect(p.height, p.id).toBeGreaterThan(150);
      expect(p.groups, p.id).toBeGreaterThan(0);
      expect(p.drawn, p.id).toBe(p.groups);
    }
    const items = Object.fromEntries(probes.map((p) => [p.id, p.items]));
    expect(items['energy-per-rank']).toBe(8 * 6);
    expect(items.accuracy).toBe(14 + 1); // 14 bars and the zero rule

    const shot = path.join(dir, 'report.png');
    await chrome(path.join(dir, 'profile-shot'), `--screenshot=${shot}`, pathToFileURL(page).href);
    const png = await readFile(shot);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 4000]);
    expect((await stat(shot)).size).toBeGreaterThan(50_000); // a blank page compresses to a few KiB
    console.log(`[tracewatt tests] report screenshot: ${shot}`);
  });
});

import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/html.js';
import { tracewattVersion } from '../../src/report/version.js';
import { allFixtures, EXPECTED_PLOTS, gpuSweepFixture, replayFixture, caseStudyFixture } from './fixtures.js';
import { markItems } from './svg.js';

const results = allFixtures;

function figures(html: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of html.matchAll(/<figure class="plot" data-plot="([^"]+)">([\s\S]*?)<\/figure>/g))
    out.set(m[1]!, m[2]!);
  return out;
}

describe('buildReport', () => {
  it('contains every plot as one inline SVG with marks, and a section per result', async () => {
    const html = await buildReport(results());
    const figs = figures(html);
    expect([...figs.keys()]).toEqual(EXPECTED_PLOTS);
    for (const [id, body] of figs) {
      expect(body.match(/<svg\b/g), id).toHaveLength(1);
      expect(body, id).toMatch(/role-mark/);
    }
    expect(markItems(figs.get('energy-per-rank')!, 'energy_bars')).toHaveLength(8 * 6);
    expect(markItems(figs.get('pareto-front')!, 'pareto_points')).toHaveLength(gpuSweepFixture().points.length);
    expect(markItems(figs.get('accuracy')!, 'error_bars')).toHaveLength(14);
    expect(html.match(/<section class="result"/g)).toHaveLength(5);
  });

  it('is self-contained: no scripts, stylesheets, images or URLs other than SVG namespaces', async () => {
    const html = await buildReport(results());
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|\bsrc=|url\(/i);
    const urls = html.match(/https?:\/\/[^\s"'<>)]+/g) ?? [];
    expect(new Set(urls)).toEqual(new Set(['http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xlink']));
    for (const href of html.match(/href="[^"]*"/g) ?? []) expect(href).toMatch(/^href="#result-\d+"$/);
  });

  it('says in the header which numbers are estimates and which tracewatt made it', async () => {
    const html = await buildReport(results());
    const header = html.slice(html.indexOf('<header>'), html.indexOf('</header>'));
    expect(header).toContain(`tracewatt ${tracewattVersion()}`);
    expect(header).toMatch(
      /Estimates\.<\/strong> Energy, power and time on this page are modelled by tracewatt, not measured/,
    );
    expect(tracewattVersion()).toMatch(/^\d+\.\d+\.\d+/);
    expect(html).toContain('<th class="num">energy (J, est.)</th>');
    expect(html).toContain('<th class="num">time (s, est.)</th>');
    expect(html).toContain('<th class="num">mean per rank (s, est.)</th>');
  });

  it('leaves out the time rows an engine did not report', async () => {
    const r = replayFixture(2);
    const { astraExposed: _a, ...timeS } = r.timeS;
    const html = await buildReport([{ ...r, timeS: timeS as typeof r.timeS }]);
    expect(html).toContain('<td>exposed communication (no GPU compute)</td>');
    expect(html).not.toContain('<td>ASTRA-sim exposed communication (finish − GPU compute)</td>');
    expect(await buildReport([r])).toContain('<td>ASTRA-sim exposed communication (finish − GPU compute)</td>');
    // The energy table has a row per part, and the definitions under it.
    expect(html.match(/<td>communication<\/td>/g)).toHaveLength(1);
    expect(html).toContain(
      '<li>communication: gpu.commPowerW (else idle + 0.3 × (active − idle), assumed) × time communication ' +
        'runs with no GPU compute</li>',
    );
  });

  it('escapes labels and text from the results', async () => {
    const html = await buildReport([caseStudyFixture()]);
    expect(html).toContain('overlap is poor &amp; idle energy is large: &lt;slower&gt; links');
    expect(html).not.toContain('<slower>');
  });

  it('shows the energy saved vs runtime penalty between the fastest and the lowest-energy clock', async () => {
    const sweep = gpuSweepFixture();
    const html = await buildReport([sweep]);
    const fast = sweep.points.find((p) => p.clockMHz === sweep.timeOptimalMHz)!;
    const low = sweep.points.find((p) => p.clockMHz === sweep.energyOptimalMHz)!;
    // Three significant digits, not fixed decimals (issue 28).
    const saved = Number((((fast.energyJ.total - low.energyJ.total) / fast.energyJ.total) * 100).toPrecision(3));
    const penalty = Number((((low.timeS - fast.timeS) / fast.timeS) * 100).toPrecision(3));
    expect(html).toContain(
      `<tr><td class="num">${fast.clockMHz}</td><td class="num">${low.clockMHz}</td><td class="num">${saved}` +
        `</td><td class="num">${penalty}</td>`,
    );
  });

  it('groups consecutive ranks into at most 64 bars for large clusters', async () => {
    const html = await buildReport([replayFixture(100)]);
    const bars = markItems(figures(html).get('energy-per-rank')!, 'energy_bars');
    expect(bars).toHaveLength(50 * 6);
    expect(html).toContain('ranks (mean of 2 per bar)');
    expect(html).toContain('Per-rank table (100 ranks)');
  });

  it('is reproducible: the same results give the same page', async () => {
    expect(await buildReport(results())).toBe(await buildReport(results()));
  });
});

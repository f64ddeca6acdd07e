/**
 * Every plot the report can draw, rendered to SVG by vega's headless renderer (as `tracewatt report` writes it): no
 * two text labels overlap and no text is smaller than 11 px (issue 28). Label boxes are estimated from the font
 * size and the number of characters (test/report/svg.ts textBoxes); no label is cut short by vega's label limit. The
 * plots are those of a page with one result of
 * every kind (fixtures.ts everyPlotFixtures: the case study, a replay with energy by name, both sweeps, accuracy, an
 * imported run measured beside modelled, a plan, the layer study); a figure the source can draw that this page lacks
 * fails the test, so a new plot cannot skip the check.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/html.js';
import { everyPlotFixtures } from './fixtures.js';
import { overlappingLabels, textBoxes } from './svg.js';

/** The data-plot ids of every figure in src/report (`figure('id', …)`). */
function plotIdsInSource(): string[] {
  const dir = new URL('../../src/report/', import.meta.url);
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
  const ids = files.flatMap((f) =>
    [...readFileSync(new URL(f, dir), 'utf8').matchAll(/\bfigure\(\s*'([a-z-]+)'/g)].map((m) => m[1]!),
  );
  return [...new Set(ids)].sort();
}

describe('report plots are legible', () => {
  it('no overlapping labels and no text below 11 px in any SVG the report can draw', async () => {
    const html = await buildReport(everyPlotFixtures());
    const figures = [...html.matchAll(/<figure class="plot" data-plot="([^"]+)">[\s\S]*?<\/figure>/g)];
    expect([...new Set(figures.map((f) => f[1]!))].sort()).toEqual(plotIdsInSource());
    const problems: string[] = [];
    for (const [fig, id] of figures) {
      const boxes = textBoxes(fig);
      expect(boxes.length, id).toBeGreaterThan(3);
      for (const b of boxes) if (b.fontPx < 11) problems.push(`${id}: "${b.text}" at ${b.fontPx} px`);
      // Vega cuts a label longer than its labelLimit with a trailing "…" (names are cut in the middle, by shortName).
      for (const b of boxes) if (b.text.endsWith('…')) problems.push(`${id}: "${b.text}" cut by vega's label limit`);
      for (const [a, b] of overlappingLabels(boxes)) problems.push(`${id}: "${a.text}" overlaps "${b.text}"`);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});

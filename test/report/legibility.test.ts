/**
 * Every plot of a full report, rendered to SVG by vega's headless renderer (as `tracewatt report` writes it): no
 * two text labels overlap and no text is smaller than 11 px (issue 28). Label boxes are estimated from the font
 * size and the number of characters (test/report/svg.ts textBoxes).
 */
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/html.js';
import { allFixtures } from './fixtures.js';
import { overlappingLabels, textBoxes } from './svg.js';

describe('report plots are legible', () => {
  it('no overlapping labels and no text below 11 px in any SVG of the report', async () => {
    const html = await buildReport(allFixtures());
    const figures = [...html.matchAll(/<figure class="plot" data-plot="([^"]+)">[\s\S]*?<\/figure>/g)];
    expect(figures.length).toBeGreaterThan(8);
    const problems: string[] = [];
    for (const [fig, id] of figures) {
      const boxes = textBoxes(fig);
      expect(boxes.length, id).toBeGreaterThan(3);
      for (const b of boxes) if (b.fontPx < 11) problems.push(`${id}: "${b.text}" at ${b.fontPx} px`);
      for (const [a, b] of overlappingLabels(boxes)) problems.push(`${id}: "${a.text}" overlaps "${b.text}"`);
    }
    expect(problems).toEqual([]);
  }, 60_000);
});

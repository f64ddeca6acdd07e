/**
 * The report section of the layer-level SM-clock study: the published table reproduced beside tracewatt's with the
 * difference per cell, the mean absolute difference per column, the published observations tested, the U of energy
 * against clock and the Pareto fronts per layer (published points overlaid), and what the model misses.
 * html.ts hands in its table and figure builders, so every section of the page looks alike.
 */
import type { LayerClockStudyRecord } from '../engines/studies/a30-layers-record.js';
import { FRONT_MAX_PENALTY_PCT, layerEnergyVsClockSpec, layerParetoSpec } from './a30-layers-plots.js';
import { GRID_CAPTION, layerStudyGrid, layerStudyRows, madSentence } from './a30-layers-text.js';
import { renderSvg } from './plots/render.js';
import { fixed, type Cell, type Column } from './tables.js';

/** The page's builders for a table, a figure and escaped text (src/report/html.ts). */
export interface HtmlParts {
  table(columns: readonly Column[], rows: readonly (readonly Cell[])[], caption?: string): string;
  figure(id: string, svg: string, caption: string, takeaway?: string): string;
  escape(text: string): string;
}

export async function layerStudySection(r: LayerClockStudyRecord, h: HtmlParts): Promise<string> {
  const [u, front] = await Promise.all([renderSvg(layerEnergyVsClockSpec(r)), renderSvg(layerParetoSpec(r))]);
  const grid = layerStudyGrid(r);
  const rows = layerStudyRows(r);
  const obs = (id: string) => r.observations.find((o) => o.id === id)!;
  const optClocks = r.rows.map((x) => x.lowestEnergyClockMHz);
  return [
    `<p class="finding"><strong>Against the published A30 table.</strong> ${h.escape(madSentence(r))}</p>`,
    `<ul class="system">` +
      [...r.system, `published: ${r.publishedSource}`].map((line) => `<li>${h.escape(line)}</li>`).join('') +
      `</ul>`,
    h.table(grid.columns, grid.rows, GRID_CAPTION),
    '<h3>Published observations, tested on the model</h3>',
    `<ul>` +
      r.observations
        .map((o) => `<li><strong>${h.escape(o.published)}</strong> — ${h.escape(o.sentence)}</li>`)
        .join('') +
      `</ul>`,
    h.figure(
      'layer-energy-vs-clock',
      u,
      'Energy of one forward pass of each layer against the SM clock, as % of its fastest point (estimated); ' +
        'rings mark the lowest-energy clock. The published study gives no per-clock energies to overlay.',
      `Lowest-energy clock ${Math.min(...optClocks)}–${Math.max(...optClocks)} MHz for every layer — ` +
        `${obs('u-shaped-energy').verdict}: ${obs('u-shaped-energy').published}.`,
    ),
    h.figure(
      'layer-pareto-fronts',
      front,
      `Every clock as runtime penalty and energy against the layer's fastest Pareto point (estimated): the ` +
        `front joined per sequence length, dominated clocks grey, the modelled lowest-energy point ringed, the ` +
        `published one as ◆. Clocks costing more than ${FRONT_MAX_PENALTY_PCT} % runtime are left off.`,
      `Mean absolute difference: saving ${r.meanAbsDifference.energySavingPts.toFixed(1)} points, penalty ` +
        `${r.meanAbsDifference.runtimePenaltyPts.toFixed(1)} points (target ${r.meanAbsDifference.targetPts}).`,
    ),
    '<h3>What the model gets and misses</h3>',
    `<ul>${r.limits.map((l) => `<li>${h.escape(l)}</li>`).join('')}</ul>`,
    `<details open><summary>Definitions</summary><ul>` +
      `${r.definitions.map((d) => `<li>${h.escape(d)}</li>`).join('')}</ul></details>`,
    '<details><summary>Every layer and sequence length, with its clocks, power and bottom width</summary>',
    h.table(
      [
        ...rows.columns,
        { header: 'fastest runtime (µs, est.)', format: fixed(1) },
        { header: 'mean power at fastest (W, est.)', format: fixed(1) },
        { header: 'highest kernel power at top clock (W, est.)', format: fixed(1) },
        { header: 'bottom width (% of runtime)', format: fixed(1) },
      ],
      rows.rows.map((c, i) => [
        ...c,
        r.rows[i]!.fastestTimeUs,
        r.rows[i]!.fastestPowerW,
        r.rows[i]!.maxKernelPowerW,
        r.rows[i]!.bottomWidthPct,
      ]),
    ),
    '</details>',
  ].join('\n');
}

/**
 * The A30 layer study as terminal text (within 100 columns) and as rows for --csv: tracewatt's energy saving and
 * runtime penalty per layer and sequence length beside the published ones, the difference per cell, the mean
 * absolute difference per column, the published observations tested, and what the model misses.
 */
import type { LayerClockStudyRecord } from '../engines/studies/a30-layers-record.js';
import { fixed, formatTable, recordTable, signedFixed, wrapText, type Cell, type Column } from './tables.js';
import type { RowSet } from './text.js';

const signed = signedFixed;

/** One row per layer and sequence length, for the table, the report and --csv. */
export function layerStudyRows(r: LayerClockStudyRecord): RowSet {
  return recordTable(r.rows, [
    { header: 'layer', key: 'layer', align: 'left' },
    { header: 'S (tokens)', key: 'seqLen' },
    { header: 'energy saving (%, est.)', key: 'energySavingPct', format: fixed(1) },
    { header: 'runtime penalty (%, est.)', key: 'runtimePenaltyPct', format: fixed(1) },
    { header: 'published saving (%)', key: 'publishedEnergySavingPct', format: fixed(1) },
    { header: 'published penalty (%)', key: 'publishedRuntimePenaltyPct', format: fixed(1) },
    { header: 'saving diff (points)', key: 'energySavingDiffPts', format: signed(1) },
    { header: 'penalty diff (points)', key: 'runtimePenaltyDiffPts', format: signed(1) },
    { header: 'fastest (MHz)', key: 'fastestClockMHz' },
    { header: 'lowest energy (MHz)', key: 'lowestEnergyClockMHz' },
  ]);
}

/**
 * "5.3 / 1.6" cells (energy saving / runtime penalty, %) of the published layout: a row per layer and source, a column
 * per sequence length.
 */
export const GRID_CAPTION =
  'Energy saving / runtime penalty (%) of the lowest-energy Pareto point against the fastest: published, ' +
  'tracewatt (estimated), difference (tracewatt − published, points)';

export function layerStudyGrid(r: LayerClockStudyRecord): RowSet {
  const seqs = [...new Set(r.rows.map((x) => x.seqLen))];
  const layers = [...new Set(r.rows.map((x) => x.layer))];
  const pair = (a: number, b: number) => `${a.toFixed(1)} / ${b.toFixed(1)}`;
  const diff = (a: number, b: number) => `${signed(1)(a)} / ${signed(1)(b)}`;
  const columns: Column[] = [
    { header: 'layer', align: 'left' },
    { header: 'source', align: 'left' },
    ...seqs.map((s): Column => ({ header: `S = ${s} (%)`, align: 'right' })),
  ];
  const rows: Cell[][] = layers.flatMap((layer) => {
    const at = (s: number) => r.rows.find((x) => x.layer === layer && x.seqLen === s)!;
    return [
      [layer, 'published', ...seqs.map((s) => pair(at(s).publishedEnergySavingPct, at(s).publishedRuntimePenaltyPct))],
      ['', 'tracewatt (est.)', ...seqs.map((s) => pair(at(s).energySavingPct, at(s).runtimePenaltyPct))],
      ['', 'difference (points)', ...seqs.map((s) => diff(at(s).energySavingDiffPts, at(s).runtimePenaltyDiffPts))],
    ];
  });
  return { columns, rows };
}

/** One sentence: the mean absolute difference per column against the target. */
export function madSentence(r: LayerClockStudyRecord): string {
  const m = r.meanAbsDifference;
  const meets = (x: number) => (x <= m.targetPts ? 'within' : 'outside');
  return (
    `Mean absolute difference over the ${r.rows.length} cells: energy saving ${m.energySavingPts.toFixed(1)} points ` +
    `(${meets(m.energySavingPts)} the ${m.targetPts}-point target), runtime penalty ` +
    `${m.runtimePenaltyPts.toFixed(1)} points ` +
    `(${meets(m.runtimePenaltyPts)} it).`
  );
}

/** The whole study as text, every line within 100 columns. */
export function layerStudyText(r: LayerClockStudyRecord): string {
  const wrap = (s: string, indent = '') => wrapText(s, 100, indent);
  const g = layerStudyGrid(r);
  return [
    wrap(`${r.label} (tracewatt figures estimated)`),
    ...r.system.map((s) => wrap(`  ${s}`, '    ')),
    wrap(`  published: ${r.publishedSource}`, '    '),
    '',
    wrap(`${GRID_CAPTION}:`),
    formatTable(g.columns, g.rows).replace(/\n$/, ''),
    wrap(madSentence(r)),
    '',
    'Published observations, tested on the model:',
    ...r.observations.map((o) => wrap(`  - ${o.published}: ${o.sentence}`, '    ')),
    '',
    'What the model gets and misses:',
    ...r.limits.map((l) => wrap(`  - ${l}`, '    ')),
    '',
    'Definitions:',
    ...r.definitions.map((d) => wrap(`  - ${d}`, '    ')),
    '',
  ].join('\n');
}

/**
 * The text views of predict: one row per kernel and clock (CSV: every field with the 10–90 % bands), and the totals.
 */
import { describeAdvice } from '../../engines/calibrate/index.js';
import type { PredictResult } from '../../engines/calibrate/predict.js';
import { shortName } from '../by-name-text.js';
import { fixed, formatCell, formatTable, type Cell, type Column, type TableOptions } from '../tables.js';

const CSV_KEYS = [
  'kernel',
  'frequencyMHz',
  'effectiveClockMHz',
  'durationNs',
  'powerW',
  'energyJ',
  'capped',
  'durationNsP10',
  'durationNsP90',
  'powerWP10',
  'powerWP90',
  'energyJP10',
  'energyJP90',
  'bandMode',
  'basis',
] as const;

/** The record's field names, but the SM clock named as in every other table. */
const CSV_NAMES: Partial<Record<(typeof CSV_KEYS)[number], string>> = {
  frequencyMHz: 'smClockMHz',
  effectiveClockMHz: 'effectiveSmClockMHz',
};

/** Every field of every row (the CSV). */
export function predictRows(r: PredictResult): { columns: Column[]; rows: Cell[][] } {
  return {
    columns: CSV_KEYS.map((k) => ({ header: k, key: CSV_NAMES[k] ?? k })),
    rows: r.rows.map((x) => CSV_KEYS.map((k) => (k === 'capped' ? String(x.capped) : x[k]))),
  };
}

/** The table of kernels and clocks, the total energy per clock with its band, and the advice. */
export function predictText(r: PredictResult, layout: TableOptions): string {
  let out = formatTable(
    [
      // Kernel names run to thousands of characters: cut in the middle (--csv and --json keep them whole).
      { header: 'kernel' },
      { header: 'SM clock (MHz)' },
      { header: 'time (ms, est.)', format: fixed(4) },
      { header: 'power (W, est.)', format: fixed(1) },
      { header: 'energy (J, est.)' },
      { header: 'energy 10–90 % (J)', align: 'right' },
      { header: 'capped' },
    ],
    r.rows.map((x) => [
      shortName(x.kernel),
      x.frequencyMHz,
      x.durationNs / 1e6,
      x.powerW,
      x.energyJ,
      x.energyJP10 === null ? 'no band' : `${formatCell(x.energyJP10)}–${formatCell(x.energyJP90)}`,
      x.capped ? 'yes' : '',
    ]),
    layout,
  );
  const kernels = new Set(r.rows.map((x) => x.kernel)).size;
  const sumAt = (f: number) => r.rows.filter((x) => x.frequencyMHz === f).reduce((a, x) => a + x.energyJ, 0);
  const totals = r.totals.length
    ? r.totals.map((t) =>
        t.kernelsWithoutBand >= kernels
          ? `${t.frequencyMHz} MHz ${formatCell(t.energyJ.p50)} (no band: no kernel has one)`
          : `${t.frequencyMHz} MHz ${formatCell(t.energyJ.p50)} (${formatCell(t.energyJ.p10)}–` +
            `${formatCell(t.energyJ.p90)}, ±${t.halfWidthPct.toFixed(1)}%` +
            `${t.kernelsWithoutBand ? `; ${t.kernelsWithoutBand} kernel(s) without a band left out of it` : ''})`,
      )
    : [...new Set(r.rows.map((x) => x.frequencyMHz))].map(
        (f) => `${f} MHz ${formatCell(sumAt(f))} (no band: the calibration has no band model)`,
      );
  out +=
    `total energy of these kernels (J, est.; 10–90 % band, kernel errors taken as independent): ` +
    `${totals.join('; ')}\n`;
  if (r.advice) out += `advice: ${describeAdvice(r.advice)}\n`;
  return out;
}

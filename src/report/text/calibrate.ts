/** The text views of calibrate: one row per clock model, then the power cap, idle figure, bands and sanity counts. */
import type { Calibration } from '../../model/calibration.js';
import { fixed, formatTable, type Cell, type Column, type TableOptions } from '../tables.js';

/**
 * One row per clock model. R² is not applicable to an intercept-only model (no components: it is the mean power): "—",
 * empty in CSV.
 */
export function calibrationRows(calibration: Calibration): { columns: Column[]; rows: Cell[][] } {
  const columns: Column[] = [
    { header: 'SM clock (MHz)' },
    { header: 'P0 (W)', key: 'interceptW', format: fixed(1) },
    { header: 'samples' },
    { header: 'R²', key: 'r2', align: 'right', format: (v: Cell) => (v === null ? '—' : fixed(3)(v)) },
    { header: 'power MAPE (%)', format: fixed(1) },
    { header: 'dropped components' },
  ];
  const rows = calibration.power.perClock.map((m) => [
    m.smClockMHz,
    m.interceptW,
    m.fit.n,
    Object.keys(m.coefficientsW).length === 0 ? null : m.fit.r2,
    m.fit.mapePct,
    m.dropped
      .filter((d) => d.reason !== 'absent')
      .map((d) => d.component)
      .join(' '),
  ]);
  return { columns, rows };
}

/** The calibration written to `out`: its clock models, power cap, idle figure, bands and sanity findings. */
export function calibrationText(calibration: Calibration, out: string, layout: TableOptions): string {
  const t = calibrationRows(calibration);
  let text = `${calibration.device.name}: ${calibration.power.perClock.length} clock models → ${out}\n`;
  text += formatTable(t.columns, t.rows, layout);
  text += `power cap (${calibration.powerCap.source}): ${calibration.powerCap.evidence}\n`;
  if (calibration.idle)
    text +=
      `idle (${calibration.idle.basis}): ${calibration.idle.powerW} W at ${calibration.idle.smClockMHz} MHz; ` +
      `${calibration.idle.source}\n`;
  const u = calibration.uncertainty;
  text += u
    ? `10–90 % bands: from leave-one-benchmark-out residuals (${u.groups} benchmarks in ${u.folds} folds, ` +
      `${u.kernels} kernels; ${Object.keys(u.modes).join(', ')})\n`
    : `no 10–90 % bands: they need kernels of two or more benchmarks (the name before the first '/') measured at ` +
      `two or more clocks\n`;
  for (const s of calibration.sanity) text += `${s.count} × ${s.code} (e.g. ${s.examples[0]})\n`;
  return text;
}

/** The text views of accuracy: errors per SM clock, band coverage per regime, and leave-one-GPU-out coverage. */
import {
  describeAdvice,
  type AccuracyResult,
  type TransferAccuracy,
  type TransferSet,
} from '../../engines/calibrate/index.js';
import type { RegimeRow } from '../../engines/calibrate/accuracy.js';
import { fixed, formatTable, wrapText, type Cell, type Column, type TableOptions } from '../tables.js';

const pct0 = fixed(0);

/** Errors are absolute (mean of |predicted / measured − 1| over kernels, or of the totals). */
export function accuracyRows(r: AccuracyResult): { columns: Column[]; rows: Cell[][] } {
  const banded = r.frequencies.some((x) => x.timeCoveragePct !== null);
  const pct2 = fixed(2);
  const columns: Column[] = [
    { header: 'SM clock (MHz)' },
    { header: 'time MAPE (%)', key: 'timeMapePct', format: pct2 },
    { header: 'power MAPE (%)', key: 'powerMapePct', format: pct2 },
    { header: 'energy MAPE (%)', key: 'energyMapePct', format: pct2 },
    { header: 'total time error (%)', key: 'totalTimeAbsErrorPct', format: pct2 },
    { header: 'total energy error (%)', key: 'totalEnergyAbsErrorPct', format: pct2 },
    { header: 'kernels' },
    ...(banded
      ? [
          { header: 'time in band (%)', format: pct0 },
          { header: 'energy in band (%)', format: pct0 },
        ]
      : []),
  ];
  const rows = r.frequencies.map((x) => [
    x.frequencyMHz,
    x.timeErrorPct,
    x.powerErrorPct,
    x.energyErrorPct,
    x.totalTimeErrorPct,
    x.totalEnergyErrorPct,
    x.n,
    ...(banded ? [x.timeCoveragePct, x.energyCoveragePct] : []),
  ]);
  return { columns, rows };
}

/**
 * Coverage per band regime (the kinds of prediction a band is made for, and how far each reaches beyond the
 * calibration's cases).
 */
function regimeText(rows: RegimeRow[], layout: TableOptions): string {
  if (rows.length === 0) return '';
  return (
    `bands per regime:\n` +
    formatTable(
      [
        { header: 'regime' },
        { header: 'predictions' },
        { header: 'time in band (%)', format: pct0 },
        { header: 'energy in band (%)', format: pct0 },
      ],
      rows.map((x) => [x.regime, x.n, x.timeCoveragePct, x.energyCoveragePct]),
      layout,
    ) +
    wrapText(
      'regime: mode · distance from the nearest profiled clock · counters near / far (beyond 90 % of the ' +
        "calibration's left-out kernels) / beyond (all) · memory ceiling (DRAM activity above the calibration's " +
        'ceiling at the clock: the band of the calibration kernels that crossed it, or one that reaches the ' +
        'clock-bound time) · power unexplained (profiled power farther from the power model than any calibration ' +
        "kernel's: power and energy bands reach the model's figure) · extrapolated (beyond the calibration's " +
        'clock distances)',
      layout.width,
    ) +
    `\n`
  );
}

/** Leave-one-GPU-out: one row per evaluated set and clock. */
export function transferAccuracyRows(r: TransferAccuracy): { columns: Column[]; rows: Cell[][] } {
  const sets = [r.leftOutBenchmarks, ...(r.heldOut ? [r.heldOut] : [])];
  const columns: Column[] = [
    { header: 'kernels judged', key: 'set' },
    { header: 'SM clock (MHz)' },
    { header: 'kernels' },
    { header: 'time MAPE (%)', key: 'timeMapePct', format: fixed(2) },
    { header: 'energy MAPE (%)', key: 'energyMapePct', format: fixed(2) },
    { header: 'time in band (%)', format: pct0 },
    { header: 'energy in band (%)', format: pct0 },
  ];
  const rows = sets.flatMap((s: TransferSet) =>
    s.frequencies.map((x) => [
      s.label,
      x.frequencyMHz,
      x.n,
      x.timeErrorPct,
      x.energyErrorPct,
      x.timeCoveragePct,
      x.energyCoveragePct,
    ]),
  );
  return { columns, rows };
}

export function transferAccuracyText(r: TransferAccuracy, layout: TableOptions): string {
  let out =
    `bands on ${r.evaluatedOn.join(', ')}${r.heldOutFile ? ` (held-out kernels: ${r.heldOutFile})` : ''}, band ` +
    `parameters fitted on ${r.trainedOn.join(', ')}; each kernel profiled once at its highest clock\n`;
  const t = transferAccuracyRows(r);
  out += formatTable(t.columns, t.rows, layout);
  out +=
    'left-out benchmarks: each predicted by the calibration fitted without it, its band from the other ' +
    "benchmarks' residuals only\n";
  out += 'in band: share of kernels whose measured time / energy lies in the predicted 10–90 % band (aim: about 80%)\n';
  const p = r.parameters['one-clock-down'];
  if (p)
    out +=
      `held-out inflation fitted on ${r.trainedOn.join(', ')} (one clock, lower): time ×` +
      `${p.time.inflation.toFixed(2)}, power ×${p.power.inflation.toFixed(2)}, energy ×` +
      `${p.energy.inflation.toFixed(2)}\n`;
  for (const s of [r.leftOutBenchmarks, ...(r.heldOut ? [r.heldOut] : [])])
    out += `${s.label}: ${regimeText(s.regimes, layout)}`;
  for (const n of r.notes) out += `note: ${n}\n`;
  return out;
}

export function accuracyText(r: AccuracyResult, layout: TableOptions = {}): string {
  const f = (v: number | null) => (v === null ? '' : v.toFixed(2));
  let out =
    `${r.label} (${r.mode}` +
    (r.referenceClocksMHz ? `, reference ${r.referenceClocksMHz.join('+')} MHz, ${r.scaling} scaling` : '') +
    `${r.fitClocksMHz ? `, fitted at ${r.fitClocksMHz.join(', ')} MHz` : ''})\n`;
  const banded = r.frequencies.some((x) => x.timeCoveragePct !== null);
  const t = accuracyRows(r);
  out += formatTable(t.columns, t.rows, layout);
  out +=
    'errors are absolute: MAPE = mean |predicted / measured − 1| over kernels; total = |Σ predicted / Σ ' +
    'measured − 1|\n';
  if (banded)
    out +=
      'in band: share of kernels whose measured time / energy lies in the predicted 10–90 % band (aim: about 80%)\n';
  const u = r.upperFitBand;
  if (u)
    out +=
      `between the two highest fitted clocks (${u.fromMHz}–${u.toMHz} MHz, ${u.clocks} clocks): time ` +
      `${u.timeErrorPct.toFixed(2)}%, energy ${u.energyErrorPct.toFixed(2)}% (worst clock ` +
      `${u.maxEnergyErrorPct.toFixed(2)}%)\n`;
  if (r.energyOptimal)
    out +=
      `energy-optimal clock: mean deviation ${r.energyOptimal.meanDeviationMHz.toFixed(1)} MHz, max ` +
      `${r.energyOptimal.maxDeviationMHz} MHz over ${r.energyOptimal.kernels.length} kernels; measured energy at ` +
      `the predicted clock is ${r.energyOptimal.meanExcessEnergyPct.toFixed(2)}% above the measured optimum on ` +
      `average (max ${r.energyOptimal.maxExcessEnergyPct.toFixed(2)}%)\n`;
  if (r.leaveOneFrequencyOut) {
    out += `leave-one-frequency-out power error:\n${formatTable(
      [{ header: 'SM clock (MHz)' }, { header: 'power MAPE (%)', format: fixed(2) }, { header: 'kernels' }],
      r.leaveOneFrequencyOut.map((x) => [x.frequencyMHz, x.powerErrorPct, x.n]),
      layout,
    )}`;
  }
  if (r.regimes) out += regimeText(r.regimes, layout);
  if (r.advice) out += `advice: ${describeAdvice(r.advice)}\n`;
  for (const n of r.notes) out += `note: ${n}\n`;
  if (r.alternativeScaling)
    out +=
      `with ${r.alternativeScaling.scaling} scaling, power/energy error %: ` +
      r.alternativeScaling.frequencies
        .map((x) => `${x.frequencyMHz}: ${f(x.powerErrorPct)}/${f(x.energyErrorPct)}`)
        .join(', ') +
      `\n`;
  return out;
}

import { toJson } from '../../core/json.js';
import { accuracy, calibrationOnlyAccuracy, describeAdvice, loadCalibration, sha256File, type AccuracyResult } from '../../engines/calibrate/index.js';
import { excerpt, InputError } from '../../errors.js';
import { fixed, formatTable, type Cell, type Column, type TableOptions } from '../../report/tables.js';
import type { CommandSpec } from '../command.js';
import { choice, rowsText, tableLayout, tableOptions } from '../io.js';
import { deviceMismatchWarning } from '../../model/device-match.js';
import { parseClockList } from './predict.js';
import { namingProfile, PROFILE_OPTIONS, readProfiles, requirePower } from './profile-options.js';

/** Errors are absolute (mean of |predicted / measured − 1| over kernels, or of the totals). */
function frequencyRows(r: AccuracyResult): { columns: Column[]; rows: Cell[][] } {
  const banded = r.frequencies.some((x) => x.timeCoveragePct !== null);
  const pct2 = fixed(2);
  const pct0 = fixed(0);
  const columns: Column[] = [
    { header: 'SM clock (MHz)' },
    { header: 'time MAPE (%)', key: 'timeMapePct', format: pct2 }, { header: 'power MAPE (%)', key: 'powerMapePct', format: pct2 },
    { header: 'energy MAPE (%)', key: 'energyMapePct', format: pct2 },
    { header: 'total time error (%)', key: 'totalTimeAbsErrorPct', format: pct2 }, { header: 'total energy error (%)', key: 'totalEnergyAbsErrorPct', format: pct2 },
    { header: 'kernels' },
    ...(banded ? [{ header: 'time in band (%)', format: pct0 }, { header: 'energy in band (%)', format: pct0 }] : []),
  ];
  const rows = r.frequencies.map((x) => [
    x.frequencyMHz, x.timeErrorPct, x.powerErrorPct, x.energyErrorPct, x.totalTimeErrorPct, x.totalEnergyErrorPct, x.n,
    ...(banded ? [x.timeCoveragePct, x.energyCoveragePct] : []),
  ]);
  return { columns, rows };
}

function render(r: AccuracyResult, layout: TableOptions): string {
  const f = (v: number | null) => (v === null ? '' : v.toFixed(2));
  let out = `${r.label} (${r.mode}${r.referenceClocksMHz ? `, reference ${r.referenceClocksMHz.join('+')} MHz, ${r.scaling} scaling` : ''}${r.fitClocksMHz ? `, fitted at ${r.fitClocksMHz.join(', ')} MHz` : ''})\n`;
  const banded = r.frequencies.some((x) => x.timeCoveragePct !== null);
  const t = frequencyRows(r);
  out += formatTable(t.columns, t.rows, layout);
  out += 'errors are absolute: MAPE = mean |predicted / measured − 1| over kernels; total = |Σ predicted / Σ measured − 1|\n';
  if (banded) out += 'in band: share of kernels whose measured time / energy lies in the predicted 10–90 % band (aim: about 80%)\n';
  const u = r.upperFitBand;
  if (u) out += `between the two highest fitted clocks (${u.fromMHz}–${u.toMHz} MHz, ${u.clocks} clocks): time ${u.timeErrorPct.toFixed(2)}%, energy ${u.energyErrorPct.toFixed(2)}% (worst clock ${u.maxEnergyErrorPct.toFixed(2)}%)\n`;
  if (r.energyOptimal) out += `energy-optimal clock: mean deviation ${r.energyOptimal.meanDeviationMHz.toFixed(1)} MHz, max ${r.energyOptimal.maxDeviationMHz} MHz over ${r.energyOptimal.kernels.length} kernels; measured energy at the predicted clock is ${r.energyOptimal.meanExcessEnergyPct.toFixed(2)}% above the measured optimum on average (max ${r.energyOptimal.maxExcessEnergyPct.toFixed(2)}%)\n`;
  if (r.leaveOneFrequencyOut) {
    out += 'leave-one-frequency-out power error:\n' + formatTable(
      [{ header: 'SM clock (MHz)' }, { header: 'power MAPE (%)', format: fixed(2) }, { header: 'kernels' }],
      r.leaveOneFrequencyOut.map((x) => [x.frequencyMHz, x.powerErrorPct, x.n]),
      layout,
    );
  }
  if (r.advice) out += `advice: ${describeAdvice(r.advice)}\n`;
  for (const n of r.notes) out += `note: ${n}\n`;
  if (r.alternativeScaling) out += `with ${r.alternativeScaling.scaling} scaling, power/energy error %: ${r.alternativeScaling.frequencies.map((x) => `${x.frequencyMHz}: ${f(x.powerErrorPct)}/${f(x.energyErrorPct)}`).join(', ')}\n`;
  return out;
}

export const accuracyCommand: CommandSpec = {
  name: 'accuracy',
  summary: 'Compare modelled time, power and energy with measurements, per SM clock',
  args: [],
  options: [
    { name: 'calibration', value: 'file', description: 'calibration JSON (not needed with --calibration-only)' },
    { name: 'profile', value: 'file', description: 'measured profile at several clocks (with --calibration-only: the calibration inputs)', required: true, repeatable: true },
    ...PROFILE_OPTIONS,
    { name: 'reference-frequency', value: 'MHz', description: 'clock(s) used as input, comma-separated; all other clocks are ground truth' },
    { name: 'fit-frequencies', value: 'list', description: 'counter-free sweeps: clocks the per-stage t(f), P(f) are fitted on' },
    { name: 'scaling', value: 'ratio|offset', description: 'reference-clock power correction', default: 'ratio' },
    { name: 'device-mismatch', value: 'ok', description: 'say nothing when the profile names a device other than the calibration\'s (default: a warning naming both)' },
    { name: 'calibration-only', description: 'leave-one-frequency-out and leave-one-kernel-out errors of a calibration fitted on --profile' },
    ...tableOptions('one row per SM clock'),
  ],
  example: 'tracewatt accuracy --calibration calibration/a40.json --profile calibration/profiles/perseus-sosp24/bloom+a40_bf16.csv --fit-frequencies 1200,1500,1740',
  async run(_args, opts, io) {
    const files = ([] as string[]).concat(opts.profile as string | string[]);
    let r: AccuracyResult;
    if (opts.calibrationOnly) {
      const inputs: Parameters<typeof calibrationOnlyAccuracy>[0][number][] = [];
      for (const p of await readProfiles(files, opts, io)) {
        requirePower(p.file, p.table);
        inputs.push({ ...p, sha256: await sha256File(p.file) });
      }
      r = namingProfile(files.join(', '), () => calibrationOnlyAccuracy(inputs, { maxKernels: 40 }));
    } else {
      if (!opts.calibration) throw new InputError('--calibration is required (or use --calibration-only)');
      if (opts.referenceFrequency && opts.fitFrequencies) throw new InputError('give either --reference-frequency or --fit-frequencies, not both');
      if (files.length > 1) throw new InputError(`--profile: compare one measured profile with --calibration (got ${files.length}); several profiles go with --calibration-only`);
      const cal = await loadCalibration(String(opts.calibration));
      const refs = opts.referenceFrequency ? parseClockList(opts.referenceFrequency, 'reference-frequency') : undefined;
      const fit = opts.fitFrequencies ? parseClockList(opts.fitFrequencies, 'fit-frequencies') : undefined;
      if (refs === 'all' || fit === 'all') throw new InputError('give the clocks in MHz, not "all"');
      const scaling = String(opts.scaling ?? 'ratio');
      if (scaling !== 'ratio' && scaling !== 'offset') throw new InputError(`--scaling: expected ratio or offset, got "${excerpt(scaling)}"`);
      const table = (await readProfiles(files, opts, io))[0]!.table;
      requirePower(files[0]!, table);
      const mismatch = choice(opts, 'deviceMismatch', ['ok'] as const) === 'ok' ? null : deviceMismatchWarning(cal.device.name, { what: `the profile ${files[0]}`, device: table.device });
      if (mismatch) io.err(`WARNING: ${mismatch}\n`);
      r = namingProfile(files[0]!, () => accuracy(cal, table, { referenceClocksMHz: refs, fitClocksMHz: fit, scaling, label: `${cal.device.name}: ${files[0]}` }));
    }
    if (opts.json) io.out(toJson(r) + '\n');
    else if (opts.csv) {
      const t = frequencyRows(r);
      io.out(rowsText(opts, t.columns, t.rows));
    } else io.out(render(r, tableLayout(opts)));
    return 0;
  },
};

import {
  accuracy,
  calibrationOnlyAccuracy,
  loadCalibration,
  sha256File,
  transferAccuracy,
  type AccuracyResult,
  type TransferAccuracy,
  type TransferSet,
} from '../../engines/calibrate/index.js';
import type { ProfileTable } from '../../formats/profiles/kernel-sample.js';
import { excerpt, InputError } from '../../errors.js';
import { accuracyRows, accuracyText, pct0, regimeText } from '../../report/accuracy-text.js';
import { fixed, formatTable, type Cell, type Column, type TableOptions } from '../../report/tables.js';
import type { CommandIO, CommandSpec } from '../command.js';
import { choice, emit, tableLayout, tableOptions } from '../io.js';
import { deviceMismatchWarning } from '../../model/device-match.js';
import { parseClockList } from './predict.js';
import { namingProfile, PROFILE_OPTIONS, readProfiles, requirePower } from './profile-options.js';

/** Leave-one-GPU-out: one row per evaluated set and clock. */
function transferRows(r: TransferAccuracy): { columns: Column[]; rows: Cell[][] } {
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

function renderTransfer(r: TransferAccuracy, layout: TableOptions): string {
  let out = `bands on ${r.evaluatedOn.join(', ')}${r.heldOutFile ? ` (held-out kernels: ${r.heldOutFile})` : ''}, band parameters fitted on ${r.trainedOn.join(', ')}; each kernel profiled once at its highest clock\n`;
  const t = transferRows(r);
  out += formatTable(t.columns, t.rows, layout);
  out +=
    "left-out benchmarks: each predicted by the calibration fitted without it, its band from the other benchmarks' residuals only\n";
  out += 'in band: share of kernels whose measured time / energy lies in the predicted 10–90 % band (aim: about 80%)\n';
  const p = r.parameters['one-clock-down'];
  if (p)
    out += `held-out inflation fitted on ${r.trainedOn.join(', ')} (one clock, lower): time ×${p.time.inflation.toFixed(2)}, power ×${p.power.inflation.toFixed(2)}, energy ×${p.energy.inflation.toFixed(2)}\n`;
  for (const s of [r.leftOutBenchmarks, ...(r.heldOut ? [r.heldOut] : [])])
    out += `${s.label}: ${regimeText(s.regimes, layout)}`;
  for (const n of r.notes) out += `note: ${n}\n`;
  return out;
}

export const accuracyCommand: CommandSpec = {
  name: 'accuracy',
  summary: 'Compare modelled time, power and energy with measurements, per SM clock',
  args: [],
  options: [
    { name: 'calibration', value: 'file', description: 'calibration JSON (not needed with --calibration-only)' },
    {
      name: 'profile',
      value: 'file',
      description: 'measured profile at several clocks (with --calibration-only: the calibration inputs)',
      required: true,
      repeatable: true,
    },
    ...PROFILE_OPTIONS,
    {
      name: 'reference-frequency',
      value: 'MHz',
      description: 'clock(s) used as input, comma-separated; all other clocks are ground truth',
    },
    {
      name: 'fit-frequencies',
      value: 'list',
      description: 'counter-free sweeps: clocks the per-stage t(f), P(f) are fitted on',
    },
    { name: 'scaling', value: 'ratio|offset', description: 'reference-clock power correction', default: 'ratio' },
    {
      name: 'device-mismatch',
      value: 'ok',
      description:
        "say nothing when the profile names a device other than the calibration's (default: a warning naming both)",
    },
    {
      name: 'calibration-only',
      description: 'leave-one-frequency-out and leave-one-kernel-out errors of a calibration fitted on --profile',
    },
    {
      name: 'bands-from',
      value: 'file',
      description:
        "leave-one-GPU-out: fit the band parameters on this profile (another GPU's calibration profile) and measure the bands' coverage on --profile's left-out benchmarks",
      repeatable: true,
    },
    {
      name: 'held-out',
      value: 'file',
      description:
        'with --bands-from: also measure the coverage on these kernels of the GPU under test (e.g. real applications), predicted by the calibration fitted on --profile',
    },
    ...tableOptions('one row per SM clock'),
  ],
  example:
    'tracewatt accuracy --calibration calibration/a40.json --profile calibration/profiles/perseus-sosp24/bloom+a40_bf16.csv --fit-frequencies 1200,1500,1740',
  async run(_args, opts, io) {
    const files = ([] as string[]).concat(opts.profile as string | string[]);
    if (opts.bandsFrom !== undefined) {
      if (opts.calibration || opts.calibrationOnly || opts.referenceFrequency || opts.fitFrequencies)
        throw new InputError(
          '--bands-from fits its own calibrations from --profile (each kernel from its highest clock): drop --calibration, --calibration-only, --reference-frequency and --fit-frequencies',
        );
      const train = await withHashes(
        await readProfiles(([] as string[]).concat(opts.bandsFrom as string | string[]), opts, io),
      );
      const evaluate = await withHashes(await readProfiles(files, opts, io));
      const held = opts.heldOut ? (await readProfiles([String(opts.heldOut)], opts, io))[0]!.table : null;
      const t = transferAccuracy(train, evaluate, held, {
        heldOutLabel: opts.heldOut ? String(opts.heldOut) : undefined,
      });
      print(
        opts,
        io,
        t,
        () => transferRows(t),
        () => renderTransfer(t, tableLayout(opts)),
      );
      return 0;
    }
    if (opts.heldOut !== undefined) throw new InputError('--held-out goes with --bands-from');
    let r: AccuracyResult;
    if (opts.calibrationOnly) {
      const inputs = await withHashes(await readProfiles(files, opts, io));
      for (const p of inputs) requirePower(p.file, p.table);
      r = namingProfile(files.join(', '), () => calibrationOnlyAccuracy(inputs, { maxKernels: 40 }));
    } else {
      if (!opts.calibration) throw new InputError('--calibration is required (or use --calibration-only)');
      if (opts.referenceFrequency && opts.fitFrequencies)
        throw new InputError('give either --reference-frequency or --fit-frequencies, not both');
      if (files.length > 1)
        throw new InputError(
          `--profile: compare one measured profile with --calibration (got ${files.length}); several profiles go with --calibration-only`,
        );
      const cal = await loadCalibration(String(opts.calibration));
      const refs = opts.referenceFrequency ? parseClockList(opts.referenceFrequency, 'reference-frequency') : undefined;
      const fit = opts.fitFrequencies ? parseClockList(opts.fitFrequencies, 'fit-frequencies') : undefined;
      if (refs === 'all' || fit === 'all') throw new InputError('give the clocks in MHz, not "all"');
      const scaling = String(opts.scaling ?? 'ratio');
      if (scaling !== 'ratio' && scaling !== 'offset')
        throw new InputError(`--scaling: expected ratio or offset, got "${excerpt(scaling)}"`);
      const table = (await readProfiles(files, opts, io))[0]!.table;
      requirePower(files[0]!, table);
      const mismatch =
        choice(opts, 'deviceMismatch', ['ok'] as const) === 'ok'
          ? null
          : deviceMismatchWarning(cal.device.name, { what: `the profile ${files[0]}`, device: table.device });
      if (mismatch) io.err(`WARNING: ${mismatch}\n`);
      r = namingProfile(files[0]!, () =>
        accuracy(cal, table, {
          referenceClocksMHz: refs,
          fitClocksMHz: fit,
          scaling,
          label: `${cal.device.name}: ${files[0]}`,
        }),
      );
    }
    print(
      opts,
      io,
      r,
      () => accuracyRows(r),
      () => accuracyText(r, tableLayout(opts)),
    );
    return 0;
  },
};

/** Calibration inputs: the profiles read, each with the SHA-256 of its file. */
function withHashes(ps: { file: string; table: ProfileTable }[]) {
  return Promise.all(ps.map(async (p) => ({ ...p, sha256: await sha256File(p.file) })));
}

/** --json (the result), --csv (the one table) or the text report. */
function print(
  opts: Record<string, unknown>,
  io: CommandIO,
  result: unknown,
  table: () => { columns: Column[]; rows: Cell[][] },
  text: () => string,
): void {
  emit(io, opts, result, { table: () => table(), text: () => text() });
}

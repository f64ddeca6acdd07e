import { toJson } from '../../core/json.js';
import { fitCalibrationWithBands, sha256File } from '../../engines/calibrate/index.js';
import { saveCalibration } from '../../model/calibration.js';
import { InputError } from '../../errors.js';
import { fixed, type Cell, type Column } from '../../report/tables.js';
import type { CommandSpec } from '../command.js';
import { rowsText, tableOptions } from '../io.js';
import { PROFILE_OPTIONS, profileOptionArgs, quoteArg, readProfiles } from './profile-options.js';

export const calibrateCommand: CommandSpec = {
  name: 'calibrate',
  summary: 'Fit per-clock power models, a time model, V–f model and power cap from GPU profiles',
  args: [{ name: 'profiles', description: 'profile files of one GPU (microbenchmarks at several SM clocks)', variadic: true }],
  options: [
    ...PROFILE_OPTIONS,
    { name: 'out', value: 'file', description: 'calibration JSON to write', required: true },
    { name: 'device', value: 'name', description: 'device name when the profile does not say it' },
    ...tableOptions('one row per clock model'),
  ],
  example: 'tracewatt calibrate calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv --device "NVIDIA A40" --out out/a40.json',
  async run(files, opts, io) {
    if (!files.length) throw new InputError('calibrate needs at least one profile file');
    const inputs = [];
    for (const r of await readProfiles(files, opts, io)) inputs.push({ ...r, sha256: await sha256File(r.file) });
    const command = [
      'tracewatt calibrate',
      ...files.map(quoteArg),
      ...profileOptionArgs(opts),
      ...(opts.device !== undefined ? ['--device', quoteArg(String(opts.device))] : []),
      '--out',
      quoteArg(String(opts.out)),
    ].join(' ');
    const { calibration } = fitCalibrationWithBands(inputs, { device: opts.device as string | undefined, command });
    await saveCalibration(String(opts.out), calibration);
    // R² is not applicable to an intercept-only model (no components: it is the mean power): "—", empty in CSV.
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
      m.dropped.filter((d) => d.reason !== 'absent').map((d) => d.component).join(' '),
    ]);
    if (opts.json) io.out(toJson(calibration) + '\n');
    else if (opts.csv) io.out(rowsText(opts, columns, rows));
    else {
      io.out(`${calibration.device.name}: ${calibration.power.perClock.length} clock models → ${opts.out}\n`);
      io.out(rowsText(opts, columns, rows));
      io.out(`power cap (${calibration.powerCap.source}): ${calibration.powerCap.evidence}\n`);
      const u = calibration.uncertainty;
      io.out(
        u
          ? `10–90 % bands: from leave-one-benchmark-out residuals (${u.groups} benchmarks in ${u.folds} folds, ${u.kernels} kernels; ${Object.keys(u.modes).join(', ')})\n`
          : `no 10–90 % bands: they need kernels of two or more benchmarks (the name before the first '/') measured at two or more clocks\n`,
      );
      for (const s of calibration.sanity) io.out(`${s.count} × ${s.code} (e.g. ${s.examples[0]})\n`);
    }
    return 0;
  },
};

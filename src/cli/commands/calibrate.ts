import { toJson } from '../../core/json.js';
import { fitCalibrationWithBands, sha256File } from '../../engines/calibrate/index.js';
import { saveCalibration } from '../../model/calibration.js';
import { InputError } from '../../errors.js';
import { fixed, formatTable } from '../../report/tables.js';
import type { CommandSpec } from '../command.js';
import { PROFILE_OPTIONS, profileOptionArgs, quoteArg, readProfiles } from './profile-options.js';

export const calibrateCommand: CommandSpec = {
  name: 'calibrate',
  summary: 'Fit per-clock power models, a time model, V–f model and power cap from GPU profiles',
  args: [{ name: 'profiles', description: 'profile files of one GPU (microbenchmarks at several SM clocks)', variadic: true }],
  options: [
    ...PROFILE_OPTIONS,
    { name: 'out', value: 'file', description: 'calibration JSON to write', required: true },
    { name: 'device', value: 'name', description: 'device name when the profile does not say it' },
  ],
  example: 'tracewatt calibrate ../shared/profiles/nv-dvfs-benchmark/rtx8000-dvfs-microbenchmark-profile.csv --out rtx8000.json',
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
    if (opts.json) io.out(toJson(calibration) + '\n');
    else {
      io.out(`${calibration.device.name}: ${calibration.power.perClock.length} clock models → ${opts.out}\n`);
      // R² is not applicable to an intercept-only model (no components: it is the mean power).
      io.out(
        formatTable(
          [
            { header: 'SM clock (MHz)' },
            { header: 'P0 (W)', format: fixed(1) },
            { header: 'n' },
            { header: 'R²', align: 'right' },
            { header: 'MAPE (%)', format: fixed(1) },
            { header: 'dropped' },
          ],
          calibration.power.perClock.map((m) => [
            m.smClockMHz,
            m.interceptW,
            m.fit.n,
            Object.keys(m.coefficientsW).length === 0 ? '—' : m.fit.r2.toFixed(3),
            m.fit.mapePct,
            m.dropped.filter((d) => d.reason !== 'absent').map((d) => d.component).join(' '),
          ]),
        ),
      );
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

import { toJson } from '../../formats/json.js';
import {
  fitCalibrationWithBands,
  measuredIdle,
  readIdleMeasurement,
  sha256File,
  type IdleMeasurement,
} from '../../engines/calibrate/index.js';
import { saveCalibration, type Calibration } from '../../model/calibration.js';
import { datasheetCalibration } from '../../model/datasheet-calibration.js';
import { deviceMismatchWarning } from '../../model/device-match.js';

import { InputError } from '../../errors.js';
import { fixed, type Cell, type Column } from '../../report/tables.js';
import type { CommandSpec } from '../command.js';
import { choice, rowsText, tableOptions } from '../io.js';
import { progressBar } from '../progress.js';
import { PROFILE_OPTIONS, profileOptionArgs, profileReadOptions, quoteArg, readProfiles } from './profile-options.js';

export const calibrateCommand: CommandSpec = {
  name: 'calibrate',
  summary: 'Fit per-clock power models, a time model, V–f model and power cap from GPU profiles',
  args: [
    {
      name: 'profiles',
      description: 'profile files of one GPU (microbenchmarks at several SM clocks); none with --datasheet',
      variadic: true,
      optional: true,
    },
  ],
  options: [
    ...PROFILE_OPTIONS,
    { name: 'out', value: 'file', description: 'calibration JSON to write', required: true },
    { name: 'device', value: 'name', description: 'device name when the profile does not say it' },
    {
      name: 'idle',
      value: 'file',
      description:
        'idle measurement: an nvidia-smi log (power.draw, clocks.sm, utilization.gpu; samples at 0 % are idle) or a profile with idle rows (every utilization 0); default: idle rows of the profiles, else the published figure',
    },
    {
      name: 'datasheet',
      value: 'device',
      description:
        'write the datasheet-default calibration of a device (H100, A100, …: not fitted) instead of fitting profiles',
    },
    {
      name: 'device-mismatch',
      value: 'ok',
      description: "say nothing when the idle measurement names a device other than the calibration's",
    },
    ...tableOptions('one row per clock model'),
  ],
  example:
    'tracewatt calibrate calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv --device "NVIDIA A40" --out out/a40.json',
  async run(files, opts, io) {
    const sheet = opts.datasheet === undefined ? null : String(opts.datasheet);
    if (sheet !== null && files.length)
      throw new InputError('--datasheet writes a calibration from datasheet facts: give no profile files with it');
    if (sheet === null && !files.length)
      throw new InputError('calibrate needs at least one profile file (or --datasheet DEVICE)');
    const mismatch = choice(opts, 'deviceMismatch', ['ok'] as const);
    const idleFile = opts.idle === undefined ? null : String(opts.idle);
    const idle: (IdleMeasurement & { sha256: string }) | undefined =
      idleFile === null
        ? undefined
        : {
            ...(await readIdleMeasurement(idleFile, { gpuIndex: profileReadOptions(opts).gpuIndex })),
            sha256: await sha256File(idleFile),
          };
    const command = [
      'tracewatt calibrate',
      ...files.map(quoteArg),
      ...profileOptionArgs(opts),
      ...(opts.device !== undefined ? ['--device', quoteArg(String(opts.device))] : []),
      ...(sheet !== null ? ['--datasheet', quoteArg(sheet)] : []),
      ...(idleFile !== null ? ['--idle', quoteArg(idleFile)] : []),
      ...(mismatch ? ['--device-mismatch', mismatch] : []),
      '--out',
      quoteArg(String(opts.out)),
    ].join(' ');
    let calibration: Calibration;
    if (sheet !== null) {
      calibration = datasheetCalibration(sheet, idle ? measuredIdle(idle, null) : undefined);
      calibration.provenance.command = command;
      if (idle)
        calibration.provenance.inputs.push({
          file: idle.file,
          sha256: idle.sha256,
          format: `${idle.format} (idle)`,
          rows: idle.rows,
        });
    } else {
      // The fit runs 10–20 s (the band model refits once per left-out benchmark): a progress line on a terminal.
      const bar = io.isTTY && !opts.json && !opts.csv ? await progressBar('calibrate [{bar}] {stage}') : null;
      bar?.start(1, 0, { stage: 'reading the profiles' });
      try {
        const inputs = [];
        for (const r of await readProfiles(files, opts, io)) inputs.push({ ...r, sha256: await sha256File(r.file) });
        bar?.update(0, { stage: 'fitting the clock models' });
        calibration = fitCalibrationWithBands(inputs, {
          device: opts.device as string | undefined,
          command,
          idle,
          onFold: bar
            ? (done, total) => {
                bar.setTotal(total);
                bar.update(done, { stage: `band model: ${done}/${total} benchmark folds refitted` });
              }
            : undefined,
        }).calibration;
      } finally {
        bar?.stop();
      }
    }
    const warning = idle
      ? deviceMismatchWarning(
          calibration.device.name,
          { what: `the idle measurement ${idle.file}`, device: idle.device },
          "the idle figure is another GPU's",
        )
      : null;
    // Kept on purpose (--device-mismatch ok): the idle block says so.
    if (warning && mismatch === 'ok' && calibration.idle)
      calibration.idle.source += `; measured on ${idle!.device}, taken for ${calibration.device.name} (--device-mismatch ok)`;
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
      m.dropped
        .filter((d) => d.reason !== 'absent')
        .map((d) => d.component)
        .join(' '),
    ]);
    if (opts.json) io.out(`${toJson(calibration)}\n`);
    else if (opts.csv) io.out(rowsText(opts, columns, rows));
    else {
      io.out(`${calibration.device.name}: ${calibration.power.perClock.length} clock models → ${opts.out}\n`);
      io.out(rowsText(opts, columns, rows));
      io.out(`power cap (${calibration.powerCap.source}): ${calibration.powerCap.evidence}\n`);
      if (calibration.idle)
        io.out(
          `idle (${calibration.idle.basis}): ${calibration.idle.powerW} W at ${calibration.idle.smClockMHz} MHz; ${calibration.idle.source}\n`,
        );
      const u = calibration.uncertainty;
      io.out(
        u
          ? `10–90 % bands: from leave-one-benchmark-out residuals (${u.groups} benchmarks in ${u.folds} folds, ${u.kernels} kernels; ${Object.keys(u.modes).join(', ')})\n`
          : `no 10–90 % bands: they need kernels of two or more benchmarks (the name before the first '/') measured at two or more clocks\n`,
      );
      for (const s of calibration.sanity) io.out(`${s.count} × ${s.code} (e.g. ${s.examples[0]})\n`);
    }
    if (warning && mismatch !== 'ok') io.err(`WARNING: ${warning}\n`);
    return 0;
  },
};

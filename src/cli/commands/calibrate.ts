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
import { calibrationRows, calibrationText } from '../../report/text/calibrate.js';
import { defineCommand } from '../command.js';
import { emit, printSaid, tableLayout, tableOptions } from '../io.js';
import { progressFor } from '../progress.js';
import { PROFILE_OPTIONS, profileOptionArgs, profileReadOptions, quoteArg, readProfiles } from './profile-options.js';

export const calibrateCommand = defineCommand({
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
    { name: 'out', type: 'string', value: 'file', description: 'calibration JSON (a file) to write', required: true },
    { name: 'device', type: 'string', value: 'name', description: 'device name when the profile does not say it' },
    {
      name: 'idle',
      type: 'string',
      value: 'file',
      description:
        'idle measurement: an nvidia-smi log (power.draw, clocks.sm, utilization.gpu; samples at 0 % are idle) ' +
        'or a profile with idle rows (every utilization 0); default: idle rows of the profiles, else the ' +
        'published figure',
    },
    {
      name: 'datasheet',
      type: 'string',
      value: 'device',
      description:
        'write the datasheet-default calibration of a device (H100, A100, …: not fitted) instead of fitting profiles',
    },
    {
      name: 'device-mismatch',
      type: 'choice',
      choices: ['ok'],
      value: 'ok',
      description: "say nothing when the idle measurement names a device other than the calibration's",
    },
    ...tableOptions('one row per clock model'),
  ],
  example:
    'tracewatt calibrate calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv --device "NVIDIA A40" ' +
    '--out out/a40.json',
  async run(files, opts, io) {
    const sheet = opts.datasheet ?? null;
    if (sheet !== null && files.length)
      throw new InputError('--datasheet writes a calibration from datasheet facts: give no profile files with it');
    if (sheet === null && !files.length)
      throw new InputError('calibrate needs at least one profile file (or --datasheet DEVICE)');
    const mismatch = opts.deviceMismatch;
    const idleFile = opts.idle ?? null;
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
      ...(opts.device !== undefined ? ['--device', quoteArg(opts.device)] : []),
      ...(sheet !== null ? ['--datasheet', quoteArg(sheet)] : []),
      ...(idleFile !== null ? ['--idle', quoteArg(idleFile)] : []),
      ...(mismatch ? ['--device-mismatch', mismatch] : []),
      '--out',
      quoteArg(opts.out),
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
      const progress = await progressFor(io, opts, 'calibrate [{bar}] {stage}');
      progress?.update(0, 1, { stage: 'reading the profiles' });
      try {
        const inputs = [];
        for (const r of await readProfiles(files, opts, io)) inputs.push({ ...r, sha256: await sha256File(r.file) });
        progress?.update(0, 1, { stage: 'fitting the clock models' });
        calibration = fitCalibrationWithBands(inputs, {
          device: opts.device,
          command,
          idle,
          onFold: progress
            ? (done, total) =>
                progress.update(done, total, { stage: `band model: ${done}/${total} benchmark folds refitted` })
            : undefined,
        }).calibration;
      } finally {
        progress?.stop();
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
      calibration.idle.source +=
        `; measured on ${idle!.device}, taken for ${calibration.device.name} ` + `(--device-mismatch ok)`;
    await saveCalibration(opts.out, calibration);
    emit(io, opts, calibration, {
      table: () => calibrationRows(calibration),
      text: () => calibrationText(calibration, opts.out, tableLayout(opts)),
    });
    if (warning && mismatch !== 'ok') printSaid(io, { warnings: [warning] });
    return 0;
  },
});

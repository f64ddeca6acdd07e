import {
  accuracy,
  calibrationOnlyAccuracy,
  loadCalibration,
  sha256File,
  transferAccuracy,
  type AccuracyResult,
} from '../../engines/calibrate/index.js';
import type { ProfileTable } from '../../vocab/kernel-sample.js';
import { InputError } from '../../errors.js';
import { accuracyRows, accuracyText, transferAccuracyRows, transferAccuracyText } from '../../report/text/accuracy.js';
import { defineCommand } from '../command.js';
import { emit, printSaid, tableLayout, tableOptions } from '../io.js';
import { deviceMismatchWarning } from '../../model/device-match.js';
import {
  DEVICE_MISMATCH_OPTION,
  namingProfile,
  PROFILE_OPTIONS,
  REFERENCE_CLOCKS_OPTION,
  readProfiles,
  requirePower,
} from './profile-options.js';

export const accuracyCommand = defineCommand({
  name: 'accuracy',
  summary: 'Compare modelled time, power and energy with measurements, per SM clock',
  args: [],
  options: [
    {
      name: 'calibration',
      type: 'string',
      value: 'file',
      description: 'calibration JSON (not needed with --calibration-only)',
    },
    {
      name: 'profile',
      type: 'string',
      value: 'file',
      description: 'measured profile at several clocks (with --calibration-only: the calibration inputs)',
      required: true,
      repeatable: true,
    },
    ...PROFILE_OPTIONS,
    {
      ...REFERENCE_CLOCKS_OPTION,
      description: 'clock(s) used as input, comma-separated; all other clocks are ground truth',
    },
    {
      name: 'fit-frequencies',
      type: 'list',
      unit: 'MHz',
      positive: true,
      value: 'list',
      description: 'counter-free sweeps: clocks the per-stage t(f), P(f) are fitted on',
    },
    {
      name: 'scaling',
      type: 'choice',
      choices: ['ratio', 'offset'],
      description: 'reference-clock power correction',
      default: 'ratio',
    },
    DEVICE_MISMATCH_OPTION,
    {
      name: 'calibration-only',
      type: 'boolean',
      description: 'leave-one-frequency-out and leave-one-kernel-out errors of a calibration fitted on --profile',
    },
    {
      name: 'bands-from',
      type: 'string',
      value: 'file',
      description:
        "leave-one-GPU-out: fit the band parameters on this profile (another GPU's calibration profile) and " +
        "measure the bands' coverage on --profile's left-out benchmarks",
      repeatable: true,
    },
    {
      name: 'held-out',
      type: 'string',
      value: 'file',
      description:
        'with --bands-from: also measure the coverage on these kernels of the GPU under test (e.g. real ' +
        'applications), predicted by the calibration fitted on --profile',
    },
    ...tableOptions('one row per SM clock'),
  ],
  example:
    'tracewatt accuracy --calibration calibration/a40.json --profile ' +
    'calibration/profiles/perseus-sosp24/bloom+a40_bf16.csv --fit-frequencies 1200,1500,1740',
  async run(_args, opts, io) {
    const files = opts.profile;
    if (opts.bandsFrom.length) {
      if (opts.calibration || opts.calibrationOnly || opts.referenceFrequency || opts.fitFrequencies)
        throw new InputError(
          '--bands-from fits its own calibrations from --profile (each kernel from its highest clock): drop ' +
            '--calibration, --calibration-only, --reference-frequency and --fit-frequencies',
        );
      const train = await withHashes(await readProfiles(opts.bandsFrom, opts, io));
      const evaluate = await withHashes(await readProfiles(files, opts, io));
      const held = opts.heldOut ? (await readProfiles([opts.heldOut], opts, io))[0]!.table : null;
      const t = transferAccuracy(train, evaluate, held, { heldOutLabel: opts.heldOut || undefined });
      emit(io, opts, t, {
        table: () => transferAccuracyRows(t),
        text: () => transferAccuracyText(t, tableLayout(opts)),
      });
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
          `--profile: compare one measured profile with --calibration (got ${files.length}); several profiles ` +
            `go with --calibration-only`,
        );
      const cal = await loadCalibration(opts.calibration);
      const refs = opts.referenceFrequency;
      const fit = opts.fitFrequencies;
      const scaling = opts.scaling;
      const table = (await readProfiles(files, opts, io))[0]!.table;
      requirePower(files[0]!, table);
      const mismatch =
        opts.deviceMismatch === 'ok'
          ? null
          : deviceMismatchWarning(cal.device.name, { what: `the profile ${files[0]}`, device: table.device });
      if (mismatch) printSaid(io, { warnings: [mismatch] });
      r = namingProfile(files[0]!, () =>
        accuracy(cal, table, {
          referenceClocksMHz: refs,
          fitClocksMHz: fit,
          scaling,
          label: `${cal.device.name}: ${files[0]}`,
        }),
      );
    }
    emit(io, opts, r, { table: () => accuracyRows(r), text: () => accuracyText(r, tableLayout(opts)) });
    return 0;
  },
});

/** Calibration inputs: the profiles read, each with the SHA-256 of its file. */
function withHashes(ps: { file: string; table: ProfileTable }[]) {
  return Promise.all(ps.map(async (p) => ({ ...p, sha256: await sha256File(p.file) })));
}

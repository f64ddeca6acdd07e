import { checkTargetClock, loadCalibration, predictProfile } from '../../engines/calibrate/index.js';
import { predictRows, predictText } from '../../report/text/predict.js';
import { defineCommand } from '../command.js';
import { emit, printSaid, tableLayout, tableOptions, CALIBRATION_OPTION } from '../io.js';
import {
  DEVICE_MISMATCH_OPTION,
  namingProfile,
  PROFILE_OPTIONS,
  REFERENCE_CLOCKS_OPTION,
  readProfiles,
} from './profile-options.js';

export const predictCommand = defineCommand({
  name: 'predict',
  summary: 'Predict every kernel of a profile at other SM clocks (time, power, energy; estimates)',
  args: [],
  options: [
    CALIBRATION_OPTION,
    {
      name: 'profile',
      type: 'string',
      value: 'file',
      description: 'profile with the kernels to predict',
      required: true,
    },
    ...PROFILE_OPTIONS,
    {
      ...REFERENCE_CLOCKS_OPTION,
      description: 'clock(s) the profile was taken at, comma-separated',
      required: true,
    },
    {
      name: 'frequencies',
      type: 'list',
      unit: 'MHz',
      positive: true,
      keyword: 'all',
      value: 'list',
      description:
        "target clocks, comma-separated, or 'all' (the calibrated clocks); within the device's SM clock range",
      default: 'all',
    },
    DEVICE_MISMATCH_OPTION,
    ...tableOptions('one row per kernel and clock, times in ns, with the 10–90 % bands'),
  ],
  example:
    'tracewatt predict --calibration calibration/a40.json --profile ' +
    'calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv --reference-frequency 1740 --frequencies ' +
    '1200,1500',
  async run(_args, opts, io) {
    const cal = await loadCalibration(opts.calibration);
    const refs = opts.referenceFrequency;
    const targets = opts.frequencies;
    if (targets !== 'all') for (const f of targets) checkTargetClock(cal, f);
    // One reference clock is also the clock of profiles that record none (a Kineto trace).
    const profile = (
      await readProfiles([opts.profile], opts, io, {
        referenceClockMHz: refs.length === 1 ? refs[0] : undefined,
      })
    )[0]!.table;
    const r = namingProfile(opts.profile, () =>
      predictProfile(cal, profile, {
        referenceClocksMHz: refs,
        targetClocksMHz: targets,
        deviceMismatch: opts.deviceMismatch,
        profileName: opts.profile,
      }),
    );
    printSaid(io, r);
    emit(io, opts, r, { table: () => predictRows(r), text: () => predictText(r, tableLayout(opts)) });
    if (!opts.json && !opts.csv) for (const s of r.skipped) io.err(`skipped ${s}\n`);
    return 0;
  },
});

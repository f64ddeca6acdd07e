/**
 * The profile options shared by calibrate, predict and accuracy: one definition, so every command that reads
 * GPU profiles reaches every reader option (format, generic column mapping, the Nsight Systems + power-log join).
 * Each table's notes and the readers' diagnostics are printed to stderr, so nothing is assumed silently.
 */
import { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import { POWER_FORMATS, PROFILE_FORMATS, type ReadProfileOptions } from '../../formats/profiles/index.js';
import type { ProfileTable } from '../../vocab/kernel-sample.js';
import { samplePowerW } from '../../model/kernels.js';
import { readProfileMerged } from '../../engines/calibrate/index.js';
import type { CommandIO } from '../command.js';
import { printSaid } from '../io.js';
import { camelCase, parseOptions, type TypedOption } from '../options.js';

/** --power-log and the options that read it (they need it: `requires`). */
export const POWER_LOG_OPTIONS = [
  {
    name: 'power-log',
    type: 'string',
    value: 'file',
    description: 'power log joined with an Nsight Systems cuda_gpu_trace for per-kernel power and energy',
    deprecatedNames: ['power'],
  },
  {
    name: 'power-format',
    type: 'choice',
    choices: POWER_FORMATS,
    value: 'F',
    description: 'force the power log format',
    requires: 'power-log',
  },
  {
    name: 'power-offset-ns',
    type: 'number',
    unit: 'ns',
    value: 'ns',
    description:
      "time of the trace's zero on the power log's clock, ns after its first sample (default 0: both start together)",
    requires: 'power-log',
  },
  {
    name: 'gpu-index',
    type: 'int',
    min: 0,
    value: 'N',
    description: 'GPU to take from a multi-GPU power log (default: the first one seen)',
    requires: 'power-log',
  },
  {
    name: 'sensor-period-ms',
    type: 'number',
    positive: true,
    unit: 'ms',
    value: 'ms',
    description: 'power sensor update period (default: estimated from the log, else 100 ms)',
    requires: 'power-log',
  },
  {
    name: 'dmon-interval-ms',
    type: 'number',
    positive: true,
    unit: 'ms',
    value: 'ms',
    description: 'sample interval of a dcgmi dmon power log, which has no timestamps (default 1000)',
    requires: 'power-log',
  },
] as const satisfies readonly TypedOption[];

/** --mapping: a column mapping for the generic reader. */
export const MAPPING_OPTION = {
  name: 'mapping',
  type: 'string',
  value: 'file',
  description: 'column mapping (JSON or YAML) for a CSV with no dedicated reader; implies --format generic',
} as const satisfies TypedOption;

/** --reference-frequency as the list of clocks a profile was taken at (accuracy, predict); each says what they do. */
export const REFERENCE_CLOCKS_OPTION = {
  name: 'reference-frequency',
  type: 'list',
  unit: 'MHz',
  positive: true,
  value: 'MHz',
} as const;

/** --device-mismatch ok, for a command that checks a profile's device against the calibration's. */
export const DEVICE_MISMATCH_OPTION = {
  name: 'device-mismatch',
  type: 'choice',
  choices: ['ok'],
  value: 'ok',
  description:
    "say nothing when the profile names a device other than the calibration's (default: a warning naming both)",
} as const satisfies TypedOption;

export const PROFILE_OPTIONS = [
  {
    name: 'format',
    type: 'choice',
    choices: PROFILE_FORMATS,
    value: 'F',
    description: 'force the profile format instead of detecting it',
  },
  MAPPING_OPTION,
  ...POWER_LOG_OPTIONS,
] as const satisfies readonly TypedOption[];

/** The profile options' values as a command holds them (typed), or as a command not yet typed holds them (raw). */
type ProfileValues = Readonly<Record<string, unknown>>;

/** The profile options' values, parsed (again, for a typed command: parsing a parsed value gives it back). */
function profileValues(opts: ProfileValues) {
  const picked: Record<string, unknown> = {};
  for (const o of PROFILE_OPTIONS) picked[camelCase(o.name)] = opts[camelCase(o.name)];
  return parseOptions(PROFILE_OPTIONS, picked, () => {});
}

/** Maps parsed command options to readProfile options; throws InputError naming the option for bad values. */
export function profileReadOptions(opts: ProfileValues): ReadProfileOptions {
  const v = profileValues(opts);
  const out: ReadProfileOptions = {};
  if (v.format !== undefined) out.format = v.format;
  if (v.mapping !== undefined) {
    if (out.format !== undefined && out.format !== 'generic')
      throw new InputError(
        `--mapping is read by the generic format only; drop --format ${out.format} or use --format generic`,
      );
    out.mapping = v.mapping;
  }
  if (v.powerLog !== undefined) out.power = v.powerLog;
  if (v.powerFormat !== undefined) out.powerFormat = v.powerFormat;
  if (v.powerOffsetNs !== undefined) out.powerOffsetNs = v.powerOffsetNs;
  if (v.gpuIndex !== undefined) out.gpuIndex = v.gpuIndex;
  if (v.sensorPeriodMs !== undefined) out.sensorPeriodNs = v.sensorPeriodMs * 1e6;
  if (v.dmonIntervalMs !== undefined) out.dmonIntervalMs = v.dmonIntervalMs;
  return out;
}

/** The profile options as given, for the command line recorded in a calibration's provenance. */
export function profileOptionArgs(opts: ProfileValues): string[] {
  const args: string[] = [];
  for (const o of PROFILE_OPTIONS) {
    const v = opts[camelCase(o.name)];
    if (v !== undefined) args.push(`--${o.name}`, quoteArg(String(v)));
  }
  return args;
}

/** A shell word: quoted when it holds spaces or shell characters. */
export function quoteArg(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Reads profile files with the shared options (and `extra`, e.g. the clock for profiles that record none); prints
 * each table's notes and the readers' diagnostics to stderr. --power-log joins one trace with one power log, so it
 * takes
 * exactly one profile.
 */
export async function readProfiles(
  files: string[],
  opts: ProfileValues,
  io: CommandIO,
  extra: Pick<ReadProfileOptions, 'referenceClockMHz'> = {},
): Promise<{ file: string; table: ProfileTable }[]> {
  const options = { ...profileReadOptions(opts), ...extra };
  if (options.power !== undefined && files.length > 1)
    throw new InputError(`--power-log joins one Nsight Systems trace with one power log; got ${files.length} profiles`);
  const out: { file: string; table: ProfileTable }[] = [];
  for (const file of files) {
    const diagnostics = new Diagnostics();
    const table = await readProfileMerged(file, { ...options, diagnostics });
    reportProfile(file, table, diagnostics, io);
    out.push({ file, table });
  }
  return out;
}

/** Notes ("aggregated by kernel name …", "… taken as seconds") and diagnostics of one read, to stderr. */
export function reportProfile(file: string, table: ProfileTable, diagnostics: Diagnostics, io: CommandIO): void {
  printSaid(io, { source: file, notes: table.notes, diagnostics: diagnostics.summary() });
}

/**
 * A profile with at least one usable power reading (power, or energy and duration, both > 0); else an InputError
 * naming the file: a comparison of modelled with measured power and energy has nothing to compare with (before, it
 * printed blank power errors and energy errors of 0.00 %, exit 0).
 */
export function requirePower(file: string, table: ProfileTable): void {
  if (table.samples.some((s) => samplePowerW(s) !== null)) return;
  throw new InputError(
    `${file}: no usable power reading in ${table.samples.length} sample(s) (every power or energy is missing, ` +
      `0 or negative): nothing to compare the modelled power and energy with`,
  );
}

/** Runs a step on a profile; an InputError that does not name the file is given its name (`<file>: …`). */
export function namingProfile<T>(file: string, step: () => T): T {
  try {
    return step();
  } catch (e) {
    if (e instanceof InputError && !e.message.includes(file)) throw new InputError(`${file}: ${e.message}`, e.code);
    throw e;
  }
}

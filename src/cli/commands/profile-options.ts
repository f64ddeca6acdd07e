/**
 * The profile options shared by calibrate, predict and accuracy: one definition, so every command that reads
 * GPU profiles reaches every reader option (format, generic column mapping, the Nsight Systems + power-log join).
 * Each table's notes and the readers' diagnostics are printed to stderr, so nothing is assumed silently.
 */
import { Diagnostics } from '../../diagnostics.js';
import { excerpt, InputError } from '../../errors.js';
import {
  POWER_FORMATS,
  PROFILE_FORMATS,
  type PowerFormat,
  type ProfileFormat,
  type ReadProfileOptions,
} from '../../formats/profiles/index.js';
import type { ProfileTable } from '../../vocab/kernel-sample.js';
import { samplePowerW } from '../../model/kernels.js';
import { readProfileMerged } from '../../engines/calibrate/index.js';
import type { CommandIO, OptionSpec } from '../command.js';

export const PROFILE_OPTIONS: OptionSpec[] = [
  {
    name: 'format',
    value: 'F',
    description: `force the profile format instead of detecting it (${PROFILE_FORMATS.join(', ')})`,
  },
  {
    name: 'mapping',
    value: 'file',
    description: 'column mapping (JSON or YAML) for a CSV with no dedicated reader; implies --format generic',
  },
  {
    name: 'power',
    value: 'file',
    description: 'power log joined with an Nsight Systems cuda_gpu_trace for per-kernel power and energy',
  },
  {
    name: 'power-format',
    value: 'F',
    description: `force the power log format (${POWER_FORMATS.join(', ')}); needs --power`,
  },
  {
    name: 'power-offset-ns',
    value: 'ns',
    description:
      "time of the trace's zero on the power log's clock, ns after its first sample (default 0: both start together); needs --power",
  },
  {
    name: 'gpu-index',
    value: 'N',
    description: 'GPU to take from a multi-GPU power log (default: the first one seen); needs --power',
  },
  {
    name: 'sensor-period-ms',
    value: 'ms',
    description: 'power sensor update period (default: estimated from the log, else 100 ms); needs --power',
  },
  {
    name: 'dmon-interval-ms',
    value: 'ms',
    description: 'sample interval of a dcgmi dmon power log, which has no timestamps (default 1000); needs --power',
  },
];

function numberOption(
  opts: Record<string, unknown>,
  key: string,
  flag: string,
  check: (v: number) => boolean,
  expected: string,
): number | undefined {
  const raw = opts[key];
  if (raw === undefined) return undefined;
  const s = String(raw).trim();
  const v = Number(s);
  if (!s || !Number.isFinite(v) || !check(v))
    throw new InputError(`--${flag}: expected ${expected}, got "${excerpt(String(raw))}"`);
  return v;
}

/** Maps parsed command options to readProfile options; throws InputError naming the option for bad values. */
export function profileReadOptions(opts: Record<string, unknown>): ReadProfileOptions {
  const out: ReadProfileOptions = {};
  if (opts.format !== undefined) {
    const f = String(opts.format);
    if (!(PROFILE_FORMATS as readonly string[]).includes(f))
      throw new InputError(`--format: unknown profile format '${f}' (known: ${PROFILE_FORMATS.join(', ')})`);
    out.format = f as ProfileFormat;
  }
  if (opts.mapping !== undefined) {
    if (out.format !== undefined && out.format !== 'generic')
      throw new InputError(
        `--mapping is read by the generic format only; drop --format ${out.format} or use --format generic`,
      );
    out.mapping = String(opts.mapping);
  }
  if (opts.power !== undefined) out.power = String(opts.power);
  if (opts.powerFormat !== undefined) {
    const f = String(opts.powerFormat);
    if (!(POWER_FORMATS as readonly string[]).includes(f))
      throw new InputError(`--power-format: unknown power log format '${f}' (known: ${POWER_FORMATS.join(', ')})`);
    out.powerFormat = f as PowerFormat;
  }
  const offset = numberOption(opts, 'powerOffsetNs', 'power-offset-ns', () => true, 'a number of ns');
  if (offset !== undefined) out.powerOffsetNs = offset;
  const gpu = numberOption(
    opts,
    'gpuIndex',
    'gpu-index',
    (v) => Number.isInteger(v) && v >= 0,
    'a GPU index (0, 1, …)',
  );
  if (gpu !== undefined) out.gpuIndex = gpu;
  const period = numberOption(opts, 'sensorPeriodMs', 'sensor-period-ms', (v) => v > 0, 'a positive number of ms');
  if (period !== undefined) out.sensorPeriodNs = period * 1e6;
  const dmon = numberOption(opts, 'dmonIntervalMs', 'dmon-interval-ms', (v) => v > 0, 'a positive number of ms');
  if (dmon !== undefined) out.dmonIntervalMs = dmon;
  if (out.power === undefined) {
    const given = PROFILE_OPTIONS.filter(
      (o) => /needs --power$/.test(o.description) && opts[camel(o.name)] !== undefined,
    ).map((o) => `--${o.name}`);
    if (given.length)
      throw new InputError(
        `${given.join(', ')} ${given.length === 1 ? 'applies' : 'apply'} to a power log: pass it with --power`,
      );
  }
  return out;
}

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The profile options as given, for the command line recorded in a calibration's provenance. */
export function profileOptionArgs(opts: Record<string, unknown>): string[] {
  const args: string[] = [];
  for (const o of PROFILE_OPTIONS) {
    const v = opts[camel(o.name)];
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
 * each table's notes and the readers' diagnostics to stderr. --power joins one trace with one power log, so it takes
 * exactly one profile.
 */
export async function readProfiles(
  files: string[],
  opts: Record<string, unknown>,
  io: CommandIO,
  extra: Pick<ReadProfileOptions, 'referenceClockMHz'> = {},
): Promise<{ file: string; table: ProfileTable }[]> {
  const options = { ...profileReadOptions(opts), ...extra };
  if (options.power !== undefined && files.length > 1)
    throw new InputError(`--power joins one Nsight Systems trace with one power log; got ${files.length} profiles`);
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
  for (const n of table.notes) io.err(`${file}: note: ${n}\n`);
  for (const d of diagnostics.summary()) {
    const ex = d.samples[0];
    io.err(
      `${file}: ${d.count} × ${d.code}${ex ? ` (e.g. ${ex.file && ex.file !== file ? `${ex.file}: ` : ''}${ex.message})` : ''}\n`,
    );
  }
}

/**
 * A profile with at least one usable power reading (power, or energy and duration, both > 0); else an InputError
 * naming the file: a comparison of modelled with measured power and energy has nothing to compare with (before, it
 * printed blank power errors and energy errors of 0.00 %, exit 0).
 */
export function requirePower(file: string, table: ProfileTable): void {
  if (table.samples.some((s) => samplePowerW(s) !== null)) return;
  throw new InputError(
    `${file}: no usable power reading in ${table.samples.length} sample(s) (every power or energy is missing, 0 or negative): nothing to compare the modelled power and energy with`,
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

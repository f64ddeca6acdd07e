/** `tracewatt plan`: Perseus-style time–energy frontier and per-computation clock plans for pipeline training. */
import { planProfile, planTrace, type PlanRecord } from '../../engines/plan/index.js';
import { InputError } from '../../errors.js';
import { planFrontierRows, planText } from '../../report/plan-text.js';
import { writePlanOutputs } from '../../report/text/plan-outputs.js';
import type { CommandIO, CommandSpec } from '../command.js';
import { choice, emit, flagOf, int, intOf, num, numberList, str, tableLayout, tableOptions } from '../io.js';
import { profileReadOptions, reportProfile } from './profile-options.js';

export const planCommand: CommandSpec = {
  name: 'plan',
  summary:
    'Perseus-style iteration time–energy frontier and per-computation clock plans for pipeline training (estimates)',
  args: [],
  options: [
    {
      name: 'profile',
      value: 'file',
      description:
        'stage profile: per stage, forward and backward time and energy at several clocks (Perseus CSV, or any format naming stage<N>/forward|backward)',
    },
    { name: 'format', value: 'F', description: 'force the profile format (e.g. perseus)' },
    { name: 'mapping', value: 'file', description: 'column mapping for a generic CSV; implies --format generic' },
    { name: 'stages', value: 'n', description: 'pipeline stages (the profile must have stages 0 … n−1)' },
    { name: 'micro-batches', value: 'n', description: 'micro-batches per iteration' },
    { name: 'schedule', value: '1f1b|gpipe', description: 'pipeline schedule', default: '1f1b' },
    {
      name: 'blocking-power',
      value: 'W',
      description:
        "power a GPU draws while it waits on pipeline communication (Perseus: A40 70.38, A100 83.64; with --trace default: the power config's GPU idle power)",
    },
    {
      name: 'fit-frequencies',
      value: 'list',
      description:
        'plan from these clocks only: per-stage t(f), P(f) fitted on them give every clock (profile once, plan everywhere)',
    },
    {
      name: 'calibration',
      value: 'file',
      description:
        "with --fit-frequencies: take the GPU's power cap from this calibration (as accuracy --fit-frequencies does)",
    },
    {
      name: 'power-cap',
      value: 'W',
      description: 'with --fit-frequencies: power cap in W (instead of --calibration; default: none)',
    },
    {
      name: 'clock-step',
      value: 'MHz',
      description: 'with --fit-frequencies: candidate clocks from the lowest to the highest fit clock in this step',
      default: 15,
    },
    {
      name: 'straggler-slowdown',
      value: 'x',
      description:
        "another pipeline's iteration takes x × the all-max-clock time: plan this one for it (extrinsic saving)",
    },
    { name: 'deadline-s', value: 's', description: 'iteration time to plan for, s (instead of --straggler-slowdown)' },
    {
      name: 'trace',
      value: 'prefix',
      description:
        'instead of --profile: a trace from generate llm annotated at several clocks (the annotate --out prefix; files <prefix>.<F>MHz.<rank>.et)',
    },
    { name: 'frequencies', value: 'list', description: 'with --trace: the clocks it was annotated at, MHz' },
    { name: 'system', value: 'file', description: 'with --trace: ASTRA-sim system.json' },
    { name: 'network', value: 'file', description: 'with --trace: ASTRA-sim network.yml' },
    { name: 'memory', value: 'file', description: 'with --trace: ASTRA-sim remote memory JSON' },
    { name: 'comm-group', value: 'file', description: 'with --trace: ASTRA-sim comm-group JSON' },
    {
      name: 'power',
      value: 'file',
      description: 'with --trace: power.json (default: the one annotate wrote beside the highest clock)',
    },
    {
      name: 'tolerance',
      value: '%',
      description: 'with --trace: replayed iteration time allowed above the all-max-clock one',
      default: 0.1,
    },
    {
      name: 'time-quantum',
      value: 's',
      description:
        "floor every computation's time to a multiple of this, as Perseus' solver does (its frontier files: A40 0.0001, A100 0.001): only to compare with them",
    },
    {
      name: 'points',
      value: 'n',
      description:
        'plans realized between the fastest and the slowest iteration time (and one at the all-max-clock time)',
      default: 400,
    },
    {
      name: 'out',
      value: 'dir',
      description: 'write plan.json, frontier.csv, split-frontier.csv, extrinsic.csv and plan-*.csv here',
    },
    ...tableOptions('the frontier, one row per plan'),
  ],
  example:
    'tracewatt plan --profile calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv --stages 8 --micro-batches 12 --schedule 1f1b --blocking-power 70.38',
  async run(_args, opts, io) {
    const record = opts.trace !== undefined ? await traceRecord(opts) : await profileRecord(opts, io);
    const out = str(opts, 'out');
    const written = out ? await writePlanOutputs(out, record) : [];
    emit(io, opts, record, {
      table: () => planFrontierRows(record),
      text: () => planText(record, tableLayout(opts)) + (written.length ? `wrote ${written.join(', ')}\n` : ''),
    });
    return 0;
  },
};

const TRACE_ONLY = ['frequencies', 'system', 'network', 'memory', 'commGroup', 'power'];
const PROFILE_ONLY = [
  'profile',
  'format',
  'mapping',
  'stages',
  'microBatches',
  'fitFrequencies',
  'calibration',
  'powerCap',
  'stragglerSlowdown',
  'deadlineS',
  'timeQuantum',
];

async function traceRecord(opts: Record<string, unknown>): Promise<PlanRecord> {
  const wrong = PROFILE_ONLY.filter((k) => opts[k] !== undefined);
  if (wrong.length)
    throw new InputError(
      `${wrong.map(flagOf).join(', ')}: not with --trace (the trace names its stages and micro-batches)`,
    );
  const frequencies = numberList(opts, 'frequencies', 'MHz');
  if (!frequencies) throw new InputError('--trace needs --frequencies: the clocks it was annotated at');
  if (opts.system === undefined || opts.network === undefined)
    throw new InputError('--trace needs --system and --network (the cluster the trace is replayed on)');
  return planTrace({
    trace: String(opts.trace),
    frequenciesMHz: frequencies,
    system: String(opts.system),
    network: String(opts.network),
    memory: str(opts, 'memory'),
    commGroup: str(opts, 'commGroup'),
    power: str(opts, 'power'),
    blockingPowerW: num(opts, 'blockingPower', { min: 0, unit: 'W' }),
    tolerancePct: num(opts, 'tolerance', { min: 0, unit: '%' }),
    points: int(opts, 'points', { min: 2 }),
  });
}

async function profileRecord(opts: Record<string, unknown>, io: CommandIO): Promise<PlanRecord> {
  const wrong = TRACE_ONLY.filter((k) => opts[k] !== undefined);
  if (wrong.length) throw new InputError(`${wrong.map(flagOf).join(', ')}: only with --trace`);
  if (opts.profile === undefined) throw new InputError('give --profile (stage profile) or --trace (annotated trace)');
  for (const k of ['stages', 'microBatches', 'blockingPower'])
    if (opts[k] === undefined) throw new InputError(`--profile needs ${flagOf(k)}`);
  const file = String(opts.profile);
  const stages = intOf(opts, 'stages');
  const microBatches = intOf(opts, 'microBatches');
  const schedule = choice(opts, 'schedule', ['1f1b', 'gpipe'] as const) ?? '1f1b';
  const blockingPowerW = num(opts, 'blockingPower', { min: 0, unit: 'W' })!;
  const stragglerSlowdown = num(opts, 'stragglerSlowdown', { min: 1, unit: 'the all-max-clock time' });
  const deadlineS = num(opts, 'deadlineS', { positive: true, unit: 's' });
  if (stragglerSlowdown !== undefined && deadlineS !== undefined)
    throw new InputError('give --straggler-slowdown or --deadline-s, not both');
  const read = profileReadOptions(opts);
  const fit = numberList(opts, 'fitFrequencies', 'MHz');
  if (!fit && (opts.calibration !== undefined || opts.powerCap !== undefined))
    throw new InputError('--calibration and --power-cap apply to --fit-frequencies');
  if (fit && fit.length < 2) throw new InputError('--fit-frequencies: give at least two clocks');
  return planProfile({
    file,
    read,
    stages,
    microBatches,
    schedule,
    blockingPowerW,
    fit: fit && {
      clocksMHz: fit,
      clockStepMHz: num(opts, 'clockStep', { positive: true, unit: 'MHz' }),
      powerCapW: num(opts, 'powerCap', { positive: true, unit: 'W' }),
      calibration: str(opts, 'calibration'),
    },
    timeQuantumS: num(opts, 'timeQuantum', { positive: true, unit: 's' }),
    points: int(opts, 'points', { min: 2 }),
    stragglerSlowdown,
    deadlineS,
    onRead: (table, diagnostics) => reportProfile(file, table, diagnostics, io),
  });
}

/** `tracewatt plan`: Perseus-style time–energy frontier and per-computation clock plans for pipeline training. */
import { planProfile, planTrace, type PlanRecord } from '../../engines/plan/index.js';
import { InputError } from '../../errors.js';
import { planFrontierRows, planText } from '../../report/plan-text.js';
import { writePlanOutputs } from '../../report/text/plan-outputs.js';
import { defineCommand, type CommandIO } from '../command.js';
import { clusterFiles, emit, flagOf, powerConfigOption, tableLayout, tableOptions } from '../io.js';
import type { OptionValues, TypedOption } from '../options.js';
import { profileReadOptions, reportProfile } from './profile-options.js';

const PLAN_OPTIONS = [
  {
    name: 'profile',
    type: 'string',
    value: 'file',
    description:
      'stage profile: per stage, forward and backward time and energy at several clocks (Perseus CSV, or any ' +
      'format naming stage<N>/forward|backward)',
  },
  { name: 'format', type: 'string', value: 'F', description: 'force the profile format (e.g. perseus)' },
  {
    name: 'mapping',
    type: 'string',
    value: 'file',
    description: 'column mapping for a generic CSV; implies --format generic',
  },
  { name: 'stages', type: 'int', value: 'n', description: 'pipeline stages (the profile must have stages 0 … n−1)' },
  { name: 'micro-batches', type: 'int', value: 'n', description: 'micro-batches per iteration' },
  {
    name: 'schedule',
    type: 'choice',
    choices: ['1f1b', 'gpipe'],
    value: '1f1b|gpipe',
    description: 'pipeline schedule',
    default: '1f1b',
  },
  {
    name: 'blocking-power',
    type: 'number',
    min: 0,
    unit: 'W',
    value: 'W',
    description:
      'power a GPU draws while it waits on pipeline communication (Perseus: A40 70.38, A100 83.64; with ' +
      "--trace default: the power config's GPU idle power)",
  },
  {
    name: 'fit-frequencies',
    type: 'list',
    unit: 'MHz',
    value: 'list',
    description:
      'plan from these clocks only: per-stage t(f), P(f) fitted on them give every clock (profile once, plan ' +
      'everywhere)',
  },
  {
    name: 'calibration',
    type: 'string',
    value: 'file',
    requires: 'fit-frequencies',
    description: "take the GPU's power cap from this calibration (as accuracy --fit-frequencies does)",
  },
  {
    name: 'power-cap',
    type: 'number',
    positive: true,
    unit: 'W',
    value: 'W',
    requires: 'fit-frequencies',
    description: 'power cap in W (instead of --calibration; default: none)',
  },
  {
    name: 'clock-step',
    type: 'number',
    positive: true,
    unit: 'MHz',
    value: 'MHz',
    requires: 'fit-frequencies',
    description: 'candidate clocks from the lowest to the highest fit clock in this step',
    default: 15,
  },
  {
    name: 'straggler-slowdown',
    type: 'number',
    min: 1,
    unit: 'the all-max-clock time',
    value: 'x',
    description:
      "another pipeline's iteration takes x × the all-max-clock time: plan this one for it (extrinsic saving)",
  },
  {
    name: 'deadline-s',
    type: 'number',
    positive: true,
    unit: 's',
    value: 's',
    description: 'iteration time to plan for, s (instead of --straggler-slowdown)',
  },
  {
    name: 'trace',
    type: 'string',
    value: 'prefix',
    description:
      'instead of --profile: a trace from generate llm annotated at several clocks (the annotate --out prefix; ' +
      'files <prefix>.<F>MHz.<rank>.et)',
  },
  {
    name: 'frequencies',
    type: 'list',
    unit: 'MHz',
    value: 'list',
    requires: 'trace',
    description: 'the clocks the trace was annotated at, MHz',
  },
  { name: 'system', type: 'string', value: 'file', requires: 'trace', description: 'ASTRA-sim system.json' },
  { name: 'network', type: 'string', value: 'file', requires: 'trace', description: 'ASTRA-sim network.yml' },
  { name: 'memory', type: 'string', value: 'file', requires: 'trace', description: 'ASTRA-sim remote memory JSON' },
  { name: 'comm-group', type: 'string', value: 'file', requires: 'trace', description: 'ASTRA-sim comm-group JSON' },
  {
    ...powerConfigOption('power.json or a preset (default: the one annotate wrote beside the highest clock)'),
    requires: 'trace',
  },
  {
    name: 'tolerance',
    type: 'number',
    min: 0,
    unit: '%',
    value: '%',
    requires: 'trace',
    description: 'replayed iteration time allowed above the all-max-clock one',
    default: 0.1,
  },
  {
    name: 'time-quantum',
    type: 'number',
    positive: true,
    unit: 's',
    value: 's',
    description:
      "floor every computation's time to a multiple of this, as Perseus' solver does (its frontier files: A40 " +
      '0.0001, A100 0.001): only to compare with them',
  },
  {
    name: 'points',
    type: 'int',
    min: 2,
    value: 'n',
    description:
      'plans realized between the fastest and the slowest iteration time (and one at the all-max-clock time)',
    default: 400,
  },
  {
    name: 'out',
    type: 'string',
    value: 'dir',
    description: 'write plan.json, frontier.csv, split-frontier.csv, extrinsic.csv and plan-*.csv here',
  },
  ...tableOptions('the frontier, one row per plan'),
] as const satisfies readonly TypedOption[];

type PlanOptions = OptionValues<typeof PLAN_OPTIONS>;

export const planCommand = defineCommand({
  name: 'plan',
  summary:
    'Perseus-style iteration time–energy frontier and per-computation clock plans for pipeline training (estimates)',
  args: [],
  options: PLAN_OPTIONS,
  example:
    'tracewatt plan --profile calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv --stages 8 ' +
    '--micro-batches 12 --schedule 1f1b --blocking-power 70.38',
  async run(_args, opts, io) {
    const record = opts.trace !== undefined ? await traceRecord(opts.trace, opts) : await profileRecord(opts, io);
    const written = opts.out ? await writePlanOutputs(opts.out, record) : [];
    emit(io, opts, record, {
      table: () => planFrontierRows(record),
      text: () => planText(record, tableLayout(opts)) + (written.length ? `wrote ${written.join(', ')}\n` : ''),
    });
    return 0;
  },
});

/** Options of the profile planner, refused with --trace (the trace names its stages and micro-batches). */
const PROFILE_ONLY = [
  'profile',
  'format',
  'mapping',
  'stages',
  'microBatches',
  'fitFrequencies',
  'stragglerSlowdown',
  'deadlineS',
  'timeQuantum',
] as const;

async function traceRecord(trace: string, opts: PlanOptions): Promise<PlanRecord> {
  const wrong = PROFILE_ONLY.filter((k) => opts[k] !== undefined);
  if (wrong.length)
    throw new InputError(
      `${wrong.map(flagOf).join(', ')}: not with --trace (the trace names its stages and micro-batches)`,
    );
  if (!opts.frequencies) throw new InputError('--trace needs --frequencies: the clocks it was annotated at');
  if (opts.system === undefined || opts.network === undefined)
    throw new InputError('--trace needs --system and --network (the cluster the trace is replayed on)');
  return planTrace({
    trace,
    frequenciesMHz: opts.frequencies,
    ...clusterFiles({ ...opts, system: opts.system, network: opts.network }),
    blockingPowerW: opts.blockingPower,
    tolerancePct: opts.tolerance,
    points: opts.points,
  });
}

async function profileRecord(opts: PlanOptions, io: CommandIO): Promise<PlanRecord> {
  const file = opts.profile;
  if (file === undefined) throw new InputError('give --profile (stage profile) or --trace (annotated trace)');
  const { stages, microBatches, blockingPower } = opts;
  if (stages === undefined) throw new InputError('--profile needs --stages');
  if (microBatches === undefined) throw new InputError('--profile needs --micro-batches');
  if (blockingPower === undefined) throw new InputError('--profile needs --blocking-power');
  if (opts.stragglerSlowdown !== undefined && opts.deadlineS !== undefined)
    throw new InputError('give --straggler-slowdown or --deadline-s, not both');
  const fit = opts.fitFrequencies;
  if (fit && fit.length < 2) throw new InputError('--fit-frequencies: give at least two clocks');
  return planProfile({
    file,
    read: profileReadOptions(opts),
    stages,
    microBatches,
    schedule: opts.schedule,
    blockingPowerW: blockingPower,
    fit: fit && {
      clocksMHz: fit,
      clockStepMHz: opts.clockStep,
      powerCapW: opts.powerCap,
      calibration: opts.calibration,
    },
    timeQuantumS: opts.timeQuantum,
    points: opts.points,
    stragglerSlowdown: opts.stragglerSlowdown,
    deadlineS: opts.deadlineS,
    onRead: (table, diagnostics) => reportProfile(file, table, diagnostics, io),
  });
}

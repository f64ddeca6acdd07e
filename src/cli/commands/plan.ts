/** `tracewatt plan`: Perseus-style time–energy frontier and per-computation clock plans for pipeline training. */
import path from 'node:path';
import { toJson } from '../../formats/json.js';
import {
  clockGrid,
  fittedStageOptions,
  measuredStageOptions,
  planPipeline,
  planTrace,
  quantizeOptions,
  type PlanRecord,
} from '../../engines/plan/index.js';
import { Diagnostics } from '../../diagnostics.js';
import { loadCalibration } from '../../engines/calibrate/index.js';
import { InputError } from '../../errors.js';
import { OutputSet } from '../../formats/output.js';
import { readProfile } from '../../formats/profiles/index.js';
import {
  extrinsicCurveRows,
  planComputationRows,
  planFrontierRows,
  planText,
  splitPlanRows,
} from '../../report/plan-text.js';
import { toCsv, type RowSet } from '../../report/index.js';
import type { CommandIO, CommandSpec } from '../command.js';
import { choice, flagOf, int, intOf, num, numberList, str, tableLayout, tableOptions } from '../io.js';
import { profileReadOptions, reportProfile } from './profile-options.js';

/** Writes the record and its tables into `dir`, all files renamed into place together once complete. */
async function writeOutputs(dir: string, r: PlanRecord): Promise<string[]> {
  const files: [string, string][] = [
    ['plan.json', `${toJson(r)}\n`],
    ['frontier.csv', csv(planFrontierRows(r))],
    [
      'split-frontier.csv',
      toCsv(
        [{ header: 'iteration time (s, est.)' }, { header: 'iteration energy (J, est.)' }],
        r.splitFrontier.map((p) => [p.timeS, p.energyJ]),
      ),
    ],
    ['extrinsic.csv', csv(extrinsicCurveRows(r))],
    ['split-plan-intrinsic.csv', csv(splitPlanRows(r.splitPlan))],
    ...r.plans.map((p): [string, string] => [`plan-${p.name}.csv`, csv(planComputationRows(p))]),
  ];
  await OutputSet.write(
    dir,
    async (set) => {
      for (const [name, text] of files) await set.put(path.join(dir, name), text);
    },
    { folder: true },
  );
  return files.map(([name]) => path.join(dir, name));
}

const csv = (t: RowSet) => toCsv(t.columns, t.rows);

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
    const written = out ? await writeOutputs(out, record) : [];
    if (opts.json) io.out(`${toJson(record)}\n`);
    else if (opts.csv) io.out(csv(planFrontierRows(record)));
    else io.out(planText(record, tableLayout(opts)) + (written.length ? `wrote ${written.join(', ')}\n` : ''));
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
  const diagnostics = new Diagnostics();
  const table = await readProfile(file, { ...profileReadOptions(opts), diagnostics });
  const measured = measuredStageOptions(table, stages, file, diagnostics);
  reportProfile(file, table, diagnostics, io);
  const fit = numberList(opts, 'fitFrequencies', 'MHz');
  let planned = measured;
  let clocksMHz = [...new Set(measured.flatMap((s) => [...s.forward, ...s.backward].map((o) => o.clockMHz)))].sort(
    (a, b) => a - b,
  );
  const notes: string[] = [];
  if (!fit && (opts.calibration !== undefined || opts.powerCap !== undefined))
    throw new InputError('--calibration and --power-cap apply to --fit-frequencies');
  if (fit) {
    if (fit.length < 2) throw new InputError('--fit-frequencies: give at least two clocks');
    const step = num(opts, 'clockStep', { positive: true, unit: 'MHz' }) ?? 15;
    clocksMHz = clockGrid(Math.min(...fit), Math.max(...fit), step);
    let capW = num(opts, 'powerCap', { positive: true, unit: 'W' }) ?? null;
    if (capW === null && opts.calibration !== undefined)
      capW = (await loadCalibration(String(opts.calibration))).powerCap.powerW;
    planned = fittedStageOptions(measured, fit, clocksMHz, file, capW);
    notes.push(
      `options at ${clocksMHz.length} clocks modelled from ${fit.join(', ')} MHz (t = A + B/f, P quadratic in f per stage and pass; ` +
        `${capW === null ? 'no power cap' : `power cap ${capW.toFixed(1)} W`})`,
    );
  }
  const quantumS = num(opts, 'timeQuantum', { positive: true, unit: 's' });
  if (quantumS !== undefined) {
    planned = quantizeOptions(planned, quantumS);
    notes.push(
      `every computation's time floored to a multiple of ${quantumS} s (Perseus' convention): iterations look shorter than they are`,
    );
  }
  return planPipeline({
    label: path.basename(file),
    source: { mode: fit ? 'fit' : 'profile', file, ...(fit ? { fitClocksMHz: fit } : {}), clocksMHz },
    stages: planned,
    ...(fit ? { measured } : {}),
    microBatches,
    schedule,
    blockingPowerW,
    points: int(opts, 'points', { min: 2 }),
    stragglerSlowdown,
    deadlineS,
    notes,
  });
}

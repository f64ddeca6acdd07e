/** `tracewatt plan`: Perseus-style time–energy frontier and per-computation clock plans for pipeline training. */
import path from 'node:path';
import { toJson } from '../../core/json.js';
import { clockGrid, fittedStageOptions, measuredStageOptions, planPipeline, type PlanRecord } from '../../engines/plan/index.js';
import { Diagnostics } from '../../diagnostics.js';
import { loadCalibration } from '../../engines/calibrate/index.js';
import { InputError } from '../../errors.js';
import { writeFileAtomic } from '../../formats/output.js';
import { readProfile } from '../../formats/profiles/index.js';
import { extrinsicCurveRows, planComputationRows, planFrontierRows, planText, splitPlanRows } from '../../report/plan-text.js';
import { toCsv, type RowSet } from '../../report/index.js';
import type { CommandSpec } from '../command.js';
import { choice, int, intOf, num, numberList, str } from '../io.js';
import { profileReadOptions, reportProfile } from './profile-options.js';

/** Writes the record and its tables into `dir` (each file atomically). */
async function writeOutputs(dir: string, r: PlanRecord): Promise<string[]> {
  const files: [string, string][] = [
    ['plan.json', toJson(r) + '\n'],
    ['frontier.csv', csv(planFrontierRows(r))],
    ['split-frontier.csv', toCsv([{ header: 'iteration time (s, estimated)' }, { header: 'iteration energy (J, estimated)' }], r.splitFrontier.map((p) => [p.timeS, p.energyJ]))],
    ['extrinsic.csv', csv(extrinsicCurveRows(r))],
    ['split-plan-intrinsic.csv', csv(splitPlanRows(r.splitPlan))],
    ...r.plans.map((p): [string, string] => [`plan-${p.name}.csv`, csv(planComputationRows(p))]),
  ];
  for (const [name, text] of files) await writeFileAtomic(path.join(dir, name), text);
  return files.map(([name]) => path.join(dir, name));
}

const csv = (t: RowSet) => toCsv(t.columns, t.rows);

export const planCommand: CommandSpec = {
  name: 'plan',
  summary: 'Perseus-style iteration time–energy frontier and per-computation clock plans for pipeline training (estimates)',
  args: [],
  options: [
    { name: 'profile', value: 'file', description: 'stage profile: per stage, forward and backward time and energy at several clocks (Perseus CSV, or any format naming stage<N>/forward|backward)', required: true },
    { name: 'format', value: 'F', description: 'force the profile format (e.g. perseus)' },
    { name: 'mapping', value: 'file', description: 'column mapping for a generic CSV; implies --format generic' },
    { name: 'stages', value: 'n', description: 'pipeline stages (the profile must have stages 0 … n−1)', required: true },
    { name: 'micro-batches', value: 'n', description: 'micro-batches per iteration', required: true },
    { name: 'schedule', value: '1f1b|gpipe', description: 'pipeline schedule', default: '1f1b' },
    { name: 'blocking-power', value: 'W', description: 'power a GPU draws while it waits on pipeline communication (Perseus: A40 70.38, A100 83.64)', required: true },
    { name: 'fit-frequencies', value: 'list', description: 'plan from these clocks only: per-stage t(f), P(f) fitted on them give every clock (profile once, plan everywhere)' },
    { name: 'calibration', value: 'file', description: "with --fit-frequencies: take the GPU's power cap from this calibration (as accuracy --fit-frequencies does)" },
    { name: 'power-cap', value: 'W', description: 'with --fit-frequencies: power cap in W (instead of --calibration; default: none)' },
    { name: 'clock-step', value: 'MHz', description: 'with --fit-frequencies: candidate clocks from the lowest to the highest fit clock in this step', default: 15 },
    { name: 'straggler-slowdown', value: 'x', description: "another pipeline's iteration takes x × the all-max-clock time: plan this one for it (extrinsic saving)" },
    { name: 'deadline-s', value: 's', description: 'iteration time to plan for, s (instead of --straggler-slowdown)' },
    { name: 'points', value: 'n', description: 'plans realized between the all-max-clock and the slowest iteration time', default: 400 },
    { name: 'out', value: 'dir', description: 'write plan.json, frontier.csv, split-frontier.csv, extrinsic.csv and plan-*.csv here' },
    { name: 'csv', description: 'print the frontier as CSV' },
  ],
  example: 'tracewatt plan --profile calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv --stages 8 --micro-batches 12 --schedule 1f1b --blocking-power 70.38',
  async run(_args, opts, io) {
    const file = String(opts.profile);
    const stages = intOf(opts, 'stages');
    const microBatches = intOf(opts, 'microBatches');
    const schedule = choice(opts, 'schedule', ['1f1b', 'gpipe'] as const) ?? '1f1b';
    const blockingPowerW = num(opts, 'blockingPower', { min: 0, unit: 'W' })!;
    const stragglerSlowdown = num(opts, 'stragglerSlowdown', { min: 1, unit: 'the all-max-clock time' });
    const deadlineS = num(opts, 'deadlineS', { positive: true, unit: 's' });
    if (stragglerSlowdown !== undefined && deadlineS !== undefined) throw new InputError('give --straggler-slowdown or --deadline-s, not both');
    const diagnostics = new Diagnostics();
    const table = await readProfile(file, { ...profileReadOptions(opts), diagnostics });
    const measured = measuredStageOptions(table, stages, file, diagnostics);
    reportProfile(file, table, diagnostics, io);
    const fit = numberList(opts, 'fitFrequencies', 'MHz');
    let planned = measured;
    let clocksMHz = [...new Set(measured.flatMap((s) => [...s.forward, ...s.backward].map((o) => o.clockMHz)))].sort((a, b) => a - b);
    const notes: string[] = [];
    if (!fit && (opts.calibration !== undefined || opts.powerCap !== undefined)) throw new InputError('--calibration and --power-cap apply to --fit-frequencies');
    if (fit) {
      if (fit.length < 2) throw new InputError('--fit-frequencies: give at least two clocks');
      const step = num(opts, 'clockStep', { positive: true, unit: 'MHz' }) ?? 15;
      clocksMHz = clockGrid(Math.min(...fit), Math.max(...fit), step);
      let capW = num(opts, 'powerCap', { positive: true, unit: 'W' }) ?? null;
      if (capW === null && opts.calibration !== undefined) capW = (await loadCalibration(String(opts.calibration))).powerCap.powerW;
      planned = fittedStageOptions(measured, fit, clocksMHz, file, capW);
      notes.push(
        `options at ${clocksMHz.length} clocks modelled from ${fit.join(', ')} MHz (t = A + B/f, P quadratic in f per stage and pass; ` +
          `${capW === null ? 'no power cap' : `power cap ${capW.toFixed(1)} W`})`,
      );
    }
    const record = planPipeline({
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
    const out = str(opts, 'out');
    const written = out ? await writeOutputs(out, record) : [];
    if (opts.json) io.out(toJson(record) + '\n');
    else if (opts.csv) io.out(csv(planFrontierRows(record)));
    else io.out(planText(record) + (written.length ? `wrote ${written.join(', ')}\n` : ''));
    return 0;
  },
};

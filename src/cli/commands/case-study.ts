/**
 * `tracewatt case-study llama2-70b`: the AstraWattch case study end to end — two layouts at LLaMA-2's global batch,
 * three energy knobs (scale-out DVFS, scale-up DVFS, GPU SM clock) with their marginal efficiency and bands —
 * written as results.json and a self-contained report.html. `npm start` runs it.
 * `tracewatt case-study a30-layers`: GPT decoder layers on an A30 against a published SM-clock table
 * (case-study-a30.ts).
 */
import { CASE_STUDY_DEFAULTS, loadVfCurve, MAP_DEFAULTS, runCaseStudy } from '../../engines/studies/index.js';
import { InputError } from '../../errors.js';
import { caseStudyRows, caseStudyText } from '../../report/case-study-text.js';
import { defineCommand } from '../command.js';
import { flagOf, tableOptions } from '../io.js';
import { camelCase, parseOptions, type TypedOption } from '../options.js';
import { runA30LayersCommand } from './case-study-a30.js';
import { writeStudy } from './study-output.js';

const DEFAULT_SCALES = CASE_STUDY_DEFAULTS.scales.join(',');

/** The options only the LLaMA-2-70B study reads: a30-layers refuses them unless at their defaults. */
const LLAMA_OPTIONS = [
  {
    name: 'global-batch',
    type: 'int',
    value: 'sequences',
    description: 'sequences per iteration (LLaMA-2: 1024 of 4096 tokens)',
    default: CASE_STUDY_DEFAULTS.globalBatch,
  },
  { name: 'seq', type: 'int', value: 'tokens', description: 'sequence length', default: CASE_STUDY_DEFAULTS.seqLen },
  {
    name: 'scale',
    type: 'range',
    value: 'list',
    description: 'network frequency scales of both network knobs, a:b:step or a,b,… (1 is always included)',
    default: DEFAULT_SCALES,
  },
  {
    name: 'clocks',
    type: 'list',
    unit: 'MHz',
    value: 'MHz,…',
    description: 'SM clocks of the GPU knob (the highest clock is always included)',
    default: CASE_STUDY_DEFAULTS.clocksMHz.join(','),
  },
  {
    name: 'band-calibration',
    type: 'string',
    value: 'file',
    description:
      'fitted calibration whose error bands stand in when --calibration has none (default: calibration/a40.json)',
  },
  {
    name: 'vf-curve',
    type: 'string',
    value: 'file',
    description: 'network V–f curve JSON (default: the SerDes curve in the README)',
  },
  {
    name: 'map-batches',
    type: 'list',
    unit: 'sequences',
    value: 'sequences,…',
    description: 'global batches of the scale-out DVFS sensitivity map',
    default: MAP_DEFAULTS.batchesSequences.join(','),
  },
  {
    name: 'map-bandwidths',
    type: 'list',
    unit: 'GB/s',
    value: 'GB/s,…',
    description: "scale-out link bandwidths of the map (the preset's 50 GB/s is always included)",
    default: MAP_DEFAULTS.scaleOutBandwidthsGBps.join(','),
  },
] as const satisfies readonly TypedOption[];

/** The LLaMA-2-70B options given with another value than their default, as flags. */
function llamaOptionsGiven(opts: Readonly<Record<string, unknown>>): string[] {
  const defaults: Record<string, unknown> = parseOptions(LLAMA_OPTIONS, {}, () => undefined);
  return LLAMA_OPTIONS.map((o) => camelCase(o.name))
    .filter((k) => opts[k] !== undefined && JSON.stringify(opts[k]) !== JSON.stringify(defaults[k]))
    .map(flagOf);
}

export const caseStudyCommand = defineCommand({
  name: 'case-study',
  summary:
    'Case studies, each written as results JSON + HTML report. llama2-70b: LLaMA-2-70B on 32 H100s ' +
    '(Switch(8)×Ring(4)), TP 8 × DP 4 and TP 8 × PP 4 at the full batch, scale-out DVFS, scale-up DVFS and SM ' +
    'clock as energy knobs; a30-layers: GPT decoder layers on an A30 swept over every SM clock, against a ' +
    'published table',
  args: [{ name: 'name', description: 'the case study: llama2-70b or a30-layers' }],
  options: [
    {
      name: 'out',
      type: 'string',
      value: 'dir',
      description: 'folder for results.json and report.html (default: case-study, or case-study-a30 for a30-layers)',
    },
    ...LLAMA_OPTIONS.slice(0, 4),
    {
      name: 'calibration',
      type: 'string',
      value: 'file',
      description:
        'calibration for kernel times and energies (default: calibration/h100-datasheet.json; a30-layers: ' +
        'calibration/a30-datasheet.json)',
    },
    ...LLAMA_OPTIONS.slice(4),
    { name: 'no-map', type: 'boolean', description: 'leave the sensitivity map out (fewer replays)' },
    {
      name: 'threads',
      type: 'int',
      value: 'n',
      description: 'worker threads replaying points (default: available cores)',
    },
    {
      name: 'micro-batch',
      type: 'int',
      value: 'sequences',
      description: 'a30-layers: sequences per layer pass (default 1)',
    },
    ...tableOptions(
      'llama2-70b: the knob table, one row per layout × knob × setting; a30-layers: one row per layer × ' +
        'sequence length',
    ),
  ],
  example: 'tracewatt case-study llama2-70b --out out/case-study',
  async run(args, opts, io) {
    if (args[0] === 'a30-layers') {
      const wrong = llamaOptionsGiven(opts);
      if (wrong.length > 0)
        throw new InputError(
          `${wrong[0]} belongs to the llama2-70b case study; a30-layers sweeps fixed layers, sequence lengths ` +
            `and clocks`,
        );
      return runA30LayersCommand(opts, io);
    }
    if (args[0] !== 'llama2-70b')
      throw new InputError(`unknown case study "${args[0] ?? ''}": the ones shipped are llama2-70b and a30-layers`);
    if (opts.microBatch !== undefined)
      throw new InputError(
        `${flagOf('microBatch')} belongs to the a30-layers case study; llama2-70b runs micro-batches of 1 sequence`,
      );
    const vfCurve = opts.vfCurve;
    return writeStudy(opts, io, {
      out: opts.out ?? 'case-study',
      label: 'case study',
      title: 'tracewatt case study: LLaMA-2-70B on 32 H100s, three energy knobs (estimated)',
      run: async (onPoint) =>
        runCaseStudy({
          globalBatch: opts.globalBatch,
          seqLen: opts.seq,
          scales: opts.scale,
          clocksMHz: opts.clocks,
          calibration: opts.calibration,
          bandCalibration: opts.bandCalibration,
          vfCurve: vfCurve ? await loadVfCurve(vfCurve) : undefined,
          map: opts.noMap ? false : { batchesSequences: opts.mapBatches, scaleOutBandwidthsGBps: opts.mapBandwidths },
          threads: opts.threads,
          onPoint,
        }),
      text: caseStudyText,
      rows: (record) => caseStudyRows(record),
      json: (record) => ({ record }),
    });
  },
});

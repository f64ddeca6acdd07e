import { annotateTrace, type AnnotateResult, type RooflinePrecision } from '../../engines/annotate/index.js';
import { POWER_PRESETS } from '../../engines/replay/index.js';
import { InputError } from '../../errors.js';
import { outputErrorUnder } from '../../formats/output.js';
import { PROFILE_FORMATS } from '../../formats/profiles/index.js';
import { annotateRankRows, annotateText } from '../../report/text/annotate.js';
import { defineCommand, TRACE_ARG } from '../command.js';
import { progressFor } from '../progress.js';
import { emit, powerConfigOption, printSaid, tableLayout, tableOptions, CALIBRATION_OPTION } from '../io.js';
import { MAPPING_OPTION, POWER_LOG_OPTIONS, profileReadOptions } from './profile-options.js';

const [POWER_LOG, ...POWER_LOG_READING] = POWER_LOG_OPTIONS;
const ROOFLINE_PRECISIONS = ['fp16Tensor', 'fp32', 'fp64'] as const satisfies readonly RooflinePrecision[];

export const annotateCommand = defineCommand({
  name: 'annotate',
  summary:
    'Write per-node utilization, duration and energy at target SM clocks into a Chakra trace (estimates), plus ' +
    'a replay power config',
  args: [TRACE_ARG],
  options: [
    CALIBRATION_OPTION,
    {
      name: 'profile',
      type: 'string',
      value: 'file',
      description:
        'kernel profile(s) to match trace nodes against (repeatable); without one, nodes with ' +
        'num_ops/tensor_size get roofline estimates',
      repeatable: true,
    },
    {
      name: 'profile-format',
      type: 'choice',
      choices: PROFILE_FORMATS,
      value: 'F',
      description: 'force the profile format',
    },
    { ...MAPPING_OPTION, description: MAPPING_OPTION.description.replace('--format', '--profile-format') },
    {
      ...POWER_LOG,
      description:
        'power log joined with the profile (an Nsight Systems cuda_gpu_trace or a Kineto trace) for per-kernel ' +
        'power and energy',
    },
    ...POWER_LOG_READING,
    {
      name: 'bands',
      type: 'boolean',
      description:
        "write each node's 10–90 % band (energy_j_p10/p90, duration_ns_p10/p90) where the calibration's band " +
        'model gives one',
    },
    {
      name: 'frequency',
      type: 'number',
      min: 0,
      unit: 'MHz',
      value: 'MHz',
      description: 'target SM clock: writes <out>.<rank>.et and <out>.power.json (default: the reference clock)',
    },
    {
      name: 'frequencies',
      type: 'list',
      unit: 'MHz',
      value: 'list',
      description:
        'target SM clocks, comma-separated: writes <out>.<F>MHz.<rank>.et and <out>.<F>MHz.power.json per clock',
    },
    {
      name: 'out',
      type: 'string',
      value: 'prefix',
      description: 'a prefix: writes <prefix>.<rank>.et and <prefix>.power.json (per clock with --frequencies)',
      required: true,
    },
    {
      name: 'reference-frequency',
      type: 'number',
      positive: true,
      unit: 'MHz',
      value: 'MHz',
      description:
        "SM clock the trace's durations were recorded at (default: a Kineto profile's assumed clock — its " +
        "GPU's maximum boost clock — else the calibration's highest clock; profile samples without a clock are " +
        'taken at it; a note says which)',
    },
    {
      name: 'scaling',
      type: 'choice',
      choices: ['ratio', 'offset'],
      description: 'how a kernel keeps its measured power at other clocks',
      default: 'ratio',
    },
    {
      name: 'roofline-precision',
      type: 'choice',
      choices: ROOFLINE_PRECISIONS,
      value: 'P',
      description: 'peak FLOP/s used for unmatched nodes',
      default: 'fp16Tensor',
    },
    {
      ...powerConfigOption(
        `memory/network pJ/bit from a power config: a preset (${POWER_PRESETS.join(', ')}) or power.json; ` +
          `default: by device`,
      ),
      deprecatedNames: ['power-preset'],
    },
    {
      name: 'memory-pj-per-bit',
      type: 'number',
      min: 0,
      unit: 'pJ/bit',
      value: 'pJ',
      description: 'memory energy per bit (overrides the power config)',
    },
    {
      name: 'network-pj-per-bit',
      type: 'list',
      unit: 'pJ/bit',
      value: 'list',
      description: 'network energy per bit per dimension, comma-separated (overrides the power config)',
    },
    {
      name: 'idle-power',
      type: 'number',
      min: 0,
      unit: 'W',
      value: 'W',
      description:
        "GPU idle power (default: the calibration's idle figure at the clock, a measurement or published figure)",
    },
    {
      name: 'comm-power',
      type: 'number',
      min: 0,
      unit: 'W',
      value: 'W',
      description:
        'GPU power while only communication runs (default: idle + 0.3 × (active − idle), a stated assumption)',
    },
    {
      name: 'device-mismatch',
      type: 'choice',
      choices: ['ok'],
      value: 'ok',
      description:
        "say nothing when a profile names a device other than the calibration's (default: a warning naming both)",
    },
    {
      name: 'workers',
      type: 'int',
      min: 0,
      value: 'n',
      description: 'threads annotating ranks in parallel, this one included; 1 = in-process (default: one per CPU)',
    },
    ...tableOptions('one row per rank and a total row'),
  ],
  exampleSetup: ['tracewatt import pytorch --dir traces/pytorch-real/dlrm --out out/dlrm'],
  example:
    'tracewatt annotate out/dlrm --calibration calibration/v100.json --profile ' +
    'traces/pytorch-real/dlrm/worker0_step_12.1694128201545.pt.trace.json.gz --frequency 1200 --out ' +
    'out/dlrm-1200',
  async run(args, opts, io) {
    if (opts.frequency !== undefined && opts.frequencies !== undefined)
      throw new InputError('give --frequency or --frequencies, not both');
    // Neither given: the engine annotates at the reference clock (and says so).
    const freqs = opts.frequency !== undefined ? [opts.frequency] : (opts.frequencies ?? []);
    const { format: profileFormat, ...profileOptions } = profileReadOptions({ ...opts, format: opts.profileFormat });
    if (opts.profile.length === 0 && Object.keys(profileOptions).length)
      throw new InputError('--mapping and --power-log apply to a profile: pass it with --profile');

    const progress = await progressFor(
      io,
      opts,
      'annotate [{bar}] {percentage}% | {ranksDone}/{ranks} ranks | {mb}/{totalMb} MB',
    );
    let result: AnnotateResult;
    try {
      result = await annotateTrace({
        trace: args[0],
        out: opts.out,
        calibration: opts.calibration,
        profiles: opts.profile,
        profileFormat,
        profileOptions,
        bands: opts.bands,
        frequenciesMHz: freqs,
        perFrequencyOutputs: opts.frequencies !== undefined,
        referenceClockMHz: opts.referenceFrequency,
        scaling: opts.scaling,
        rooflinePrecision: opts.rooflinePrecision,
        power: {
          preset: opts.powerConfig,
          memoryPjPerBit: opts.memoryPjPerBit,
          networkPjPerBit: opts.networkPjPerBit,
          idlePowerW: opts.idlePower,
          commPowerW: opts.commPower,
        },
        deviceMismatch: opts.deviceMismatch,
        workers: opts.workers,
        onProgress: progress
          ? (p) =>
              progress.update(p.bytesDone, p.bytesTotal, {
                ranksDone: p.ranksDone,
                ranks: p.ranks,
                mb: (p.bytesDone / 1e6).toFixed(1),
                totalMb: (p.bytesTotal / 1e6).toFixed(1),
              })
          : undefined,
      });
    } catch (e) {
      throw outputErrorUnder(opts.out, e);
    } finally {
      progress?.stop();
    }
    emit(io, opts, result, {
      table: () => annotateRankRows(result, true),
      text: () => annotateText(result, tableLayout(opts)),
    });
    for (const p of result.profileNotes) printSaid(io, { source: p.profile, notes: p.notes });
    printSaid(io, result);
    return 0;
  },
});

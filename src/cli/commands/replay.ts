/**
 * `tracewatt replay`: replay all ranks on an ASTRA-sim-described cluster (or as measured) and report time and energy.
 */
import {
  DEFAULT_POWER_PRESET,
  POWER_PRESETS,
  replayFiles,
  resolvePower,
  type ReplayResult,
} from '../../engines/replay/index.js';
import { measuredIterations, replayFilesAsMeasured } from '../../engines/replay/as-measured.js';
import { InputError } from '../../errors.js';
import { NO_NETWORK } from '../../formats/astra/index.js';
import { asMeasuredRows, asMeasuredText } from '../../report/measured-text.js';
import { replayRanks } from '../../report/text.js';
import { replayMeasuredText, replayRecord, type MeasuredIterations } from '../../report/text/replay.js';
import { defineCommand, type CommandIO, TRACE_ARG } from '../command.js';
import { emit, powerConfigOption, printSaid, tableLayout, tableOptions } from '../io.js';
import type { OptionValues, TypedOption } from '../options.js';

/** The cluster a replay runs on: ASTRA-sim's files and the power config (replay, energy). */
const CLUSTER_OPTIONS = [
  {
    name: 'system',
    type: 'string',
    value: 'file',
    description:
      'ASTRA-sim system.json (required unless --as-measured or --network none; with none: ring collectives, ' +
      'roofline off)',
  },
  {
    name: 'network',
    type: 'string',
    value: 'file',
    description:
      'ASTRA-sim network.yml, or "none" for a one-rank trace (one NPU, no network) (required unless --as-measured)',
  },
  {
    name: 'memory',
    type: 'string',
    value: 'file',
    description: 'ASTRA-sim remote memory JSON (needed for MEM_LOAD/STORE nodes)',
  },
  { name: 'comm-group', type: 'string', value: 'file', description: 'ASTRA-sim comm-group JSON (pg_name → ranks)' },
  {
    ...powerConfigOption(`power config: power.json, or a preset name: ${POWER_PRESETS.join(', ')}`),
    default: DEFAULT_POWER_PRESET,
  },
] as const satisfies readonly TypedOption[];

/** How the replay reads the network and holds the trace, its label and tables (replay, energy). */
const READING_OPTIONS = [
  {
    name: 'plain-bandwidth',
    type: 'boolean',
    description: 'read network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s; times then differ from ASTRA-sim)',
  },
  {
    name: 'window',
    type: 'int',
    value: 'nodes',
    description: 'unfinished nodes held in memory per rank',
    default: 65536,
  },
  {
    name: 'label',
    type: 'string',
    value: 'text',
    description: 'label of the result (default: "<trace> on <network>")',
  },
  ...tableOptions('one row per rank and a total row'),
] as const satisfies readonly TypedOption[];

/** The options replay and energy share past the trace: the cluster, then how it is read. */
export const REPLAY_CONFIG_OPTIONS = [...CLUSTER_OPTIONS, ...READING_OPTIONS] as const;

export const replayCommand = defineCommand({
  name: 'replay',
  summary:
    'replay a multi-rank Chakra trace like ASTRA-sim (analytical backend), or an imported run as measured, and ' +
    'break down its energy',
  args: [TRACE_ARG],
  options: [
    {
      name: 'as-measured',
      type: 'boolean',
      description:
        'replay an imported run (import pytorch / import kineto) as it ran: measured durations and delays, no ' +
        '--system/--network',
    },
    {
      name: 'power-log',
      type: 'string',
      value: 'file',
      description:
        'with --as-measured: a power log of the run (nvidia-smi, DCGM, Zeus CSV); its energy over each ' +
        'measured iteration is printed beside the estimate',
    },
    ...CLUSTER_OPTIONS,
    {
      name: 'start-together',
      type: 'boolean',
      description:
        'an imported run: start every rank at 0, as ASTRA-sim does (by default each starts at its measured ' +
        'start after the earliest rank)',
    },
    ...READING_OPTIONS,
    {
      name: 'timeline',
      type: 'string',
      value: 'out.json',
      description:
        'a file: write a Chrome/Perfetto trace-event timeline there (µs; a track per rank × slot, estimated ' +
        'power counters)',
    },
  ],
  example:
    'tracewatt replay traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system ' +
    'traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power-config ' +
    'h100-cluster',
  async run(args, opts, io) {
    if (opts.asMeasured) {
      const modelled = {
        system: opts.system,
        network: opts.network,
        memory: opts.memory,
        'comm-group': opts.commGroup,
        timeline: opts.timeline,
        'plain-bandwidth': opts.plainBandwidth || undefined,
        'start-together': opts.startTogether || undefined,
      };
      for (const [flag, v] of Object.entries(modelled))
        if (v !== undefined)
          throw new InputError(`--as-measured replays the run as measured: --${flag} does not apply`);
      const res = await replayFilesAsMeasured({
        trace: args[0]!,
        power: await resolvePower(opts.powerConfig),
        powerLog: opts.powerLog,
        label: opts.label,
      });
      emit(io, opts, res, { table: () => asMeasuredRows(res), text: () => asMeasuredText(res, tableLayout(opts)) });
      printSaid(io, { diagnostics: res.diagnostics });
      return 0;
    }
    if (opts.network === undefined || (opts.system === undefined && opts.network !== NO_NETWORK)) {
      throw new InputError(
        'give --system and --network (the cluster to replay on; --network none for a one-rank trace), or ' +
          '--as-measured for an imported run',
      );
    }
    if (opts.powerLog !== undefined) throw new InputError('--power-log goes with --as-measured');
    const res = await replayFiles({
      trace: args[0]!,
      system: opts.system,
      network: opts.network,
      ...replayConfigOptions(opts),
      timeline: opts.timeline,
      startAsMeasured: !opts.startTogether,
    });
    const measured = await measuredIterations(args[0]!);
    printReplayResult(res, opts, io, measured);
    return 0;
  },
});

/** The options replay and energy share past the trace, system and network: configs, units, window, label. */
export function replayConfigOptions(opts: OptionValues<typeof REPLAY_CONFIG_OPTIONS>) {
  return {
    memory: opts.memory,
    commGroup: opts.commGroup,
    power: opts.powerConfig,
    bandwidthUnit: opts.plainBandwidth ? ('GBps' as const) : ('astra-sim' as const),
    windowNodes: opts.window,
    label: opts.label,
  };
}

/**
 * A replay result as JSON, CSV rows or the text tables, and its diagnostics as warnings (replay, energy). With the
 * measured iterations of an imported trace, they are set beside the modelled finish (JSON:
 * ranks[].measuredIterationNs).
 */
export function printReplayResult(
  res: ReplayResult,
  opts: Readonly<Record<string, unknown>>,
  io: CommandIO,
  measured: MeasuredIterations = [],
): void {
  emit(io, opts, replayRecord(res, measured), {
    table: () => replayRanks(res),
    text: () => replayMeasuredText(res, measured, tableLayout(opts)),
  });
  printSaid(io, { diagnostics: res.diagnostics });
}

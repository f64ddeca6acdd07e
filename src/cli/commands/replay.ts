/** `tracewatt replay`: replay all ranks on an ASTRA-sim-described cluster (or as measured) and report time and energy. */
import { toJson } from '../../formats/json.js';
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
import { asMeasuredRows, asMeasuredText, measuredBesideRows, START_OFFSET_NOTE } from '../../report/measured-text.js';
import { formatTable, wrapText } from '../../report/tables.js';
import { replayRanks, replayText } from '../../report/text.js';
import type { CommandIO, CommandSpec } from '../command.js';
import { emit, int, rowsText, str, tableLayout, tableOptions } from '../io.js';

export const replayCommand: CommandSpec = {
  name: 'replay',
  summary:
    'replay a multi-rank Chakra trace like ASTRA-sim (analytical backend), or an imported run as measured, and break down its energy',
  args: [{ name: 'trace', description: '<prefix> of <prefix>.<rank>.et files, a directory, or one .et file' }],
  options: [
    {
      name: 'as-measured',
      description:
        'replay an imported run (import pytorch / import kineto) as it ran: measured durations and delays, no --system/--network',
    },
    {
      name: 'power-log',
      value: 'file',
      description:
        'with --as-measured: a power log of the run (nvidia-smi, DCGM, Zeus CSV); its energy over each measured iteration is printed beside the estimate',
    },
    {
      name: 'system',
      value: 'file',
      description:
        'ASTRA-sim system.json (required unless --as-measured or --network none; with none: ring collectives, roofline off)',
    },
    {
      name: 'network',
      value: 'file',
      description:
        'ASTRA-sim network.yml, or "none" for a one-rank trace (one NPU, no network) (required unless --as-measured)',
    },
    { name: 'memory', value: 'file', description: 'ASTRA-sim remote memory JSON (needed for MEM_LOAD/STORE nodes)' },
    { name: 'comm-group', value: 'file', description: 'ASTRA-sim comm-group JSON (pg_name → ranks)' },
    {
      name: 'power',
      value: 'file',
      description: `power.json, or a preset name: ${POWER_PRESETS.join(', ')}`,
      default: DEFAULT_POWER_PRESET,
    },
    {
      name: 'start-together',
      description:
        'an imported run: start every rank at 0, as ASTRA-sim does (by default each starts at its measured start after the earliest rank)',
    },
    {
      name: 'plain-bandwidth',
      description: 'read network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s; times then differ from ASTRA-sim)',
    },
    { name: 'window', value: 'nodes', description: 'unfinished nodes held in memory per rank', default: 65536 },
    { name: 'label', value: 'text', description: 'label of the result (default: "<trace> on <network>")' },
    ...tableOptions('one row per rank and a total row'),
    {
      name: 'timeline',
      value: 'out.json',
      description:
        'write a Chrome/Perfetto trace-event timeline (µs; a track per rank × slot, estimated power counters)',
    },
  ],
  example:
    'tracewatt replay traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power h100-cluster',
  async run(args, opts, io) {
    if (opts.asMeasured) {
      for (const o of [
        'system',
        'network',
        'memory',
        'commGroup',
        'timeline',
        'plainBandwidth',
        'startTogether',
      ] as const) {
        if (opts[o] !== undefined)
          throw new InputError(
            `--as-measured replays the run as measured: --${o.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} does not apply`,
          );
      }
      const res = await replayFilesAsMeasured({
        trace: args[0]!,
        power: await resolvePower(str(opts, 'power')),
        powerLog: str(opts, 'powerLog'),
        label: str(opts, 'label'),
      });
      emit(io, opts, res, { table: () => asMeasuredRows(res), text: () => asMeasuredText(res, tableLayout(opts)) });
      for (const d of res.diagnostics) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
      return 0;
    }
    if (opts.network === undefined || (opts.system === undefined && opts.network !== NO_NETWORK)) {
      throw new InputError(
        'give --system and --network (the cluster to replay on; --network none for a one-rank trace), or --as-measured for an imported run',
      );
    }
    if (opts.powerLog !== undefined) throw new InputError('--power-log goes with --as-measured');
    const res = await replayFiles({
      trace: args[0]!,
      system: str(opts, 'system'),
      network: String(opts.network),
      ...replayConfigOptions(opts),
      timeline: str(opts, 'timeline'),
      startAsMeasured: !opts.startTogether,
    });
    const measured = await measuredIterations(args[0]!);
    printReplayResult(res, opts, io, measured);
    return 0;
  },
};

/**
 * A replay result as JSON, CSV rows or the text tables, and its diagnostics as warnings (replay, energy). With the
 * measured iterations of an imported trace, they are set beside the modelled finish (JSON: ranks[].measuredIterationNs).
 */
/** The options replay and energy share past the trace, system and network: configs, units, window, label. */
export function replayConfigOptions(opts: Record<string, unknown>) {
  return {
    memory: str(opts, 'memory'),
    commGroup: str(opts, 'commGroup'),
    power: str(opts, 'power'),
    bandwidthUnit: opts.plainBandwidth ? ('GBps' as const) : ('astra-sim' as const),
    windowNodes: int(opts, 'window'),
    label: str(opts, 'label'),
  };
}

export function printReplayResult(
  res: ReplayResult,
  opts: Record<string, unknown>,
  io: CommandIO,
  measured: { rank: number; measuredIterationNs: number | null }[] = [],
): void {
  const beside = measuredBesideRows(res, measured);
  if (opts.json) {
    const byRank = new Map(measured.map((m) => [m.rank, m.measuredIterationNs]));
    io.out(
      `${toJson(beside ? { ...res, ranks: res.ranks.map((r) => ({ ...r, measuredIterationNs: byRank.get(r.rank) ?? null })) } : res)}\n`,
    );
  } else if (opts.csv) {
    const t = replayRanks(res);
    io.out(rowsText(opts, t.columns, t.rows));
  } else {
    io.out(replayText(res, tableLayout(opts)));
    if (beside) {
      io.out(
        `\nmeasured beside modelled (the trace records its measured iteration; replay --as-measured replays it as it ran):\n${formatTable(beside.columns, beside.rows, tableLayout(opts))}`,
      );
      if (res.ranks.some((r) => r.startOffsetNs !== undefined))
        io.out(`${wrapText(START_OFFSET_NOTE, tableLayout(opts).width)}\n`);
    }
  }
  for (const d of res.diagnostics) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
}

/** `tracewatt replay`: replay all ranks on an ASTRA-sim-described cluster and report time and energy. */
import { toJson } from '../../core/json.js';
import { DEFAULT_POWER_PRESET, POWER_PRESETS, replayFiles, type ReplayResult } from '../../engines/replay/index.js';
import { replayRanks, replayText } from '../../report/text.js';
import type { CommandIO, CommandSpec } from '../command.js';
import { int, rowsText, str, tableLayout, tableOptions } from '../io.js';

export const replayCommand: CommandSpec = {
  name: 'replay',
  summary: 'replay a multi-rank Chakra trace like ASTRA-sim (analytical backend) and break down its energy',
  args: [{ name: 'trace', description: '<prefix> of <prefix>.<rank>.et files, a directory, or one .et file' }],
  options: [
    { name: 'system', value: 'file', description: 'ASTRA-sim system.json', required: true },
    { name: 'network', value: 'file', description: 'ASTRA-sim network.yml', required: true },
    { name: 'memory', value: 'file', description: 'ASTRA-sim remote memory JSON (needed for MEM_LOAD/STORE nodes)' },
    { name: 'comm-group', value: 'file', description: 'ASTRA-sim comm-group JSON (pg_name → ranks)' },
    { name: 'power', value: 'file', description: `power.json, or a preset name: ${POWER_PRESETS.join(', ')}`, default: DEFAULT_POWER_PRESET },
    { name: 'plain-bandwidth', description: 'read network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s; times then differ from ASTRA-sim)' },
    { name: 'window', value: 'nodes', description: 'unfinished nodes held in memory per rank', default: 65536 },
    { name: 'label', value: 'text', description: 'label of the result (default: "<trace> on <network>")' },
    ...tableOptions('one row per rank and a total row'),
    { name: 'timeline', value: 'out.json', description: 'write a Chrome/Perfetto trace-event timeline (µs; a track per rank × slot, estimated power counters)' },
  ],
  example: 'tracewatt replay traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power h100-cluster',
  async run(args, opts, io) {
    const res = await replayFiles({
      trace: args[0], system: String(opts.system), network: String(opts.network),
      memory: str(opts, 'memory'), commGroup: str(opts, 'commGroup'), power: str(opts, 'power'),
      bandwidthUnit: opts.plainBandwidth ? 'GBps' : 'astra-sim', windowNodes: int(opts, 'window'),
      label: str(opts, 'label'), timeline: str(opts, 'timeline'),
    });
    printReplayResult(res, opts, io);
    return 0;
  },
};

/** A replay result as JSON, CSV rows or the text tables, and its diagnostics as warnings (replay, energy). */
export function printReplayResult(res: ReplayResult, opts: Record<string, unknown>, io: CommandIO): void {
  if (opts.json) io.out(toJson(res) + '\n');
  else if (opts.csv) {
    const t = replayRanks(res);
    io.out(rowsText(opts, t.columns, t.rows));
  } else io.out(replayText(res, tableLayout(opts)));
  for (const d of res.diagnostics) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
}

/** `tracewatt energy --astra-sim-log`: replay's energy breakdown with the times ASTRA-sim printed for the run. */
import { energyFromAstraSimLog } from '../../engines/astra-sim/index.js';
import { defineCommand } from '../command.js';
import { printReplayResult, REPLAY_CONFIG_OPTIONS, replayConfigOptions } from './replay.js';

export const energyCommand = defineCommand({
  name: 'energy',
  summary:
    "energy breakdown of a run ASTRA-sim timed: its per-rank times, the trace's node energies, tracewatt's " +
    'network traffic',
  args: [
    {
      name: 'trace',
      description:
        'the (annotated) trace ASTRA-sim ran: <prefix> of <prefix>.<rank>.et files, a directory, or one .et file',
    },
  ],
  options: [
    {
      name: 'astra-sim-log',
      type: 'string',
      value: 'file',
      description: 'ASTRA-sim\'s output of the run (stdout+stderr): its "sys[i] finished" and statistics lines',
      required: true,
    },
    ...REPLAY_CONFIG_OPTIONS,
  ],
  example:
    'tracewatt energy --astra-sim-log ' +
    'test/fixtures/astra-sim/congestion-aware/all_reduce_8npus_1MB__sys_ring_example__Switch_8npus.txt ' +
    'traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system traces/configs/sys_ring_example.json --network ' +
    'traces/configs/Switch_8npus.yml --power-config h100-cluster',
  async run(args, opts, io) {
    const res = await energyFromAstraSimLog({
      astraSimLog: opts.astraSimLog,
      trace: args[0],
      system: String(opts.system),
      network: String(opts.network),
      ...replayConfigOptions(opts),
    });
    printReplayResult(res, opts, io);
    return 0;
  },
});

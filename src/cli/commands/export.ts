/** `tracewatt export astra-sim`: a folder ASTRA-sim runs as it is, with every repair listed. */
import { exportAstraSim } from '../../engines/astra-sim/index.js';
import { POWER_PRESETS } from '../../engines/replay/index.js';
import { astraSimExportRows, astraSimExportText } from '../../report/text/astra-sim-export.js';
import { defineCommand } from '../command.js';
import { clusterFiles, emit, powerConfigOption, printSaid } from '../io.js';

export const exportAstraSimCommand = defineCommand({
  name: 'export astra-sim',
  summary:
    'write a folder ASTRA-sim runs as it is: the rank files (repaired where it would stall or misread), its ' +
    'configs and a run script',
  args: [
    {
      name: 'trace',
      description: 'the (annotated) trace: <prefix> of <prefix>.<rank>.et files, a directory, or one .et file',
    },
  ],
  options: [
    {
      name: 'out',
      type: 'string',
      value: 'dir',
      description:
        'folder to write (workload/<prefix>.<rank>.et, system.json, network.yml, memory.json, comm-group.json, ' +
        'power.json, run.sh, export.json)',
      required: true,
    },
    {
      name: 'system',
      type: 'string',
      value: 'file',
      description: 'ASTRA-sim system.json (default: <prefix>.system.json beside the trace)',
    },
    {
      name: 'network',
      type: 'string',
      value: 'file',
      description: 'ASTRA-sim network.yml (default: <prefix>.network.yml beside the trace)',
    },
    {
      name: 'memory',
      type: 'string',
      value: 'file',
      description: 'ASTRA-sim remote memory JSON (default: NO_MEMORY_EXPANSION)',
    },
    { name: 'comm-group', type: 'string', value: 'file', description: 'ASTRA-sim comm-group JSON (pg_name → ranks)' },
    powerConfigOption(
      `tracewatt power.json (or a preset: ${POWER_PRESETS.join(', ')}) for the energy breakdown of the run ` +
        `(default: <prefix>.power.json beside the trace, as annotate writes it)`,
    ),
    {
      name: 'comm-size',
      type: 'int',
      min: 0,
      value: 'bytes',
      description:
        'comm_size to give collectives that have none (without it such a trace is refused: ASTRA-sim stalls on them)',
    },
  ],
  exampleSetup: ['tracewatt import pytorch --dir traces/pytorch-real/dlrm --out out/dlrm'],
  example:
    'tracewatt export astra-sim out/dlrm --system traces/configs/sys_ring_example.json --network ' +
    'test/fixtures/astra-sim/pytorch-dlrm/Ring_8npus.yml --power-config v100-cluster --out out/dlrm-astra-sim',
  async run(args, opts, io) {
    const r = await exportAstraSim({
      trace: args[0],
      out: opts.out,
      ...clusterFiles(opts),
      commSizeBytes: opts.commSize === undefined ? undefined : BigInt(opts.commSize),
    });
    emit(io, opts, r, { table: () => astraSimExportRows(r), text: () => astraSimExportText(r) });
    printSaid(io, { diagnostics: r.diagnostics });
    return 0;
  },
});

/** `tracewatt export astra-sim`: a folder ASTRA-sim runs as it is, with every repair listed. */
import { toJson } from '../../formats/json.js';
import { exportAstraSim, type AstraSimExport } from '../../engines/astra-sim/index.js';
import { POWER_PRESETS } from '../../engines/replay/index.js';
import type { CommandSpec } from '../command.js';
import { int, str } from '../io.js';

function exportText(r: AstraSimExport): string {
  const lines = [
    `wrote ${r.out}: ${r.ranks} rank file(s) (${r.workload}.<rank>.et, ${r.nodes} nodes; ${r.unchangedRanks} byte-identical to the input), ` +
      `${[r.files.system, r.files.network, r.files.memory, r.files.commGroup, r.files.power]
        .filter(Boolean)
        .map((f) => f!.split('/').pop())
        .join(', ')}, run.sh, export.json`,
  ];
  if (r.repairs.length === 0) lines.push('repairs: none (ASTRA-sim reads the rank files as they were)');
  else {
    lines.push('repairs (so that ASTRA-sim runs these nodes as tracewatt replay does; all in export.json):');
    for (const d of r.repairs)
      lines.push(`  ${d.code} ×${d.count}: ${d.what}`, `    first: ${d.samples[0]?.message ?? ''}`);
  }
  lines.push(
    'run ASTRA-sim (congestion-unaware, or congestion-aware):',
    `  ${r.files.runScript} unaware`,
    `  ${r.files.runScript} aware`,
  );
  lines.push(
    '  or directly:',
    `  ${r.commands.congestionUnaware}`,
    'then the energy breakdown from its times:',
    `  ${r.commands.energy}`,
  );
  for (const n of r.notes) lines.push(`note: ${n}`);
  return `${lines.join('\n')}\n`;
}

export const exportAstraSimCommand: CommandSpec = {
  name: 'export astra-sim',
  summary:
    'write a folder ASTRA-sim runs as it is: the rank files (repaired where it would stall or misread), its configs and a run script',
  args: [
    {
      name: 'trace',
      description: 'the (annotated) trace: <prefix> of <prefix>.<rank>.et files, a directory, or one .et file',
    },
  ],
  options: [
    {
      name: 'out',
      value: 'dir',
      description:
        'folder to write (workload/<prefix>.<rank>.et, system.json, network.yml, memory.json, comm-group.json, power.json, run.sh, export.json)',
      required: true,
    },
    {
      name: 'system',
      value: 'file',
      description: 'ASTRA-sim system.json (default: <prefix>.system.json beside the trace)',
    },
    {
      name: 'network',
      value: 'file',
      description: 'ASTRA-sim network.yml (default: <prefix>.network.yml beside the trace)',
    },
    { name: 'memory', value: 'file', description: 'ASTRA-sim remote memory JSON (default: NO_MEMORY_EXPANSION)' },
    { name: 'comm-group', value: 'file', description: 'ASTRA-sim comm-group JSON (pg_name → ranks)' },
    {
      name: 'power',
      value: 'file',
      description: `tracewatt power.json (or a preset: ${POWER_PRESETS.join(', ')}) for the energy breakdown of the run (default: <prefix>.power.json beside the trace, as annotate writes it)`,
    },
    {
      name: 'comm-size',
      value: 'bytes',
      description:
        'comm_size to give collectives that have none (without it such a trace is refused: ASTRA-sim stalls on them)',
    },
  ],
  exampleSetup: ['tracewatt import pytorch --dir traces/pytorch-real/dlrm --out out/dlrm'],
  example:
    'tracewatt export astra-sim out/dlrm --system traces/configs/sys_ring_example.json --network test/fixtures/astra-sim/pytorch-dlrm/Ring_8npus.yml --power v100-cluster --out out/dlrm-astra-sim',
  async run(args, opts, io) {
    const commSize = int(opts, 'commSize', { min: 0 });
    const r = await exportAstraSim({
      trace: args[0],
      out: String(opts.out),
      system: str(opts, 'system'),
      network: str(opts, 'network'),
      memory: str(opts, 'memory'),
      commGroup: str(opts, 'commGroup'),
      power: str(opts, 'power'),
      commSizeBytes: commSize === undefined ? undefined : BigInt(commSize),
    });
    io.out(opts.json ? `${toJson(r)}\n` : exportText(r));
    for (const d of r.diagnostics) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
    return 0;
  },
};

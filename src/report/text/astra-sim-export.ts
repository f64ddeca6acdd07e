/**
 * What `tracewatt export astra-sim` prints: the files written, every repair (so that ASTRA-sim runs the nodes as
 * tracewatt replay does), how to run ASTRA-sim on the folder and get the energy breakdown from its times, and notes.
 */
import type { AstraSimExport } from '../../engines/astra-sim/index.js';
import type { RowSet } from '../text.js';

export function astraSimExportText(r: AstraSimExport): string {
  const lines = [
    `wrote ${r.out}: ${r.ranks} rank file(s) (${r.workload}.<rank>.et, ${r.nodes} nodes; ${r.unchangedRanks} ` +
      `byte-identical to the input), ` +
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

/** The repairs as a table: one row per repair code. */
export function astraSimExportRows(r: AstraSimExport): RowSet {
  return {
    columns: [{ header: 'repair', align: 'left' }, { header: 'nodes' }, { header: 'what', align: 'left' }],
    rows: r.repairs.map((d) => [d.code, d.count, d.what]),
  };
}

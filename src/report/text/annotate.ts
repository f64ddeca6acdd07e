/** The text views of an annotate result: one row per rank (all, or the first and last 8 of many), and the summary. */
import type { AnnotateResult } from '../../engines/annotate/index.js';
import { fixed, formatTable, recordTable, type Cell, type Column, type TableOptions } from '../tables.js';

const pct = (x: number | null) => (x === null ? null : 100 * x);

/** One row per rank (all, or the first and last 8 of many) and a total row. */
export function annotateRankRows(r: AnnotateResult, all: boolean): { columns: Column[]; rows: Cell[][] } {
  const shown = r.ranks.length > 16 && !all ? [...r.ranks.slice(0, 8), ...r.ranks.slice(-8)] : r.ranks;
  const rows: (AnnotateResult['total'] & { label: Cell; energiesJ: number[] })[] = [
    ...shown.map((x) => ({ ...x, label: x.rank, energiesJ: x.perFrequency.map((p) => p.computeEnergyJ) })),
    { ...r.total, label: 'total', energiesJ: r.outputs.map((o) => o.computeEnergyJ) },
  ];
  return recordTable(rows, [
    { header: 'rank', align: 'left', value: (x) => x.label },
    { header: 'nodes', value: (x) => x.nodes },
    { header: 'GPU compute nodes', value: (x) => x.gpuCompNodes },
    { header: 'matched', value: (x) => Object.values(x.matched).reduce((a, b) => a + b, 0) },
    { header: 'memcpy/set', value: (x) => x.memcpy },
    {
      header: 'match rate (%)',
      format: (v: Cell) => (v === null ? '-' : fixed(1)(v)),
      align: 'right',
      value: (x) => pct(x.matchRate),
    },
    { header: 'unmatched', value: (x) => x.unmatched },
    { header: 'roofline', value: (x) => x.roofline },
    { header: 'estimated', value: (x) => x.estimated },
    { header: 'untouched', value: (x) => x.untouched },
    { header: 'host ops', value: (x) => x.cpuOps },
    ...r.outputs.map((o, i) => ({
      header: `compute energy @${o.frequencyMHz} MHz (J, est.)`,
      key: `computeEnergyJAt${o.frequencyMHz}MHz`,
      format: fixed(4),
      value: (x: { energiesJ: number[] }) => x.energiesJ[i],
    })),
  ]);
}

export function annotateText(r: AnnotateResult, layout: TableOptions): string {
  const t = r.total;
  const table = annotateRankRows(r, false);
  const lines = [
    `annotated ${r.ranks.length} rank(s) of ${r.trace} with ${r.calibration.device} (${r.calibration.kind} ` +
      `calibration), ${r.profileKernels} profiled kernel(s); ` +
      `reference clock ${r.referenceClockMHz} MHz; ` +
      (r.parallelism.mode === 'workers'
        ? `${r.parallelism.threads} threads (this one and ${r.parallelism.threads - 1} worker` +
          `${r.parallelism.threads === 2 ? '' : 's'})`
        : `in-process (${r.parallelism.reason})`),
    `matched by: exact ${t.matched.exact}, normalized ${t.matched.normalized}, base name ${t.matched.base}, op ` +
      String(t.matched.op) +
      (t.byInvocation ? ` (${t.byInvocation} picked by invocation order)` : ''),
    '',
    formatTable(table.columns, table.rows, layout).trimEnd(),
    "memcpy/set: of the matched, memcpy and memset nodes; estimated: from the node's own duration and the",
    "calibration's assumed power (no counters or power for it)",
  ];
  if (r.ranks.length > 16) lines.push(`… ${r.ranks.length - 16} more ranks (use --csv or --json)`);
  if (t.unmatchedNames.length) {
    lines.push('', 'most frequent unmatched GPU kernels:');
    for (const n of t.unmatchedNames.slice(0, 5))
      lines.push(`  ${String(n.count).padStart(7)}  ${n.name.length > 110 ? `${n.name.slice(0, 107)}...` : n.name}`);
  }
  lines.push('', 'written (energies are estimates):');
  for (const o of r.outputs) {
    lines.push(
      `  ${o.frequencyMHz} MHz: ${o.prefix}.<rank>.et, ${o.powerFile} (active ${o.activePowerW} W, idle ` +
        `${o.idlePowerW} W, communication ${o.commPowerW} W; DRAM part ${fixed(4)(o.memoryEnergyJ)} of ` +
        `${fixed(4)(o.computeEnergyJ)} J)`,
    );
  }
  const annotated = t.gpuCompNodes - t.untouched;
  if (t.memorySplitUnknown)
    lines.push(
      `energy_memory_j (the DRAM part of energy_j): unknown for ${t.memorySplitUnknown} of ${annotated} ` +
        `annotated node(s), written 0 (duration estimates, or no DRAM counter / component)`,
    );
  return `${lines.join('\n')}\n`;
}

/** The text views of import kineto: one row per rank (read, written, the measured iteration) and the summary. */
import type { KinetoImportResult } from '../../engines/import/kineto.js';
import { formatTable, wrapText, type Cell, type Column, type TableOptions } from '../tables.js';
import { collectivesLine, rankNoteLines } from './import.js';

/** One row per rank: what was read, what was written, the measured iteration. */
export function kinetoImportRankRows(r: KinetoImportResult): { columns: Column[]; rows: Cell[][] } {
  const columns = [
    'rank',
    'host ops',
    'kernels',
    'memcpy',
    'memset',
    'collectives',
    'carried over',
    'syncs',
    'sync deps',
    'nodes',
    'measured iteration (ns)',
  ].map((header) => ({ header, ...(header === 'rank' ? { align: 'left' as const } : {}) }));
  const rows = r.ranks.map((x) => {
    const s = x.stats;
    const syncs = Object.entries(x.measured.syncs)
      .filter(([k]) => k !== 'unresolved')
      .reduce((a, [, v]) => a + v, 0);
    return [
      x.rank,
      s.hostOps,
      s.gpuByKind.kernel,
      s.gpuByKind.memcpy,
      s.gpuByKind.memset,
      Object.values(s.collectives).reduce((a, b) => a + b, 0),
      s.carriedOver,
      syncs,
      x.measured.hostWaitDeps + x.measured.gpuWaitDeps,
      s.nodes,
      x.iteration?.ns ?? null,
    ];
  });
  return { columns, rows };
}

export function kinetoImportText(r: KinetoImportResult, layout: TableOptions): string {
  const t = kinetoImportRankRows(r);
  const width = layout.width;
  const lines = [formatTable(t.columns, t.rows, layout).trimEnd()];
  lines.push(
    wrapText(
      'carried over: GPU ops running in the iteration but launched before it (no launching op); syncs: CUDA ' +
        'synchronisation calls read; ' +
        'sync deps: the dependencies written for them (from cuda_sync records, else inferred and kept where ' +
        'the measured times agree)',
      width,
    ),
    '',
  );
  const first = r.ranks[0]!;
  const steps = [...new Set(r.ranks.map((x) => x.iteration?.label ?? 'no ProfilerStep'))].join(', ');
  lines.push(
    `${first.device ?? 'unknown device'}${r.worldSize ? `, world size ${r.worldSize}` : ''}, measured ` +
      `iteration ${steps}`,
  );
  const colls = collectivesLine(r.ranks.map((x) => x.stats.collectives));
  if (colls) lines.push(colls);
  for (const n of rankNoteLines(r.ranks)) lines.push(wrapText(n, width));
  for (const n of r.notes) lines.push(wrapText(`note: ${n}`, width));
  for (const x of r.ranks) {
    const m = x.measured;
    if (m.clamped)
      lines.push(
        wrapText(
          `warning: rank ${x.rank}: ${m.clamped} node(s) start before a dependency is ready as measured (` +
            `${(m.clampedNs / 1000).toFixed(1)} µs in all), e.g. ${m.clampedNotes[0] ?? ''}`,
          width,
        ),
      );
    if (m.unexplainedWaits)
      lines.push(
        wrapText(
          `note: rank ${x.rank}: ${m.unexplainedWaits} GPU op(s) waited more than 100 µs after every ` +
            `dependency and their launch (${(m.unexplainedWaitNs / 1e6).toFixed(3)} ms in all): work the trace ` +
            `does not show (another process on the GPU, events left out of the trace) — kept as measured delays`,
          width,
        ),
      );
    for (const d of x.diagnostics)
      lines.push(wrapText(`warning: rank ${x.rank}: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}`, width));
  }
  lines.push('what a Kineto trace alone cannot tell (import pytorch, with the execution trace, can):');
  for (const c of r.cannotKnow) lines.push(wrapText(`  - ${c}`, width));
  if (r.commGroupsFile) lines.push(`wrote ${r.commGroupsFile} (process groups: pass it to replay as --comm-group)`);
  lines.push(
    `wrote ${r.ranks.length === 1 ? first.file : `${r.out}.<rank>.et (${r.ranks.map((x) => x.rank).join(', ')})`}`,
  );
  return `${lines.join('\n')}\n`;
}

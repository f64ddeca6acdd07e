/** The text views of import pytorch: one row per rank (operators linked, GPU events, nodes written) and the summary. */
import type { ImportResult } from '../../engines/import/index.js';
import { formatTable, type Cell, type Column, type TableOptions } from '../tables.js';

/** One row per rank: operators linked, GPU events by kind, nodes written. */
export function importRankRows(r: ImportResult): { columns: Column[]; rows: Cell[][] } {
  const columns = [
    'rank',
    'ET ops',
    'linked',
    'by rf_id',
    'Kineto ops',
    'GPU events',
    'kernels',
    'memcpy',
    'memset',
    'collectives',
    'left out',
    'nodes',
    'GPU compute (µs)',
    'measured iteration (ns)',
  ].map((header) => ({ header }));
  const rows = r.ranks.map((x) => {
    const g = x.link.gpu;
    const coll = Object.values(x.convert.collectives).reduce((a, b) => a + b, 0);
    return [
      x.rank,
      x.link.etOps,
      x.link.linkedByRfId + x.link.linkedBySequence,
      x.link.linkedByRfId,
      x.link.kinetoOps,
      g.events,
      x.convert.gpuByKind.kernel,
      x.convert.gpuByKind.memcpy,
      x.convert.gpuByKind.memset,
      coll,
      g.noLaunch + g.outside,
      x.convert.nodes,
      x.convert.gpuComputeMicros,
      x.measured?.window.iterationNs ?? null,
    ];
  });
  return { columns, rows };
}

/** The collectives of all ranks, counted by name ("collectives (all ranks): allreduce ×8, …"); null when none. */
export function collectivesLine(perRank: readonly Record<string, number>[]): string | null {
  const colls = new Map<string, number>();
  for (const c of perRank) for (const [k, v] of Object.entries(c)) colls.set(k, (colls.get(k) ?? 0) + v);
  return colls.size ? `collectives (all ranks): ${[...colls].map(([k, v]) => `${k} ×${v}`).join(', ')}` : null;
}

/** Each rank's notes once, with the ranks that have it ("note (rank all): …", "note (rank 0, 3): …"). */
export function rankNoteLines(ranks: readonly { rank: number; notes: readonly string[] }[]): string[] {
  const notes = new Map<string, number[]>();
  for (const x of ranks) for (const n of x.notes) notes.set(n, [...(notes.get(n) ?? []), x.rank]);
  return [...notes].map(
    ([n, rs]) => `note${ranks.length > 1 ? ` (rank ${rs.length === ranks.length ? 'all' : rs.join(', ')})` : ''}: ${n}`,
  );
}

export function importText(r: ImportResult, layout: TableOptions): string {
  const t = importRankRows(r);
  const lines = [formatTable(t.columns, t.rows, layout).trimEnd(), ''];
  const first = r.ranks[0]!;
  lines.push(
    `${first.device ?? 'unknown device'}, execution-trace schema ${first.etSchema}` +
      (first.measured
        ? `, measured iteration ${first.measured.window.label}`
        : first.steps.length
          ? `, iteration ${first.steps.join(', ')}`
          : ''),
  );
  const colls = collectivesLine(r.ranks.map((x) => x.convert.collectives));
  if (colls) lines.push(colls);
  lines.push(...rankNoteLines(r.ranks));
  for (const n of r.notes) lines.push(`note: ${n}`);
  for (const x of r.ranks)
    for (const d of x.diagnostics)
      lines.push(`warning: rank ${x.rank}: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}`);
  lines.push(
    `wrote ${r.ranks.length === 1 ? first.file : `${r.out}.<rank>.et (${r.ranks.map((x) => x.rank).join(', ')})`}`,
  );
  return `${lines.join('\n')}\n`;
}

/** The text views of an inspection: one row per rank and a total row, the collectives, schema and diagnostics. */
import type { Inspection } from '../../engines/trace/inspect.js';
import { formatTable, grouped, type Cell, type Column, type TableOptions } from '../tables.js';

/** One row per rank and a total row. */
export function inspectRows(r: Inspection): { columns: Column[]; rows: Cell[][] } {
  const types = [...new Set(r.ranks.flatMap((x) => Object.keys(x.nodesByType)))].sort();
  const count = (header: string, key?: string): Column => ({ header, key, align: 'right', format: grouped });
  // COMM_COLL_NODE → commCollNodes in CSV.
  const typeKey = (t: string) =>
    `${t
      .replace(/_NODE$/, '')
      .toLowerCase()
      .replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())}Nodes`;
  const columns: Column[] = [
    { header: 'rank', align: 'left' },
    count('nodes'),
    ...types.map((t) => count(t, typeKey(t))),
    count('COMP num_ops'),
    count('COMP duration (µs)'),
    count('data deps'),
    count('ctrl deps'),
    count('dangling deps'),
    count('in cycles'),
  ];
  const rows = [...r.ranks, { ...r.total, rank: 'total' }].map((x) => [
    x.rank,
    x.nodeCount,
    ...types.map((t) => x.nodesByType[t] ?? 0),
    x.numOps,
    x.durationMicros,
    x.edges.data,
    x.edges.ctrl,
    x.dangling.data + x.dangling.ctrl,
    x.nodesInCycles,
  ]);
  return { columns, rows };
}

export function inspectText(r: Inspection, layout: TableOptions): string {
  const t = inspectRows(r);
  let out = formatTable(t.columns, t.rows, layout);
  const colls = Object.entries(r.total.collectives);
  if (colls.length) {
    out += `\n${formatTable(
      [
        { header: 'collective (all ranks)' },
        { header: 'count', format: grouped },
        { header: 'comm_size (bytes)', format: grouped },
      ],
      colls.map(([k, v]) => [k, v.count, v.commSizeBytes]),
      layout,
    )}`;
  }
  if (r.total.sendRecv.sends + r.total.sendRecv.recvs > 0) {
    out +=
      `\nsend/recv: ${r.total.sendRecv.sends} sends (${grouped(r.total.sendRecv.sendBytes)} bytes), ` +
      `${r.total.sendRecv.recvs} recvs\n`;
  }
  const first = r.ranks[0];
  const noMeta = r.ranks.filter((x) => !x.hasMetadata).length;
  out +=
    `\nschema: ${first?.schema ?? '(none)'}, version: ` +
    (first ? (first.hasMetadata ? first.version || '(empty)' : '(no GlobalMetadata)') : '(none)');
  out += noMeta ? `; ${noMeta} rank file(s) have no GlobalMetadata (first frame is a Node)\n` : '\n';
  for (const x of r.ranks) {
    for (const d of x.diagnostics) out += `rank ${x.rank}: ${d.count} × ${d.code} (e.g. ${d.samples[0]?.message})\n`;
    if (x.cycleSample.length) out += `rank ${x.rank}: cycle ${x.cycleSample.join(' → ')}\n`;
  }
  return out;
}

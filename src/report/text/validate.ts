/** The text views of validate: one row per problem listed, and the problems with the verdict line. */
import type { ValidationReport } from '../../engines/trace/validate.js';
import type { Cell, Column } from '../tables.js';

/** One row per problem listed (the CSV). */
export function problemRows(r: ValidationReport): { columns: Column[]; rows: Cell[][] } {
  return {
    columns: [
      { header: 'severity' },
      { header: 'code' },
      { header: 'file' },
      { header: 'rank' },
      { header: 'node id' },
      { header: 'message' },
    ],
    rows: r.problems.map((p) => [p.severity, p.code, p.file, p.rank, p.nodeId, p.message]),
  };
}

/** Every problem listed, then the verdict: valid or INVALID, with the counts per kind. */
export function validationText(r: ValidationReport): string {
  let out = '';
  for (const p of r.problems) out += `${p.severity}: ${p.file}: ${p.message}\n`;
  const counts = Object.entries(r.counts)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  out +=
    `${r.errors === 0 ? 'valid' : 'INVALID'}: ${r.ranks} rank(s), ${r.nodes} nodes, ${r.errors} error(s), ` +
    `${r.warnings} warning(s)${counts ? ` (${counts})` : ''}\n`;
  return out;
}

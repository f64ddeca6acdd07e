/**
 * The one form of what a command says on stderr besides its result: notes, counted diagnostics (one line per code
 * with its count and first message) and warnings, each line prefixed with the file it is about.
 */
import type { DiagnosticSummary } from '../../diagnostics.js';

export interface Said {
  /** The file the lines are about (a profile, a trace); its name starts each line. */
  source?: string;
  notes?: readonly string[];
  diagnostics?: readonly DiagnosticSummary[];
  warnings?: readonly string[];
}

/** The lines, each ending in a newline: `<source>: note: …`, `<source>: warning: <code> ×<n>: …`, `WARNING: …`. */
export function saidText(said: Said): string {
  const at = said.source ? `${said.source}: ` : '';
  let text = '';
  for (const n of said.notes ?? []) text += `${at}note: ${n}\n`;
  for (const d of said.diagnostics ?? []) {
    const ex = d.samples[0];
    const where = ex?.file && ex.file !== said.source ? `${ex.file}: ` : '';
    text += `${at}warning: ${d.code} ×${d.count}: ${ex ? `${where}${ex.message}` : ''}\n`;
  }
  for (const w of said.warnings ?? []) text += `${at}WARNING: ${w}\n`;
  return text;
}

/** The one-line form of counted diagnostics that a command reports on stderr. */
import type { DiagnosticSummary } from '../../diagnostics.js';

/** One line per diagnostic code: "warning: <code> ×<count>: <first message>". */
export function warningsText(diagnostics: readonly DiagnosticSummary[]): string {
  return diagnostics.map((d) => `warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`).join('');
}

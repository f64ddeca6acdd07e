/** Small formatting helpers shared by the command files. */

/** Right-aligned plain-text table; headers carry units. */
export function table(headers: string[], rows: (string | number | bigint)[][]): string {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n') + '\n';
}

/** 12345678 → "12,345,678" (bigint-safe). */
export function thousands(v: number | bigint): string {
  return v.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

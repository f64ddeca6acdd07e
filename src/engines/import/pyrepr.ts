/**
 * Python-literal text of JSON values, as Chakra's converter writes IOInfo (`str(list)` in Python):
 * strings in single quotes, True / False / None. Numbers print as JSON gave them (a float written 0.000000 by the
 * ET reads back as 0, where Python would print 0.0).
 */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : v > 0 ? 'inf' : v < 0 ? '-inf' : 'nan';
  if (typeof v === 'string') {
    const quote = v.includes("'") && !v.includes('"') ? '"' : "'";
    let s = '';
    for (const ch of v) {
      if (ch === '\\') s += '\\\\';
      else if (ch === quote) s += `\\${ch}`;
      else if (ch === '\n') s += '\\n';
      else if (ch === '\r') s += '\\r';
      else if (ch === '\t') s += '\\t';
      else s += ch;
    }
    return quote + s + quote;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  return String(v);
}

/**
 * Nulls in a command's JSON output where a number belongs: their paths (keys in `nullOk` may be null by definition).
 */
export function badNulls(v: unknown, nullOk: ReadonlySet<string>, at = ''): string[] {
  if (v === null) return [at];
  if (typeof v !== 'object') return [];
  const out: string[] = [];
  for (const [k, x] of Object.entries(v as object)) {
    if (x === null && !Array.isArray(v) && nullOk.has(k)) continue;
    out.push(...badNulls(x, nullOk, `${at}.${k}`));
  }
  return out;
}

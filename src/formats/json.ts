/**
 * JSON output for results: bigint values are written as exact integer literals (valid JSON;
 * consumers that need all 64 bits, e.g. Python, read them exactly) instead of passing through a float.
 * A number that is not finite (NaN, ±Infinity: JSON.stringify would write null where a number belongs) is refused
 * with the field's path, so no output ever holds one.
 */
import { TracewattError } from '../errors.js';

const MARK = '__tracewatt_bigint__';
const MARKED = new RegExp(`"${MARK}(-?\\d+)"`, 'g');

/** The path of the first non-finite number in `value` ("points[3].energyJ.total"), found without recursion. */
function nonFinitePath(value: unknown): { path: string; value: number } | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) return { path: at || '(the value)', value: v };
    if (v === null || typeof v !== 'object') continue;
    const toJSON = (v as { toJSON?: () => unknown }).toJSON;
    if (typeof toJSON === 'function') {
      stack.push([toJSON.call(v), at]);
      continue;
    }
    const entries = Array.isArray(v)
      ? v.map((x, i) => [`[${i}]`, x] as const)
      : Object.entries(v).map(([k, x]) => [at ? `.${k}` : k, x] as const);
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${at}${entries[i]![0]}`]);
  }
  return null;
}

export function toJson(value: unknown, indent = 2): string {
  let found = false;
  let nonFinite = false;
  const text = JSON.stringify(
    value,
    (_key, v) => {
      if (typeof v === 'number') {
        if (!Number.isFinite(v)) nonFinite = true;
        return v;
      }
      if (typeof v !== 'bigint') return v;
      found = true;
      return `${MARK}${v.toString()}`;
    },
    indent,
  );
  if (nonFinite) {
    const bad = nonFinitePath(value);
    throw new TracewattError(
      'NON_FINITE',
      `the result's ${bad?.path ?? 'figures'} would be ${bad?.value ?? 'not a number'}, not a finite number ` +
        `(an input is out of range)`,
    );
  }
  return found ? text.replace(MARKED, '$1') : text;
}

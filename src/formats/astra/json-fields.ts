/** Small helpers that read typed fields from parsed JSON/YAML and name the key on every error. */
import { excerpt, FormatError, listExcerpt } from '../../errors.js';

export type Obj = Record<string, unknown>;

export function asObject(file: string, value: unknown, what: string): Obj {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FormatError(file, '', `expected ${what} (a JSON/YAML object), found ${describe(value)}`);
  }
  return value as Obj;
}

export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `"${excerpt(v)}"`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${excerpt(String(v))}`;
}

/** `missing key "topology" (expected …)`: the error for a required key that is absent. */
export function missingKey(file: string, key: string, expected?: string): FormatError {
  return new FormatError(file, `key "${key}"`, `is required but missing${expected ? ` (expected ${expected})` : ''}`);
}

/**
 * Every required key absent from `obj`, named in one error (a file missing three keys says so once, not one key per
 * run); `required` maps each key to what it expects. One missing key gives {@link missingKey}'s message.
 */
export function requireKeys(file: string, obj: Obj, required: Record<string, string>): void {
  const missing = Object.keys(required).filter((k) => obj[k] === undefined);
  if (missing.length === 0) return;
  if (missing.length === 1) throw missingKey(file, missing[0], required[missing[0]]);
  const expected = new Set(missing.map((k) => required[k]));
  const what =
    expected.size === 1
      ? `each expected as ${[...expected][0]}`
      : missing.map((k) => `"${k}": ${required[k]}`).join('; ');
  throw new FormatError(file, `keys ${missing.map((k) => `"${k}"`).join(', ')}`, `are required but missing (${what})`);
}

/**
 * The accepted range of a number: `min` (inclusive) or `above` (exclusive, for quantities such as bandwidths that
 * cannot be 0), `max` (inclusive); `unit` is named in the message, which states the range.
 */
export interface NumRange {
  min?: number;
  above?: number;
  max?: number;
  integer?: boolean;
  unit?: string;
}

/** A number as a message writes it: the shorter of its plain and exponent forms (1e12, 1e-6, 1048576, 0.5). */
export function shortNumber(x: number): string {
  const plain = String(x);
  const exp = x.toExponential().replace('e+', 'e');
  return exp.length < plain.length ? exp : plain;
}

/** The problem with `v` against its range, or null when it is in range. */
function outOfRange(v: number, r: NumRange): string | null {
  const u = r.unit ? ` ${r.unit}` : '';
  const n = shortNumber;
  const lower = r.above !== undefined ? `> ${n(r.above)}${u}` : r.min !== undefined ? `≥ ${n(r.min)}${u}` : null;
  const range =
    lower && r.max !== undefined
      ? `${lower} and ≤ ${n(r.max)}${u}`
      : (lower ?? (r.max !== undefined ? `≤ ${n(r.max)}${u}` : null));
  if (
    (r.above !== undefined && !(v > r.above)) ||
    (r.min !== undefined && v < r.min) ||
    (r.max !== undefined && v > r.max)
  )
    return `must be ${range}, found ${n(v)}`;
  return null;
}

/** A finite number (JSON booleans and 0/1 accepted where ASTRA-sim accepts them is the caller's choice). */
export function num(file: string, obj: Obj, key: string, opts: NumRange & { def?: number } = {}): number {
  const v = obj[key];
  if (v === undefined) {
    if (opts.def !== undefined) return opts.def;
    throw missingKey(file, key);
  }
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new FormatError(file, `key "${key}"`, `expected a number, found ${describe(v)}`);
  if (opts.integer && !Number.isInteger(v))
    throw new FormatError(file, `key "${key}"`, `expected an integer, found ${v}`);
  const bad = outOfRange(v, opts);
  if (bad) throw new FormatError(file, `key "${key}"`, bad);
  return v;
}

export function flag(file: string, obj: Obj, key: string): boolean {
  const v = obj[key];
  if (v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  throw new FormatError(file, `key "${key}"`, `expected 0/1 or true/false, found ${describe(v)}`);
}

export function oneOf<T extends string>(file: string, obj: Obj, key: string, allowed: readonly T[], def?: T): T {
  const v = obj[key];
  if (v === undefined) {
    if (def !== undefined) return def;
    throw missingKey(file, key, `one of ${allowed.join(' | ')}`);
  }
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw new FormatError(file, `key "${key}"`, `expected one of ${allowed.join(' | ')}, found ${describe(v)}`);
  }
  return v as T;
}

export function numList(file: string, obj: Obj, key: string, opts: NumRange = {}): number[] {
  const v = obj[key];
  if (v === undefined) throw missingKey(file, key, 'a list of numbers, one per dimension');
  if (!Array.isArray(v) || v.length === 0)
    throw new FormatError(file, `key "${key}"`, `expected a non-empty list, found ${describe(v)}`);
  return v.map((x, i) => {
    if (typeof x !== 'number' || !Number.isFinite(x))
      throw new FormatError(file, `key "${key}"[${i}]`, `expected a number, found ${describe(x)}`);
    if (opts.integer && !Number.isInteger(x))
      throw new FormatError(file, `key "${key}"[${i}]`, `expected an integer, found ${x}`);
    const bad = outOfRange(x, opts);
    if (bad) throw new FormatError(file, `key "${key}"[${i}]`, bad);
    return x;
  });
}

export function strList(file: string, obj: Obj, key: string): string[] | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length === 0)
    throw new FormatError(file, `key "${key}"`, `expected a non-empty list of strings, found ${describe(v)}`);
  return v.map((x, i) => {
    if (typeof x !== 'string')
      throw new FormatError(file, `key "${key}"[${i}]`, `expected a string, found ${describe(x)}`);
    return x;
  });
}

/** Edit distance between two short strings (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * Keys not in `known` are refused: a misspelt key silently ignored is how wrong results happen. The message names
 * the closest known keys when the key looks misspelt, else the known keys (the first few of a long list).
 */
export function refuseUnknown(file: string, obj: Obj, known: readonly string[], hint = ''): void {
  for (const k of Object.keys(obj)) {
    if (known.includes(k)) continue;
    const near =
      k.length > 80
        ? []
        : known.filter((x) => distance(k.toLowerCase(), x.toLowerCase()) <= Math.max(2, Math.floor(x.length / 4)));
    const which =
      near.length > 0
        ? `did you mean ${near.map((x) => `"${x}"`).join(' or ')}?`
        : `known keys: ${listExcerpt(known, 12)}`;
    throw new FormatError(file, `key "${excerpt(k)}"`, `unknown key${hint ? ` (${hint})` : ''}; ${which}`);
  }
}

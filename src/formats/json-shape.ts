/**
 * The one checker for the shape of parsed JSON (and YAML) inputs: calibration files, power, system and network
 * configs, result records, study shards, V–f curves, trace headers. Every problem is a FormatError in one form:
 *
 *   `<file>: <path>: expected <what>, found <value>`   e.g. `power.json: gpu.idlePowerW: expected a number, found "x"`
 *   `<file>: <path>: must be <range>, found <value>`   e.g. `net.yml: bandwidth[0]: must be > 0 GB/s …, found 0`
 *
 * The path is the JSON path from the document's root: keys joined by dots, array indices in brackets
 * (`points[3].energyJ.total`, `[1].kind` in a top-level array); the root itself has no path. A missing field is
 * "found nothing (missing)".
 */
import { excerpt, FormatError, listExcerpt, MAX_QUOTED_CHARS } from '../errors.js';

export type JsonObject = Record<string, unknown>;

/** The path of `key` (an object key or an array index) under `path`. */
export function jsonPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/** A number as a message writes it: the shorter of its plain and exponent forms (1e12, 1e-6, 1048576, 0.5). */
export function shortNumber(x: number): string {
  const plain = String(x);
  const exp = x.toExponential().replace('e+', 'e');
  return exp.length < plain.length ? exp : plain;
}

/**
 * A JSON value as a message names what was found: `"text"`, `42`, `true`, `null`, a short list or object as JSON
 * (`{"index":1}`), a longer one as `a list of 12 entries` or `an object`.
 */
export function describeJson(v: unknown): string {
  if (v === undefined) return 'nothing (missing)';
  if (v === null) return 'null';
  if (typeof v === 'string') return `"${excerpt(v)}"`;
  if (typeof v === 'number') return shortNumber(v);
  if (Array.isArray(v) && v.length === 0) return 'an empty list';
  if (typeof v === 'object') {
    const text = JSON.stringify(v);
    if (text.length <= MAX_QUOTED_CHARS) return text;
    return Array.isArray(v) ? `a list of ${v.length} entries` : 'an object';
  }
  return excerpt(String(v));
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

/** The range as a message states it (`≥ 0 W and ≤ 1e4 W`), or null when there is none. */
function rangeText(r: NumRange): string | null {
  const u = r.unit ? ` ${r.unit}` : '';
  const n = shortNumber;
  const lower = r.above !== undefined ? `> ${n(r.above)}${u}` : r.min !== undefined ? `≥ ${n(r.min)}${u}` : null;
  if (lower && r.max !== undefined) return `${lower} and ≤ ${n(r.max)}${u}`;
  return lower ?? (r.max !== undefined ? `≤ ${n(r.max)}${u}` : null);
}

function inRange(v: number, r: NumRange): boolean {
  return !(
    (r.above !== undefined && !(v > r.above)) ||
    (r.min !== undefined && v < r.min) ||
    (r.max !== undefined && v > r.max)
  );
}

/** A number's rule: its range, and whether it may be absent (`def` or `optional`) or null (`nullable`). */
export interface NumberRule extends NumRange {
  optional?: boolean;
  nullable?: boolean;
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

/** Reads the fields of one parsed JSON file; every error names the file and the field's JSON path. */
export class JsonShape {
  constructor(readonly file: string) {}

  /** A problem at `path` ('' for the whole document). */
  error(path: string, problem: string): FormatError {
    return new FormatError(this.file, path, problem);
  }

  fail(path: string, problem: string): never {
    throw this.error(path, problem);
  }

  /** `expected <what>, found <value>` at `path`. */
  expected(path: string, what: string, value: unknown): never {
    this.fail(path, `expected ${what}, found ${describeJson(value)}`);
  }

  /** The value at `path` as an object (`what` says which object, e.g. `a power configuration (a JSON object)`). */
  object(value: unknown, path: string, what = 'an object'): JsonObject {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.expected(path, what, value);
    return value as JsonObject;
  }

  /** `obj[key]` as an object; absent is allowed with `optional` (then `{}`). */
  child(obj: JsonObject, key: string, path: string, opts: { optional?: boolean; what?: string } = {}): JsonObject {
    if (obj[key] === undefined && opts.optional) return {};
    return this.object(obj[key], jsonPath(path, key), opts.what);
  }

  /** `obj[key]` as a list of at least `minLength` entries (`what` names it in the message). */
  list(obj: JsonObject, key: string, path: string, minLength = 0, what?: string): unknown[] {
    const value = obj[key];
    const p = jsonPath(path, key);
    const expected = what ?? (minLength > 0 ? 'a non-empty list' : 'a list');
    if (!Array.isArray(value) || (minLength === 1 && value.length === 0)) this.expected(p, expected, value);
    if (value.length < minLength) this.fail(p, `expected at least ${minLength} entries, found ${value.length}`);
    return value;
  }

  /** A number at `path`, in `rule`'s range. */
  numberValue(value: unknown, path: string, rule: NumRange = {}): number {
    if (typeof value !== 'number' || !Number.isFinite(value)) this.expected(path, 'a number', value);
    if (rule.integer && !Number.isInteger(value)) this.expected(path, 'an integer', value);
    if (!inRange(value, rule)) this.fail(path, `must be ${rangeText(rule)}, found ${shortNumber(value)}`);
    return value;
  }

  /** `obj[key]` as a number in range; absent gives `def` when given. */
  number(obj: JsonObject, key: string, path: string, rule: NumRange & { def?: number } = {}): number {
    if (obj[key] === undefined && rule.def !== undefined) return rule.def;
    return this.numberValue(obj[key], jsonPath(path, key), rule);
  }

  /** `obj[key]` as a number, or undefined when absent (`optional`), or null (`nullable`). */
  maybeNumber(obj: JsonObject, key: string, path: string, rule: NumberRule): number | null | undefined {
    const value = obj[key];
    if (value === undefined && rule.optional) return undefined;
    if (value === null && rule.nullable) return null;
    if (rule.nullable && (typeof value !== 'number' || !Number.isFinite(value)))
      this.expected(jsonPath(path, key), 'a number or null', value);
    return this.numberValue(value, jsonPath(path, key), rule);
  }

  /** Each of `keys` as a number in `rule`'s range. */
  numbers(obj: JsonObject, keys: readonly string[], path: string, rule: NumRange = {}): void {
    for (const key of keys) this.number(obj, key, path, rule);
  }

  /** `obj[key]` as a string (`nonEmpty`: with something besides blanks). */
  string(obj: JsonObject, key: string, path: string, opts: { nonEmpty?: boolean; what?: string } = {}): string {
    const value = obj[key];
    if (typeof value !== 'string' || (opts.nonEmpty && !value.trim()))
      this.expected(jsonPath(path, key), opts.what ?? (opts.nonEmpty ? 'a non-empty string' : 'a string'), value);
    return value;
  }

  /** `obj[key]` as true or false (absent: `def` when given). */
  boolean(obj: JsonObject, key: string, path: string, def?: boolean): boolean {
    const value = obj[key];
    if (value === undefined && def !== undefined) return def;
    if (typeof value !== 'boolean') this.expected(jsonPath(path, key), 'true or false', value);
    return value;
  }

  /** `obj[key]` as a flag where ASTRA-sim accepts 0/1 as well as true/false (absent: false). */
  flag(obj: JsonObject, key: string, path: string): boolean {
    const value = obj[key];
    if (value === undefined) return false;
    if (typeof value === 'boolean') return value;
    if (typeof value === 'number') return value !== 0;
    this.expected(jsonPath(path, key), '0/1 or true/false', value);
  }

  /** A value at `path` that must be one of `allowed`. */
  oneOfValue<T extends string | number>(value: unknown, path: string, allowed: readonly T[]): T {
    if (!(allowed as readonly unknown[]).includes(value))
      this.expected(path, allowed.length === 1 ? String(allowed[0]) : `one of ${allowed.join(', ')}`, value);
    return value as T;
  }

  /** `obj[key]` as one of `allowed` (absent: `def` when given). */
  oneOf<T extends string | number>(obj: JsonObject, key: string, path: string, allowed: readonly T[], def?: T): T {
    if (obj[key] === undefined && def !== undefined) return def;
    return this.oneOfValue(obj[key], jsonPath(path, key), allowed);
  }

  /** `obj[key]` as a list of numbers in `rule`'s range (`minLength` entries at least). */
  numberList(obj: JsonObject, key: string, path: string, rule: NumRange & { minLength?: number } = {}): number[] {
    const p = jsonPath(path, key);
    return this.list(obj, key, path, rule.minLength ?? 0, 'a list of numbers').map((x, i) =>
      this.numberValue(x, jsonPath(p, i), rule),
    );
  }

  /** `obj[key]` as a list of strings (`minLength` entries at least). */
  stringList(obj: JsonObject, key: string, path: string, minLength = 0): string[] {
    const p = jsonPath(path, key);
    return this.list(obj, key, path, minLength, 'a list of strings').map((x, i) => {
      if (typeof x !== 'string') this.expected(jsonPath(p, i), 'a string', x);
      return x;
    });
  }

  /** Calls `fn` on each entry of the list `obj[key]` as an object, with its path. */
  each(
    obj: JsonObject,
    key: string,
    path: string,
    minLength: number,
    fn: (item: JsonObject, itemPath: string, index: number) => void,
  ): void {
    const p = jsonPath(path, key);
    this.list(obj, key, path, minLength).forEach((item, i) => {
      fn(this.object(item, jsonPath(p, i)), jsonPath(p, i), i);
    });
  }

  /**
   * Every one of `required`'s keys present in `obj`, named in one error (`required` maps each key to what it expects).
   */
  requireKeys(obj: JsonObject, path: string, required: Record<string, string>): void {
    const missing = Object.keys(required).filter((k) => obj[k] === undefined);
    if (missing.length === 0) return;
    if (missing.length === 1) this.expected(jsonPath(path, missing[0]!), required[missing[0]!]!, undefined);
    const expected = new Set(missing.map((k) => required[k]));
    const what =
      expected.size === 1 ? `each ${[...expected][0]}` : missing.map((k) => `${k}: ${required[k]}`).join('; ');
    this.fail(missing.map((k) => jsonPath(path, k)).join(', '), `expected ${what}, found nothing (missing)`);
  }

  /**
   * Keys not in `known` are refused: a misspelt key silently ignored is how wrong results happen. The message names
   * the closest known keys when the key looks misspelt, else the known keys (the first few of a long list).
   */
  refuseUnknown(obj: JsonObject, path: string, known: readonly string[]): void {
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
      this.fail(jsonPath(path, excerpt(k)), `unknown key; ${which}`);
    }
  }
}

/** Small helpers that read typed fields from parsed JSON/YAML and name the key on every error. */
import { FormatError } from '../../errors.js';

export type Obj = Record<string, unknown>;

export function asObject(file: string, value: unknown, what: string): Obj {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FormatError(file, '', `expected ${what} (a JSON/YAML object), found ${describe(value)}`);
  }
  return value as Obj;
}

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `"${v}"`;
  return `${typeof v} ${String(v)}`;
}

/** A finite number (JSON booleans and 0/1 accepted where ASTRA-sim accepts them is the caller's choice). */
export function num(file: string, obj: Obj, key: string, opts: { min?: number; integer?: boolean; def?: number } = {}): number {
  const v = obj[key];
  if (v === undefined) {
    if (opts.def !== undefined) return opts.def;
    throw new FormatError(file, `key "${key}"`, 'is required but missing');
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new FormatError(file, `key "${key}"`, `expected a number, found ${describe(v)}`);
  if (opts.integer && !Number.isInteger(v)) throw new FormatError(file, `key "${key}"`, `expected an integer, found ${v}`);
  if (opts.min !== undefined && v < opts.min) throw new FormatError(file, `key "${key}"`, `must be ≥ ${opts.min}, found ${v}`);
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
    throw new FormatError(file, `key "${key}"`, 'is required but missing');
  }
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw new FormatError(file, `key "${key}"`, `expected one of ${allowed.join(' | ')}, found ${describe(v)}`);
  }
  return v as T;
}

export function numList(file: string, obj: Obj, key: string, opts: { min?: number; integer?: boolean } = {}): number[] {
  const v = obj[key];
  if (v === undefined) throw new FormatError(file, `key "${key}"`, 'is required but missing');
  if (!Array.isArray(v) || v.length === 0) throw new FormatError(file, `key "${key}"`, `expected a non-empty list, found ${describe(v)}`);
  return v.map((x, i) => {
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new FormatError(file, `key "${key}"[${i}]`, `expected a number, found ${describe(x)}`);
    if (opts.integer && !Number.isInteger(x)) throw new FormatError(file, `key "${key}"[${i}]`, `expected an integer, found ${x}`);
    if (opts.min !== undefined && x < opts.min) throw new FormatError(file, `key "${key}"[${i}]`, `must be ≥ ${opts.min}, found ${x}`);
    return x;
  });
}

export function strList(file: string, obj: Obj, key: string): string[] | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length === 0) throw new FormatError(file, `key "${key}"`, `expected a non-empty list of strings, found ${describe(v)}`);
  return v.map((x, i) => {
    if (typeof x !== 'string') throw new FormatError(file, `key "${key}"[${i}]`, `expected a string, found ${describe(x)}`);
    return x;
  });
}

/** Keys not in `known` are refused: a misspelt key silently ignored is how wrong results happen. */
export function refuseUnknown(file: string, obj: Obj, known: readonly string[], hint = ''): void {
  for (const k of Object.keys(obj)) {
    if (!known.includes(k)) throw new FormatError(file, `key "${k}"`, `unknown key${hint ? ` (${hint})` : ''}; known keys: ${known.join(', ')}`);
  }
}

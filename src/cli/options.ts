/**
 * Typed command options. Each entry of a command's option table says its type, how its text is parsed, its choices
 * and its default, once; the command receives the parsed values as an object whose type TypeScript derives from the
 * table (`opts.workers: number | undefined`, `opts.scaling: 'ratio' | 'offset'`), so a misspelt option does not
 * compile. This file holds the one parser of numbers, number lists and ranges given on the command line; its errors
 * name the flag and what was expected (InputError: the CLI prints one line and exits 2).
 */
import { excerpt, InputError } from '../errors.js';
import { MAX_SWEEP_POINTS } from '../engines/studies/range.js';

interface OptionBase {
  /** Long flag without dashes, e.g. "calibration"; the value is opts.calibration (camelCased). */
  name: string;
  /** Value placeholder shown in help, e.g. "file"; a boolean flag has none. */
  value?: string;
  description: string;
  required?: boolean;
  /** Another option (without dashes) this one only applies with: given alone, the command refuses it. */
  requires?: string;
  /** Earlier names still accepted for one release, each with a note on stderr; hidden from help. */
  deprecatedNames?: readonly string[];
}

/** A flag; false when absent. A name "no-x" is commander's negation of x: true when --no-x is given. */
export interface BooleanOption extends OptionBase {
  type: 'boolean';
  default?: undefined;
  repeatable?: undefined;
}
/** Text (a file, a name); `repeatable` collects every use into a list (empty when absent). */
export interface StringOption extends OptionBase {
  type: 'string';
  repeatable?: boolean;
  default?: string;
}
/** A whole number ≥ `min` (default 1). */
export interface IntOption extends OptionBase {
  type: 'int';
  repeatable?: undefined;
  min?: number;
  default?: number;
}
/** A finite number; `positive` refuses 0 and below, `min` is an inclusive lower bound; `unit` goes into errors. */
export interface NumberOption extends OptionBase {
  type: 'number';
  repeatable?: undefined;
  unit?: string;
  positive?: boolean;
  min?: number;
  default?: number;
}
/** Numbers separated by commas (each ≥ 0, or > 0 when `positive`), or the one word `keyword` (e.g. 'all'). */
export interface ListOption extends OptionBase {
  type: 'list';
  repeatable?: undefined;
  unit: string;
  positive?: boolean;
  keyword?: string;
  default?: string;
}
/** "start:stop:step" (inclusive) or a comma list; sorted ascending without duplicates (sweeps). */
export interface RangeOption extends OptionBase {
  type: 'range';
  repeatable?: undefined;
  default?: string;
}
/** One of `choices` (write them `as const`, or in a table passed to defineCommand, for the value's type). */
export interface ChoiceOption extends OptionBase {
  type: 'choice';
  repeatable?: undefined;
  choices: readonly string[];
  default?: string;
}

export type TypedOption =
  | BooleanOption
  | StringOption
  | IntOption
  | NumberOption
  | ListOption
  | RangeOption
  | ChoiceOption;

/** "max-per-code" → "maxPerCode", as a type. */
export type CamelCase<S extends string> = S extends `${infer A}-${infer B}` ? `${A}${Capitalize<CamelCase<B>>}` : S;

type ValueOf<O> = O extends { type: 'boolean' }
  ? boolean
  : O extends { type: 'string'; repeatable: true }
    ? string[]
    : O extends { type: 'string' }
      ? string
      : O extends { type: 'int' | 'number' }
        ? number
        : O extends { type: 'list'; keyword: infer K extends string }
          ? number[] | K
          : O extends { type: 'list' | 'range' }
            ? number[]
            : O extends { type: 'choice'; choices: readonly (infer C)[] }
              ? C
              : never;

/** Options that always have a value: flags, repeatable lists, and those required or with a default. */
type AlwaysGiven<O> = O extends { type: 'boolean' } | { repeatable: true } | { required: true } | { default: unknown }
  ? true
  : false;

/** The parsed values of an option table, by camelCased name. */
export type OptionValues<T extends readonly TypedOption[]> = {
  readonly [O in T[number] as CamelCase<O['name']>]: AlwaysGiven<O> extends true ? ValueOf<O> : ValueOf<O> | undefined;
};

/** "max-per-code" → "maxPerCode": the key commander and the typed values use. */
export function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** "maxPerCode" → "--max-per-code": the flag as the user typed it. */
export function flagOf(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** A whole number ≥ `min` (default 1). */
export function parseWhole(text: string, flag: string, min = 1): number {
  const t = text.trim();
  const v = /^[+-]?\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isSafeInteger(v) || v < min)
    throw new InputError(
      `${flag}: expected a whole number${min === 1 ? ' ≥ 1' : min === 0 ? ' ≥ 0' : ` ≥ ${min}`}, got "${excerpt(t)}"`,
    );
  return v;
}

/** A finite number; `positive` refuses 0 and below, `min` sets an inclusive lower bound. `unit` goes into the error. */
export function parseNumber(
  text: string,
  flag: string,
  o: { unit?: string; positive?: boolean; min?: number } = {},
): number {
  const t = text.trim();
  const v = t === '' ? NaN : Number(t);
  if (!Number.isFinite(v) || (o.positive && !(v > 0)) || (o.min !== undefined && v < o.min)) {
    const what = o.positive ? 'a positive number' : o.min !== undefined ? `a number ≥ ${o.min}` : 'a number';
    throw new InputError(`${flag}: expected ${what}${o.unit ? ` of ${o.unit}` : ''}, got "${excerpt(t)}"`);
  }
  return v;
}

/** Numbers separated by commas, each ≥ 0 (> 0 when `positive`), or `keyword` itself. */
export function parseList(
  text: string,
  flag: string,
  o: { unit: string; positive?: boolean; keyword?: string },
): number[] | string {
  const t = text.trim();
  if (o.keyword !== undefined && t === o.keyword) return t;
  const list = t.split(',').map((x) => (x.trim() === '' ? NaN : Number(x)));
  if (!t || list.some((x) => !Number.isFinite(x) || x < 0 || (o.positive && x === 0)))
    throw new InputError(
      `${flag}: expected ${o.unit} values separated by commas${o.keyword ? ` or '${o.keyword}'` : ''}, got "` +
        `${excerpt(t)}"`,
    );
  return list;
}

/** Values are rounded to this many decimals so 0.5 + 10·0.05 is exactly 1. */
const RANGE_DECIMALS = 9;

function rangeNumber(text: string, flag: string, whole: string): number {
  const v = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(v))
    throw new InputError(`${flag} "${excerpt(whole)}": "${excerpt(text)}" is not a number`);
  return v;
}

/**
 * "start:stop:step" (start and stop included when stop − start is a whole number of steps; otherwise the last value
 * is the one before stop) or a comma-separated list; the values sorted ascending without duplicates.
 */
export function parseRange(text: string, flag = 'range', maxPoints = MAX_SWEEP_POINTS): number[] {
  const parts = text.split(':');
  let values: number[];
  if (parts.length === 3) {
    const [start, stop, step] = parts.map((p) => rangeNumber(p, flag, text));
    if (!(step > 0)) throw new InputError(`${flag} "${excerpt(text)}": the step must be positive`);
    if (stop < start) throw new InputError(`${flag} "${excerpt(text)}": stop ${stop} is below start ${start}`);
    const n = Math.floor((stop - start) / step + 1e-9) + 1;
    if (!(n <= maxPoints))
      throw new InputError(`${flag} "${excerpt(text)}" gives ${n} points; at most ${maxPoints} are allowed`);
    values = Array.from({ length: n }, (_, i) => start + i * step);
  } else if (parts.length === 1) {
    values = text.split(',').map((p) => rangeNumber(p, flag, text));
    if (values.length > maxPoints)
      throw new InputError(
        `${flag} "${excerpt(text)}" gives ${values.length} points; at most ${maxPoints} are allowed`,
      );
  } else {
    throw new InputError(
      `${flag} "${excerpt(text)}": write start:stop:step (e.g. 0.5:1.0:0.05) or a comma list (e.g. 0.5,0.75,1)`,
    );
  }
  const rounded = values.map((v) => Number(v.toFixed(RANGE_DECIMALS)));
  return [...new Set(rounded)].sort((a, b) => a - b);
}

/** One of `choices`. */
export function parseChoice(text: string, flag: string, choices: readonly string[]): string {
  const t = text.trim();
  if (!choices.includes(t)) throw new InputError(`${flag}: expected one of ${choices.join(', ')}, got "${excerpt(t)}"`);
  return t;
}

/** The value of one option from its text (commander gives text; a test may give a number or a list). */
function parseValue(o: TypedOption, raw: unknown, flag: string): unknown {
  switch (o.type) {
    case 'boolean':
      return raw === true || raw === 'true';
    case 'string':
      return o.repeatable ? (Array.isArray(raw) ? raw : [raw]).map(String) : String(raw);
    case 'int':
      return parseWhole(String(raw), flag, o.min);
    case 'number':
      return parseNumber(String(raw), flag, o);
    case 'list':
      return Array.isArray(raw) ? raw : parseList(String(raw), flag, o);
    case 'range':
      return Array.isArray(raw) ? raw : parseRange(String(raw), flag);
    case 'choice':
      return parseChoice(String(raw), flag, o.choices);
    default: {
      const never: never = o;
      throw new Error(`unknown option type in ${JSON.stringify(never)}`);
    }
  }
}

/** The deprecation note printed (once per use) when an option is given under an earlier name. */
function deprecationNote(oldName: string, name: string): string {
  return `--${oldName} is deprecated: use --${name}`;
}

/**
 * Parses the options a command was given (`raw`: commander's values by camelCased name, only those given on the
 * command line) against its table: each value by its type, defaults filled in, earlier names taken with a note
 * (`note`), and `requires` checked. Throws InputError naming the flag.
 */
export function parseOptions<const T extends readonly TypedOption[]>(
  table: T,
  raw: Readonly<Record<string, unknown>>,
  note: (line: string) => void,
): OptionValues<T> {
  const out: Record<string, unknown> = {};
  const given = new Set<string>();
  for (const o of table) {
    const key = camelCase(o.name);
    let value = raw[key];
    let flag = `--${o.name}`;
    for (const old of o.deprecatedNames ?? []) {
      const v = raw[camelCase(old)];
      if (v === undefined) continue;
      if (value !== undefined) throw new InputError(`give --${o.name} or --${old} (deprecated), not both`);
      note(deprecationNote(old, o.name));
      value = v;
      flag = `--${old}`;
    }
    // commander stores --no-x as x: false.
    if (o.type === 'boolean' && o.name.startsWith('no-') && value === undefined)
      value = raw[camelCase(o.name.slice(3))] === false ? true : undefined;
    if (value !== undefined && value !== false) given.add(o.name);
    if (value === undefined) {
      if (o.required) throw new InputError(`${flag} is required`);
      out[key] =
        o.type === 'boolean'
          ? false
          : o.type === 'string' && o.repeatable
            ? []
            : o.default === undefined
              ? undefined
              : parseValue(o, o.default, flag);
    } else out[key] = parseValue(o, value, flag);
  }
  const missing = new Map<string, string[]>();
  for (const o of table)
    if (o.requires && given.has(o.name) && !given.has(o.requires))
      missing.set(o.requires, [...(missing.get(o.requires) ?? []), `--${o.name}`]);
  for (const [needed, flags] of missing)
    throw new InputError(`${flags.join(', ')} ${flags.length === 1 ? 'needs' : 'need'} --${needed}: pass it too`);
  return out as OptionValues<T>;
}

/** The option's type in words, for help and the command reference. */
export function typeText(o: TypedOption): string {
  switch (o.type) {
    case 'boolean':
      return 'flag';
    case 'string':
      return o.repeatable ? 'text, repeatable' : 'text';
    case 'int':
      return `whole number ≥ ${o.min ?? 1}`;
    case 'number':
      return (
        (o.positive ? 'number > 0' : o.min !== undefined ? `number ≥ ${o.min}` : 'number') +
        (o.unit ? ` (${o.unit})` : '')
      );
    case 'list':
      return `${o.unit} list (a,b,…)${o.keyword ? ` or ${o.keyword}` : ''}`;
    case 'range':
      return 'range start:stop:step, or a,b,…';
    case 'choice':
      return `one of ${o.choices.join(', ')}`;
  }
}

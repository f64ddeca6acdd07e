/**
 * Helpers shared by the command files: option parsers that name the flag in their error (an InputError, so the
 * CLI exits 2 with one line), and table output through the report layer's one formatter.
 */
import { parseRange } from '../engines/studies/index.js';
import { excerpt, InputError } from '../errors.js';
import { formatTable, toCsv, type Cell, type Column, type TableOptions } from '../report/tables.js';
import type { CommandIO, OptionSpec } from './command.js';
import { toJson } from '../formats/json.js';

type Opts = Record<string, unknown>;

/** "maxPerCode" → "--max-per-code": the flag as the user typed it. */
export function flagOf(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

function given(opts: Opts, key: string): string | undefined {
  const raw = opts[key];
  if (raw === undefined) return undefined;
  return String(raw).trim();
}

/** A whole number ≥ `min` (default 1); without a value, undefined (the engine's default applies). */
export function int(opts: Opts, key: string, o: { min?: number } = {}): number | undefined {
  const text = given(opts, key);
  if (text === undefined) return undefined;
  const min = o.min ?? 1;
  const v = /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(v) || v < min) {
    throw new InputError(
      `${flagOf(key)}: expected a whole number${min === 1 ? ' ≥ 1' : min === 0 ? ' ≥ 0' : ` ≥ ${min}`}, got "${excerpt(text)}"`,
    );
  }
  return v;
}

/** Like {@link int} for an option that has a commander default or is required (so a value is always there). */
export function intOf(opts: Opts, key: string, o: { min?: number } = {}): number {
  const v = int(opts, key, o);
  if (v === undefined) throw new InputError(`${flagOf(key)} is required`);
  return v;
}

/** A finite number; `positive` refuses 0 and below, `min` sets an inclusive lower bound. `unit` goes into the error. */
export function num(
  opts: Opts,
  key: string,
  o: { unit?: string; positive?: boolean; min?: number } = {},
): number | undefined {
  const text = given(opts, key);
  if (text === undefined) return undefined;
  const v = text === '' ? NaN : Number(text);
  const bad = !Number.isFinite(v) || (o.positive && !(v > 0)) || (o.min !== undefined && v < o.min);
  if (bad) {
    const what = o.positive ? 'a positive number' : o.min !== undefined ? `a number ≥ ${o.min}` : 'a number';
    throw new InputError(`${flagOf(key)}: expected ${what}${o.unit ? ` of ${o.unit}` : ''}, got "${excerpt(text)}"`);
  }
  return v;
}

/** One of `allowed`; without a value, undefined. */
export function choice<T extends string>(opts: Opts, key: string, allowed: readonly T[]): T | undefined {
  const text = given(opts, key);
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text))
    throw new InputError(`${flagOf(key)}: expected one of ${allowed.join(', ')}, got "${excerpt(text)}"`);
  return text as T;
}

/** A comma-separated list of numbers ≥ 0 (clocks, pJ/bit per dimension); without a value, undefined. */
export function numberList(opts: Opts, key: string, unit: string): number[] | undefined {
  const text = given(opts, key);
  if (text === undefined) return undefined;
  const list = text.split(',').map((x) => (x.trim() === '' ? NaN : Number(x)));
  if (!text || list.some((x) => !Number.isFinite(x) || x < 0))
    throw new InputError(`${flagOf(key)}: expected ${unit} values separated by commas, got "${excerpt(text)}"`);
  return list;
}

/**
 * "start:stop:step" (inclusive) or a comma list, sorted without duplicates (clock and scale sweeps); without a value,
 * `fallback` (the option's default) is parsed.
 */
export function rangeList(opts: Opts, key: string, fallback: string): number[] {
  return parseRange(given(opts, key) ?? fallback, flagOf(key));
}

/** A string option; without a value, undefined. */
export function str(opts: Opts, key: string): string | undefined {
  const v = opts[key];
  return v === undefined ? undefined : String(v);
}

/**
 * --csv and --wide, for every command that prints a table: `csv` says what the CSV holds ("one row per rank").
 * Text tables fit 100 columns unless --wide; CSV headers are camelCase keys with unit suffixes (report/tables.ts).
 */
export function tableOptions(csv: string): OptionSpec[] {
  return [
    { name: 'csv', description: `print CSV instead of the text table: ${csv}` },
    { name: 'wide', description: 'do not fit text tables to 100 columns (one line per row, however wide)' },
  ];
}

/** The text table layout the options ask for (--wide: no width limit). */
export function tableLayout(opts: Opts): TableOptions {
  return opts.wide ? { width: Infinity } : {};
}

/** Rows as an aligned table (fitted to 100 columns unless --wide), or as CSV with `--csv`. */
export function rowsText(opts: Opts, columns: readonly Column[], rows: readonly (readonly Cell[])[]): string {
  return opts.csv ? toCsv(columns, rows) : formatTable(columns, rows, tableLayout(opts));
}

/** How a result prints: its table (for --csv) and its text; --json prints the result itself. */
export interface ResultViews {
  table: () => { columns: readonly Column[]; rows: readonly (readonly Cell[])[] };
  text: () => string;
}

/** The one place a command's result becomes output: --json (the result), --csv (its table) or text. */
export function emit(io: CommandIO, opts: Opts, result: unknown, views: ResultViews): void {
  if (opts.json) io.out(`${toJson(result)}\n`);
  else if (opts.csv) {
    const t = views.table();
    io.out(rowsText(opts, t.columns, t.rows));
  } else io.out(views.text());
}

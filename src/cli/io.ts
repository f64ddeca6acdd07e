/**
 * Helpers shared by the command files: option parsers that name the flag in their error (an InputError, so the
 * CLI exits 2 with one line), and table output through the report layer's one formatter.
 */
import type { DiagnosticSummary } from '../diagnostics.js';
import { InputError } from '../errors.js';
import { formatTable, toCsv, type Cell, type Column, type TableOptions } from '../report/tables.js';
import type { CommandIO, OptionSpec } from './command.js';
import { toJson } from '../formats/json.js';
import { flagOf, parseChoice, parseWhole, parseList, parseNumber, parseRange } from './options.js';

type Opts = Record<string, unknown>;

export { flagOf };

function given(opts: Opts, key: string): string | undefined {
  const raw = opts[key];
  if (raw === undefined) return undefined;
  return String(raw).trim();
}

// The readers below serve commands not yet declared with defineCommand (the transition to typed options); they
// parse with the one parser in options.ts.

/** A whole number ≥ `min` (default 1); without a value, undefined (the engine's default applies). */
export function int(opts: Opts, key: string, o: { min?: number } = {}): number | undefined {
  const text = given(opts, key);
  return text === undefined ? undefined : parseWhole(text, flagOf(key), o.min);
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
  return text === undefined ? undefined : parseNumber(text, flagOf(key), o);
}

/** One of `allowed`; without a value, undefined. */
export function choice<T extends string>(opts: Opts, key: string, allowed: readonly T[]): T | undefined {
  const text = given(opts, key);
  return text === undefined ? undefined : (parseChoice(text, flagOf(key), allowed) as T);
}

/** A comma-separated list of numbers ≥ 0 (clocks, pJ/bit per dimension); without a value, undefined. */
export function numberList(opts: Opts, key: string, unit: string): number[] | undefined {
  const text = given(opts, key);
  return text === undefined ? undefined : (parseList(text, flagOf(key), { unit }) as number[]);
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
export function tableOptions(csv: string) {
  return [
    { name: 'csv', type: 'boolean', description: `print CSV instead of the text table: ${csv}` },
    {
      name: 'wide',
      type: 'boolean',
      description: 'do not fit text tables to 100 columns (one line per row, however wide)',
    },
  ] as const satisfies readonly OptionSpec[];
}

/**
 * --power-config: a power.json or a preset name (replay, energy, export, sweep, plan). It was --power, which the
 * profile commands use for a power log: --power is still accepted for one release, with a note.
 */
export function powerConfigOption(description: string) {
  return {
    name: 'power-config',
    type: 'string',
    value: 'file|preset',
    description,
    deprecatedNames: ['power'],
  } as const satisfies OptionSpec;
}

/** The text table layout the options ask for (--wide: no width limit). */
export function tableLayout(opts: Opts): TableOptions {
  return opts.wide ? { width: Infinity } : {};
}

/** Rows as an aligned table (fitted to 100 columns unless --wide), or as CSV with `--csv`. */
export function rowsText(opts: Opts, columns: readonly Column[], rows: readonly (readonly Cell[])[]): string {
  return opts.csv ? toCsv(columns, rows) : formatTable(columns, rows, tableLayout(opts));
}

/** What a command has to say on stderr besides its output; `source` (a file) starts each line when given. */
export interface Said {
  source?: string;
  notes?: readonly string[];
  diagnostics?: readonly DiagnosticSummary[];
  warnings?: readonly string[];
}

/**
 * The one printer of notes, counted diagnostics and warnings to stderr: `note: …`, `warning: <code> ×<count>: <first
 * example>`, `WARNING: …` (a finding that may make the figures wrong), each line starting with the source when given.
 */
export function printSaid(io: CommandIO, said: Said): void {
  const at = said.source ? `${said.source}: ` : '';
  for (const n of said.notes ?? []) io.err(`${at}note: ${n}\n`);
  for (const d of said.diagnostics ?? []) {
    const ex = d.samples[0];
    const where = ex?.file && ex.file !== said.source ? `${ex.file}: ` : '';
    io.err(`${at}warning: ${d.code} ×${d.count}: ${ex ? `${where}${ex.message}` : ''}\n`);
  }
  for (const w of said.warnings ?? []) io.err(`${at}WARNING: ${w}\n`);
}

/** How a result prints: its table (for --csv) and its text; --json prints the result itself. */
export interface ResultViews {
  /** The table --csv prints (a command without --csv has none). */
  table?: () => { columns: readonly Column[]; rows: readonly (readonly Cell[])[] };
  text: () => string;
}

/** The one place a command's result becomes output: --json (the result), --csv (its table) or text. */
export function emit(io: CommandIO, opts: Opts, result: unknown, views: ResultViews): void {
  if (opts.json) io.out(`${toJson(result)}\n`);
  else if (opts.csv && views.table) {
    const t = views.table();
    io.out(rowsText(opts, t.columns, t.rows));
  } else io.out(views.text());
}

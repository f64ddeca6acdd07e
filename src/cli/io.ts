/**
 * Helpers shared by the command files: the table and power-config options, the one diagnostics printer, and
 * output through the one `emit` seam (json / csv / text) with the report layer's one table formatter.
 */
import { saidText, type Said } from '../report/text/said.js';
import { formatTable, toCsv, type Cell, type Column, type TableOptions } from '../report/tables.js';
import type { CommandIO, OptionSpec } from './command.js';
import { toJson } from '../formats/json.js';
import { flagOf } from './options.js';

type Opts = Record<string, unknown>;

export { flagOf };

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

/** --calibration, a calibration file the command needs (annotate, predict). */
export const CALIBRATION_OPTION = {
  name: 'calibration',
  type: 'string',
  value: 'file',
  description: 'calibration JSON (tracewatt calibrate, or calibration/*.json)',
  required: true,
} as const satisfies OptionSpec;

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

/** The cluster files a command names (--system, --network, --memory, --comm-group, --power-config), for the engines. */
export function clusterFiles<System extends string | undefined, Network extends string | undefined>(opts: {
  system: System;
  network: Network;
  memory?: string;
  commGroup?: string;
  powerConfig?: string;
}) {
  return {
    system: opts.system,
    network: opts.network,
    memory: opts.memory,
    commGroup: opts.commGroup,
    power: opts.powerConfig,
  };
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
/** Prints what a command says besides its result (notes, counted diagnostics, warnings) on stderr, in one form. */
export function printSaid(io: CommandIO, said: Said): void {
  const text = saidText(said);
  if (text) io.err(text);
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

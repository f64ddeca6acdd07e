/**
 * Streaming CSV plumbing shared by the profile readers: csv-parse behind a line filter that blanks
 * preamble and `==PROF==` lines (blanking, not deleting, keeps every reported row number equal to
 * the line number in the file), a header helper that finds columns by name, and locale-tolerant
 * number parsing.
 *
 * Row numbers everywhere in this folder are 1-based line numbers of the input file.
 */
import { createReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import type { Diagnostics } from '../../diagnostics.js';
import { FormatError, InputError } from '../../errors.js';
import { fileReadError } from '../file-chunks.js';
import { decimalRule, DecimalRule, type CellAt } from './decimal.js';
import type { ProfileTable } from '../../vocab/kernel-sample.js';

export interface CsvRow {
  fields: string[];
  /** 1-based line number of the record in the file. */
  line: number;
}

export interface CsvReadOptions {
  delimiter?: string;
  /** Trim spaces around fields (nvidia-smi writes ", " separators). */
  trim?: boolean;
  /**
   * When given, every line before the first line for which this returns true is blanked
   * (application stdout before an ncu CSV, "Processing [...]" before nsys stats).
   */
  headerMatch?: (line: string) => boolean;
  /** Lines for which this returns true are blanked wherever they occur (e.g. `==PROF==`). */
  dropLine?: (line: string) => boolean;
  /** Called with the number of preamble lines blanked, once the header is found. */
  onPreamble?: (lineCount: number) => void;
}

/** True for the lines Nsight Compute interleaves with its CSV output. */
export const isProfLine = (line: string): boolean =>
  line.startsWith('==PROF==') || line.startsWith('==WARNING==') || line.startsWith('==ERROR==');

class LineFilter extends Transform {
  private pending = '';
  private lineNo = 0;
  private headerFound: boolean;
  private preamble = 0;
  constructor(private readonly opts: CsvReadOptions) {
    super({ decodeStrings: false, encoding: 'utf8' });
    this.headerFound = !opts.headerMatch;
  }
  override _transform(chunk: string | Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    const text = this.pending + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    const parts = text.split('\n');
    this.pending = parts.pop() ?? '';
    const out: string[] = [];
    for (const p of parts) out.push(this.filterLine(p));
    if (out.length) this.push(`${out.join('\n')}\n`);
    cb();
  }
  override _flush(cb: TransformCallback): void {
    if (this.pending.length) this.push(this.filterLine(this.pending));
    if (!this.headerFound) this.opts.onPreamble?.(this.preamble);
    cb();
  }
  private filterLine(raw: string): string {
    this.lineNo++;
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (this.lineNo === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (!this.headerFound) {
      if (this.opts.headerMatch!(line)) {
        this.headerFound = true;
        this.opts.onPreamble?.(this.preamble);
      } else {
        if (line.trim().length) this.preamble++;
        return '';
      }
    }
    if (this.opts.dropLine?.(line)) return '';
    return line;
  }
}

/** Streams the records of a CSV file. Throws InputError when the file cannot be read, FormatError on malformed CSV. */
export async function* readCsvRows(file: string, opts: CsvReadOptions = {}): AsyncGenerator<CsvRow> {
  const source = createReadStream(file, { encoding: 'utf8' });
  const filter = new LineFilter(opts);
  const { parse } = await import('csv-parse'); // loaded by the first CSV read, not at start-up
  const parser = parse({
    delimiter: opts.delimiter ?? ',',
    relax_column_count: true,
    skip_empty_lines: true,
    trim: opts.trim ?? false,
    info: true,
  });
  let failure: unknown = null;
  const fail = (err: unknown) => {
    failure ??= err;
    parser.destroy(err as Error);
  };
  source.on('error', fail);
  filter.on('error', fail);
  source.pipe(filter).pipe(parser);
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      yield { fields: item.record, line: item.info.lines };
    }
  } catch (err) {
    const e = failure ?? err;
    const read = fileReadError(file, e);
    if (read instanceof InputError) throw read;
    const lines = (e as { lines?: number }).lines;
    throw new FormatError(file, lines ? `row ${lines}` : '', `malformed CSV: ${(e as Error).message}`);
  } finally {
    source.destroy();
  }
}

/** Column lookup by header name (never by position), with clear errors for missing columns. */
export class Header {
  readonly names: string[];
  private readonly byName = new Map<string, number>();
  private readonly byLower = new Map<string, number>();
  constructor(
    readonly file: string,
    fields: string[],
    readonly line: number,
  ) {
    this.names = fields.map((f) => f.trim());
    this.names.forEach((n, i) => {
      if (!this.byName.has(n)) this.byName.set(n, i);
      const l = n.toLowerCase();
      if (!this.byLower.has(l)) this.byLower.set(l, i);
    });
  }
  /** Index of the first of `names` present (exact, then case-insensitive), or -1. */
  find(...names: string[]): number {
    for (const n of names) {
      const i = this.byName.get(n);
      if (i !== undefined) return i;
    }
    for (const n of names) {
      const i = this.byLower.get(n.toLowerCase());
      if (i !== undefined) return i;
    }
    return -1;
  }
  has(...names: string[]): boolean {
    return this.find(...names) >= 0;
  }
  /** Index of a required column; FormatError naming the file, header row and column otherwise. */
  require(...names: string[]): number {
    const i = this.find(...names);
    if (i < 0) {
      const alts = names.map((n) => `'${n}'`).join(' or ');
      throw new FormatError(
        this.file,
        `row ${this.line}`,
        `missing column ${alts} (columns present: ${this.names.join(', ')})`,
      );
    }
    return i;
  }
  name(index: number): string {
    return this.names[index] ?? `#${index + 1}`;
  }
}

const MISSING = new Set([
  '',
  'n/a',
  'na',
  '[n/a]',
  'n.a.',
  '-',
  '[not supported]',
  'not supported',
  '[unknown error]',
  'none',
  'null',
]);

/** True when a cell says "no value" (empty, n/a, [N/A], [Not Supported] …). */
export function isMissingCell(raw: string | undefined): boolean {
  if (raw === undefined) return true;
  const c = raw.charCodeAt(0);
  if (c >= 48 && c <= 57) return false; // starts with a digit: a value (the common case, checked first)
  return MISSING.has(raw.trim().toLowerCase());
}

/**
 * Parses a numeric cell as profilers print it: plain, `1,234.5` (thousands commas, as ncu writes inside quotes),
 * `1.234,5` / `0,5` (comma-decimal locales), `1 234.5`; `nan`/`inf` pass through as NaN/Infinity so callers can
 * reject them. Returns null for missing markers (see isMissingCell), NaN for text that is not a number.
 * With `at` (the cell's file, row and column) the file's one decimal rule applies (decimal.ts): "1,004" is 1.004 in
 * a decimal-comma file and 1004 in a decimal-point one, and a cell contradicting the file's rule is a FormatError.
 * Without it the cell is read alone, and a number it cannot tell ("1,004") is NaN.
 */
export function parseNumberCell(raw: string | undefined, at?: CellAt): number | null {
  if (isMissingCell(raw)) return null;
  const s = raw!.trim();
  const v = at ? decimalRule(at.file).read(s, at) : readAlone(s);
  if (v !== null) return v;
  const l = s.toLowerCase();
  if (l === 'nan') return NaN;
  if (l === 'inf' || l === '+inf' || l === 'infinity') return Infinity;
  if (l === '-inf' || l === '-infinity') return -Infinity;
  return NaN;
}

function readAlone(s: string): number | null {
  try {
    return new DecimalRule('', null, true).read(s, { file: '', line: 0, column: '' });
  } catch {
    return NaN;
  }
}

/** `row 12, column 'time'` — the `where` of a FormatError. */
export function where(line: number, column: string): string {
  return `row ${line}, column '${column}'`;
}

/**
 * Reads a required numeric cell: FormatError (file, row, column) when it is not a finite number,
 * or, with `nonNegative`, when it is negative. Returns null for a missing-value marker unless
 * `required` is set.
 */
export function numberCell(
  file: string,
  row: CsvRow,
  header: Header,
  index: number,
  opts: { nonNegative?: boolean; required?: boolean; positive?: boolean } = {},
): number | null {
  const raw = row.fields[index];
  const col = header.name(index);
  const v = parseNumberCell(raw, { file, line: row.line, column: col });
  if (v === null) {
    if (opts.required)
      throw new FormatError(
        file,
        where(row.line, col),
        `missing value${raw === undefined ? ' (row too short)' : ` '${raw}'`}`,
      );
    return null;
  }
  if (!Number.isFinite(v)) throw new FormatError(file, where(row.line, col), `'${raw}' is not a finite number`);
  if (opts.positive && v <= 0) throw new FormatError(file, where(row.line, col), `must be positive, got ${v}`);
  if (opts.nonNegative && v < 0) throw new FormatError(file, where(row.line, col), `must not be negative, got ${v}`);
  return v;
}

/** True when every field of the row is blank (a row of separators only). */
export function isBlankRow(row: CsvRow): boolean {
  return row.fields.every((f) => f.trim() === '');
}

/**
 * The table a streaming reader returns: its samples went to the reader's sink, so `samples` is empty; the device
 * is guessed from the file name.
 */
export function streamedTable(
  format: string,
  file: string,
  devices: [RegExp, string][],
  notes: string[],
): ProfileTable {
  return { format, device: deviceFromFileName(file, devices), samples: [], notes };
}

/** Device name guessed from a file name (dataset files name their GPU); null when nothing matches. */
export function deviceFromFileName(file: string, table: [RegExp, string][]): string | null {
  const base = file.split(/[\\/]/).pop() ?? file;
  for (const [re, name] of table) if (re.test(base)) return name;
  return null;
}

/**
 * The loop every one-header CSV profile reader shares: the first row is the header, read once by `columns` into
 * the column indices the reader needs; a blank row is counted (`blank-row`) and skipped; every other row goes to
 * `onRow`. A file without a header row is an error.
 */
export async function forEachCsvRecord<C>(
  file: string,
  diagnostics: Diagnostics,
  columns: (header: Header, row: CsvRow) => C,
  onRow: (row: CsvRow, header: Header, cols: C) => void,
): Promise<void> {
  let header: Header | null = null;
  let cols: C | undefined;
  for await (const row of readCsvRows(file)) {
    if (!header) {
      header = new Header(file, row.fields, row.line);
      cols = columns(header, row);
      continue;
    }
    if (isBlankRow(row)) {
      diagnostics.add('blank-row', { file, message: `row ${row.line} is blank` });
      continue;
    }
    onRow(row, header, cols as C);
  }
  if (!header) throw new FormatError(file, '', 'empty file (no header)');
}

/**
 * Plain-text tables and CSV shared by every command. Rows are arrays of cells in column order; a column may
 * format its cells for display. One naming rule for every table:
 *  - text and HTML tables: words with the unit in parentheses ("SM clock (MHz)", "energy (J, est.)");
 *  - CSV: a camelCase key with the unit as suffix ("smClockMHz", "energyJ"), the column's `key` or derived from
 *    its header by {@link csvKey}; numbers to 12 significant digits (no 15.999999999999998), integers exact.
 * Text tables fit {@link TABLE_WIDTH} characters: too wide, headers wrap onto up to three lines and then the
 * columns are shown in blocks that repeat the first column; `width: Infinity` (`--wide`) keeps one line per row.
 *
 *   formatTable([{ header: 'SM clock (MHz)' }, { header: 'energy (J, est.)', format: fixed(1) }], rows)
 */

/** A table cell; bigint counts (node ids, byte totals) are written exactly. */
export type Cell = string | number | bigint | boolean | null | undefined;

export interface Column {
  /** Text header with its unit in parentheses: "energy (J, est.)". */
  header: string;
  /** CSV header: camelCase with a unit suffix ("energyJ"); default {@link csvKey}(header). */
  key?: string;
  /** Default: right for columns whose non-empty cells are all numbers, left otherwise. */
  align?: 'left' | 'right';
  /** Display text of a cell; default {@link formatCell}. Used by formatTable and the HTML report, not by toCsv. */
  format?: (value: Cell) => string;
}

/**
 * A column that reads its cell from the record a row shows: by `value`, or, without one, the record's field its CSV
 * `key` names.
 */
export type RecordColumn<T> = Column & ({ value: (record: T) => Cell } | { key: keyof T & string; value?: undefined });

/** A table of one row per record, each cell read by its column (a header stands beside what fills it). */
export function recordTable<T>(
  records: readonly T[],
  columns: readonly RecordColumn<T>[],
): { columns: Column[]; rows: Cell[][] } {
  return {
    columns: columns.map(({ value: _value, ...column }) => column),
    rows: records.map((record) => columns.map((c) => (c.value ? c.value(record) : (record[c.key] as Cell)))),
  };
}

/** A number with `digits` decimals; empty for null/undefined. */
export function fixed(digits: number): (value: Cell) => string {
  return (value) =>
    typeof value === 'number' ? (Number.isFinite(value) ? value.toFixed(digits) : String(value)) : formatCell(value);
}

/**
 * A signed number with `digits` decimals ("+1.25", "−0.50", U+2212 minus); one that rounds to zero is "0.00", never
 * "−0.00" or "+0.00"; empty for non-numbers. `plus: ''` leaves positive numbers unsigned.
 */
export function signedFixed(digits: number, plus = '+'): (value: Cell) => string {
  return (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return formatCell(value);
    const text = Math.abs(value).toFixed(digits);
    return Number(text) === 0 ? text : `${value > 0 ? plus : '−'}${text}`;
  };
}

/**
 * The note beside a swept setting (case study knobs, sensitivity map), the same words in the terminal, CSV and HTML:
 * "nominal", "lowest energy", and where the lowest-energy setting is the highest or lowest setting swept, "top edge"
 * ("bottom edge"): the optimum may lie beyond the range swept ({@link SWEEP_EDGE_DEFINITION}).
 */
export function sweepNote(o: {
  nominal?: boolean;
  lowestEnergy?: boolean;
  atEdge?: 'top' | 'bottom' | null;
  realBatch?: boolean;
}): string {
  return [
    o.realBatch ? 'real batch' : '',
    o.nominal ? 'nominal' : '',
    o.lowestEnergy ? 'lowest energy' : '',
    o.atEdge ? `${o.atEdge} edge` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/** What "top edge" / "bottom edge" in a {@link sweepNote} means, printed where the notes are. */
export const SWEEP_EDGE_DEFINITION =
  'top (bottom) edge: the lowest-energy setting is the highest (lowest) one swept, so the optimum may lie ' +
  'beyond the range';

/** Integers with thousands separators ("12,345,678"), bigint-safe; other cells as {@link formatCell}. */
export function grouped(value: Cell): string {
  if ((typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint')
    return value.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return formatCell(value);
}

/** Significant digits ("1.2346", "612.35"): for figures such as energies that range from mJ to MJ. */
export function significant(digits: number): (value: Cell) => string {
  return (value) =>
    typeof value === 'number' && Number.isFinite(value) ? String(Number(value.toPrecision(digits))) : formatCell(value);
}

/** Default display: integers as they are, other numbers to 4 significant digits, null/undefined empty. */
export function formatCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (!Number.isFinite(value) || Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e15)) return value.toExponential(3);
  return String(Number(value.toPrecision(4)));
}

function alignOf(column: Column, index: number, rows: readonly (readonly Cell[])[]): 'left' | 'right' {
  if (column.align) return column.align;
  let sawNumber = false;
  for (const row of rows) {
    const v = row[index];
    if (v === null || v === undefined || v === '') continue;
    if (typeof v !== 'number' && typeof v !== 'bigint') return 'left';
    sawNumber = true;
  }
  return sawNumber ? 'right' : 'left';
}

/** Display text of every cell plus the resolved alignment of every column. */
export function formatRows(
  columns: readonly Column[],
  rows: readonly (readonly Cell[])[],
): { text: string[][]; align: ('left' | 'right')[] } {
  const text = rows.map((row) => columns.map((c, i) => (c.format ?? formatCell)(row[i])));
  const align = columns.map((c, i) => alignOf(c, i, rows));
  return { text, align };
}

/** Default width of a text table in characters (`--wide` lifts it). */
export const TABLE_WIDTH = 100;

export interface TableOptions {
  /** Widest line allowed; default {@link TABLE_WIDTH}; Infinity for one line per row however wide. */
  width?: number;
}

/**
 * A unit after a number: "%", "ns", "ms),", "GB/s;", "clocks" (up to 7 letters or slashes, then closing punctuation).
 */
const UNIT = /^(%|[A-Za-zµ/]{1,7})[)\],.;:]*$/;

/** Words of a text to wrap, a unit kept with the number before it ("−0.03 %", "88000 ns"). */
function words(text: string): string[] {
  const out: string[] = [];
  for (const w of text.split(/\s+/).filter(Boolean)) {
    const prev = out[out.length - 1];
    if (prev !== undefined && (w.startsWith('%') || (/\d$/.test(prev) && UNIT.test(w))))
      out[out.length - 1] = `${prev} ${w}`;
    else out.push(w);
  }
  return out;
}

/**
 * Wraps a line of prose to `width` columns (default 100; Infinity, as with --wide, leaves it whole), continuation
 * lines indented by `indent`; a number and its unit stay on one line, and a word longer than the width stays whole.
 */
export function wrapText(text: string, width = TABLE_WIDTH, indent = '  '): string {
  if (!Number.isFinite(width)) return text;
  const out: string[] = [];
  const lead = /^\s*/.exec(text)![0];
  let line = lead;
  for (const word of words(text)) {
    if (line.trim() && line.length + 1 + word.length > width) {
      out.push(line);
      line = indent + word;
    } else line = line.trim() ? `${line} ${word}` : line + word;
  }
  if (line) out.push(line);
  return out.join('\n');
}

const GAP = '  ';
const MAX_HEADER_LINES = 3;

/**
 * Widest cell of a text table that fits its width (kernel names run to 2,000 characters): longer ones are cut in the
 * middle ({@link shortName}); --wide (width Infinity), --csv and --json keep them whole.
 */
export const MAX_CELL_CHARS = 64;

/**
 * A name cut to `width` characters, its start and end kept around "…" (a kernel's template arguments sit in the
 * middle).
 */
export function shortName(name: string, width = MAX_CELL_CHARS): string {
  if (name.length <= width) return name;
  const head = Math.ceil((width - 1) * 0.65);
  return `${name.slice(0, head)}…${name.slice(name.length - (width - 1 - head))}`;
}

/** Words of `text` in lines of at most `width` characters (a longer word gets a line of its own). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + word.length <= width) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** Header layouts of a column, widest first: (width, lines) for every width down to its cells' (≤ 3 lines each). */
function headerLayouts(header: string, cellWidth: number): { width: number; lines: string[] }[] {
  const out = [{ width: Math.max(header.length, cellWidth), lines: [header] }];
  const narrowest = Math.max(cellWidth, ...header.split(' ').map((x) => x.length));
  for (let w = out[0]!.width - 1; w >= narrowest; w--) {
    const lines = wrapWords(header, w);
    if (lines.length > MAX_HEADER_LINES) break;
    const width = Math.max(cellWidth, ...lines.map((x) => x.length));
    if (width < out[out.length - 1]!.width) out.push({ width, lines });
  }
  return out;
}

function renderBlock(headers: string[][], text: string[][], align: ('left' | 'right')[], widths: number[]): string[] {
  const height = Math.max(...headers.map((h) => h.length));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (align[i] === 'right' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join(GAP)
      .trimEnd();
  // Wrapped headers sit on the rule, like a one-line header does.
  const headerLines = Array.from({ length: height }, (_, k) =>
    line(headers.map((h) => h[k - (height - h.length)] ?? '')),
  );
  return [...headerLines, widths.map((w) => '-'.repeat(w)).join(GAP), ...text.map(line)];
}

/**
 * Aligned plain-text table: header, a dashed rule, one line per row; columns separated by two spaces. Wider than
 * `options.width` (default {@link TABLE_WIDTH}), headers wrap and then the columns are split into blocks, each
 * starting with the first column again, separated by a blank line.
 */
export function formatTable(
  columns: readonly Column[],
  rows: readonly (readonly Cell[])[],
  options: TableOptions = {},
): string {
  const maxWidth = options.width ?? TABLE_WIDTH;
  const formatted = formatRows(columns, rows);
  const { align } = formatted;
  const text = Number.isFinite(maxWidth) ? formatted.text.map((r) => r.map((cell) => shortName(cell))) : formatted.text;
  const cellWidths = columns.map((_, i) => Math.max(0, ...text.map((r) => r[i]!.length)));
  const total = (ws: number[]) => ws.reduce((a, b) => a + b, 0) + GAP.length * Math.max(0, ws.length - 1);
  // Too wide: wrap the widest header one step at a time (to at most three lines) until the table fits.
  const layouts = columns.map((c, i) => headerLayouts(c.header, cellWidths[i]!));
  const step = columns.map(() => 0);
  const widths = () => layouts.map((l, i) => l[step[i]!]!.width);
  while (total(widths()) > maxWidth) {
    let widest = -1;
    for (let i = 0; i < columns.length; i++) {
      if (
        step[i]! + 1 < layouts[i]!.length &&
        (widest < 0 || layouts[i]![step[i]!]!.width > layouts[widest]![step[widest]!]!.width)
      )
        widest = i;
    }
    if (widest < 0) break;
    step[widest]!++;
  }
  const headers = layouts.map((l, i) => l[step[i]!]!.lines);
  const finalWidths = widths();
  // Blocks of columns that fit, each led by the first column (the row's name).
  const blocks: number[][] = [];
  let block: number[] = [0];
  for (let i = 1; i < columns.length; i++) {
    if (block.length > 1 && total([...block, i].map((j) => finalWidths[j]!)) > maxWidth) {
      blocks.push(block);
      block = [0];
    }
    block.push(i);
  }
  blocks.push(block);
  const out = blocks.map((b) =>
    renderBlock(
      b.map((j) => headers[j]!),
      text.map((r) => b.map((j) => r[j]!)),
      b.map((j) => align[j]!),
      b.map((j) => finalWidths[j]!),
    ),
  );
  return `${out.map((lines) => lines.join('\n')).join('\n\n')}\n`;
}

const UNIT_WORDS: Record<string, string> = { '%': 'Pct', µs: 'Us', 'GB/s': 'GBps', '%/%': 'PctPerPct', 'T′/T': '' };

/** camelCase of words: "SM clock" → "smClock", "ΔE vs next scale" → "deltaEVsNextScale". */
function camelWords(text: string): string {
  const words = text
    .replace(/Δ/g, 'delta ')
    .replace(/[′']/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return words
    .map((w, i) =>
      i === 0
        ? w === w.toUpperCase()
          ? w.toLowerCase()
          : w[0]!.toLowerCase() + w.slice(1)
        : w[0]!.toUpperCase() + w.slice(1),
    )
    .join('');
}

/**
 * The CSV key of a text header: its words in camelCase and its unit (the parentheses' first part) as suffix,
 * "estimated" dropped: "SM clock (MHz)" → "smClockMHz", "energy (J, est.)" → "energyJ", "share (%)" → "sharePct".
 */
export function csvKey(header: string): string {
  const m = /^(.*?)\s*\(([^)]*)\)\s*(.*)$/.exec(header);
  if (!m) return camelWords(header);
  const unit = m[2]!.split(',')[0]!.trim();
  const suffix =
    unit in UNIT_WORDS
      ? UNIT_WORDS[unit]!
      : unit
          .replace(/%/g, 'Pct')
          .replace(/\//g, ' per ')
          .split(/\s+/)
          .filter(Boolean)
          .map((w) => w[0]!.toUpperCase() + w.slice(1))
          .join('')
          .replace(/[^A-Za-z0-9]/g, '');
  return camelWords(`${m[1]} ${m[3]}`) + suffix;
}

/** A CSV number: integers exact, others to 12 significant digits (float noise such as 15.999999999999998 gone). */
export function csvNumber(value: number): string {
  if (!Number.isFinite(value) || Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(12)));
}

function csvField(value: Cell): string {
  const s = value === null || value === undefined ? '' : typeof value === 'number' ? csvNumber(value) : String(value);
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * RFC 4180 CSV with a header line of camelCase keys with unit suffixes (column `key`, else {@link csvKey} of the
 * header); numbers as {@link csvNumber} (column `format` is ignored), null/undefined as empty fields. Lines end
 * with "\n".
 */
export function toCsv(columns: readonly Column[], rows: readonly (readonly Cell[])[]): string {
  const lines = [
    columns.map((c) => csvField(c.key ?? csvKey(c.header))),
    ...rows.map((row) => columns.map((_, i) => csvField(row[i]))),
  ];
  return `${lines.map((cells) => cells.join(',')).join('\n')}\n`;
}

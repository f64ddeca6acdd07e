/**
 * Plain-text tables and CSV shared by every command. Rows are arrays of cells in column order; a column may
 * format its cells for display. Put the unit in the header ("energy (J, est.)", "SM clock (MHz)").
 *
 *   formatTable([{ header: 'SM clock (MHz)' }, { header: 'energy (J, est.)', format: fixed(1) }], rows)
 */

/** A table cell; bigint counts (node ids, byte totals) are written exactly. */
export type Cell = string | number | bigint | boolean | null | undefined;

export interface Column {
  header: string;
  /** Default: right for columns whose non-empty cells are all numbers, left otherwise. */
  align?: 'left' | 'right';
  /** Display text of a cell; default {@link formatCell}. Used by formatTable and the HTML report, not by toCsv. */
  format?: (value: Cell) => string;
}

/** A number with `digits` decimals; empty for null/undefined. */
export function fixed(digits: number): (value: Cell) => string {
  return (value) => (typeof value === 'number' ? (Number.isFinite(value) ? value.toFixed(digits) : String(value)) : formatCell(value));
}

/** Integers with thousands separators ("12,345,678"), bigint-safe; other cells as {@link formatCell}. */
export function grouped(value: Cell): string {
  if ((typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint') return value.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return formatCell(value);
}

/** Significant digits ("1.2346", "612.35"): for figures such as energies that range from mJ to MJ. */
export function significant(digits: number): (value: Cell) => string {
  return (value) => (typeof value === 'number' && Number.isFinite(value) ? String(Number(value.toPrecision(digits))) : formatCell(value));
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

/** Aligned plain-text table: header, a dashed rule, one line per row; columns separated by two spaces. */
export function formatTable(columns: readonly Column[], rows: readonly (readonly Cell[])[]): string {
  const { text, align } = formatRows(columns, rows);
  const widths = columns.map((c, i) => Math.max(c.header.length, ...text.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (align[i] === 'right' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(columns.map((c) => c.header)), widths.map((w) => '-'.repeat(w)).join('  '), ...text.map(line)];
  return out.join('\n') + '\n';
}

function csvField(value: Cell): string {
  const s = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * RFC 4180 CSV with a header line; numbers are written at full precision (column `format` is ignored so no
 * digits are lost), null/undefined as empty fields. Lines end with "\n".
 */
export function toCsv(columns: readonly Column[], rows: readonly (readonly Cell[])[]): string {
  const lines = [columns.map((c) => csvField(c.header)), ...rows.map((row) => columns.map((_, i) => csvField(row[i])))];
  return lines.map((cells) => cells.join(',')).join('\n') + '\n';
}

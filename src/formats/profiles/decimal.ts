/**
 * One decimal separator per file. A cell such as "163,05" (decimal comma) or "1,234.5" (thousands comma) says which
 * separator its file uses; "1,004" or "163,052" says nothing (1.004 or 1004?) and is read by the rule the rest of the
 * file settles. A file whose cells disagree is an error naming both cells; a file with ambiguous commas and nothing to
 * settle them is an error naming the first one. Never a silent 1000×.
 *
 * The rule is decided from the whole file: cells read before the file settled it are read provisionally, and when the
 * end of the file contradicts that reading, readProfile reads the file again with the rule fixed (readDecided below).
 * Readers reach the rule of the file they read through an AsyncLocalStorage opened by readProfile, so no reader has
 * to pass it along; without one (a library call outside readProfile) an ambiguous cell is an error at once.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { FormatError } from '../../errors.js';

export type DecimalMark = '.' | ',';

/** Where a cell is: file, 1-based line, column name. */
export interface CellAt {
  file: string;
  line: number;
  column: string;
}

type Cell =
  | { kind: 'plain'; value: number }
  | { kind: 'settles'; mark: DecimalMark; value: number }
  | { kind: 'ambiguous'; mark: DecimalMark; asDecimal: number; asThousands: number };

const SIGN = '[-+]?';
const EXP = '(?:[eE][-+]?\\d+)?';
const PLAIN_INT = new RegExp(`^${SIGN}\\d+${EXP}$`);
const ONE_DOT = new RegExp(`^${SIGN}(?:\\d+\\.\\d*|\\.\\d+)${EXP}$`);
const ONE_COMMA = new RegExp(`^${SIGN}\\d+,\\d+$`);
/** 1–3 digits (no leading zero), one separator, exactly 3 digits: a thousands group or 3 decimals. */
const AMBIGUOUS = /^[-+]?[1-9]\d{0,2}[.,]\d{3}$/;
const COMMA_GROUPS_DOT = new RegExp(`^${SIGN}\\d{1,3}(?:,\\d{3})+(?:\\.\\d*)?${EXP}$`);
const DOT_GROUPS_COMMA = /^[-+]?\d{1,3}(?:\.\d{3})+(?:,\d*)?$/;
const SPACE_GROUPS = /^[-+]?\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d+)?$/;

/** What one trimmed cell says; null when it is not a number in any locale. */
function classify(s: string): Cell | null {
  if (PLAIN_INT.test(s)) return { kind: 'plain', value: Number(s) };
  if (AMBIGUOUS.test(s)) {
    const mark = s.includes(',') ? ',' : '.';
    const asDecimal = Number(s.replace(mark, '.'));
    return { kind: 'ambiguous', mark: mark as DecimalMark, asDecimal, asThousands: Number(s.replace(mark, '')) };
  }
  if (ONE_DOT.test(s)) return { kind: 'settles', mark: '.', value: Number(s) };
  if (ONE_COMMA.test(s)) return { kind: 'settles', mark: ',', value: Number(s.replace(',', '.')) };
  if (COMMA_GROUPS_DOT.test(s)) return { kind: 'settles', mark: '.', value: Number(s.replace(/,/g, '')) };
  if (DOT_GROUPS_COMMA.test(s))
    return { kind: 'settles', mark: ',', value: Number(s.replace(/\./g, '').replace(',', '.')) };
  if (SPACE_GROUPS.test(s)) {
    const digits = s.replace(/[ \u00a0\u202f]/g, '');
    const mark = /[.,]/.exec(digits)?.[0] as DecimalMark | undefined;
    return mark
      ? { kind: 'settles', mark, value: Number(digits.replace(',', '.')) }
      : { kind: 'plain', value: Number(digits) };
  }
  return null;
}

const NAME: Record<DecimalMark, string> = { '.': 'a decimal point', ',': 'a decimal comma' };
const at = (c: CellAt, raw: string) => `row ${c.line}, column '${c.column}' ('${raw}')`;

/** The decimal rule of one file while it is read. */
export class DecimalRule {
  private mark: DecimalMark | null;
  private settledAt: { at: CellAt; raw: string } | null = null;
  /** The first ambiguous cells read before the rule was known ("1,004" read as 1004, "1.004" as 1.004). */
  private provisionalComma: { at: CellAt; raw: string } | null = null;
  private provisionalDot: { at: CellAt; raw: string } | null = null;
  private grouped = false;

  /** `settled`: the rule an earlier read of the file settled, to read it again with from the first cell. */
  constructor(
    readonly file: string,
    settled: DecimalRule | null = null,
    private readonly strict = false,
  ) {
    this.mark = settled?.mark ?? null;
    this.settledAt = settled?.settledAt ?? null;
  }

  /**
   * The number a trimmed cell holds under this file's rule; null when it is not a number. Throws on a contradiction.
   */
  read(s: string, where: CellAt): number | null {
    const c = classify(s);
    if (!c) return null;
    if (c.kind === 'plain') return c.value;
    if (c.kind === 'settles') {
      if (this.mark === null) {
        if (this.strict && c.mark === ',' && (this.provisionalDot || this.provisionalComma)) {
          const p = (this.provisionalDot ?? this.provisionalComma)!;
          throw new FormatError(
            this.file,
            `row ${where.line}, column '${where.column}'`,
            `'${s}' has a decimal comma, but ${at(p.at, p.raw)} was already read with a decimal point: a file ` +
              `must use one decimal separator`,
          );
        }
        this.mark = c.mark;
        this.settledAt = { at: where, raw: s };
      } else if (this.mark !== c.mark) {
        const first = this.settledAt
          ? ` but ${at(this.settledAt.at, this.settledAt.raw)} has ${NAME[this.mark]}`
          : ` but the file was settled as using ${NAME[this.mark]}`;
        throw new FormatError(
          this.file,
          `row ${where.line}, column '${where.column}'`,
          `'${s}' has ${NAME[c.mark]}${first}: a file must use one decimal separator`,
        );
      }
      if (/[ \u00a0\u202f]/.test(s) || (c.mark === '.' ? s.includes(',') : s.includes('.'))) this.grouped = true;
      return c.value;
    }
    // Ambiguous: "1,004" / "1.004".
    if (this.mark !== null) {
      if (this.mark !== c.mark) this.grouped = true;
      return this.mark === c.mark ? c.asDecimal : c.asThousands;
    }
    if (c.mark === '.') {
      this.provisionalDot ??= { at: where, raw: s };
      return c.asDecimal;
    }
    if (this.strict) throw this.ambiguity(where, s);
    this.provisionalComma ??= { at: where, raw: s };
    return c.asThousands;
  }

  private ambiguity(where: CellAt, raw: string): FormatError {
    const c = classify(raw) as Extract<Cell, { kind: 'ambiguous' }>;
    return new FormatError(
      this.file,
      `row ${where.line}, column '${where.column}'`,
      `'${raw}' could be ${c.asDecimal} (decimal comma) or ${c.asThousands} (thousands comma), and no cell of ` +
        `the file settles which; write the numbers with a decimal point, or with one cell that shows the ` +
        `separator (e.g. '0,5' or '1,234.5')`,
    );
  }

  /**
   * After the whole file: the mark the file settled on, or null when nothing was read provisionally against it.
   * Throws when ambiguous commas were never settled.
   */
  mustReread(): boolean {
    if (this.provisionalComma && this.mark === null)
      throw this.ambiguity(this.provisionalComma.at, this.provisionalComma.raw);
    return this.mark === ',' && (this.provisionalComma !== null || this.provisionalDot !== null);
  }

  /** A note for the table when the file's numbers are not plain decimal-point numbers; null otherwise. */
  note(): string | null {
    if (this.mark === ',')
      return (
        `numbers read with a decimal comma${this.grouped ? " and '.' or spaces as thousands separators" : ''} ` +
        `(one rule for the whole file` +
        `${this.settledAt ? `, settled by ${at(this.settledAt.at, this.settledAt.raw)}` : ''})`
      );
    if (this.grouped)
      return (
        `numbers read with a decimal point and ',' as the thousands separator (one rule for the whole file` +
        `${this.settledAt ? `, settled by ${at(this.settledAt.at, this.settledAt.raw)}` : ''})`
      );
    return null;
  }
}

/** The rules of every file read during one readProfile call (a profile and, e.g., its power log). */
export class DecimalRules {
  private readonly byFile = new Map<string, DecimalRule>();
  constructor(private readonly settled: ReadonlyMap<string, DecimalRule> = new Map()) {}
  get(file: string): DecimalRule {
    let r = this.byFile.get(file);
    if (!r) this.byFile.set(file, (r = new DecimalRule(file, this.settled.get(file) ?? null)));
    return r;
  }
  /** The rules of the files whose provisional readings their end contradicted; throws on unsettled ambiguity. */
  rereads(): Map<string, DecimalRule> {
    return new Map([...this.byFile].filter(([, r]) => r.mustReread()));
  }
  notes(): string[] {
    return [...this.byFile.values()].flatMap((r) => {
      const n = r.note();
      return n ? [this.byFile.size > 1 ? `${r.file}: ${n}` : n] : [];
    });
  }
}

const current = new AsyncLocalStorage<DecimalRules>();

/**
 * The rule for `file` in the current read; a strict one of its own (ambiguity is an error at once) outside readProfile.
 */
export function decimalRule(file: string): DecimalRule {
  return current.getStore()?.get(file) ?? new DecimalRule(file, null, true);
}

/**
 * Runs `read` with one decimal rule per file; when the end of a file contradicts how its first ambiguous cells were
 * read, runs it once more with that file's rule fixed from the start (the caller keeps only the last run's
 * diagnostics). Returns the last run's result and the notes saying which rule each file was read with.
 */
export async function readDecided<T>(read: () => Promise<T>): Promise<{ result: T; notes: string[] }> {
  const first = new DecimalRules();
  const result = await current.run(first, read);
  const again = first.rereads();
  if (again.size === 0) return { result, notes: first.notes() };
  const second = new DecimalRules(again);
  const result2 = await current.run(second, read);
  second.rereads();
  return { result: result2, notes: second.notes() };
}

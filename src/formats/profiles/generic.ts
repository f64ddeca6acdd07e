/**
 * Generic CSV reader driven by a small column mapping (JSON or YAML), for any per-kernel table that
 * has no dedicated reader. Example (YAML):
 *
 *   format: my-lab-sweep        # label written to source.format (default "generic")
 *   device: NVIDIA A100         # optional
 *   delimiter: ","              # optional
 *   columns:
 *     kernelName: [benchmark, kernel]     # one column, or several joined with "/"
 *     smClockMHz: sm_clock                # default unit: MHz
 *     durationNs: { column: time, unit: ms }   # a unit is required unless the header says it, e.g. "time (ms)"
 *     powerW: power                       # default W
 *     energyJ: { column: energy, unit: mJ }
 *   utilization:                          # component → column; unit "ratio" (0–1, default) or "%"
 *     sm_active: SMACT
 *     dram_active: { column: dram_pct, unit: "%" }
 *   extra: [argNo, flops]                 # other columns kept as extra (numbers when numeric)
 */
import { parseJsonText, readTextFile } from '../text-file.js';
import { jsonPath, JsonShape } from '../json-shape.js';
import { parseYamlText } from '../yaml-text.js';
import { newSample, type KernelSample, type ProfileTable } from '../../vocab/kernel-sample.js';
import { FormatError, InputError } from '../../errors.js';
import { Header, isBlankRow, numberCell, parseNumberCell, readCsvRows, where } from './csv.js';
import { checkUtilization, completePowerEnergy } from './sample.js';
import type { ReaderContext } from './types.js';
import { lookupUnit, scaleValue, splitHeaderUnit, type Quantity } from './units.js';

export interface ColumnSpec {
  column: string | string[];
  /** Unit of the column's values (e.g. ms, GHz, mW, mJ, "%", ratio). */
  unit?: string;
}
export type ColumnRef = string | string[] | ColumnSpec;

export interface ColumnMapping {
  format?: string;
  device?: string;
  delimiter?: string;
  columns: {
    kernelName: ColumnRef;
    invocation?: ColumnRef;
    smClockMHz?: ColumnRef;
    memClockMHz?: ColumnRef;
    durationNs?: ColumnRef;
    powerW?: ColumnRef;
    energyJ?: ColumnRef;
    powerLimitW?: ColumnRef;
  };
  utilization?: Record<string, ColumnRef>;
  extra?: string[];
}

type NumField = 'smClockMHz' | 'memClockMHz' | 'durationNs' | 'powerW' | 'energyJ' | 'powerLimitW' | 'invocation';
const FIELD_QUANTITY: Record<NumField, { quantity: Quantity | null; base: string; unitRequired: boolean }> = {
  smClockMHz: { quantity: 'frequency', base: 'MHz', unitRequired: false },
  memClockMHz: { quantity: 'frequency', base: 'MHz', unitRequired: false },
  durationNs: { quantity: 'time', base: 'ns', unitRequired: true },
  powerW: { quantity: 'power', base: 'W', unitRequired: false },
  energyJ: { quantity: 'energy', base: 'J', unitRequired: false },
  powerLimitW: { quantity: 'power', base: 'W', unitRequired: false },
  invocation: { quantity: null, base: '', unitRequired: false },
};

function normRef(ref: ColumnRef): ColumnSpec {
  if (typeof ref === 'string' || Array.isArray(ref)) return { column: ref };
  return ref;
}

/** Loads and validates a mapping file (JSON or YAML); errors name the file and the field. */
export async function loadColumnMapping(file: string): Promise<ColumnMapping> {
  const text = await readTextFile(file);
  return validateColumnMapping(/\.json$/i.test(file) ? parseJsonText(file, text) : parseYamlText(file, text), file);
}

function isColumnList(v: unknown): v is string | string[] {
  if (typeof v === 'string') return v.length > 0;
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && x.length > 0);
}

function isRef(v: unknown): v is ColumnRef {
  if (isColumnList(v)) return true;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return isColumnList(o.column) && (o.unit === undefined || typeof o.unit === 'string');
}

/** Checks the shape of a mapping object; a FormatError naming the field's JSON path otherwise. */
export function validateColumnMapping(data: unknown, file = '<mapping>'): ColumnMapping {
  const c = new JsonShape(file);
  const m = c.object(data, '', 'an object with a "columns" object');
  for (const k of ['format', 'device', 'delimiter'] as const) if (m[k] !== undefined) c.string(m, k, '');
  const cols = c.child(m, 'columns', '', { what: 'an object {kernelName, …: column}' });
  c.refuseUnknown(cols, 'columns', ['kernelName', ...Object.keys(FIELD_QUANTITY)]);
  c.requireKeys(cols, 'columns', { kernelName: 'a column name or a list of names' });
  for (const [k, v] of Object.entries(cols)) {
    const at = jsonPath('columns', k);
    if (!isRef(v)) c.expected(at, 'a column name, a list of names, or { column, unit }', v);
    const spec = normRef(v as ColumnRef);
    if (k !== 'kernelName' && Array.isArray(spec.column)) c.fail(at, 'only kernelName may join several columns');
    if (spec.unit !== undefined && k in FIELD_QUANTITY) {
      const want = FIELD_QUANTITY[k as NumField].quantity;
      const info = lookupUnit(spec.unit);
      if (!info) c.fail(jsonPath(at, 'unit'), `unknown unit '${spec.unit}'`);
      else if (want && info.quantity !== want)
        c.fail(jsonPath(at, 'unit'), `'${spec.unit}' is a ${info.quantity} unit, expected ${want}`);
    }
  }
  if (m.utilization !== undefined) {
    const util = c.child(m, 'utilization', '', { what: 'an object component → column' });
    for (const [k, v] of Object.entries(util)) {
      const at = jsonPath('utilization', k);
      if (!isRef(v) || Array.isArray(normRef(v as ColumnRef).column))
        c.expected(at, 'a column name or { column, unit }', v);
      const u = normRef(v as ColumnRef).unit;
      if (u !== undefined && u !== '%' && u.toLowerCase() !== 'ratio')
        c.expected(jsonPath(at, 'unit'), '"ratio" or "%"', u);
    }
  }
  if (m.extra !== undefined) c.stringList(m, 'extra', '');
  return m as unknown as ColumnMapping;
}

interface Resolved {
  field: NumField;
  index: number;
  factor: number;
  column: string;
}

export async function readGeneric(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  const { diagnostics, options } = ctx;
  if (!options.mapping)
    throw new InputError(`${file}: the generic reader needs a column mapping (--mapping file.json|yaml)`);
  const mappingFile = typeof options.mapping === 'string' ? options.mapping : '<mapping>';
  const mapping =
    typeof options.mapping === 'string'
      ? await loadColumnMapping(options.mapping)
      : validateColumnMapping(options.mapping);
  const format = mapping.format ?? 'generic';
  const notes: string[] = [`columns mapped by ${mappingFile}`];
  let header: Header | null = null;
  let nameIdx: number[] = [];
  const numeric: Resolved[] = [];
  let utilIdx: { component: string; index: number; scale: number; column: string }[] = [];
  let extraIdx: [string, number][] = [];
  for await (const row of readCsvRows(file, { delimiter: mapping.delimiter, trim: true })) {
    if (!header) {
      const h = new Header(file, row.fields, row.line);
      header = h;
      const col = (c: string, field: string) => {
        const i = h.find(c);
        if (i < 0)
          throw new FormatError(
            file,
            `row ${row.line}`,
            `missing column '${c}' (mapped to ${field} by ${mappingFile}; columns present: ${h.names.join(', ')})`,
          );
        return i;
      };
      const nameSpec = normRef(mapping.columns.kernelName);
      nameIdx = (Array.isArray(nameSpec.column) ? nameSpec.column : [nameSpec.column]).map((c) => col(c, 'kernelName'));
      for (const f of Object.keys(FIELD_QUANTITY) as NumField[]) {
        const ref = mapping.columns[f];
        if (ref === undefined) continue;
        const spec = normRef(ref);
        const c = spec.column as string;
        const index = col(c, f);
        const q = FIELD_QUANTITY[f];
        let factor = 1;
        if (q.quantity) {
          const unit = spec.unit ?? splitHeaderUnit(h.name(index)).unit ?? undefined;
          if (unit === undefined) {
            if (q.unitRequired)
              throw new FormatError(
                mappingFile,
                `columns.${f}`,
                `column '${c}' has no unit in its header: give { column: ${c}, unit: ... }`,
              );
            notes.push(`${f}: column '${c}' has no unit, taken as ${q.base}`);
          } else {
            const info = lookupUnit(unit);
            if (!info) throw new FormatError(file, where(row.line, c), `unknown unit '${unit}'`);
            if (info.quantity !== q.quantity)
              throw new FormatError(
                file,
                where(row.line, c),
                `unit '${unit}' is a ${info.quantity} unit, expected ${q.quantity}`,
              );
            factor = info.factor;
          }
        }
        numeric.push({ field: f, index, factor, column: c });
      }
      utilIdx = Object.entries(mapping.utilization ?? {}).map(([component, ref]) => {
        const spec = normRef(ref);
        const c = spec.column as string;
        return { component, index: col(c, `utilization.${component}`), scale: spec.unit === '%' ? 0.01 : 1, column: c };
      });
      extraIdx = (mapping.extra ?? []).map((c) => [c, col(c, 'extra')] as [string, number]);
      continue;
    }
    if (isBlankRow(row)) {
      diagnostics.add('blank-row', { file, message: `row ${row.line} is blank` });
      continue;
    }
    const h = header;
    const parts = nameIdx.map((i) => row.fields[i]?.trim() ?? '');
    if (parts.some((p) => !p))
      throw new FormatError(file, where(row.line, h.name(nameIdx[parts.findIndex((p) => !p)]!)), 'missing kernel name');
    const s: KernelSample = newSample(parts.join('/'), { file, row: row.line, format });
    for (const r of numeric) {
      const v = numberCell(file, row, h, r.index, { nonNegative: true, positive: r.field.endsWith('MHz') });
      if (v === null) continue;
      const val = scaleValue(v, r.factor);
      if (r.field === 'invocation') s.invocation = val;
      else if (r.field === 'powerLimitW') s.powerLimitW = val;
      else s[r.field] = val;
    }
    for (const u of utilIdx) {
      const v = numberCell(file, row, h, u.index);
      if (v === null) {
        diagnostics.add('missing-utilization', { file, message: `${where(row.line, u.column)}: no value` });
        continue;
      }
      s.utilization[u.component] = checkUtilization(file, row.line, u.column, v * u.scale, diagnostics);
    }
    if (extraIdx.length) {
      s.extra = {};
      for (const [c, i] of extraIdx) {
        const raw = row.fields[i] ?? '';
        const v = parseNumberCell(raw);
        s.extra[c] = v !== null && Number.isFinite(v) ? v : raw;
      }
    }
    completePowerEnergy(s);
    ctx.sink.add(s);
  }
  if (!header) throw new FormatError(file, '', 'empty file (no header)');
  return { format, device: mapping.device ?? null, samples: [], notes };
}

/**
 * Power time series (what gets joined with an Nsight Systems GPU trace) and their integration.
 * Formats:
 * - `nvidia-smi`: `nvidia-smi --query-gpu=timestamp,…,power.draw --format=csv[,nounits][,noheader]` logs:
 *   ", " separators, units in header brackets (`power.draw [W]`) and as value suffixes (`19.46 W`) unless
 *   `nounits`; `[N/A]` / `[Not Supported]` cells; timestamps `2024/10/13 03:33:31.779` (local, naive) or
 *   ISO-8601; one row per GPU per sample when several GPUs are queried (column `index`/`gpu`/`uuid`).
 * - `dcgmi-dmon`: the whitespace table of `dcgmi dmon -e 155[,156,…]`: `#Entity POWER …`, a units line
 *   `ID W …`, rows `GPU 0 120.5 …`; headers repeat. No timestamps: samples are `dmonIntervalMs` apart.
 * - `zeus-monitor`: Zeus `zemo` log `Time,Power`, Power an integer in mW.
 * - `power-csv`: any `time,power` CSV: time column `time|timestamp|t` (unit from `(s)`/`[ms]`/`_ms` or
 *   absolute timestamps), power column `power…` (unit from the name, `mW` or `W`, default W).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Diagnostics } from '../../diagnostics.js';
import { FormatError, InputError } from '../../errors.js';
import { fileReadError } from '../file-chunks.js';
import { Header, isMissingCell, parseNumberCell, readCsvRows, where } from './csv.js';
import { detectFormat } from './detect.js';
import type { PowerFormat, ReadProfileOptions } from './types.js';
import { lookupUnit, parseValueWithUnit, splitHeaderUnit } from './units.js';

export interface PowerSeries {
  /** Sample times, ns after the first sample, strictly increasing. */
  timeNs: number[];
  /** Power at each sample, W. */
  powerW: number[];
  /** Wall-clock time of the first sample (ms since the Unix epoch; naive local stamps read as UTC), when known. */
  originEpochMs: number | null;
  /** GPU the series belongs to (index/uuid as the log writes it), when the log says. */
  gpu: string | null;
  device: string | null;
  source: { file: string; format: PowerFormat };
  notes: string[];
}

/** Parses a timestamp to [whole seconds since epoch, fraction in ns]; null when it is not one. */
export function parseTimestamp(raw: string): { sec: number; fracNs: number } | null {
  const m =
    /^\s*(\d{4})[-/](\d{1,2})[-/](\d{1,2})[ T](\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?\s*(Z|[+-]\d{2}:?\d{2})?\s*$/.exec(
      raw,
    );
  if (!m) return null;
  let sec = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000;
  const frac = m[7] ? Number(`0.${m[7]}`) * 1e9 : 0;
  if (m[8] && m[8] !== 'Z') {
    const tz = /([+-])(\d{2}):?(\d{2})/.exec(m[8])!;
    sec -= (tz[1] === '-' ? -1 : 1) * (+tz[2]! * 3600 + +tz[3]! * 60);
  }
  return { sec, fracNs: frac };
}

/** Builds a series from raw (time ns, power W) pairs: sorts, merges equal times, counts what it changed. */
function buildSeries(
  file: string,
  format: PowerFormat,
  pts: { t: number; p: number; line: number }[],
  diagnostics: Diagnostics,
  extra: Partial<PowerSeries> = {},
): PowerSeries {
  if (pts.length === 0) throw new FormatError(file, '', 'no power samples');
  let unsorted = 0;
  for (let i = 1; i < pts.length; i++) if (pts[i]!.t < pts[i - 1]!.t) unsorted++;
  if (unsorted) {
    diagnostics.add('power-time-unsorted', {
      file,
      message: `${unsorted} samples earlier than the previous one; series sorted by time`,
    });
    pts.sort((a, b) => a.t - b.t);
  }
  const t0 = pts[0]!.t;
  const timeNs: number[] = [];
  const powerW: number[] = [];
  let merged = 0;
  let k = 1;
  for (const q of pts) {
    const t = q.t - t0;
    if (timeNs.length && timeNs[timeNs.length - 1] === t) {
      merged++;
      k++;
      const j = powerW.length - 1;
      powerW[j] = powerW[j]! + (q.p - powerW[j]!) / k;
      continue;
    }
    k = 1;
    timeNs.push(t);
    powerW.push(q.p);
  }
  if (merged)
    diagnostics.add('power-time-duplicate', {
      file,
      message: `${merged} samples share a timestamp with the previous one; averaged`,
    });
  return {
    timeNs,
    powerW,
    originEpochMs: null,
    gpu: null,
    device: null,
    source: { file, format },
    notes: [],
    ...extra,
  };
}

function checkPower(file: string, line: number, column: string, v: number): number {
  if (!Number.isFinite(v)) throw new FormatError(file, where(line, column), `power '${v}' is not a finite number`);
  if (v < 0) throw new FormatError(file, where(line, column), `power must not be negative, got ${v}`);
  return v;
}

async function readNvidiaSmi(file: string, opts: ReadProfileOptions, diagnostics: Diagnostics): Promise<PowerSeries> {
  let header: Header | null = null;
  let iTime = -1,
    iPower = -1,
    iGpu = -1,
    iName = -1;
  let headerUnit: string | null = null;
  let chosen: string | null = opts.gpuIndex !== undefined ? String(opts.gpuIndex) : null;
  const gpus = new Set<string>();
  const pts: { t: number; p: number; line: number }[] = [];
  let origin: { sec: number; fracNs: number } | null = null;
  let device: string | null = null;
  let missing = 0;
  for await (const row of readCsvRows(file, { trim: true })) {
    if (!header) {
      header = new Header(file, row.fields, row.line);
      iPower = header.names.findIndex((n) => /^power\.draw(\.average|\.instant)?\b/.test(n));
      if (iPower < 0) header.require('power.draw [W]', 'power.draw');
      iTime = header.names.findIndex((n) => /^timestamp\b/.test(n));
      if (iTime < 0) header.require('timestamp');
      // A `gpu` column is not an nvidia-smi field: when a wrapper adds one, it is the GPU id.
      iGpu = header.find('gpu', 'index', 'uuid', 'pci.bus_id');
      iName = header.find('name');
      headerUnit = splitHeaderUnit(header.name(iPower)).unit;
      continue;
    }
    const gpu = iGpu >= 0 ? (row.fields[iGpu] ?? '') : '';
    gpus.add(gpu);
    chosen ??= gpu;
    if (gpu !== chosen) continue;
    const rawP = row.fields[iPower] ?? '';
    if (isMissingCell(rawP)) {
      missing++;
      continue;
    }
    const vu = parseValueWithUnit(rawP, { file, line: row.line, column: header.name(iPower) });
    if (!vu) throw new FormatError(file, where(row.line, header.name(iPower)), `'${rawP}' is not a power value`);
    const unit = vu.unit || headerUnit || 'W';
    const info = lookupUnit(unit);
    if (!info || info.quantity !== 'power')
      throw new FormatError(file, where(row.line, header.name(iPower)), `unknown power unit '${unit}'`);
    const p = checkPower(file, row.line, header.name(iPower), vu.value * info.factor);
    const ts = parseTimestamp(row.fields[iTime] ?? '');
    if (!ts)
      throw new FormatError(
        file,
        where(row.line, header.name(iTime)),
        `'${row.fields[iTime] ?? ''}' is not a timestamp`,
      );
    origin ??= ts;
    pts.push({ t: (ts.sec - origin.sec) * 1e9 + (ts.fracNs - origin.fracNs), p, line: row.line });
    if (iName >= 0 && !device) device = row.fields[iName] || null;
  }
  if (!header) throw new FormatError(file, '', 'empty file (no header)');
  if (missing)
    diagnostics.add('power-missing', { file, message: `${missing} samples with no power value ([N/A]) skipped` });
  const notes: string[] = [];
  if (gpus.size > 1)
    notes.push(`${gpus.size} GPUs in the log (${[...gpus].join(', ')}); took GPU ${chosen} (set gpuIndex to choose)`);
  if (chosen !== null && !gpus.has(chosen))
    throw new InputError(`${file}: no rows for GPU ${chosen} (GPUs in the log: ${[...gpus].join(', ')})`);
  return buildSeries(file, 'nvidia-smi', pts, diagnostics, {
    originEpochMs: origin ? origin.sec * 1000 + origin.fracNs / 1e6 : null,
    gpu: chosen || null,
    device,
    notes,
  });
}

async function readTimePowerCsv(
  file: string,
  format: 'zeus-monitor' | 'power-csv',
  diagnostics: Diagnostics,
): Promise<PowerSeries> {
  let header: Header | null = null;
  let iTime = -1,
    iPower = -1;
  let pFactor = 1;
  let tFactor: number | null = null;
  const pts: { t: number; p: number; line: number }[] = [];
  let origin: { sec: number; fracNs: number } | null = null;
  let t0rel: number | null = null;
  const notes: string[] = [];
  let missing = 0;
  for await (const row of readCsvRows(file, { trim: true })) {
    if (!header) {
      header = new Header(file, row.fields, row.line);
      iTime = header.names.findIndex((n) => /^(time|timestamp|t)(\b|_)/i.test(n));
      iPower = header.names.findIndex((n) => /^power/i.test(n));
      if (iTime < 0) header.require('time', 'timestamp');
      if (iPower < 0) header.require('power');
      const pName = header.name(iPower);
      const pUnit =
        format === 'zeus-monitor'
          ? 'mW'
          : (splitHeaderUnit(pName).unit ?? /_(mw|w|watts?|kw)$/i.exec(pName)?.[1] ?? 'W');
      const pi = lookupUnit(pUnit);
      if (!pi || pi.quantity !== 'power')
        throw new FormatError(file, where(row.line, pName), `unknown power unit '${pUnit}'`);
      pFactor = pi.factor;
      if (format === 'zeus-monitor') notes.push('Zeus monitor: Power column in mW');
      const tName = header.name(iTime);
      const tUnit = splitHeaderUnit(tName).unit ?? /_(ns|us|ms|s|sec)$/i.exec(tName)?.[1] ?? null;
      if (tUnit) {
        const ti = lookupUnit(tUnit);
        if (!ti || ti.quantity !== 'time')
          throw new FormatError(file, where(row.line, tName), `unknown time unit '${tUnit}'`);
        tFactor = ti.factor;
      }
      continue;
    }
    const rawP = row.fields[iPower] ?? '';
    const rawT = row.fields[iTime] ?? '';
    if (isMissingCell(rawP)) {
      missing++;
      continue;
    }
    const pv = parseNumberCell(rawP, { file, line: row.line, column: header.name(iPower) });
    const p = checkPower(file, row.line, header.name(iPower), (pv ?? NaN) * pFactor);
    let t: number;
    const ts = parseTimestamp(rawT);
    if (ts) {
      origin ??= ts;
      t = (ts.sec - origin.sec) * 1e9 + (ts.fracNs - origin.fracNs);
    } else {
      const tv = parseNumberCell(rawT, { file, line: row.line, column: header.name(iTime) });
      if (tv === null || !Number.isFinite(tv))
        throw new FormatError(
          file,
          where(row.line, header.name(iTime)),
          `'${rawT}' is neither a timestamp nor a number`,
        );
      if (tFactor === null) {
        tFactor = 1e9;
        notes.push(`time column '${header.name(iTime)}' has no unit: taken as seconds`);
      }
      t0rel ??= tv;
      t = (tv - t0rel) * tFactor;
    }
    pts.push({ t, p, line: row.line });
  }
  if (!header) throw new FormatError(file, '', 'empty file (no header)');
  if (missing) diagnostics.add('power-missing', { file, message: `${missing} samples with no power value skipped` });
  return buildSeries(file, format, pts, diagnostics, {
    originEpochMs: origin ? origin.sec * 1000 + origin.fracNs / 1e6 : null,
    notes,
  });
}

async function readDcgmiDmon(file: string, opts: ReadProfileOptions, diagnostics: Diagnostics): Promise<PowerSeries> {
  const intervalNs = (opts.dmonIntervalMs ?? 1000) * 1e6;
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let cols: string[] | null = null;
  let iPower = -1;
  let chosen: string | null = opts.gpuIndex !== undefined ? String(opts.gpuIndex) : null;
  const entities = new Set<string>();
  const pts: { t: number; p: number; line: number }[] = [];
  let lineNo = 0;
  let missing = 0;
  let odd = 0;
  try {
    for await (const raw of rl) {
      lineNo++;
      const line = raw.trim();
      if (!line) continue;
      if (/^#\s*Entity\b/.test(line)) {
        cols = line
          .replace(/^#\s*Entity\s*/, '')
          .split(/\s+/)
          .filter(Boolean);
        iPower = cols.indexOf('POWER');
        if (iPower < 0)
          throw new FormatError(
            file,
            `row ${lineNo}`,
            `missing column 'POWER' (dcgmi dmon -e 155); columns present: ${cols.join(', ')}`,
          );
        continue;
      }
      if (!cols) {
        odd++;
        continue;
      }
      if (/^ID\b/.test(line)) continue; // units line
      const m = /^(GPU-I|GPU-CI|GPU|CPU|NvSwitch|Link)\s+(\S+)\s+(.*)$/.exec(line);
      if (!m) {
        odd++;
        diagnostics.add('dmon-unparsed-line', {
          file,
          message: `row ${lineNo}: '${line.slice(0, 60)}' is not a dmon data row`,
        });
        continue;
      }
      const entity = `${m[1]} ${m[2]}`;
      entities.add(entity);
      chosen ??= m[2]!;
      if (m[2] !== chosen || (m[1] !== 'GPU' && m[1] !== 'GPU-I')) continue;
      const vals = m[3]!.split(/\s+/);
      if (vals.length < cols.length)
        throw new FormatError(file, `row ${lineNo}`, `${vals.length} values for ${cols.length} columns`);
      const rawP = vals[iPower]!;
      const t = pts.length * intervalNs + missing * intervalNs;
      if (isMissingCell(rawP)) {
        missing++;
        continue;
      }
      const p = checkPower(
        file,
        lineNo,
        'POWER',
        parseNumberCell(rawP, { file, line: lineNo, column: 'POWER' }) ?? NaN,
      );
      pts.push({ t, p, line: lineNo });
    }
  } catch (e) {
    throw fileReadError(file, e);
  }
  if (!cols) throw new FormatError(file, '', "no '#Entity' header (dcgmi dmon table)");
  if (missing) diagnostics.add('power-missing', { file, message: `${missing} samples with POWER N/A skipped` });
  if (odd) diagnostics.add('dmon-odd-lines', { file, message: `${odd} lines neither header, units nor data` });
  const notes = [`dcgmi dmon has no timestamps: samples taken ${intervalNs / 1e6} ms apart (dmonIntervalMs)`];
  if (entities.size > 1)
    notes.push(`${entities.size} entities (${[...entities].join(', ')}); took ${chosen} (set gpuIndex to choose)`);
  return buildSeries(file, 'dcgmi-dmon', pts, diagnostics, { gpu: chosen, notes });
}

/** Reads a power time series, sniffing its format unless `opts.powerFormat` says it. */
export async function readPowerSeries(
  file: string,
  opts: ReadProfileOptions,
  diagnostics: Diagnostics,
): Promise<PowerSeries> {
  let format = opts.powerFormat;
  if (!format) {
    const d = await detectFormat(file);
    if (!d || d.kind !== 'power') {
      throw new InputError(
        `${file}: not a recognised power log (nvidia-smi --query-gpu CSV, dcgmi dmon table, Zeus monitor, or a ` +
          `time,power CSV); set powerFormat`,
      );
    }
    format = d.format;
  }
  switch (format) {
    case 'nvidia-smi':
      return readNvidiaSmi(file, opts, diagnostics);
    case 'dcgmi-dmon':
      return readDcgmiDmon(file, opts, diagnostics);
    case 'zeus-monitor':
    case 'power-csv':
      return readTimePowerCsv(file, format, diagnostics);
    default: {
      const never: never = format;
      throw new InputError(`unknown power format '${String(never)}'`);
    }
  }
}

function upperBound(a: readonly number[], x: number): number {
  let lo = 0,
    hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Energy (J) drawn over [startNs, endNs] on the series' time axis, power interpolated linearly between
 * samples (trapezoids). Returns null when the interval is not inside the series (or is reversed/NaN);
 * 0 for an empty interval inside it.
 */
export function integratePower(
  series: Pick<PowerSeries, 'timeNs' | 'powerW'>,
  startNs: number,
  endNs: number,
): number | null {
  const t = series.timeNs;
  const p = series.powerW;
  const n = t.length;
  if (n === 0 || !(endNs >= startNs) || startNs < t[0]! || endNs > t[n - 1]!) return null;
  if (endNs === startNs) return 0;
  const at = (i: number, x: number) =>
    i >= n - 1 ? p[n - 1]! : p[i]! + ((p[i + 1]! - p[i]!) * (x - t[i]!)) / (t[i + 1]! - t[i]!);
  let i = Math.min(upperBound(t, startNs) - 1, n - 2);
  let a = startNs;
  let pa = at(i, a);
  let energyWns = 0;
  while (a < endNs) {
    const b = Math.min(endNs, t[i + 1]!);
    const pb = at(i, b);
    energyWns += ((pa + pb) / 2) * (b - a);
    a = b;
    pa = pb;
    i++;
  }
  return energyWns / 1e9;
}

/**
 * Estimates how often the sensor refreshes (ns): the median time between changes of the reading
 * (NVML often refreshes more slowly than it is polled, so readings repeat), never below the median
 * polling interval. Null when the series changes fewer than 3 times.
 */
export function estimateSensorPeriodNs(series: Pick<PowerSeries, 'timeNs' | 'powerW'>): number | null {
  const { timeNs: t, powerW: p } = series;
  const changes: number[] = [];
  for (let i = 1; i < t.length; i++) if (p[i] !== p[i - 1]) changes.push(t[i]!);
  if (changes.length < 3) return null;
  const gaps = changes.slice(1).map((c, i) => c - changes[i]!);
  const polls = t.slice(1).map((x, i) => x - t[i]!);
  return Math.max(median(gaps), median(polls));
}

function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

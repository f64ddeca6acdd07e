/**
 * The idle figure of a calibration: what the GPU draws held at a clock while it computes nothing. In order of
 * preference: an idle measurement given with `--idle` (an nvidia-smi log's samples with no kernel running,
 * utilization.gpu 0 %; or a profile's idle rows, every utilization 0, as gpmTOOL's idle microbenchmark writes them),
 * idle rows among the calibration's own profiles, else the device's published figure (model/datasheets.ts).
 * Never the active power fit at zero utilization: that is an extrapolation (V100: 126.6 W at 1380 MHz, where the
 * lowest kernel measured draws 98 W).
 */
import path from 'node:path';
import { FormatError, InputError } from '../../errors.js';
import { detectFormat, readProfile, type ReadProfileOptions } from '../../formats/profiles/index.js';
import type { KernelSample, ProfileTable } from '../../vocab/kernel-sample.js';
import { Header, isMissingCell, readCsvRows, where } from '../../formats/profiles/csv.js';
import { lookupUnit, parseValueWithUnit, splitHeaderUnit } from '../../formats/profiles/units.js';
import type { IdleFacts, IdlePoint } from '../../model/calibration.js';
import type { DeviceSheet } from '../../model/datasheets.js';

/** An idle measurement file, read: its points and what it is, for the calibration's idle block and provenance. */
export interface IdleMeasurement {
  file: string;
  format: string;
  device: string | null;
  /** Rows (log samples or profile rows) read. */
  rows: number;
  /** One per (SM clock, memory clock): the median of its idle samples. */
  points: IdlePoint[];
  /** What counted as idle, in words. */
  rule: string;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
};

function pointsOf(samples: { sm: number; mem: number | null; powerW: number }[]): IdlePoint[] {
  const groups = new Map<string, { sm: number; mem: number | null; p: number[] }>();
  for (const s of samples) {
    const k = `${s.sm}/${s.mem}`;
    const g = groups.get(k) ?? { sm: s.sm, mem: s.mem, p: [] };
    g.p.push(s.powerW);
    groups.set(k, g);
  }
  return [...groups.values()]
    .map((g) => ({
      smClockMHz: g.sm,
      memClockMHz: g.mem,
      powerW: Number(median(g.p).toPrecision(6)),
      samples: g.p.length,
    }))
    .sort((a, b) => a.smClockMHz - b.smClockMHz || (a.memClockMHz ?? 0) - (b.memClockMHz ?? 0));
}

/** A value with or without its unit suffix ("77.66 W", "345 MHz", "0 %", "77.66"), in the header's unit else `unit`. */
function cellValue(file: string, line: number, header: Header, i: number, raw: string, unit: string): number {
  const vu = parseValueWithUnit(raw, { file, line, column: header.name(i) });
  if (!vu) throw new FormatError(file, where(line, header.name(i)), `'${raw}' is not a number`);
  const info = lookupUnit(vu.unit || splitHeaderUnit(header.name(i)).unit || unit);
  return info ? vu.value * info.factor : vu.value;
}

/**
 * An nvidia-smi log (`--query-gpu=timestamp,…,power.draw,clocks.sm|clocks.current.sm,utilization.gpu,…`): the
 * samples whose utilization.gpu is 0 % (NVML: no kernel ran during its sample period), per SM (and memory) clock.
 */
async function readIdleLog(file: string, gpuIndex: number | undefined): Promise<IdleMeasurement> {
  let header: Header | null = null;
  let iPower = -1,
    iSm = -1,
    iMem = -1,
    iUtil = -1,
    iGpu = -1,
    iName = -1;
  let chosen: string | null = gpuIndex !== undefined ? String(gpuIndex) : null;
  let device: string | null = null;
  let rows = 0;
  const idle: { sm: number; mem: number | null; powerW: number }[] = [];
  for await (const row of readCsvRows(file, { trim: true })) {
    if (!header) {
      header = new Header(file, row.fields, row.line);
      iPower = header.names.findIndex((n) => /^power\.draw(\.average|\.instant)?\b/.test(n));
      iSm = header.names.findIndex((n) => /^clocks\.(current\.)?sm\b/.test(n));
      iMem = header.names.findIndex((n) => /^clocks\.(current\.)?(memory|mem)\b/.test(n));
      iUtil = header.names.findIndex((n) => /^utilization\.gpu\b/.test(n));
      if (iPower < 0) header.require('power.draw [W]');
      if (iSm < 0) header.require('clocks.current.sm [MHz]', 'clocks.sm [MHz]');
      if (iUtil < 0) header.require('utilization.gpu [%]');
      iGpu = header.find('gpu', 'index', 'uuid', 'pci.bus_id');
      iName = header.find('name');
      continue;
    }
    const gpu = iGpu >= 0 ? (row.fields[iGpu] ?? '') : '';
    chosen ??= gpu;
    if (gpu !== chosen) continue;
    rows++;
    const [p, sm, u] = [iPower, iSm, iUtil].map((i) => row.fields[i] ?? '');
    if (isMissingCell(p) || isMissingCell(sm) || isMissingCell(u)) continue;
    if (cellValue(file, row.line, header, iUtil, u!, '%') !== 0) continue;
    const m =
      iMem >= 0 && !isMissingCell(row.fields[iMem])
        ? cellValue(file, row.line, header, iMem, row.fields[iMem]!, 'MHz')
        : null;
    idle.push({
      sm: cellValue(file, row.line, header, iSm, sm!, 'MHz'),
      mem: m,
      powerW: cellValue(file, row.line, header, iPower, p!, 'W'),
    });
    if (iName >= 0 && !device) device = row.fields[iName] || null;
  }
  if (!header) throw new FormatError(file, '', 'empty file (no header)');
  return {
    file,
    format: 'nvidia-smi',
    device,
    rows,
    points: pointsOf(idle),
    rule: 'samples with no kernel running (utilization.gpu 0 %), median per clock',
  };
}

/** The rows of a profile with every utilization at 0 (an idle microbenchmark's rows) and a power reading. */
export function idleRows(table: ProfileTable): KernelSample[] {
  return table.samples.filter(
    (s) =>
      s.powerW !== null &&
      s.smClockMHz !== null &&
      Object.keys(s.utilization).length > 0 &&
      Object.values(s.utilization).every((v) => v === 0),
  );
}

/** The idle rows of a profile as a measurement (no points when it has none). */
export function idleFromProfile(file: string, table: ProfileTable): IdleMeasurement {
  const rows = idleRows(table);
  return {
    file,
    format: table.format,
    device: table.device,
    rows: table.rows ?? table.samples.length,
    points: pointsOf(rows.map((s) => ({ sm: s.smClockMHz!, mem: s.memClockMHz, powerW: s.powerW! }))),
    rule: 'rows with every utilization 0 (an idle microbenchmark), median per clock',
  };
}

/** Reads an idle measurement: an nvidia-smi log, or a profile with idle rows. */
export async function readIdleMeasurement(
  file: string,
  options: Pick<ReadProfileOptions, 'gpuIndex' | 'format' | 'mapping'> = {},
): Promise<IdleMeasurement> {
  const detected = options.format ? null : await detectFormat(file);
  const m =
    detected?.kind === 'power'
      ? detected.format === 'nvidia-smi'
        ? await readIdleLog(file, options.gpuIndex)
        : null
      : idleFromProfile(file, await readProfile(file, { format: options.format, mapping: options.mapping }));
  if (!m)
    throw new InputError(
      `${file}: a ${detected!.kind === 'power' ? detected!.format : ''} power log has no utilization or clock ` +
        `columns; an idle measurement is an nvidia-smi log (power.draw, clocks.sm, utilization.gpu) or a profile ` +
        `with idle rows`,
    );
  if (m.points.length === 0) throw new InputError(`${file}: no idle samples (${m.rule}) in ${m.rows} rows`);
  return m;
}

/** The clock the figure is quoted at: the highest SM clock at the main memory clock (all points when none there). */
function headline(points: IdlePoint[], memClockMHz: number | null): IdlePoint {
  const at = points.filter((p) => memClockMHz === null || p.memClockMHz === null || p.memClockMHz === memClockMHz);
  return (at.length ? at : points).reduce((a, b) => (b.smClockMHz > a.smClockMHz ? b : a));
}

/** The idle block from a measurement. */
export function measuredIdle(m: IdleMeasurement, memClockMHz: number | null): IdleFacts {
  const top = headline(m.points, memClockMHz);
  const list = m.points.filter((p) => memClockMHz === null || p.memClockMHz === null || p.memClockMHz === memClockMHz);
  const shown = (list.length ? list : m.points).map((p) => `${p.powerW} W at ${p.smClockMHz} MHz (${p.samples})`);
  const clocks =
    shown.length > 4 ? `${shown.slice(0, 2).join(', ')}, …, ${shown.slice(-2).join(', ')}` : shown.join(', ');
  return {
    powerW: top.powerW,
    smClockMHz: top.smClockMHz,
    perClock: m.points,
    basis: 'measured',
    source: `measured: ${m.rule} in ${path.basename(m.file)}${m.device ? ` (${m.device})` : ''}: ${clocks}`,
  };
}

/** The idle block from the device's published figure. */
export function publishedIdle(sheet: DeviceSheet): IdleFacts {
  const i = sheet.idle;
  return {
    powerW: i.powerW,
    smClockMHz: i.smClockMHz,
    perClock: [{ smClockMHz: i.smClockMHz, memClockMHz: null, powerW: i.powerW, samples: 1 }],
    basis: 'published',
    source: i.source,
  };
}

/**
 * Nsight Systems exports.
 * - `nsys-gpu-trace`: `nsys stats --report cuda_gpu_trace --format csv`:
 *   `Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),
 *   Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,[GreenCtx,]Strm,Name` (older: `Throughput (MBps)`); memcpy/
 *   memset rows (empty GrdX, `[CUDA memcpy …]` names) are not kernels and are counted, not kept. Also the
 *   GUI events-view export `Name,Start,Duration,GPU,Context` with values such as `4.89664s`, `296.991 μs`.
 *   With a power series (options.power), each kernel's energy is the power integrated over its interval;
 *   kernels shorter than the sensor's update period are aggregated by name (see below).
 * - `nsys-kern-sum`: `cuda_gpu_kern_sum`: `Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),
 *   Max (ns),StdDev (ns),Name` — one sample per kernel name, durationNs = Avg, invocation null.
 * Time units come from the header's parentheses (ns, us, ms, s). `Name` is quoted when it has commas.
 */
import { newSample, type ProfileTable } from '../../vocab/kernel-sample.js';
import { FormatError, InputError } from '../../errors.js';
import { Header, isBlankRow, numberCell, readCsvRows, where } from './csv.js';
import { isNsysHeader } from './detect.js';
import { readPowerSeries } from './power.js';
import { joinPower, type TraceKernel } from './power-join.js';
import { numberInvocations } from './sample.js';
import type { ReaderContext } from './types.js';
import { lookupUnit, parseValueWithUnit, scaleValue, splitHeaderUnit } from './units.js';

export const NSYS_GPU_TRACE_FORMAT = 'nsys-gpu-trace';
export const NSYS_KERN_SUM_FORMAT = 'nsys-kern-sum';

function timeColumn(h: Header, base: string, required: boolean): { index: number; factor: number } {
  const index = h.names.findIndex((n) => splitHeaderUnit(n).name === base);
  if (index < 0) {
    if (required) h.require(`${base} (ns)`);
    return { index: -1, factor: 1 };
  }
  const unit = splitHeaderUnit(h.name(index)).unit;
  if (unit === null) return { index, factor: NaN }; // values carry their unit (GUI export)
  const info = lookupUnit(unit);
  if (!info || info.quantity !== 'time')
    throw new FormatError(h.file, where(h.line, h.name(index)), `unknown time unit '${unit}'`);
  return { index, factor: info.factor };
}

/** Reads a time cell: a number in the header's unit, or (GUI export) a value with its own unit suffix. */
function timeCell(
  file: string,
  row: { fields: string[]; line: number },
  h: Header,
  col: { index: number; factor: number },
  what: string,
): number {
  const raw = row.fields[col.index] ?? '';
  let v: number;
  if (Number.isNaN(col.factor)) {
    const vu = parseValueWithUnit(raw.replace(/\u00a0/g, ' '), { file, line: row.line, column: h.name(col.index) });
    if (!vu) throw new FormatError(file, where(row.line, h.name(col.index)), `'${raw}' is not a time`);
    const info = lookupUnit(vu.unit || 'ns');
    if (!info || info.quantity !== 'time')
      throw new FormatError(file, where(row.line, h.name(col.index)), `unknown time unit '${vu.unit}'`);
    v = scaleValue(vu.value, info.factor);
  } else {
    v = scaleValue(numberCell(file, row, h, col.index, { required: true })!, col.factor);
  }
  if (!Number.isFinite(v))
    throw new FormatError(file, where(row.line, h.name(col.index)), `${what} '${raw}' is not a finite number`);
  if (v < 0)
    throw new FormatError(file, where(row.line, h.name(col.index)), `${what} must not be negative, got '${raw}'`);
  return v;
}

export async function readNsysGpuTrace(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  const { diagnostics, options } = ctx;
  let header: Header | null = null;
  let start = { index: -1, factor: 1 };
  let dur = { index: -1, factor: 1 };
  let iName = -1,
    iGrdX = -1,
    iDevice = -1,
    iStrm = -1,
    iCorr = -1;
  let preamble = 0;
  let nonKernel = 0;
  let device: string | null = null;
  const kernels: TraceKernel[] = [];
  for await (const row of readCsvRows(file, { headerMatch: isNsysHeader, onPreamble: (n) => (preamble = n) })) {
    if (!header) {
      header = new Header(file, row.fields, row.line);
      start = timeColumn(header, 'Start', true);
      dur = timeColumn(header, 'Duration', true);
      iName = header.require('Name');
      iGrdX = header.find('GrdX');
      iDevice = header.find('Device', 'GPU');
      iStrm = header.find('Strm', 'Context');
      iCorr = header.find('CorrId');
      continue;
    }
    if (isBlankRow(row)) continue;
    const name = row.fields[iName]?.trim() ?? '';
    const isKernel = iGrdX >= 0 ? (row.fields[iGrdX]?.trim() ?? '') !== '' : !/^\[CUDA (memcpy|memset)/.test(name);
    if (!isKernel) {
      nonKernel++;
      continue;
    }
    if (!name) throw new FormatError(file, where(row.line, 'Name'), 'missing kernel name');
    const startNs = timeCell(file, row, header, start, 'start');
    const durationNs = timeCell(file, row, header, dur, 'duration');
    if (durationNs === 0)
      diagnostics.add('zero-duration', { file, message: `${where(row.line, header.name(dur.index))}: 0` });
    if (!device && iDevice >= 0) device = row.fields[iDevice]?.trim() || null;
    const extra: Record<string, string | number> = { startNs };
    if (iStrm >= 0 && row.fields[iStrm]) extra.stream = row.fields[iStrm]!.trim();
    if (iCorr >= 0 && row.fields[iCorr]) extra.correlationId = Number(row.fields[iCorr]);
    kernels.push({
      startNs,
      sample: newSample(
        name,
        { file, row: row.line, format: NSYS_GPU_TRACE_FORMAT },
        {
          durationNs,
          extra,
        },
      ),
    });
  }
  if (!header) throw new FormatError(file, '', 'no Nsight Systems cuda_gpu_trace header found');
  const notes: string[] = [];
  if (preamble) notes.push(`${preamble} lines before the CSV header skipped`);
  if (nonKernel) notes.push(`${nonKernel} memcpy/memset rows are not kernels and were not kept`);
  const samples = kernels.map((k) => k.sample);
  numberInvocations(samples);
  if (device) device = device.replace(/\s*\(\d+\)\s*$/, '');
  if (device && /^GPU \d+$/.test(device)) device = null;
  if (!options.power) {
    notes.push('no power series given: powerW and energyJ are null (pass a power log to join)');
    return { format: NSYS_GPU_TRACE_FORMAT, device, samples, notes };
  }
  const series = await readPowerSeries(options.power, options, diagnostics);
  const joined = joinPower(file, kernels, series, ctx, notes, null);
  return { format: NSYS_GPU_TRACE_FORMAT, device: device ?? series.device, samples: joined, notes };
}

export async function readNsysKernSum(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  const { diagnostics, options } = ctx;
  if (options.power) {
    throw new InputError(
      `${file}: cuda_gpu_kern_sum has no kernel timestamps, so a power series cannot be joined; export ` +
        `cuda_gpu_trace instead`,
    );
  }
  let header: Header | null = null;
  let preamble = 0;
  let iName = -1,
    iInst = -1;
  let cols: Record<string, { index: number; factor: number }> = {};
  for await (const row of readCsvRows(file, { headerMatch: isNsysHeader, onPreamble: (n) => (preamble = n) })) {
    if (!header) {
      const h = new Header(file, row.fields, row.line);
      header = h;
      iName = h.require('Name');
      iInst = h.require('Instances');
      cols = Object.fromEntries(
        (['Total Time', 'Avg', 'Med', 'Min', 'Max', 'StdDev'] as const).map((b) => [
          b,
          timeColumn(h, b, b === 'Avg' || b === 'Total Time'),
        ]),
      );
      continue;
    }
    if (isBlankRow(row)) {
      diagnostics.add('blank-row', { file, message: `row ${row.line} is blank` });
      continue;
    }
    const name = row.fields[iName]?.trim() ?? '';
    if (!name) throw new FormatError(file, where(row.line, 'Name'), 'missing kernel name');
    const instances = numberCell(file, row, header, iInst, { required: true, nonNegative: true })!;
    const t = (b: string) => (cols[b]!.index >= 0 ? timeCell(file, row, header!, cols[b]!, b) : null);
    const extra: Record<string, number> = { instances, totalTimeNs: t('Total Time')! };
    for (const [b, key] of [
      ['Med', 'medianNs'],
      ['Min', 'minNs'],
      ['Max', 'maxNs'],
      ['StdDev', 'stdDevNs'],
    ] as const) {
      const v = t(b);
      if (v !== null) extra[key] = v;
    }
    ctx.sink.add(
      newSample(
        name,
        { file, row: row.line, format: NSYS_KERN_SUM_FORMAT },
        {
          durationNs: t('Avg'),
          extra,
        },
      ),
    );
  }
  if (!header) throw new FormatError(file, '', 'no Nsight Systems cuda_gpu_kern_sum header found');
  const notes = [
    'one sample per kernel name: durationNs is the mean over its instances (extra: instances, ' +
      'total/median/min/max/stddev)',
    'no power: powerW and energyJ are null',
  ];
  if (preamble) notes.unshift(`${preamble} lines before the CSV header skipped`);
  return { format: NSYS_KERN_SUM_FORMAT, device: null, samples: [], notes };
}

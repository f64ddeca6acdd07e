/**
 * Preset `nv-dvfs-benchmark`: the per-(kernel, clock) tables of blackjack2015/NV-DVFS-Benchmark
 * (data/*-dvfs-*-profile.csv). Header (real files):
 *   DRAMA,FP16A,FP32A,FP64A,SMACT,SMOCC,TENSO,argNo,average_power,benchmark,core_frequency,kernel,memory_frequency,time
 * - DCGM ratios (0–1) measured at each clock → utilization (see DCGM_FIELDS).
 * - core_frequency / memory_frequency → smClockMHz / memClockMHz as the collection script set them
 *   (RTX 8000 files say 6500 for memory: the GDDR6 setting, not a DRAM command clock).
 * - time: the application's average kernel time; the unit is undocumented, taken as milliseconds.
 * - average_power: W, mean of the 10 highest nvidia-smi samples (biased high).
 * One sample per row, kernelName `benchmark/kernel/argNo` (argNo selects the input size).
 */
import { newSample, type KernelSample, type ProfileTable } from '../../vocab/kernel-sample.js';
import { FormatError } from '../../errors.js';
import { type CsvRow, streamedTable, forEachCsvRecord, type Header, numberCell, where } from './csv.js';
import { DCGM_BY_SHORT_NAME } from './dcgm-fields.js';
import { checkUtilization, completePowerEnergy } from './sample.js';
import type { ReaderContext } from './types.js';

export const NV_DVFS_FORMAT = 'nv-dvfs-benchmark';
export const NV_DVFS_TIME_UNIT_NS = 1e6; // time column taken as ms
const REQUIRED = ['benchmark', 'kernel', 'core_frequency', 'time', 'average_power'] as const;
const UTIL_COLUMNS = ['SMACT', 'SMOCC', 'TENSO', 'DRAMA', 'FP64A', 'FP32A', 'FP16A', 'GRACT'] as const;

const DEVICES: [RegExp, string][] = [
  [/^v100/i, 'Tesla V100-PCIE'],
  [/^rtx8000/i, 'Quadro RTX 8000'],
];

/** True when a header row looks like an NV-DVFS-Benchmark table. */
export function looksLikeNvDvfs(fields: string[]): boolean {
  const s = new Set(fields.map((f) => f.trim()));
  return s.has('core_frequency') && s.has('average_power') && s.has('SMACT');
}

export async function readNvDvfs(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  const { diagnostics } = ctx;
  const columns = (header: Header, row: CsvRow) => {
    const idx: Record<string, number> = Object.fromEntries(REQUIRED.map((c) => [c, header.require(c)]));
    const utilIdx = UTIL_COLUMNS.map((c) => [c, header.find(c)] as [string, number]).filter(([, i]) => i >= 0);
    if (utilIdx.length === 0)
      throw new FormatError(file, `row ${row.line}`, `no DCGM utilization column (${UTIL_COLUMNS.join(', ')})`);
    return { idx, utilIdx, argIdx: header.find('argNo'), memIdx: header.find('memory_frequency') };
  };
  await forEachCsvRecord(file, diagnostics, columns, (row, h, { idx, utilIdx, argIdx, memIdx }) => {
    const bench = row.fields[idx.benchmark!]?.trim() ?? '';
    const kernel = row.fields[idx.kernel!]?.trim() ?? '';
    if (!bench || !kernel)
      throw new FormatError(file, where(row.line, bench ? 'kernel' : 'benchmark'), 'missing value');
    const arg = argIdx >= 0 ? (row.fields[argIdx]?.trim() ?? '') : '';
    const timeMs = numberCell(file, row, h, idx.time!, { required: true, nonNegative: true })!;
    const powerW = numberCell(file, row, h, idx.average_power!, { required: true, nonNegative: true })!;
    const smClockMHz = numberCell(file, row, h, idx.core_frequency!, { required: true, positive: true })!;
    const memClockMHz = memIdx >= 0 ? numberCell(file, row, h, memIdx, { positive: true }) : null;
    const utilization: KernelSample['utilization'] = {};
    const values = utilIdx.map(([, i]) => numberCell(file, row, h, i));
    const blank = values.every((v) => v === null);
    if (blank)
      diagnostics.add('blank-counters', {
        file,
        message: `row ${row.line}: every DCGM counter is blank (kept, with no utilization)`,
      });
    for (const [k, [col]] of utilIdx.entries()) {
      const v = values[k] ?? null;
      if (v === null) {
        if (!blank) diagnostics.add('missing-utilization', { file, message: `${where(row.line, col)}: no value` });
        continue;
      }
      utilization[DCGM_BY_SHORT_NAME.get(col)!.component!] = checkUtilization(file, row.line, col, v, diagnostics);
    }
    if (timeMs === 0) diagnostics.add('zero-duration', { file, message: `${where(row.line, 'time')}: 0` });
    const s: KernelSample = newSample(
      arg ? `${bench}/${kernel}/${arg}` : `${bench}/${kernel}`,
      { file, row: row.line, format: NV_DVFS_FORMAT },
      {
        smClockMHz,
        memClockMHz,
        durationNs: timeMs * NV_DVFS_TIME_UNIT_NS,
        utilization,
        powerW,
        extra: { benchmark: bench, kernel, ...(arg ? { argNo: arg } : {}) },
      },
    );
    completePowerEnergy(s);
    ctx.sink.add(s);
  });
  return streamedTable(NV_DVFS_FORMAT, file, DEVICES, [
    'time column taken as milliseconds (unit undocumented by NV-DVFS-Benchmark)',
    'average_power is the mean of the 10 highest nvidia-smi samples over a 12 s run (biased high); energyJ = ' +
      'average_power × time',
    'utilizations are DCGM ratios measured at each clock (SMACT→sm_active, SMOCC→sm_occupancy, ' +
      'TENSO→tensor_active, DRAMA→dram_active, FP64A/FP32A/FP16A→fp64/fp32/fp16_active)',
    'kernelName is benchmark/kernel/argNo; one sample per (kernel, clock), invocation unknown',
  ]);
}

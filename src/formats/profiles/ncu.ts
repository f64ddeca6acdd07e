/**
 * Nsight Compute CSV exports.
 * - `ncu-csv`: `ncu --csv` long format, one row per (kernel launch, metric). Header by name, never by
 *   position: `"ID","Process ID","Process Name","Host Name","Kernel Name",["Kernel Time",]"Context","Stream",
 *   ["Block Size","Grid Size","Device","CC",]"Section Name",["Body Item Label",]"Metric Name","Metric Unit",
 *   "Metric Value"[,"Rule Name",…]`. Old versions (CUDA 10.x) have "Kernel Time" and no Block/Grid/Device/CC.
 *   Application stdout and `==PROF==` lines before/inside the CSV are skipped; metric rows may be shorter
 *   than the header (rule columns missing); rule rows (empty Metric Name) are ignored and counted in notes.
 * - `ncu-raw`: `--page raw --csv`, one row per kernel launch, one column per metric, the second line
 *   holds the units (zipped with the header by position).
 * Values may be quoted and locale-formatted (`"1,275,068,416"`); `n/a` means not collected. Units are
 * auto-scaled per metric (ns/us/ms/nsecond…, byte/Kbyte/Mbyte…, %, hz/Mhz/Ghz, cycle/second…) and are
 * converted (see units.ts). NCU_METRIC_MAP says which metric fills which canonical field.
 */
import { newSample, type Component, type KernelSample, type ProfileTable } from '../../vocab/kernel-sample.js';
import type { Diagnostics } from '../../diagnostics.js';
import { FormatError } from '../../errors.js';
import { Header, isProfLine, parseNumberCell, readCsvRows, where, type CsvRow } from './csv.js';
import { isNcuHeader } from './detect.js';
import { checkUtilization, numberInvocations } from './sample.js';
import type { ReaderContext } from './types.js';
import { lookupUnit, scaleValue, type Quantity } from './units.js';

export const NCU_CSV_FORMAT = 'ncu-csv';
export const NCU_RAW_FORMAT = 'ncu-raw';

export type NcuTarget = 'durationNs' | 'smClockMHz' | 'memClockMHz' | Component;

export interface NcuMetricRule {
  target: NcuTarget;
  /** Metric names (raw `--metrics` names and section display names), first present wins. */
  metrics: readonly string[];
  /** Unit kind the metric must carry to be used (e.g. "Memory Throughput" in Gbyte/s is not a %). */
  quantity: Quantity;
  note?: string;
}

/**
 * Which ncu metric fills which canonical field. Percent metrics are divided by 100. Pipe utilizations
 * are "% of peak sustained active" (SM-active cycles basis) where DCGM's are over elapsed time; the
 * throughput components (sm_throughput, memory_throughput, l2/l1) are ncu's SOL percentages.
 */
export const NCU_METRIC_MAP: readonly NcuMetricRule[] = [
  { target: 'durationNs', quantity: 'time', metrics: ['gpu__time_duration.sum', 'gpu__time_duration.avg', 'Duration'] },
  {
    target: 'smClockMHz',
    quantity: 'frequency',
    metrics: ['gpc__cycles_elapsed.avg.per_second', 'sm__cycles_elapsed.avg.per_second', 'SM Frequency'],
  },
  {
    target: 'memClockMHz',
    quantity: 'frequency',
    metrics: ['dram__cycles_elapsed.avg.per_second', 'DRAM Frequency', 'Memory Frequency'],
  },
  {
    target: 'sm_active',
    quantity: 'percent',
    metrics: ['sm__cycles_active.avg.pct_of_peak_sustained_elapsed'],
    note: 'else derived as SM Active Cycles / Elapsed Cycles (sm__cycles_active.avg / sm__cycles_elapsed.avg)',
  },
  {
    target: 'sm_occupancy',
    quantity: 'percent',
    metrics: ['sm__warps_active.avg.pct_of_peak_sustained_active', 'Achieved Occupancy'],
  },
  {
    target: 'tensor_active',
    quantity: 'percent',
    metrics: [
      'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active',
      'sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active',
      'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed',
      'sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active',
    ],
  },
  {
    target: 'fp16_active',
    quantity: 'percent',
    metrics: [
      'sm__pipe_fp16_cycles_active.avg.pct_of_peak_sustained_active',
      'sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_active',
    ],
  },
  {
    target: 'fp32_active',
    quantity: 'percent',
    metrics: [
      'sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active',
      'sm__pipe_fp32_cycles_active.avg.pct_of_peak_sustained_active',
      'sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active',
    ],
  },
  {
    target: 'fp64_active',
    quantity: 'percent',
    metrics: [
      'sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active',
      'sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active',
    ],
  },
  {
    target: 'int_active',
    quantity: 'percent',
    metrics: [
      'sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active',
      'sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active',
    ],
  },
  {
    target: 'sfu_active',
    quantity: 'percent',
    metrics: [
      'sm__pipe_xu_cycles_active.avg.pct_of_peak_sustained_active',
      'sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active',
    ],
  },
  {
    target: 'ldst_active',
    quantity: 'percent',
    metrics: ['sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active'],
  },
  {
    target: 'dram_active',
    quantity: 'percent',
    metrics: [
      'dram__throughput.avg.pct_of_peak_sustained_elapsed',
      'gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed',
      'DRAM Throughput',
      'SOL FB',
    ],
  },
  {
    target: 'l2_active',
    quantity: 'percent',
    metrics: [
      'lts__t_sectors.avg.pct_of_peak_sustained_elapsed',
      'lts__throughput.avg.pct_of_peak_sustained_elapsed',
      'L2 Cache Throughput',
      'SOL L2',
    ],
  },
  {
    target: 'l1_active',
    quantity: 'percent',
    metrics: ['l1tex__throughput.avg.pct_of_peak_sustained_active', 'L1/TEX Cache Throughput', 'SOL TEX'],
  },
  { target: 'pcie_active', quantity: 'percent', metrics: ['pcie__throughput.avg.pct_of_peak_sustained_elapsed'] },
  {
    target: 'sm_throughput',
    quantity: 'percent',
    metrics: ['sm__throughput.avg.pct_of_peak_sustained_elapsed', 'Compute (SM) Throughput', 'SM [%]', 'SOL SM'],
  },
  {
    target: 'memory_throughput',
    quantity: 'percent',
    metrics: ['gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed', 'Memory Throughput', 'Memory [%]'],
  },
];

const RULE_BY_METRIC: ReadonlyMap<string, { rule: NcuMetricRule; rank: number }> = (() => {
  const m = new Map<string, { rule: NcuMetricRule; rank: number }>();
  for (const rule of NCU_METRIC_MAP) rule.metrics.forEach((name, rank) => m.set(name, { rule, rank }));
  return m;
})();

/** One metric value of one kernel launch, with where it came from (for error messages). */
interface NcuMetric {
  name: string;
  unit: string;
  raw: string;
  line: number;
  valueColumn: string;
  unitLine: number;
  unitColumn: string;
}

interface NcuLaunch {
  id: string;
  kernelName: string;
  line: number;
  device: string | null;
  extra: Record<string, string | number>;
  metrics: NcuMetric[];
}

const IDENTITY_COLUMNS = new Set([
  'ID',
  'Process ID',
  'Process Name',
  'Host Name',
  'Kernel Name',
  'Kernel Time',
  'Context',
  'Stream',
  'Block Size',
  'Grid Size',
  'Device',
  'CC',
]);

function extraKey(name: string, baseUnit: string): string {
  return baseUnit ? `${name} [${baseUnit}]` : name;
}

interface BuildStats {
  naValues: number;
}

function buildSample(
  file: string,
  format: string,
  launch: NcuLaunch,
  diagnostics: Diagnostics,
  stats: BuildStats,
): KernelSample {
  const s: KernelSample = newSample(
    launch.kernelName,
    { file, row: launch.line, format },
    {
      extra: { ...launch.extra },
    },
  );
  const best = new Map<NcuTarget, { rank: number; value: number; m: NcuMetric }>();
  const byName = new Map<string, number>();
  for (const m of launch.metrics) {
    const v = parseNumberCell(m.raw, { file, line: m.line, column: m.valueColumn });
    if (v === null) {
      stats.naValues++;
      continue;
    }
    const hit = RULE_BY_METRIC.get(m.name);
    const info = lookupUnit(m.unit);
    if (!info) {
      if (hit)
        throw new FormatError(file, where(m.unitLine, m.unitColumn), `unknown unit '${m.unit}' for metric '${m.name}'`);
      diagnostics.add('ncu-unknown-unit', {
        file,
        message:
          `${where(m.unitLine, m.unitColumn)}: unknown unit '${m.unit}' (metric '${m.name}'), value kept ` +
          `unconverted`,
      });
      if (Number.isFinite(v)) s.extra![`${m.name} [${m.unit}]`] ??= v;
      continue;
    }
    if (Number.isNaN(v)) {
      // A text metric (e.g. launch__execution_model = SIMT): keep it as text unless it is one we map.
      if (hit && hit.rule.quantity === info.quantity)
        throw new FormatError(file, where(m.line, m.valueColumn), `'${m.raw}' is not a number (metric '${m.name}')`);
      s.extra![m.name] ??= m.raw.trim();
      continue;
    }
    if (!Number.isFinite(v))
      throw new FormatError(
        file,
        where(m.line, m.valueColumn),
        `'${m.raw}' is not a finite number (metric '${m.name}')`,
      );
    const value = scaleValue(v, info.factor);
    const key = extraKey(m.name, info.baseUnit);
    if (!(key in s.extra!)) s.extra![key] = value;
    byName.set(key, value);
    if (hit && hit.rule.quantity === info.quantity) {
      const cur = best.get(hit.rule.target);
      if (!cur || hit.rank < cur.rank) best.set(hit.rule.target, { rank: hit.rank, value, m });
    }
  }
  for (const [target, { value, m }] of best) {
    if (target === 'durationNs') {
      if (value < 0)
        throw new FormatError(
          file,
          where(m.line, m.valueColumn),
          `duration must not be negative, got ${m.raw} ${m.unit}`,
        );
      s.durationNs = value;
    } else if (target === 'smClockMHz' || target === 'memClockMHz') {
      if (value <= 0)
        throw new FormatError(file, where(m.line, m.valueColumn), `clock must be positive, got ${m.raw} ${m.unit}`);
      s[target] = value;
    } else {
      s.utilization[target] = checkUtilization(file, m.line, m.valueColumn, value / 100, diagnostics);
    }
  }
  if (s.utilization.sm_active === undefined) {
    const active = byName.get('sm__cycles_active.avg [cycle]') ?? byName.get('SM Active Cycles [cycle]');
    const elapsed = byName.get('sm__cycles_elapsed.avg [cycle]') ?? byName.get('Elapsed Cycles [cycle]');
    if (active !== undefined && elapsed !== undefined && elapsed > 0) {
      s.utilization.sm_active = checkUtilization(
        file,
        launch.line,
        'SM Active Cycles / Elapsed Cycles',
        active / elapsed,
        diagnostics,
      );
      s.extra!.smActiveDerived = 'SM Active Cycles / Elapsed Cycles';
    }
  }
  const dram = byName.get('dram__bytes.sum [byte]');
  const rd = byName.get('dram__bytes_read.sum [byte]');
  const wr = byName.get('dram__bytes_write.sum [byte]');
  if (dram !== undefined) s.extra!.dramBytes = dram;
  else if (rd !== undefined || wr !== undefined) s.extra!.dramBytes = (rd ?? 0) + (wr ?? 0);
  return s;
}

function identityExtra(h: Header, fields: string[]): Record<string, string | number> {
  const extra: Record<string, string | number> = {};
  for (const [col, key] of [
    ['Process Name', 'processName'],
    ['Kernel Time', 'kernelTime'],
    ['Block Size', 'blockSize'],
    ['Grid Size', 'gridSize'],
    ['Device', 'deviceIndex'],
    ['CC', 'computeCapability'],
    ['Stream', 'stream'],
  ] as const) {
    const i = h.find(col);
    const v = i >= 0 ? fields[i]?.trim() : undefined;
    if (v) extra[key] = v;
  }
  return extra;
}

function finish(
  file: string,
  format: string,
  launches: NcuLaunch[],
  ctx: ReaderContext,
  notes: string[],
): ProfileTable {
  const stats: BuildStats = { naValues: 0 };
  const samples = launches.map((l) => buildSample(file, format, l, ctx.diagnostics, stats));
  numberInvocations(samples);
  const device = launches.find((l) => l.device)?.device ?? null;
  if (stats.naValues) notes.push(`${stats.naValues} metric values were n/a (not collected) and are absent`);
  const missingDur = samples.filter((s) => s.durationNs === null).length;
  if (missingDur) {
    ctx.diagnostics.add('ncu-no-duration', {
      file,
      message:
        `${missingDur} of ${samples.length} kernels have no duration metric (gpu__time_duration.sum or ` + `Duration)`,
    });
    notes.push(`${missingDur} kernels have no duration metric`);
  }
  notes.push(
    'metric → field mapping: NCU_METRIC_MAP; percentages divided by 100; every numeric metric also kept in ' +
      'extra as "name [base unit]"',
    'ncu serialises kernels and by default locks clocks to base (--clock-control base): smClockMHz is the ' +
      'measured SM frequency when the profile has it',
    'no power in ncu output: powerW and energyJ are null',
  );
  return { format, device, samples, notes };
}

/** An ncu CSV's header with the columns every ncu reader needs, and those the reader asked for. */
type NcuColumns<C> = C & { header: Header; iId: number; iName: number };

/**
 * Reads an ncu CSV: at its header, the ID and Kernel Name columns and those `columns` picks; then `onRow` for each
 * row after it (==PROF== lines dropped). Returns how many lines before the header (application output) were skipped;
 * a file without an ncu header is a FormatError.
 */
async function eachNcuRow<C>(
  file: string,
  columns: (header: Header) => C,
  onRow: (row: CsvRow, at: NcuColumns<C>) => void,
): Promise<{ preamble: number }> {
  let preamble = 0;
  let at: NcuColumns<C> | null = null;
  const rows = readCsvRows(file, { headerMatch: isNcuHeader, dropLine: isProfLine, onPreamble: (n) => (preamble = n) });
  for await (const row of rows) {
    if (at) {
      onRow(row, at);
      continue;
    }
    const header = new Header(file, row.fields, row.line);
    const iId = header.require('ID');
    const iName = header.require('Kernel Name');
    at = { ...columns(header), header, iId, iName };
  }
  if (!at) throw new FormatError(file, '', 'no Nsight Compute CSV header ("ID","Process ID",…) found');
  return { preamble };
}

export async function readNcuCsv(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  let ruleRows = 0;
  const launches = new Map<string, NcuLaunch>();
  const metricColumns = (header: Header) => ({
    iMetric: header.require('Metric Name'),
    iUnit: header.require('Metric Unit'),
    iValue: header.require('Metric Value'),
  });
  const { preamble } = await eachNcuRow(file, metricColumns, (row, { header, iId, iName, iMetric, iUnit, iValue }) => {
    // repeated header
    if (row.fields.length === header.names.length && row.fields.every((f, i) => f === header.names[i])) return;
    const metric = row.fields[iMetric]?.trim() ?? '';
    if (!metric) {
      ruleRows++;
      return;
    }
    if (row.fields.length <= iValue)
      throw new FormatError(
        file,
        `row ${row.line}`,
        `${row.fields.length} fields, 'Metric Value' is field ${iValue + 1}`,
      );
    const id = row.fields[iId]?.trim() ?? '';
    if (!id) throw new FormatError(file, where(row.line, 'ID'), 'missing value');
    let l = launches.get(id);
    if (!l) {
      const name = row.fields[iName]?.trim() ?? '';
      if (!name) throw new FormatError(file, where(row.line, 'Kernel Name'), 'missing value');
      l = {
        id,
        kernelName: name,
        line: row.line,
        device: null,
        extra: { ncuId: Number(id), ...identityExtra(header, row.fields) },
        metrics: [],
      };
      launches.set(id, l);
    }
    l.metrics.push({
      name: metric,
      unit: row.fields[iUnit]?.trim() ?? '',
      raw: row.fields[iValue] ?? '',
      line: row.line,
      valueColumn: 'Metric Value',
      unitLine: row.line,
      unitColumn: 'Metric Unit',
    });
  });
  const notes: string[] = [];
  if (preamble) notes.push(`${preamble} lines before the CSV header (application output, ==PROF==) skipped`);
  if (ruleRows) notes.push(`${ruleRows} rule rows (no metric name) ignored`);
  notes.push('long format has only a device index, not its name: device is null');
  return finish(file, NCU_CSV_FORMAT, [...launches.values()], ctx, notes);
}

export async function readNcuRaw(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  let units: string[] | null = null;
  let unitLine = 0;
  const launches: NcuLaunch[] = [];
  let skippedAttrs = 0;
  const deviceColumn = (header: Header) => ({ iDevName: header.find('device__attribute_display_name') });
  const { preamble } = await eachNcuRow(file, deviceColumn, (row, { header, iId, iName, iDevName }) => {
    if (!units) {
      // Units row: its ID cell is empty (ncu writes "" under the identity columns).
      if ((row.fields[iId]?.trim() ?? '') === '') {
        units = row.fields.map((f) => f.trim());
        unitLine = row.line;
        return;
      }
      units = header.names.map(() => '');
      ctx.diagnostics.add('ncu-raw-no-units-row', {
        file,
        message: `row ${row.line}: no units row after the header; values taken as printed`,
      });
    }
    const name = row.fields[iName]?.trim() ?? '';
    if (!name) throw new FormatError(file, where(row.line, 'Kernel Name'), 'missing value');
    const id = row.fields[iId]?.trim() ?? '';
    const metrics: NcuMetric[] = [];
    skippedAttrs = 0;
    header.names.forEach((col, i) => {
      if (IDENTITY_COLUMNS.has(col)) return;
      if (col.startsWith('device__attribute_')) {
        skippedAttrs++;
        return;
      }
      metrics.push({
        name: col,
        unit: units![i] ?? '',
        raw: row.fields[i] ?? '',
        line: row.line,
        valueColumn: col,
        unitLine,
        unitColumn: col,
      });
    });
    launches.push({
      id,
      kernelName: name,
      line: row.line,
      device: iDevName >= 0 ? row.fields[iDevName]?.trim() || null : null,
      extra: { ncuId: Number(id), ...identityExtra(header, row.fields) },
      metrics,
    });
  });
  const notes: string[] = [];
  if (preamble) notes.push(`${preamble} lines before the CSV header skipped`);
  if (skippedAttrs)
    notes.push(
      `${skippedAttrs} device__attribute_* columns per kernel not kept (device name taken from ` +
        `device__attribute_display_name)`,
    );
  return finish(file, NCU_RAW_FORMAT, launches, ctx, notes);
}

/**
 * The command line's text and CSV views of result records: one column list per record kind, used for both the
 * aligned table and `--csv` (which writes the same columns at full precision). Every figure is an estimate.
 */
import { ENERGY_PARTS, energyDefinitions, TIME_DEFINITIONS } from '../engines/replay/ledger.js';
import type { EnergyBandJ, ReplayResult } from '../engines/replay/types.js';
import type { GpuClockSweepRecord, NetworkSweepRecord } from '../engines/studies/types.js';
import { byNameText } from './by-name-text.js';
import {
  fixed,
  formatTable,
  recordTable,
  significant,
  wrapText,
  type Cell,
  type Column,
  type RecordColumn,
  type TableOptions,
} from './tables.js';

/** Rows and their columns, ready for formatTable or toCsv. */
export interface RowSet {
  columns: Column[];
  rows: Cell[][];
}

const PARTS = [...ENERGY_PARTS, 'total'] as const;
/** A column per energy part and the total (J), of a table whose records each have an energy breakdown. */
const energyColumns = <T>(energyOf: (record: T) => ReplayResult['energyJ']): RecordColumn<T>[] =>
  PARTS.map((k) => ({
    header: `${k} (J, est.)`,
    key: `${k}EnergyJ`,
    format: significant(5),
    value: (record: T) => energyOf(record)[k],
  }));
const percent = (v: Cell) => (typeof v === 'number' ? v.toFixed(1) : '');

/** A titled list of definitions, each wrapped to the table width with a hanging indent: printed under a table. */
export function definitionsText(title: string, lines: readonly string[], width?: number): string {
  return `${title}\n${lines.map((d) => wrapText(`  - ${d}`, width, '    ')).join('\n')}\n`;
}

/** The energy parts' definitions (with the powers a replay used, when given), under every energy table. */
export function energyDefinitionsText(ledger?: ReplayResult['settings']['ledger'], width?: number): string {
  return definitionsText(
    'Energy parts (estimated; every joule in exactly one part):',
    energyDefinitions(ledger),
    width,
  );
}

/** Where each GPU compute node's duration came from, in one line. */
export function durationSourcesLine(res: Pick<ReplayResult, 'durationSources'>): string {
  const d = res.durationSources;
  if (d.annotated + d.measured + d.roofline + d.zero === 0) return 'GPU compute node durations: no GPU compute nodes';
  return (
    `GPU compute node durations: ${d.annotated} annotated, ${d.measured} measured (trace duration), ${d.roofline}` +
    ` roofline, ${d.zero} zero`
  );
}

/** Ranks listed in a replay's text table before it shows only the first and last 8. */
export const MAX_RANK_ROWS = 16;

/** One row per rank of a replay (or the given subset) and a total row. */
export function replayRanks(res: ReplayResult, ranks: readonly ReplayResult['ranks'][number][] = res.ranks): RowSet {
  type Row = Partial<ReplayResult['ranks'][number]> &
    Pick<ReplayResult['ranks'][number], 'finishNs' | 'bytesSentPerDim' | 'energyJ'> & { label: Cell };
  // The total row: the makespan, the bytes and the energy of the run; no time split.
  const total: Row = {
    label: 'total',
    finishNs: res.makespanNs,
    bytesSentPerDim: res.bytesSentPerDim,
    energyJ: res.energyJ,
  };
  return recordTable<Row>(
    [...ranks.map((r) => ({ ...r, label: r.rank })), total],
    [
      { header: 'rank', align: 'left', value: (r) => r.label },
      { header: 'finish (ns)', value: (r) => r.finishNs },
      { header: 'GPU compute (ns)', value: (r) => r.gpuComputeNs },
      { header: 'exposed comm (ns)', value: (r) => r.exposedCommNs },
      { header: 'host exposed (ns)', value: (r) => r.hostExposedNs },
      { header: 'remote memory exposed (ns)', key: 'remoteMemExposedNs' },
      { header: 'wait (ns)', value: (r) => r.waitNs },
      { header: 'comm (ns)', value: (r) => r.commNs },
      { header: 'overlap (ns)', value: (r) => r.overlapNs },
      { header: 'ASTRA-sim exposed (ns)', key: 'astraExposedNs' },
      ...res.bytesSentPerDim.map((_, i) => ({
        header: `sent dim ${i} (bytes)`,
        value: (r: Row) => r.bytesSentPerDim[i],
      })),
      ...energyColumns<Row>((r) => r.energyJ),
    ],
  );
}

/** A replay as text: a headline, the energy breakdown and the per-rank table (first and last 8 of many ranks). */
export function replayText(res: ReplayResult, options: TableOptions = {}): string {
  const e = res.energyJ;
  const b = res.energyBandJ;
  const bandOf = (k: (typeof PARTS)[number]): Cell[] =>
    !b ? [] : k === 'compute' ? [b.computeP10, b.computeP90] : k === 'total' ? [b.totalP10, b.totalP90] : [null, null];
  const energy =
    formatTable(
      [
        { header: 'part' },
        { header: 'energy (J, est.)', format: significant(5) },
        { header: 'share (%)', format: percent },
        ...(b
          ? [
              { header: 'p10 (J, est.)', format: significant(5) },
              { header: 'p90 (J, est.)', format: significant(5) },
            ]
          : []),
      ],
      PARTS.map((k) => [k, e[k], k === 'total' || e.total <= 0 ? null : (100 * e[k]) / e.total, ...bandOf(k)]),
      options,
    ) +
    (b ? energyBandNote(b) : '') +
    energyDefinitionsText(res.settings.ledger, options.width);
  const many = res.ranks.length > MAX_RANK_ROWS;
  const half = MAX_RANK_ROWS / 2;
  const t = replayRanks(res, many ? [...res.ranks.slice(0, half), ...res.ranks.slice(-half)] : res.ranks);
  return [
    wrapText(
      `${res.label}: makespan ${res.makespanNs} ns (${(res.makespanNs / 1e6).toFixed(3)} ms), ` +
        `${res.ranks.length} ranks, ${res.nodes} nodes, ` +
        `power preset ${res.settings.powerPreset}; ${(100 * res.overlapShare).toFixed(1)}% of communication ` +
        `time hidden behind compute`,
      options.width,
    ),
    wrapText(durationSourcesLine(res), options.width),
    '',
    energy,
    ...(res.byName ? [byNameText(res.byName, res.energyJ, options)] : []),
    formatTable(t.columns, t.rows, options) +
      (many ? `(ranks ${half}…${res.ranks.length - half - 1} not shown: use --csv or --json)\n` : '') +
      definitionsText('Time per rank (ns, estimated):', TIME_DEFINITIONS, options.width),
  ].join('\n');
}

/** What a replay's energy band rests on, in lines under 100 columns. */
export function energyBandNote(b: EnergyBandJ): string {
  const n = (x: number) => Number(x.toPrecision(4));
  return (
    "10–90 % band of compute energy, from the nodes' energy_j_p10 / energy_j_p90:\n" +
    `  ${b.bandedNodes} of ${b.gpuNodes} GPU nodes carry one (${(100 * b.bandedShare).toFixed(1)}% of compute ` +
    `J); the other parts and times have none;\n` +
    `  nodes of one name err together, the ${b.kernels} names independently;\n` +
    `  if every node erred the same way at once: compute ${n(b.correlatedComputeP10)}–${n(b.correlatedComputeP90)} J.\n`
  );
}

/** A network sweep point's marginal figures against the next scale: header, key, format. */
const MARGINAL_COLUMNS = [
  ['ΔE vs next scale (J, est.)', 'deltaEnergyJ', significant(5)],
  ['ΔT vs next scale (s, est.)', 'deltaTimeS', significant(5)],
  ['ΔE/ΔT (W, est.)', 'energyPerTimeW', significant(5)],
  ['energy saved per slowdown (%/%)', 'energySavedPctPerSlowdownPct', fixed(3)],
] as const;

/** One row per frequency scale of a network DVFS sweep. */
export function networkSweepRows(r: NetworkSweepRecord): RowSet {
  const dims = r.points[0]?.networkByDimensionJ.length ?? 0;
  return recordTable(r.points, [
    { header: 'scale', value: (p) => p.scale },
    { header: 'bandwidth (GB/s)', format: fixed(1), value: (p) => p.bandwidthGBps },
    { header: 'energy per bit (pJ/bit)', key: 'energyPerBitPJ', format: fixed(2) },
    { header: 'V/V1', key: 'voltageRatio', format: fixed(3) },
    { header: 'makespan (ms)', format: significant(5), value: (p) => p.makespanNs / 1e6 },
    ...energyColumns<NetworkSweepRecord['points'][number]>((p) => p.energyJ),
    ...Array.from({ length: dims }, (_, i) => ({
      header: `network dim ${i} (J, est.)`,
      key: `networkDim${i}EnergyJ`,
      format: significant(5),
      value: (p: NetworkSweepRecord['points'][number]) => p.networkByDimensionJ[i],
    })),
    ...MARGINAL_COLUMNS.map(([header, key, format]) => ({
      header,
      key,
      format,
      value: (p: NetworkSweepRecord['points'][number]) => p.marginal?.[key] ?? null,
    })),
    { header: 'dominated', value: (p) => p.dominated },
  ]);
}

export function networkSweepText(r: NetworkSweepRecord, options: TableOptions = {}): string {
  const t = networkSweepRows(r);
  return (
    `${wrapText(`${r.label} (estimated; ${r.vfCurve})`, options.width)}\n` +
    `${formatTable(t.columns, t.rows, options)}${energyDefinitionsText(undefined, options.width)}`
  );
}

/** One row per SM clock of a GPU clock sweep. */
export function gpuSweepRows(r: GpuClockSweepRecord, withBand = true): RowSet {
  const band = withBand ? gpuSweepBandRows(r) : null;
  const t = recordTable(r.points, [
    { header: 'SM clock (MHz)', value: (p) => p.clockMHz },
    { header: 'time (s, est.)', format: significant(5), value: (p) => p.timeS },
    ...energyColumns<GpuClockSweepRecord['points'][number]>((p) => p.energyJ),
    { header: 'Pareto', value: (p) => p.pareto },
  ]);
  if (!band) return t;
  // The band's columns past its clock and total (which this table has already).
  return {
    columns: [...t.columns, ...band.columns.slice(2)],
    rows: t.rows.map((row, i) => [...row, ...band.rows[i]!.slice(2)]),
  };
}

/** Per SM clock, the 10–90 % band of the total energy; null when no point has one. */
export function gpuSweepBandRows(r: GpuClockSweepRecord): RowSet | null {
  if (!r.points.some((p) => p.energyBandJ)) return null;
  const sig = significant(5);
  return {
    columns: [
      { header: 'SM clock (MHz)' },
      { header: 'total (J, est.)', key: 'totalEnergyJ', format: sig },
      { header: 'total p10 (J, est.)', key: 'totalEnergyJP10', format: sig },
      { header: 'total p90 (J, est.)', key: 'totalEnergyJP90', format: sig },
      { header: 'banded (% of compute)', key: 'bandedComputePct', format: percent },
    ],
    rows: r.points.map((p) => {
      const b = p.energyBandJ;
      return [p.clockMHz, p.energyJ.total, b?.totalP10 ?? null, b?.totalP90 ?? null, b ? 100 * b.bandedShare : null];
    }),
  };
}

export function gpuSweepText(r: GpuClockSweepRecord, options: TableOptions = {}): string {
  const t = gpuSweepRows(r, false);
  const band = gpuSweepBandRows(r);
  let out =
    `${r.label} (estimated)\n${formatTable(t.columns, t.rows, options)}` +
    energyDefinitionsText(undefined, options.width);
  if (band) {
    out +=
      "\n10–90 % band of the energy, from the annotated kernels' bands (nodes of one name err together,\n" +
      'names independently; the other parts and times have none):\n' +
      formatTable(band.columns, band.rows, options) +
      '\n';
  }
  out += `energy-optimal clock ${r.energyOptimalMHz} MHz, time-optimal clock ${r.timeOptimalMHz} MHz\n`;
  for (const s of r.selections) out += `selector ${s.selector}: ${s.clockMHz} MHz\n`;
  out += `\nenergy saved vs runtime penalty (Pareto points, against the fastest):\n${formatTable(
    [
      { header: 'SM clock (MHz)' },
      { header: 'time (s, est.)', format: significant(5) },
      { header: 'energy (J, est.)', format: significant(5) },
      { header: 'energy saved (%)', format: fixed(2) },
      { header: 'runtime penalty (%)', format: fixed(2) },
    ],
    r.tradeoff.map((t) => [t.clockMHz, t.timeS, t.energyJ, t.energySavedPct, t.runtimePenaltyPct]),
    options,
  )}`;
  return out;
}

/**
 * The command line's text and CSV views of result records: one column list per record kind, used for both the
 * aligned table and `--csv` (which writes the same columns at full precision). Every figure is an estimate.
 */
import { ENERGY_PARTS, energyDefinitions, TIME_DEFINITIONS } from '../engines/replay/ledger.js';
import type { EnergyBandJ, ReplayResult } from '../engines/replay/types.js';
import type { GpuClockSweepRecord, NetworkSweepRecord } from '../engines/studies/types.js';
import { byNameText } from './by-name-text.js';
import { fixed, formatTable, significant, wrapText, type Cell, type Column, type TableOptions } from './tables.js';

/** Rows and their columns, ready for formatTable or toCsv. */
export interface RowSet {
  columns: Column[];
  rows: Cell[][];
}

const PARTS = [...ENERGY_PARTS, 'total'] as const;
const energyColumns = (): Column[] =>
  PARTS.map((k) => ({ header: `${k} (J, est.)`, key: `${k}EnergyJ`, format: significant(5) }));
const energyCells = (e: ReplayResult['energyJ']): Cell[] => PARTS.map((k) => e[k]);
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
  const columns: Column[] = [
    { header: 'rank', align: 'left' },
    { header: 'finish (ns)' },
    { header: 'GPU compute (ns)' },
    { header: 'exposed comm (ns)' },
    { header: 'host exposed (ns)' },
    { header: 'remote memory exposed (ns)', key: 'remoteMemExposedNs' },
    { header: 'wait (ns)' },
    { header: 'comm (ns)' },
    { header: 'overlap (ns)' },
    { header: 'ASTRA-sim exposed (ns)', key: 'astraExposedNs' },
    ...res.bytesSentPerDim.map((_, i) => ({ header: `sent dim ${i} (bytes)` })),
    ...energyColumns(),
  ];
  const rows: Cell[][] = ranks.map((r) => [
    r.rank,
    r.finishNs,
    r.gpuComputeNs,
    r.exposedCommNs,
    r.hostExposedNs,
    r.remoteMemExposedNs,
    r.waitNs,
    r.commNs,
    r.overlapNs,
    r.astraExposedNs,
    ...r.bytesSentPerDim,
    ...energyCells(r.energyJ),
  ]);
  rows.push([
    'total',
    res.makespanNs,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    ...res.bytesSentPerDim,
    ...energyCells(res.energyJ),
  ]);
  return { columns, rows };
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

/** One row per frequency scale of a network DVFS sweep. */
export function networkSweepRows(r: NetworkSweepRecord): RowSet {
  const dims = r.points[0]?.networkByDimensionJ.length ?? 0;
  const columns: Column[] = [
    { header: 'scale' },
    { header: 'bandwidth (GB/s)', format: fixed(1) },
    { header: 'energy per bit (pJ/bit)', key: 'energyPerBitPJ', format: fixed(2) },
    { header: 'V/V1', key: 'voltageRatio', format: fixed(3) },
    { header: 'makespan (ms)', format: significant(5) },
    ...energyColumns(),
    ...Array.from({ length: dims }, (_, i) => ({
      header: `network dim ${i} (J, est.)`,
      key: `networkDim${i}EnergyJ`,
      format: significant(5),
    })),
    { header: 'ΔE vs next scale (J, est.)', key: 'deltaEnergyJ', format: significant(5) },
    { header: 'ΔT vs next scale (s, est.)', key: 'deltaTimeS', format: significant(5) },
    { header: 'ΔE/ΔT (W, est.)', key: 'energyPerTimeW', format: significant(5) },
    { header: 'energy saved per slowdown (%/%)', key: 'energySavedPctPerSlowdownPct', format: fixed(3) },
    { header: 'dominated' },
  ];
  const rows: Cell[][] = r.points.map((p) => [
    p.scale,
    p.bandwidthGBps,
    p.energyPerBitPJ,
    p.voltageRatio,
    p.makespanNs / 1e6,
    ...energyCells(p.energyJ),
    ...p.networkByDimensionJ,
    p.marginal?.deltaEnergyJ ?? null,
    p.marginal?.deltaTimeS ?? null,
    p.marginal?.energyPerTimeW ?? null,
    p.marginal?.energySavedPctPerSlowdownPct ?? null,
    p.dominated,
  ]);
  return { columns, rows };
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
  return {
    columns: [
      { header: 'SM clock (MHz)' },
      { header: 'time (s, est.)', format: significant(5) },
      ...energyColumns(),
      { header: 'Pareto' },
      ...(band?.columns.slice(2) ?? []),
    ],
    rows: r.points.map((p, i) => [
      p.clockMHz,
      p.timeS,
      ...energyCells(p.energyJ),
      p.pareto,
      ...(band ? band.rows[i]!.slice(2) : []),
    ]),
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

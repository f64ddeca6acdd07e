/**
 * Text and CSV views of a replay set beside the measurement: `replay --as-measured` (the replayed iteration per rank
 * beside the measured one, the time split and the energy ledger on that timeline, a power log's energy), and the
 * measured iteration beside a modelled replay's finish.
 */
import type { AsMeasuredResult } from '../engines/replay/as-measured.js';
import { ENERGY_PARTS } from '../engines/replay/ledger.js';
import type { ReplayResult } from '../engines/replay/types.js';
import { fixed, formatTable, significant, wrapText, type Cell, type Column, type TableOptions } from './tables.js';
import type { RowSet } from './text.js';

/** Every part of the ledger (ledger.ts ENERGY_PARTS) and the total, so that the printed parts add up to it. */
const PARTS = [...ENERGY_PARTS, 'total'] as const;

/** One row per rank: measured, replayed, error, the time split, energy. */
export function asMeasuredRows(res: AsMeasuredResult): RowSet {
  const log = new Map((res.powerLog?.ranks ?? []).map((r) => [r.rank, r]));
  const columns: Column[] = [
    { header: 'rank', align: 'left' },
    { header: 'measured iteration (ns)' },
    { header: 'replayed (ns)', key: 'finishNs' },
    { header: 'error (%)', format: fixed(3) },
    { header: 'GPU compute (ns)' },
    { header: 'comm (ns)' },
    { header: 'comm only (ns)' },
    { header: 'host only (ns)' },
    { header: 'wait (ns)' },
    { header: 'energy (J, est.)', key: 'energyJ', format: significant(5) },
    ...(res.powerLog ? [{ header: 'logged energy (J)', key: 'loggedEnergyJ', format: significant(5) }] : []),
  ];
  const rows: Cell[][] = res.ranks.map((r) => [
    r.rank,
    r.measuredIterationNs,
    r.finishNs,
    r.errorPct,
    r.gpuComputeNs,
    r.commNs,
    r.commOnlyNs,
    r.hostOnlyNs,
    r.waitNs,
    r.energyJ.total,
    ...(res.powerLog ? [log.get(r.rank)?.energyJ ?? null] : []),
  ]);
  return { columns, rows };
}

export function asMeasuredText(res: AsMeasuredResult, options: TableOptions = {}): string {
  const t = asMeasuredRows(res);
  const slowest = res.ranks.reduce((a, r) => (r.finishNs > a.finishNs ? r : a), res.ranks[0]!);
  const step = [...new Set(res.ranks.map((r) => r.measuredStep))].join(', ');
  const head =
    `${res.label}: ${res.ranks.length} rank${res.ranks.length === 1 ? '' : 's'} replayed as measured (${step}` +
    `); slowest rank ${slowest.rank} ` +
    `${(slowest.finishNs / 1e6).toFixed(3)} ms; error against the measured iteration: worst ` +
    `${res.worstErrorPct?.toFixed(3)} %, mean ${res.meanErrorPct?.toFixed(3)} %`;
  const e = res.energyJ;
  const energy = formatTable(
    [
      { header: 'part' },
      { header: 'energy (J, est.)', format: significant(5) },
      { header: 'share (%)', format: fixed(1) },
    ],
    PARTS.map((k) => [k, e[k], k === 'total' || e.total <= 0 ? null : (100 * e[k]) / e.total]),
    options,
  );
  const lines = [wrapText(head, options.width), '', formatTable(t.columns, t.rows, options)];
  lines.push(
    wrapText(
      'measured iteration: the ProfilerStep (or window) from its start to the later of its end and the end of ' +
        'the last GPU op starting in it; ' +
        "replayed: the last node's finish when every node takes its measured duration and delay after its " +
        'dependencies; error: replayed − measured; ' +
        'comm only: communication with no GPU compute; host only: host ops with neither; wait: nothing running',
      options.width,
    ),
    '',
  );
  lines.push('energy on the replayed timeline (all ranks):', energy);
  for (const n of res.energyNotes) lines.push(wrapText(`note: ${n}`, options.width));
  if (res.powerLog) {
    const logged = res.powerLog.ranks.reduce((a, r) => a + r.energyJ, 0);
    lines.push(
      wrapText(
        `logged energy: ${res.powerLog.file}` +
          (res.powerLog.gpu
            ? ` (${/^\d+$/.test(res.powerLog.gpu) ? `GPU ${res.powerLog.gpu}` : res.powerLog.gpu})`
            : '') +
          `, ${significant(5)(logged)} J over the measured iteration${res.powerLog.ranks.length > 1 ? 's' : ''}, ` +
          `beside ${significant(5)(e.total)} J estimated`,
        options.width,
      ),
    );
    for (const n of res.powerLog.notes) lines.push(wrapText(`note: ${n}`, options.width));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A modelled replay's finish per rank beside the measured iteration its trace records (ranks without one: blank); with
 * each rank's start offset where the replay started the ranks as they ran (RankActivity.startOffsetNs).
 */
export function measuredBesideRows(
  res: ReplayResult,
  measured: { rank: number; measuredIterationNs: number | null }[],
): RowSet | null {
  const byRank = new Map(measured.map((m) => [m.rank, m.measuredIterationNs]));
  if (![...byRank.values()].some((v) => v !== null)) return null;
  const offsets = res.ranks.some((r) => r.startOffsetNs !== undefined);
  return {
    columns: [
      { header: 'rank', align: 'left' },
      ...(offsets ? [{ header: 'start offset (ns)' }] : []),
      { header: 'measured iteration (ns)' },
      { header: offsets ? 'modelled iteration (ns)' : 'modelled finish (ns)' },
      { header: 'modelled − measured (%)', format: fixed(2) },
    ],
    rows: res.ranks.map((r) => {
      const m = byRank.get(r.rank) ?? null;
      return [
        r.rank,
        ...(offsets ? [r.startOffsetNs ?? null] : []),
        m,
        r.finishNs,
        m ? ((r.finishNs - m) / m) * 100 : null,
      ];
    }),
  };
}

/** What the measured-beside table's columns mean, when the replay started the ranks at their measured offsets. */
export const START_OFFSET_NOTE =
  'start offset: when the rank began its measured iteration, after the earliest rank (measured_start_unix_ns); ' +
  'the modelled replay starts each rank then, as it ran, and its modelled iteration is its finish less that offset';

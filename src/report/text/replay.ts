/**
 * A replay result with the measured iterations of an imported trace set beside its modelled finish: as JSON
 * (ranks[].measuredIterationNs) and as text (replay's tables, then the measured-beside-modelled table).
 */
import type { ReplayResult } from '../../engines/replay/index.js';
import { measuredBesideRows, START_OFFSET_NOTE } from '../measured-text.js';
import { formatTable, wrapText, type TableOptions } from '../tables.js';
import { replayText } from '../text.js';

/** The measured iteration of each rank (import pytorch / kineto record it), null where none was measured. */
export type MeasuredIterations = { rank: number; measuredIterationNs: number | null }[];

/** The result as JSON holds it: with each rank's measured iteration when the trace records one. */
export function replayRecord(res: ReplayResult, measured: MeasuredIterations = []): unknown {
  if (!measuredBesideRows(res, measured)) return res;
  const byRank = new Map(measured.map((m) => [m.rank, m.measuredIterationNs]));
  return { ...res, ranks: res.ranks.map((r) => ({ ...r, measuredIterationNs: byRank.get(r.rank) ?? null })) };
}

/** replay's text, then the measured iterations beside the modelled finish when the trace records them. */
export function replayMeasuredText(res: ReplayResult, measured: MeasuredIterations, layout: TableOptions): string {
  let out = replayText(res, layout);
  const beside = measuredBesideRows(res, measured);
  if (beside) {
    out +=
      `\nmeasured beside modelled (the trace records its measured iteration; replay --as-measured replays it as ` +
      `it ran):\n${formatTable(beside.columns, beside.rows, layout)}`;
    if (res.ranks.some((r) => r.startOffsetNs !== undefined)) out += `${wrapText(START_OFFSET_NOTE, layout.width)}\n`;
  }
  return out;
}

/** The text view of a replay's energy by name (by-name.ts): the top rows, a "rest" row and a total row. */
import { topByName, type ByNameRow } from '../engines/replay/by-name.js';
import type { EnergyBreakdownJ } from '../engines/replay/ledger.js';
import {
  formatTable,
  shortName as cutName,
  significant,
  wrapText,
  type Cell,
  type Column,
  type TableOptions,
} from './tables.js';

/** Rows the text shows before the rest is summed. */
export const TOP_BY_NAME_TEXT = 10;
/** Names longer than this are cut in the middle (kernel names run to thousands of characters). */
export const NAME_WIDTH = 48;

/** A name cut to `width` characters (default {@link NAME_WIDTH}), its start and end kept around "…" (tables.ts). */
export const shortName = (name: string, width = NAME_WIDTH): string => cutName(name, width);

const J = significant(4);

/** The top rows by energy, a rest row and a total row (= the ledger's total), as a table. */
export function byNameText(
  rows: readonly ByNameRow[],
  total: EnergyBreakdownJ,
  options: TableOptions = {},
  top = TOP_BY_NAME_TEXT,
): string {
  const { top: first, rest } = topByName(rows, top);
  const columns: Column[] = [
    { header: 'name', align: 'left' },
    { header: 'kind', align: 'left' },
    { header: 'count' },
    { header: 'time (s)', format: J },
    { header: 'energy (J)', format: J },
    { header: 'share (%)', format: (v) => (typeof v === 'number' ? v.toFixed(1) : '') },
    { header: 'compute (J)', format: J },
    { header: 'memory (J)', format: J },
    { header: 'comm (J)', format: J },
    { header: 'network (J)', format: J },
  ];
  const line = (r: ByNameRow): Cell[] => [
    shortName(r.name),
    r.kind,
    r.count || null,
    r.timeNs * 1e-9,
    r.energyJ.total,
    total.total > 0 ? (100 * r.energyJ.total) / total.total : null,
    r.energyJ.compute,
    r.energyJ.memory,
    r.energyJ.communication,
    r.energyJ.network,
  ];
  const out = [...first, ...(rest ? [rest] : [])].map(line);
  out.push([
    'total',
    '',
    null,
    null,
    total.total,
    total.total > 0 ? 100 : null,
    total.compute,
    total.memory,
    total.communication,
    total.network,
  ]);
  return (
    `Energy by kernel / op / collective, estimated (top ${Math.min(top, rows.length)} of ${rows.length} names):\n` +
    formatTable(columns, out, options) +
    wrapText(
      '  time: Σ node durations over ranks (rank-seconds); collectives by type, size and process group; comm: ' +
        'the communication part ' +
        '(their share of communication-only time); idle and host energy in their own columns of --json, in ' +
        "energy and the total; total = the ledger's total",
      options.width,
      '    ',
    ) +
    '\n'
  );
}

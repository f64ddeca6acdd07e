/** The replay's energy by kernel / op / collective name (by-name.ts): the top rows as bars stacked by ledger part. */
import type { TopLevelSpec } from 'vega-lite';
import type { ByNameRow } from '../../engines/replay/by-name.js';
import { ENERGY_PARTS } from '../../engines/replay/ledger.js';
import { shortName } from '../by-name-text.js';
import { baseSpec, colourBy, COMPONENT_COLOURS } from './render.js';

/** Rows the report draws. */
export const TOP_BY_NAME_PLOT = 15;

export function byNameSpec(rows: readonly ByNameRow[], top = TOP_BY_NAME_PLOT): TopLevelSpec {
  const shown = rows.slice(0, top);
  // Names are cut in the middle (kernel names run long) and made unique with their rank in the list where two cut
  // names coincide; no labelLimit, so vega does not cut them a second time at the end.
  const labels = shown.map((r, i) => `${i + 1}. ${shortName(r.name, 40)}`);
  const values = shown
    .flatMap((r, i) =>
      ENERGY_PARTS.map((part, order) => ({
        name: labels[i],
        full: r.name,
        kind: r.kind,
        part,
        order,
        energyJ: r.energyJ[part],
        count: r.count,
        timeS: r.timeNs * 1e-9,
      })),
    )
    .filter((v) => v.energyJ > 0);
  const max = Math.max(0, ...shown.map((r) => r.energyJ.total));
  return {
    ...baseSpec(
      `Energy by kernel / op / collective` +
        `${shown.length < rows.length ? `: the ${shown.length} largest of ${rows.length}` : ''} (estimated)`,
      420,
      18 * Math.max(3, shown.length),
    ),
    data: { values },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'name', type: 'nominal', title: null, sort: labels, axis: { labelLimit: 0 } },
      // 8 % headroom beyond the longest bar.
      x: {
        field: 'energyJ',
        type: 'quantitative',
        stack: 'zero',
        title: 'energy (J, estimated)',
        scale: { domain: [0, max * 1.08 || 1], nice: false },
      },
      color: colourBy(
        'part',
        'part',
        [...ENERGY_PARTS],
        ENERGY_PARTS.map((p) => COMPONENT_COLOURS[p]!),
      ),
      order: { field: 'order', type: 'quantitative' },
      tooltip: [
        { field: 'full', type: 'nominal', title: 'name' },
        { field: 'kind', type: 'nominal' },
        { field: 'part', type: 'nominal' },
        { field: 'energyJ', type: 'quantitative', title: 'J', format: '.4~g' },
        { field: 'count', type: 'quantitative' },
        { field: 'timeS', type: 'quantitative', title: 'time (rank-s)', format: '.4~g' },
      ],
    },
  } as TopLevelSpec;
}

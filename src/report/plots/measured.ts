/**
 * Measured beside modelled for an imported run: per rank, the measured iteration beside the as-measured replay and
 * each modelled replay (ms), and, where a power log was joined, the log's energy over the iteration beside the
 * estimates (J). Two panels side by side, one bar per series within each rank; the numbers are in the table below
 * the figure (measured-html.ts), so the bars carry no value labels that could collide.
 */
import type { TopLevelSpec } from 'vega-lite';
import { PLOT_CONFIG, quantitative } from './render.js';

/** One bar: a rank, the series it belongs to (measured, as measured, a modelled replay), its value. */
export interface MeasuredBar {
  rank: number;
  series: string;
  value: number;
}

export interface MeasuredPlotInput {
  /** Series names in legend order: the measured one first. */
  series: readonly string[];
  timeMs: readonly MeasuredBar[];
  /** Empty when no power log was joined and no estimate is to be drawn. */
  energyJ: readonly MeasuredBar[];
}

/** Measured in black, the as-measured replay in blue-grey, modelled replays in orange shades. */
const SERIES_COLOURS = ['#333333', '#4c78a8', '#f58518', '#e45756', '#b279a2', '#72b7b2'];

function panel(
  title: string,
  axisTitle: string,
  bars: readonly MeasuredBar[],
  series: readonly string[],
  ranks: number,
): Record<string, unknown> {
  const max = Math.max(0, ...bars.map((b) => b.value));
  return {
    title: { text: title, fontSize: 13 },
    width: 300,
    // One bar per series in each rank, 13 px a bar.
    height: Math.max(60, ranks * (series.length * 13 + 8)),
    data: { values: bars.map((b) => ({ ...b, rankLabel: `rank ${b.rank}` })) },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'rankLabel', type: 'nominal', title: null, sort: { field: 'rank' } },
      yOffset: { field: 'series', type: 'nominal', sort: [...series] },
      // 8 % headroom beyond the longest bar.
      x: quantitative('value', axisTitle, { domain: [0, max * 1.08 || 1], nice: false }),
      color: {
        field: 'series',
        type: 'nominal',
        title: null,
        sort: [...series],
        scale: { domain: [...series], range: SERIES_COLOURS.slice(0, series.length) },
      },
      tooltip: [
        { field: 'rankLabel', title: 'rank' },
        { field: 'series' },
        { field: 'value', type: 'quantitative', title: axisTitle, format: '.4~g' },
      ],
    },
  };
}

export function measuredBesideSpec(input: MeasuredPlotInput): TopLevelSpec {
  const ranks = new Set(input.timeMs.map((b) => b.rank)).size;
  const panels = [panel('Iteration time per rank', 'iteration (ms)', input.timeMs, input.series, ranks)];
  if (input.energyJ.length > 0)
    panels.push(panel('Energy of the iteration per rank', 'energy (J)', input.energyJ, input.series, ranks));
  return {
    config: {
      ...PLOT_CONFIG,
      legend: {
        ...PLOT_CONFIG.legend,
        orient: 'bottom',
        direction: 'horizontal',
        columns: Math.min(3, input.series.length),
      },
    },
    hconcat: panels,
    spacing: 24,
  } as unknown as TopLevelSpec;
}

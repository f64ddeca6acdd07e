/** Energy against SM clock: the U-shaped total plus each component, with the optimal clocks marked. */
import type { TopLevelSpec } from 'vega-lite';
import type { GpuClockPoint } from '../types.js';
import { baseSpec, colourBy, COMPONENT_COLOURS, renderSvg, quantitative } from './render.js';

export interface EnergyVsClockOptions {
  title: string;
  energyOptimalMHz: number;
  timeOptimalMHz: number;
}

const SERIES = ['total', 'compute', 'memory', 'communication', 'network', 'idle', 'host'] as const;

/** One line per series, one point per clock on the total, two rules (energy- and time-optimal clocks). */
export function energyVsClockSpec(points: readonly GpuClockPoint[], options: EnergyVsClockOptions): TopLevelSpec {
  const lines = points.flatMap((p) =>
    SERIES.map((series) => ({ clockMHz: p.clockMHz, series, energyJ: p.energyJ[series] })),
  );
  const totals = points.map((p) => ({ clockMHz: p.clockMHz, energyJ: p.energyJ.total, timeS: p.timeS }));
  const clocks = points.map((p) => p.clockMHz);
  const lo = Math.min(...clocks);
  const hi = Math.max(...clocks);
  const optima = [
    {
      clockMHz: options.energyOptimalMHz,
      what: `energy-optimal ${options.energyOptimalMHz} MHz`,
      colour: '#2ca02c',
      y: 4,
    },
    { clockMHz: options.timeOptimalMHz, what: `time-optimal ${options.timeOptimalMHz} MHz`, colour: '#d62728', y: 18 },
  ];
  // A label near the right edge is written to the left of its rule so it stays inside the plot.
  const labelLayer = (o: (typeof optima)[number], name: string) => {
    const right = hi > lo && (o.clockMHz - lo) / (hi - lo) > 0.6;
    return {
      name,
      data: { values: [o] },
      mark: {
        type: 'text',
        align: right ? 'right' : 'left',
        dx: right ? -4 : 4,
        baseline: 'top',
        fontSize: 11,
        color: o.colour,
      },
      encoding: { x, y: { value: o.y }, text: { field: 'what' } },
    };
  };
  const x = quantitative('clockMHz', 'SM clock (MHz)', { zero: false, nice: false });
  return {
    ...baseSpec(options.title, 520, 300),
    layer: [
      {
        name: 'energy_lines',
        data: { values: lines },
        mark: { type: 'line', strokeWidth: 1.5 },
        encoding: {
          x,
          y: quantitative('energyJ', 'energy (J, estimated)'),
          color: colourBy(
            'series',
            'energy',
            [...SERIES],
            ['#222', ...SERIES.slice(1).map((s) => COMPONENT_COLOURS[s]!)],
          ),
          strokeWidth: { condition: { test: "datum.series === 'total'", value: 2.5 }, value: 1.2 },
        },
      },
      {
        name: 'energy_points',
        data: { values: totals },
        mark: { type: 'point', filled: true, size: 28, color: '#222' },
        encoding: {
          x,
          y: { field: 'energyJ', type: 'quantitative' },
          tooltip: [
            quantitative('clockMHz', 'SM clock (MHz)'),
            { field: 'energyJ', type: 'quantitative', title: 'energy (J, estimated)', format: '.4~s' },
            { field: 'timeS', type: 'quantitative', title: 'time (s, estimated)', format: '.4~s' },
          ],
        },
      },
      {
        name: 'optimum_rules',
        data: { values: optima },
        mark: { type: 'rule', strokeDash: [4, 3] },
        encoding: { x, color: { field: 'colour', type: 'nominal', scale: null } },
      },
      labelLayer(optima[0]!, 'optimum_label_energy'),
      labelLayer(optima[1]!, 'optimum_label_time'),
    ],
  } as TopLevelSpec;
}

export function energyVsClockSvg(points: readonly GpuClockPoint[], options: EnergyVsClockOptions): Promise<string> {
  return renderSvg(energyVsClockSpec(points, options));
}

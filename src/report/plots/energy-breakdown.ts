/** Stacked bars of energy by component, one bar per rank or per configuration. */
import type { TopLevelSpec } from 'vega-lite';
import type { EnergyBreakdownJ } from '../types.js';
import { baseSpec, colourByParts, COMPONENT_COLOURS, renderSvg } from './render.js';

export interface BreakdownBar {
  /** Category on the x axis: a rank, a clock, a network scale … */
  label: string;
  energyJ: EnergyBreakdownJ;
  /**
   * When given, the network segment is split into one segment per dimension, plus "network static" for what of
   * energyJ.network no dimension holds (the ports' static power).
   */
  networkByDimensionJ?: number[];
}

export interface BreakdownOptions {
  title: string;
  /** Axis title of the categories, with unit if any, e.g. "rank" or "network scale (× nominal)". */
  categoryTitle: string;
}

const NETWORK_SHADES = ['#f58518', '#ffbf79', '#e45756', '#ff9d98'];

/** Segment names in stacking order (bottom first) and their colours. */
function components(bars: readonly BreakdownBar[]): { name: string; colour: string }[] {
  const dims = Math.max(0, ...bars.map((b) => b.networkByDimensionJ?.length ?? 0));
  const network =
    dims > 0
      ? Array.from({ length: dims }, (_, d) => ({
          name: `network dim ${d}`,
          colour: NETWORK_SHADES[d % NETWORK_SHADES.length]!,
        }))
      : [{ name: 'network', colour: COMPONENT_COLOURS.network! }];
  return [
    { name: 'compute', colour: COMPONENT_COLOURS.compute! },
    { name: 'memory', colour: COMPONENT_COLOURS.memory! },
    { name: 'communication', colour: COMPONENT_COLOURS.communication! },
    ...network,
    ...(dims > 0 && bars.some((b) => staticJ(b) > 0) ? [{ name: 'network static', colour: '#ffe0b0' }] : []),
    { name: 'idle', colour: COMPONENT_COLOURS.idle! },
    { name: 'host', colour: COMPONENT_COLOURS.host! },
  ];
}

/** What of a bar's network energy no dimension holds (network static power), J. */
function staticJ(b: BreakdownBar): number {
  if (!b.networkByDimensionJ) return 0;
  const rest = b.energyJ.network - b.networkByDimensionJ.reduce((a, x) => a + x, 0);
  return rest > 1e-12 * Math.abs(b.energyJ.network) ? rest : 0;
}

/** One rect per (bar, component); zero segments are kept so every bar has the same number of segments. */
export function energyBreakdownSpec(bars: readonly BreakdownBar[], options: BreakdownOptions): TopLevelSpec {
  const comps = components(bars);
  const split = comps.some((c) => c.name.startsWith('network dim'));
  const values = bars.flatMap((bar) =>
    comps.map((c, order) => {
      let energyJ: number;
      if (c.name.startsWith('network dim')) energyJ = bar.networkByDimensionJ?.[Number(c.name.slice(12))] ?? 0;
      else if (c.name === 'network static') energyJ = staticJ(bar);
      else if (c.name === 'network' && !split) energyJ = bar.energyJ.network;
      else energyJ = bar.energyJ[c.name as 'compute' | 'memory' | 'communication' | 'idle' | 'host'];
      return { category: bar.label, component: c.name, order, energyJ };
    }),
  );
  const longest = Math.max(0, ...bars.map((b) => b.label.length));
  // 8 % headroom above the tallest bar (vega's nice domain can end right at it).
  const headroomJ = 1.08 * Math.max(0, ...bars.map((b) => b.energyJ.total)) || 1;
  return {
    ...baseSpec(options.title, Math.max(240, Math.min(960, bars.length * 28)), 280),
    data: { values },
    name: 'energy_bars',
    mark: { type: 'bar' },
    encoding: {
      x: {
        field: 'category',
        type: 'nominal',
        sort: bars.map((b) => b.label),
        title: options.categoryTitle,
        axis: { labelAngle: longest > 4 || bars.length > 24 ? -45 : 0 },
      },
      y: {
        field: 'energyJ',
        type: 'quantitative',
        stack: 'zero',
        title: 'energy (J, estimated)',
        scale: { domainMax: headroomJ },
      },
      color: colourByParts('component', 'component', comps),
      order: { field: 'order', type: 'quantitative' },
      tooltip: [
        { field: 'category', type: 'nominal', title: options.categoryTitle },
        { field: 'component', type: 'nominal' },
        { field: 'energyJ', type: 'quantitative', title: 'energy (J, estimated)', format: '.4~s' },
      ],
    },
  } as TopLevelSpec;
}

export function energyBreakdownSvg(bars: readonly BreakdownBar[], options: BreakdownOptions): Promise<string> {
  return renderSvg(energyBreakdownSpec(bars, options));
}

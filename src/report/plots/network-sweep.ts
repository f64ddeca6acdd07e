/**
 * Network DVFS sweep: total energy and makespan against the frequency scale of one network dimension, as change
 * against nominal (scale 1, else the highest scale) in %, on axes that span at least ±1 % so that a change of a few
 * tenths of a percent looks as small as it is.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { NetworkSweepPoint } from '../types.js';
import { relativeDomain } from './case-study.js';
import { baseSpec, colourBy, DOMINATED_GREY, PLOT_CONFIG, renderSvg, quantitative } from './render.js';

export interface NetworkSweepOptions {
  title: string;
  dimension: number;
}

function panel(name: string, field: string, title: string, colour: string, xTitle: string, domain: [number, number]) {
  // 10 px inside each end, so the first and last points are not cut by the frame.
  const x = quantitative('scale', xTitle, { zero: false, nice: false, padding: 10 });
  const y = { field, type: 'quantitative', title, scale: { domain } };
  return {
    width: 520,
    height: 180,
    layer: [
      { name: `${name}_line`, mark: { type: 'line', color: colour }, encoding: { x, y } },
      {
        name: `${name}_points`,
        mark: { type: 'point', filled: true, size: 45 },
        encoding: {
          x,
          y,
          color: colourBy('status', 'point', ['worth taking', 'dominated'], [colour, DOMINATED_GREY]),
          tooltip: [
            quantitative('scale', 'scale (× nominal)'),
            { field: 'energyChangePct', type: 'quantitative', title: 'energy change (%)', format: '.3f' },
            { field: 'timeChangePct', type: 'quantitative', title: 'makespan change (%)', format: '.3f' },
            quantitative('bandwidthGBps', 'bandwidth (GB/s)'),
            { field: 'energyPerBitPJ', type: 'quantitative', title: 'energy per bit (pJ/bit)', format: '.3~f' },
            { field: 'energyJ', type: 'quantitative', title: 'energy (J, estimated)', format: '.4~s' },
            { field: 'makespanS', type: 'quantitative', title: 'makespan (s, estimated)', format: '.4~s' },
          ],
        },
      },
    ],
  };
}

/** The two panels, top to bottom: the change of total energy and of makespan against the reference scale. */
const PANELS = [
  { name: 'sweep_energy', field: 'energyChangePct', what: 'ΔE', colour: '#f58518' },
  { name: 'sweep_makespan', field: 'timeChangePct', what: 'Δ makespan', colour: '#4c78a8' },
] as const;

/** Two panels sharing the x axis; one point per scale in each, dominated points grey. */
export function networkSweepSpec(points: readonly NetworkSweepPoint[], options: NetworkSweepOptions): TopLevelSpec {
  const ref = points.find((p) => p.scale === 1) ?? points[points.length - 1]!;
  const change = (x: number, x0: number) => (x0 !== 0 ? (100 * (x - x0)) / x0 : 0);
  const values = points.map((p) => ({
    scale: p.scale,
    energyChangePct: change(p.energyJ.total, ref.energyJ.total),
    timeChangePct: change(p.makespanNs, ref.makespanNs),
    bandwidthGBps: p.bandwidthGBps,
    energyPerBitPJ: p.energyPerBitPJ,
    energyJ: p.energyJ.total,
    makespanS: p.makespanNs / 1e9,
    status: p.dominated ? 'dominated' : 'worth taking',
  }));
  const xTitle = `dimension ${options.dimension} frequency scale (× nominal)`;
  const { title } = baseSpec(options.title, 0, 0);
  return {
    title,
    config: PLOT_CONFIG,
    data: { values },
    vconcat: PANELS.map((p) =>
      panel(
        p.name,
        p.field,
        `${p.what} vs s = ${ref.scale} (%)`,
        p.colour,
        xTitle,
        relativeDomain(values.map((v) => v[p.field])),
      ),
    ),
    resolve: { scale: { color: 'independent' } },
  } as TopLevelSpec;
}

export function networkSweepSvg(points: readonly NetworkSweepPoint[], options: NetworkSweepOptions): Promise<string> {
  return renderSvg(networkSweepSpec(points, options));
}

/**
 * What changes with the scale: each component's energy minus its value at nominal (J), side by side per scale —
 * the components that stay put (compute, memory) drop out, unlike stacked totals that all look alike.
 */
export function networkSweepChangeSpec(
  points: readonly NetworkSweepPoint[],
  options: NetworkSweepOptions,
): TopLevelSpec {
  const ref = points.find((p) => p.scale === 1) ?? points[points.length - 1]!;
  const dims = Math.max(0, ...points.map((p) => p.networkByDimensionJ.length));
  const parts = [
    ...Array.from({ length: dims }, (_, d) => ({
      name: `network dim ${d}`,
      of: (p: NetworkSweepPoint) => p.networkByDimensionJ[d] ?? 0,
    })),
    { name: 'communication', of: (p: NetworkSweepPoint) => p.energyJ.communication },
    { name: 'idle', of: (p: NetworkSweepPoint) => p.energyJ.idle },
    {
      name: 'compute + memory + host',
      of: (p: NetworkSweepPoint) => p.energyJ.compute + p.energyJ.memory + p.energyJ.host,
    },
    { name: 'total', of: (p: NetworkSweepPoint) => p.energyJ.total },
  ];
  const values = points.flatMap((p) =>
    parts.map((c) => ({ scale: p.scale.toFixed(3).replace(/\.?0+$/, ''), part: c.name, deltaJ: c.of(p) - c.of(ref) })),
  );
  const colours = ['#f58518', '#ffbf79', '#e45756', '#ff9d98'].slice(0, dims);
  // 10 % headroom beyond the tallest bar either way.
  const lo = Math.min(0, ...values.map((v) => v.deltaJ));
  const hi = Math.max(0, ...values.map((v) => v.deltaJ));
  const pad = 0.1 * (hi - lo || 1);
  return {
    ...baseSpec(options.title, Math.max(320, points.length * 70), 240),
    data: { values },
    mark: { type: 'bar' },
    encoding: {
      x: {
        field: 'scale',
        type: 'ordinal',
        title: `dimension ${options.dimension} frequency scale (× nominal)`,
        sort: null,
        axis: { labelAngle: 0 },
      },
      xOffset: { field: 'part', type: 'nominal', sort: parts.map((c) => c.name) },
      y: quantitative('deltaJ', `ΔE vs s = ${ref.scale} (J, estimated)`, {
        domain: [lo < 0 ? lo - pad : 0, hi > 0 ? hi + pad : 0],
        nice: false,
      }),
      color: colourBy(
        'part',
        'component',
        parts.map((c) => c.name),
        [...colours, '#9d755d', '#bab0ac', '#4c78a8', '#222222'],
      ),
      tooltip: [
        { field: 'scale', type: 'nominal', title: 'scale' },
        { field: 'part', type: 'nominal' },
        { field: 'deltaJ', type: 'quantitative', title: 'ΔE (J)', format: '.4~s' },
      ],
    },
  } as TopLevelSpec;
}

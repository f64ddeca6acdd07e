/**
 * Iteration time–energy frontier of a clock plan: the one-clock-per-computation plans as a line with points, the
 * two-clock frontier dashed, and the named plans (all max clock, EnvPipe-style, no slowdown, lowest energy, the
 * straggler's deadline) as labelled markers. Optionally a reference frontier (e.g. Perseus' own) dotted.
 */
import type { TopLevelSpec } from 'vega-lite';
import { baseSpec, colourBy, renderSvg, quantitative } from './render.js';

export interface FrontierCurvePoint {
  timeS: number;
  energyJ: number;
}

export interface FrontierMarker extends FrontierCurvePoint {
  name: string;
}

export interface FrontierPlotOptions {
  title: string;
  /** One clock per computation, fastest first. */
  frontier: readonly FrontierCurvePoint[];
  /** Two clocks per computation (the relaxation), fastest first. */
  splitFrontier: readonly FrontierCurvePoint[];
  markers: readonly FrontierMarker[];
  /** Another frontier to compare with, e.g. Perseus' file, and its name. */
  reference?: { name: string; points: readonly FrontierCurvePoint[] };
}

const SERIES = ['one clock per computation', 'two clocks per computation'] as const;
const MARKER_SHAPES = ['diamond', 'square', 'triangle-up', 'circle', 'cross', 'triangle-down'];
const MARKER_COLOURS = ['#222222', '#e45756', '#54a24b', '#f58518', '#b279a2'];

/** Thins a long curve to at most `max` points (the ends kept) so the SVG stays small. */
function thin(points: readonly FrontierCurvePoint[], max: number): FrontierCurvePoint[] {
  if (points.length <= max) return [...points];
  const step = (points.length - 1) / (max - 1);
  return Array.from({ length: max }, (_, k) => points[Math.round(k * step)]!);
}

export function frontierSpec(o: FrontierPlotOptions): TopLevelSpec {
  // Padding (px): markers at the frontier's ends (all max clock) stay inside the plot, off its edges.
  const x = quantitative('timeS', 'iteration time (s, estimated)', { zero: false, padding: 16 });
  const y = quantitative('energyJ', 'iteration energy (J, estimated)', { zero: false, padding: 16 });
  const curves = [
    ...thin(o.frontier, 300).map((p, i) => ({ ...p, i, series: SERIES[0] })),
    ...thin(o.splitFrontier, 300).map((p, i) => ({ ...p, i, series: SERIES[1] })),
    ...(o.reference ? thin(o.reference.points, 300).map((p, i) => ({ ...p, i, series: o.reference!.name })) : []),
  ];
  const seriesDomain = [...SERIES, ...(o.reference ? [o.reference.name] : [])];
  const markerNames = o.markers.map((m) => m.name);
  return {
    ...baseSpec(o.title, 560, 320),
    layer: [
      {
        name: 'frontier_lines',
        data: { values: curves },
        mark: { type: 'line', strokeWidth: 2 },
        encoding: {
          x,
          y,
          order: { field: 'i', type: 'quantitative' },
          color: colourBy('series', 'frontier', seriesDomain, ['#4c78a8', '#72b7b2', '#9d755d'], { labelLimit: 260 }),
          strokeDash: {
            field: 'series',
            type: 'nominal',
            legend: null,
            scale: {
              domain: seriesDomain,
              range: [
                [1, 0],
                [6, 3],
                [2, 2],
              ],
            },
          },
        },
      },
      {
        name: 'frontier_markers',
        data: { values: o.markers.map((m) => ({ ...m })) },
        mark: { type: 'point', filled: true, stroke: 'white', strokeWidth: 1 },
        encoding: {
          x,
          y,
          fill: {
            field: 'name',
            type: 'nominal',
            title: 'plan',
            legend: { labelLimit: 260 },
            scale: { domain: markerNames, range: MARKER_COLOURS.slice(0, markerNames.length) },
          },
          // Each plan its own shape, later ones smaller and drawn on top: a plan at the same point as another stays
          // visible.
          shape: {
            field: 'name',
            type: 'nominal',
            title: 'plan',
            scale: { domain: markerNames, range: MARKER_SHAPES.slice(0, markerNames.length) },
          },
          size: {
            field: 'name',
            type: 'nominal',
            title: 'plan',
            scale: { domain: markerNames, range: markerNames.map((_, i) => Math.max(40, 200 - 40 * i)) },
          },
          tooltip: [
            { field: 'name', type: 'nominal', title: 'plan' },
            { field: 'timeS', type: 'quantitative', title: 'iteration time (s, estimated)', format: '.5~f' },
            { field: 'energyJ', type: 'quantitative', title: 'iteration energy (J, estimated)', format: '.6~s' },
          ],
        },
      },
    ],
    resolve: { scale: { color: 'independent' } },
  } as TopLevelSpec;
}

export function frontierSvg(o: FrontierPlotOptions): Promise<string> {
  return renderSvg(frontierSpec(o));
}

/** Savings against the straggler's slowdown (Perseus Figure 8), one line per plan kind. */
export function extrinsicSpec(
  rows: readonly { slowdownFactor: number; savingPct: number; extrinsicSavingPct: number; splitSavingPct: number }[],
  title: string,
): TopLevelSpec {
  const names = ['vs all max clock', 'vs the intrinsic plan', 'two clocks, vs all max clock'];
  const values = rows.flatMap((r) => [
    { slowdownFactor: r.slowdownFactor, savingPct: r.savingPct, series: names[0] },
    { slowdownFactor: r.slowdownFactor, savingPct: r.extrinsicSavingPct, series: names[1] },
    { slowdownFactor: r.slowdownFactor, savingPct: r.splitSavingPct, series: names[2] },
  ]);
  return {
    ...baseSpec(title, 420, 260),
    data: { values },
    mark: { type: 'line', strokeWidth: 2 },
    encoding: {
      x: quantitative('slowdownFactor', 'straggler slowdown (T′ / T)', { zero: false }),
      y: quantitative('savingPct', 'energy saved (%, estimated)'),
      color: colourBy('series', 'saving', names, ['#4c78a8', '#f58518', '#72b7b2'], { labelLimit: 260 }),
    },
  } as TopLevelSpec;
}

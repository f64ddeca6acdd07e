/** Time–energy Pareto front: every configuration as a point, dominated ones grey, the front joined by a line. */
import type { TopLevelSpec } from 'vega-lite';
import { baseSpec, colourBy, DOMINATED_GREY, renderSvg, quantitative } from './render.js';

export interface ParetoPoint {
  /** e.g. "1410 MHz". */
  label: string;
  timeS: number;
  energyJ: number;
  pareto: boolean;
  /** Text written beside the point (e.g. "energy-optimal"); leave empty for most points. */
  note?: string;
}

export interface ParetoOptions {
  title: string;
  /** What the label is, with unit, e.g. "SM clock". */
  labelTitle: string;
}

/** Layers: front line (Pareto points by time), all points, notes. */
export function paretoSpec(points: readonly ParetoPoint[], options: ParetoOptions): TopLevelSpec {
  const values = points.map((p) => ({ ...p, status: p.pareto ? 'Pareto front' : 'dominated', note: p.note ?? '' }));
  const front = values.filter((p) => p.pareto).sort((a, b) => a.timeS - b.timeS || a.energyJ - b.energyJ);
  const notes = values.filter((p) => p.note !== '').sort((a, b) => a.timeS - b.timeS);
  // Padding (px) keeps the notes above and below the outer points inside the plot, clear of the axis labels.
  const x = quantitative('timeS', 'time (s, estimated)', { zero: false, padding: 16 });
  const y = quantitative('energyJ', 'energy (J, estimated)', { zero: false, padding: 24 });
  const noteLayer = (name: string, data: typeof values, dy: number) => ({
    name,
    data: { values: data },
    mark: { type: 'text', align: 'left', dx: 6, dy, fontSize: 11 },
    encoding: { x, y, text: { field: 'note' } },
  });
  return {
    ...baseSpec(options.title, 520, 300),
    layer: [
      {
        name: 'pareto_front',
        data: { values: front.map((p, i) => ({ ...p, i })) },
        mark: { type: 'line', color: '#1f77b4', strokeWidth: 2 },
        encoding: { x, y, order: { field: 'i', type: 'quantitative' } },
      },
      {
        name: 'pareto_points',
        data: { values },
        mark: { type: 'point', filled: true, size: 40 },
        encoding: {
          x,
          y,
          color: colourBy('status', 'point', ['Pareto front', 'dominated'], ['#1f77b4', DOMINATED_GREY]),
          tooltip: [
            { field: 'label', type: 'nominal', title: options.labelTitle },
            { field: 'timeS', type: 'quantitative', title: 'time (s, estimated)', format: '.4~s' },
            { field: 'energyJ', type: 'quantitative', title: 'energy (J, estimated)', format: '.4~s' },
            { field: 'status', type: 'nominal' },
          ],
        },
      },
      // Notes alternate above and below their points so neighbouring notes do not overprint.
      noteLayer(
        'pareto_notes_above',
        notes.filter((_, i) => i % 2 === 0),
        -8,
      ),
      noteLayer(
        'pareto_notes_below',
        notes.filter((_, i) => i % 2 === 1),
        12,
      ),
    ],
  } as TopLevelSpec;
}

export function paretoSvg(points: readonly ParetoPoint[], options: ParetoOptions): Promise<string> {
  return renderSvg(paretoSpec(points, options));
}

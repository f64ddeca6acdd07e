/** Model error per SM clock: grouped bars of time, power and energy error. */
import type { TopLevelSpec } from 'vega-lite';
import type { AccuracyRow } from '../types.js';
import { baseSpec, colourBy, renderSvg, quantitative } from './render.js';

export interface AccuracyOptions {
  title: string;
}

const METRICS = ['time', 'power', 'energy'] as const;

/** One bar per (clock, metric) with a value; a missing power error (null) gives no bar. */
export function accuracySpec(rows: readonly AccuracyRow[], options: AccuracyOptions): TopLevelSpec {
  const sorted = [...rows].sort((a, b) => a.frequencyMHz - b.frequencyMHz);
  const values = sorted.flatMap((r) =>
    METRICS.flatMap((metric) => {
      const errorPct = metric === 'time' ? r.timeErrorPct : metric === 'power' ? r.powerErrorPct : r.energyErrorPct;
      return errorPct === null ? [] : [{ clock: String(r.frequencyMHz), metric, errorPct, n: r.n }];
    }),
  );
  return {
    ...baseSpec(options.title, Math.max(240, Math.min(900, sorted.length * 60)), 260),
    data: { values },
    layer: [
      {
        name: 'error_bars',
        mark: { type: 'bar' },
        encoding: {
          x: {
            field: 'clock',
            type: 'nominal',
            sort: sorted.map((r) => String(r.frequencyMHz)),
            title: 'SM clock (MHz)',
            axis: { labelAngle: 0 },
          },
          xOffset: { field: 'metric', type: 'nominal', sort: [...METRICS] },
          y: quantitative('errorPct', 'mean absolute error (%, MAPE)'),
          color: colourBy('metric', 'error of', [...METRICS], ['#4c78a8', '#e45756', '#54a24b']),
          tooltip: [
            { field: 'clock', type: 'nominal', title: 'SM clock (MHz)' },
            { field: 'metric', type: 'nominal' },
            { field: 'errorPct', type: 'quantitative', title: 'MAPE (%)', format: '.2f' },
            quantitative('n', 'n (kernels)'),
          ],
        },
      },
      {
        name: 'zero_rule',
        data: { values: [{ zero: 0 }] },
        mark: { type: 'rule', color: '#555' },
        encoding: { y: { field: 'zero', type: 'quantitative' } },
      },
    ],
  } as TopLevelSpec;
}

export function accuracySvg(rows: readonly AccuracyRow[], options: AccuracyOptions): Promise<string> {
  return renderSvg(accuracySpec(rows, options));
}

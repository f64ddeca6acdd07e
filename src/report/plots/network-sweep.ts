/** Network DVFS sweep: total energy and makespan against the frequency scale of one network dimension. */
import type { TopLevelSpec } from 'vega-lite';
import type { NetworkSweepPoint } from '../types.js';
import { baseSpec, DOMINATED_GREY, PLOT_CONFIG, renderSvg } from './render.js';

export interface NetworkSweepOptions {
  title: string;
  dimension: number;
}

function panel(name: string, field: string, title: string, colour: string, xTitle: string) {
  const x = { field: 'scale', type: 'quantitative', title: xTitle, scale: { zero: false, nice: false } };
  const y = { field, type: 'quantitative', title, scale: { zero: false } };
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
          color: {
            field: 'status',
            type: 'nominal',
            title: 'point',
            scale: { domain: ['worth taking', 'dominated'], range: [colour, DOMINATED_GREY] },
          },
          tooltip: [
            { field: 'scale', type: 'quantitative', title: 'scale (× nominal)' },
            { field: 'bandwidthGBps', type: 'quantitative', title: 'bandwidth (GB/s)' },
            { field: 'energyPerBitPJ', type: 'quantitative', title: 'energy per bit (pJ/bit)', format: '.3~f' },
            { field: 'energyJ', type: 'quantitative', title: 'energy (J, estimated)', format: '.4~s' },
            { field: 'makespanS', type: 'quantitative', title: 'makespan (s, estimated)', format: '.4~s' },
          ],
        },
      },
    ],
  };
}

/** Two panels sharing the x axis; one point per scale in each, dominated points grey. */
export function networkSweepSpec(points: readonly NetworkSweepPoint[], options: NetworkSweepOptions): TopLevelSpec {
  const values = points.map((p) => ({
    scale: p.scale,
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
    vconcat: [
      panel('sweep_energy', 'energyJ', 'total energy (J, estimated)', '#f58518', xTitle),
      panel('sweep_makespan', 'makespanS', 'makespan (s, estimated)', '#4c78a8', xTitle),
    ],
    resolve: { scale: { color: 'independent' } },
  } as TopLevelSpec;
}

export function networkSweepSvg(points: readonly NetworkSweepPoint[], options: NetworkSweepOptions): Promise<string> {
  return renderSvg(networkSweepSpec(points, options));
}

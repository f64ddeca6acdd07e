/**
 * The case study's sensitivity map as a heat map: one panel per layout, global batch (sequences) down, provisioned
 * scale-out bandwidth across, each cell coloured by the best scale-out DVFS setting's ΔE % against s = 1 and labelled
 * with it; cells beyond the threshold in bold, the real-batch point outlined and starred. Estimates.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { SensitivityMap } from '../../engines/studies/types.js';
import { PLOT_CONFIG, quantitative } from './render.js';
import { signedFixed } from '../tables.js';

export function sensitivityMapSpec(m: SensitivityMap): TopLevelSpec {
  const values = m.rows.map((r) => ({
    layout: r.layout,
    batch: r.globalBatchSequences,
    bandwidth: r.scaleOutBandwidthGBps,
    dE: r.energyChangePct,
    dT: r.timeChangePct,
    best: r.bestScale,
    label: `${signedFixed(2, '')(r.energyChangePct)}${r.realBatchPoint ? ' ★' : ''}`,
    beyond: Math.abs(r.energyChangePct) > m.thresholdPct,
    real: r.realBatchPoint,
    network: r.networkEnergySharePct,
    hidden: r.hiddenCommunicationSharePct,
    idle: r.idleEnergySharePct,
  }));
  const span = Math.max(m.thresholdPct, ...values.map((v) => Math.abs(v.dE)));
  const x = {
    field: 'bandwidth',
    type: 'ordinal',
    title: 'scale-out link bandwidth at s = 1 (GB/s)',
    sort: m.scaleOutBandwidthsGBps,
  } as const;
  const y = { field: 'batch', type: 'ordinal', title: 'global batch (sequences)', sort: m.batchesSequences } as const;
  return {
    title:
      `Best scale-out DVFS setting: ΔE % against s = 1 (estimated; bold: beyond ±${m.thresholdPct} %, ★ real ` +
      `batch)`,
    // Grid lines would strike through the cells' labels.
    config: { ...PLOT_CONFIG, axis: { ...PLOT_CONFIG.axis, grid: false, labelAngle: 0 } },
    data: { values },
    facet: { column: { field: 'layout', type: 'nominal', title: null, header: { labelFontSize: 13 } } },
    spec: {
      width: 64 * m.scaleOutBandwidthsGBps.length,
      height: 28 * m.batchesSequences.length,
      encoding: { x, y },
      layer: [
        {
          mark: { type: 'rect' },
          encoding: {
            color: quantitative('dE', 'ΔE (%)', { scheme: 'blueorange', domain: [-span, span], domainMid: 0 }),
            tooltip: [
              { field: 'layout', type: 'nominal' },
              { field: 'batch', type: 'ordinal', title: 'global batch (sequences)' },
              { field: 'bandwidth', type: 'ordinal', title: 'scale-out bandwidth (GB/s)' },
              quantitative('best', 'best scale s'),
              { field: 'dE', type: 'quantitative', title: 'ΔE (%)', format: '.2f' },
              { field: 'dT', type: 'quantitative', title: 'ΔT (%)', format: '.2f' },
              { field: 'network', type: 'quantitative', title: 'direct network energy (% of total)', format: '.2f' },
              {
                field: 'hidden',
                type: 'quantitative',
                title: 'communication hidden (% of communication time)',
                format: '.1f',
              },
              { field: 'idle', type: 'quantitative', title: 'idle energy (% of total)', format: '.2f' },
            ],
          },
        },
        {
          transform: [{ filter: 'datum.real' }],
          mark: { type: 'rect', fillOpacity: 0, stroke: 'black', strokeWidth: 2.5 },
        },
        // fontWeight is not an encoding channel: the cells beyond the threshold get their own bold layer.
        ...[true, false].map((beyond) => ({
          transform: [{ filter: beyond ? 'datum.beyond' : '!datum.beyond' }],
          mark: { type: 'text', fontSize: 11, fontWeight: beyond ? 'bold' : 'normal' },
          encoding: {
            text: { field: 'label', type: 'nominal' },
            color: { condition: { test: `abs(datum.dE) > ${0.6 * span}`, value: 'white' }, value: 'black' },
          },
        })),
      ],
    },
  } as TopLevelSpec;
}

/**
 * Plots of the layer-level SM-clock study: energy against SM clock per layer (the U), and the time–energy points of
 * every clock per layer relative to its fastest point (the Pareto front), with the published lowest-energy point
 * overlaid. Both relative to each layer's fastest Pareto point, so layers of µs and of ms share one axis.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { LayerClockStudyRecord } from '../engines/studies/a30-layers-record.js';
import { DOMINATED_GREY, PLOT_CONFIG, quantitative } from './plots/render.js';

/** Sequence-length colours: short to long. */
const SEQ_COLOURS = ['#72b7b2', '#4c78a8', '#b279a2'];
/** Runtime penalties beyond this (%) are left off the front plot (the slowest clocks: up to 7× the runtime). */
export const FRONT_MAX_PENALTY_PCT = 120;

function seqScale(r: LayerClockStudyRecord) {
  const seqs = [...new Set(r.rows.map((x) => x.seqLen))].map((s) => `S = ${s}`);
  return { domain: seqs, range: SEQ_COLOURS.slice(0, seqs.length) };
}

/** Every clock of every layer relative to the layer's fastest Pareto point. */
function relativePoints(r: LayerClockStudyRecord) {
  return r.layers.flatMap((l) => {
    const row = r.rows.find((x) => x.model === l.model && x.seqLen === l.seqLen)!;
    const fastest = l.sweep.points.find((p) => p.clockMHz === row.fastestClockMHz)!;
    return l.sweep.points.map((p) => ({
      layer: l.layer,
      seq: `S = ${l.seqLen}`,
      clockMHz: p.clockMHz,
      energyPct: (100 * p.energyJ.total) / fastest.energyJ.total,
      penaltyPct: (100 * (p.timeS - fastest.timeS)) / fastest.timeS,
      savingPct: (100 * (fastest.energyJ.total - p.energyJ.total)) / fastest.energyJ.total,
      status: p.pareto ? 'Pareto front' : 'dominated',
      lowest: p.clockMHz === row.lowestEnergyClockMHz,
    }));
  });
}

const layerOrder = (r: LayerClockStudyRecord) => [...new Set(r.rows.map((x) => x.layer))];

/**
 * Energy of each clock as % of the fastest point's, against the SM clock: one panel per layer, a line per sequence
 * length.
 */
export function layerEnergyVsClockSpec(r: LayerClockStudyRecord): TopLevelSpec {
  const values = relativePoints(r);
  const x = quantitative('clockMHz', 'SM clock (MHz)', { zero: false, nice: false });
  const y = quantitative('energyPct', 'energy (% of the fastest point, estimated)', { zero: false });
  const color = { field: 'seq', type: 'nominal', title: 'sequence', scale: seqScale(r) };
  return {
    title: 'Energy of one layer pass against SM clock (estimated): the U, lowest-energy clock ringed',
    config: PLOT_CONFIG,
    data: { values },
    facet: { field: 'layer', type: 'nominal', title: null, sort: layerOrder(r) },
    columns: 2,
    spec: {
      width: 430,
      height: 220,
      layer: [
        {
          mark: { type: 'line', strokeWidth: 2 },
          encoding: {
            x,
            y,
            color,
            order: { field: 'clockMHz', type: 'quantitative' },
            tooltip: [
              { field: 'seq', type: 'nominal' },
              quantitative('clockMHz', 'SM clock (MHz)'),
              { field: 'energyPct', type: 'quantitative', title: 'energy (% of fastest)', format: '.2f' },
            ],
          },
        },
        {
          transform: [{ filter: 'datum.lowest' }],
          mark: { type: 'point', size: 110, strokeWidth: 2, filled: false },
          encoding: { x, y, color },
        },
      ],
    },
  } as TopLevelSpec;
}

/**
 * Runtime penalty against energy of every clock (relative to the fastest Pareto point): one panel per layer,
 * the front joined per sequence length, dominated clocks grey, the modelled lowest-energy point ringed and the
 * published one (its saving and penalty) as a diamond of the same colour.
 */
export function layerParetoSpec(r: LayerClockStudyRecord): TopLevelSpec {
  const points = relativePoints(r).filter((p) => p.penaltyPct <= FRONT_MAX_PENALTY_PCT);
  const published = r.rows.map((x) => ({
    layer: x.layer,
    seq: `S = ${x.seqLen}`,
    penaltyPct: x.publishedRuntimePenaltyPct,
    savingPct: x.publishedEnergySavingPct,
    energyPct: 100 - x.publishedEnergySavingPct,
  }));
  const x = quantitative('penaltyPct', 'runtime penalty vs fastest (%, estimated)', {
    domain: [0, FRONT_MAX_PENALTY_PCT],
    nice: false,
  });
  const y = quantitative('energyPct', 'energy (% of the fastest point, estimated)', { zero: false });
  const color = { field: 'seq', type: 'nominal', title: 'sequence', scale: seqScale(r) };
  const tooltip = [
    { field: 'seq', type: 'nominal' },
    quantitative('clockMHz', 'SM clock (MHz)'),
    { field: 'penaltyPct', type: 'quantitative', title: 'runtime penalty (%)', format: '.1f' },
    { field: 'savingPct', type: 'quantitative', title: 'energy saving (%)', format: '.1f' },
  ];
  return {
    title:
      'Time–energy Pareto fronts per layer against the fastest clock (estimated); ◆ = published lowest-energy point',
    config: PLOT_CONFIG,
    data: {
      values: [...points.map((p) => ({ ...p, kind: 'model' })), ...published.map((p) => ({ ...p, kind: 'published' }))],
    },
    facet: { field: 'layer', type: 'nominal', title: null, sort: layerOrder(r) },
    columns: 2,
    spec: {
      width: 430,
      height: 230,
      layer: [
        {
          transform: [{ filter: "datum.kind === 'model' && datum.status === 'dominated'" }],
          mark: { type: 'point', filled: true, size: 14, color: DOMINATED_GREY },
          encoding: { x, y, tooltip },
        },
        {
          transform: [{ filter: "datum.kind === 'model' && datum.status === 'Pareto front'" }],
          mark: { type: 'line', point: { size: 14, filled: true } },
          encoding: { x, y, color, order: { field: 'penaltyPct', type: 'quantitative' }, tooltip },
        },
        {
          transform: [{ filter: "datum.kind === 'model' && datum.lowest" }],
          mark: { type: 'point', size: 110, strokeWidth: 2, filled: false },
          encoding: { x, y, color: color },
        },
        {
          transform: [{ filter: "datum.kind === 'published'" }],
          mark: { type: 'point', shape: 'diamond', size: 130, filled: true, stroke: '#222', strokeWidth: 1 },
          encoding: {
            x,
            y,
            color: color,
            tooltip: [
              { field: 'seq', type: 'nominal' },
              quantitative('penaltyPct', 'published penalty (%)'),
              quantitative('savingPct', 'published saving (%)'),
            ],
          },
        },
      ],
    },
  } as TopLevelSpec;
}

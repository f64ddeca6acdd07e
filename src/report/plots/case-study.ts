/**
 * Plots of the case study: energy shares per layout, the knobs' marginal-efficiency curves with bands, the GPU
 * clock's time–energy front, the network sweeps as relative change, and per-rank time at nominal. Relative axes
 * always span at least ±1 %, so a change of a few tenths of a percent looks as small as it is.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { CaseStudyLayout } from '../../engines/studies/types.js';
import { baseSpec, COMPONENT_COLOURS, DOMINATED_GREY, PLOT_CONFIG } from './render.js';

const KNOB_COLOURS = { 'scale-out network DVFS': '#f58518', 'scale-up network DVFS': '#e45756', 'GPU SM clock': '#4c78a8' };
const knobScale = { domain: Object.keys(KNOB_COLOURS), range: Object.values(KNOB_COLOURS) };

/** A domain that holds every value and at least [−minSpan, +minSpan] (for plots with one relative axis per panel). */
export function relativeDomain(values: readonly number[], minSpan = 1): [number, number] {
  const lo = Math.min(-minSpan, ...values);
  const hi = Math.max(minSpan, ...values);
  const pad = 0.05 * (hi - lo);
  return [lo - pad, hi + pad];
}

/** Share of each component in each layout's energy (%), stacked to 100. */
export function layoutSharesSpec(layouts: readonly CaseStudyLayout[]): TopLevelSpec {
  const comps = [
    { name: 'compute', colour: COMPONENT_COLOURS.compute! },
    { name: 'memory', colour: COMPONENT_COLOURS.memory! },
    { name: 'communication', colour: COMPONENT_COLOURS.communication! },
    { name: 'scale-up links', colour: '#e45756' },
    { name: 'scale-out links', colour: COMPONENT_COLOURS.network! },
    { name: 'network static', colour: '#ffe0b0' },
    { name: 'idle', colour: COMPONENT_COLOURS.idle! },
    { name: 'host', colour: COMPONENT_COLOURS.host! },
  ];
  const values = layouts.flatMap((l) => {
    const e = l.nominal.energyJ;
    const up = l.nominal.networkByDimensionJ[0] ?? 0;
    const out = l.nominal.networkByDimensionJ[1] ?? 0;
    const parts = [e.compute, e.memory, e.communication, up, out, Math.max(0, e.network - up - out), e.idle, e.host];
    return comps.map((c, order) => ({ layout: l.name, component: c.name, order, sharePct: (100 * parts[order]!) / e.total, energyMJ: parts[order]! / 1e6 }));
  });
  return {
    ...baseSpec('Where the energy goes at nominal (% of the iteration, estimated)', 560, Math.max(120, 50 * layouts.length)),
    data: { values },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'layout', type: 'nominal', title: null, sort: layouts.map((l) => l.name) },
      x: { field: 'sharePct', type: 'quantitative', stack: 'zero', title: 'share of iteration energy (%)', scale: { domain: [0, 100] } },
      color: { field: 'component', type: 'nominal', title: 'component', scale: { domain: comps.map((c) => c.name), range: comps.map((c) => c.colour) } },
      order: { field: 'order', type: 'quantitative' },
      tooltip: [
        { field: 'layout', type: 'nominal' }, { field: 'component', type: 'nominal' },
        { field: 'sharePct', type: 'quantitative', title: 'share (%)', format: '.3f' },
        { field: 'energyMJ', type: 'quantitative', title: 'energy (MJ, estimated)', format: '.4~s' },
      ],
    },
  } as TopLevelSpec;
}

/**
 * ΔE % against ΔT % for every knob setting with its band: a row per layout, a column per knob, each panel on its
 * own scales (the GPU clock moves tens of percent, the network knobs tenths) and spanning at least ±1 % both ways
 * (invisible padding points), so small effects look small.
 */
export function marginalSpec(layouts: readonly CaseStudyLayout[]): TopLevelSpec {
  const points = layouts.flatMap((l) => l.knobs.flatMap((k) => k.points.map((p) => ({
    layout: l.name, knob: k.name, setting: k.settingUnit === 'MHz' ? `${p.setting} MHz` : `s = ${p.setting}`,
    dT: p.timeChangePct, dE: p.energyChangePct, lo: p.energyChangeBandPct[0], hi: p.energyChangeBandPct[1], pad: false,
  }))));
  const pads = layouts.flatMap((l) => l.knobs.flatMap((k) => [-1, 1].map((v) => ({
    layout: l.name, knob: k.name, setting: '', dT: v, dE: v, lo: v, hi: v, pad: true,
  }))));
  const x = { field: 'dT', type: 'quantitative', title: 'time change ΔT (%)' };
  const y = { field: 'dE', type: 'quantitative', title: 'energy change ΔE (%)' };
  const color = { field: 'knob', type: 'nominal', title: 'knob', scale: knobScale, legend: { labelLimit: 240 } };
  const real = { filter: '!datum.pad' };
  return {
    title: 'Marginal efficiency: energy change against time change per knob (estimated; shaded: 10–90 % band)',
    config: PLOT_CONFIG,
    data: { values: [...points, ...pads] },
    facet: {
      row: { field: 'layout', type: 'nominal', title: null, sort: layouts.map((l) => l.name) },
      column: { field: 'knob', type: 'nominal', title: null, sort: Object.keys(KNOB_COLOURS) },
    },
    resolve: { scale: { x: 'independent', y: 'independent' } },
    spec: {
      width: 200,
      height: 170,
      layer: [
        { mark: { type: 'point', opacity: 0 }, encoding: { x, y } },
        { mark: { type: 'rule', color: '#999' }, encoding: { y: { datum: 0 } } },
        { mark: { type: 'rule', color: '#999' }, encoding: { x: { datum: 0 } } },
        { transform: [real], mark: { type: 'area', opacity: 0.25 }, encoding: { x, y: { field: 'lo', type: 'quantitative', title: y.title, stack: null }, y2: { field: 'hi' }, color: { ...color, legend: null } } },
        { transform: [real], mark: { type: 'line', point: true }, encoding: { x, y, color, order: { field: 'dT', type: 'quantitative' },
          tooltip: [{ field: 'knob', type: 'nominal' }, { field: 'setting', type: 'nominal' },
            { field: 'dT', type: 'quantitative', title: 'ΔT (%)', format: '.3f' }, { field: 'dE', type: 'quantitative', title: 'ΔE (%)', format: '.3f' },
            { field: 'lo', type: 'quantitative', title: 'ΔE band low (%)', format: '.3f' }, { field: 'hi', type: 'quantitative', title: 'ΔE band high (%)', format: '.3f' }] } },
        { transform: [real], mark: { type: 'text', dx: 5, dy: -7, align: 'left', fontSize: 9, color: '#444' }, encoding: { x, y, text: { field: 'setting' } } },
      ],
    },
  } as TopLevelSpec;
}

/** The GPU clock's points as iteration time against energy, the Pareto front joined, one panel per layout. */
export function clockFrontSpec(layouts: readonly CaseStudyLayout[]): TopLevelSpec {
  const values = layouts.flatMap((l) => {
    const k = l.knobs.find((x) => x.id === 'gpu-clock')!;
    return k.points.map((p) => {
      const dominated = k.points.some((q) => q !== p && q.makespanS <= p.makespanS && q.energyJ.total <= p.energyJ.total && (q.makespanS < p.makespanS || q.energyJ.total < p.energyJ.total));
      return { layout: l.name, clock: `${p.setting} MHz`, timeS: p.makespanS, energyMJ: p.energyJ.total / 1e6, status: dominated ? 'dominated' : 'Pareto front' };
    });
  });
  const x = { field: 'timeS', type: 'quantitative', title: 'iteration time (s, estimated)', scale: { zero: false } };
  const y = { field: 'energyMJ', type: 'quantitative', title: 'iteration energy (MJ, estimated)', scale: { zero: false } };
  return {
    title: 'GPU SM clock: time–energy points per layout (estimated)',
    config: PLOT_CONFIG,
    data: { values },
    facet: { column: { field: 'layout', type: 'nominal', title: null, sort: layouts.map((l) => l.name) } },
    resolve: { scale: { x: 'independent', y: 'independent' } },
    spec: {
      width: 380,
      height: 260,
      layer: [
        { transform: [{ filter: "datum.status === 'Pareto front'" }], mark: { type: 'line', color: '#4c78a8' }, encoding: { x, y, order: { field: 'timeS', type: 'quantitative' } } },
        { mark: { type: 'point', filled: true, size: 60 }, encoding: { x, y, color: { field: 'status', type: 'nominal', title: 'point', scale: { domain: ['Pareto front', 'dominated'], range: ['#4c78a8', DOMINATED_GREY] } },
          tooltip: [{ field: 'clock', type: 'nominal', title: 'SM clock' }, { field: 'timeS', type: 'quantitative', title: 'time (s)', format: '.4~s' }, { field: 'energyMJ', type: 'quantitative', title: 'energy (MJ)', format: '.4~s' }] } },
        { mark: { type: 'text', dx: 6, dy: -6, align: 'left', fontSize: 10 }, encoding: { x, y, text: { field: 'clock' } } },
      ],
    },
  } as TopLevelSpec;
}

/**
 * Both network knobs: ΔE % and ΔT % against the frequency scale, a row per measure, a column per layout, each row
 * on its own scale spanning at least ±1 % (invisible padding points).
 */
export function networkKnobsSpec(layouts: readonly CaseStudyLayout[]): TopLevelSpec {
  // The row headers name the measure; a y-axis title beside them would say it twice.
  const measures = ['energy change ΔE (% vs s = 1)', 'time change ΔT (% vs s = 1)'];
  const values = layouts.flatMap((l) => l.knobs.filter((k) => k.id !== 'gpu-clock').flatMap((k) => k.points.flatMap((p) => [
    { layout: l.name, knob: k.name, scale: p.setting, measure: measures[0], value: p.energyChangePct, pad: false },
    { layout: l.name, knob: k.name, scale: p.setting, measure: measures[1], value: p.timeChangePct, pad: false },
  ])));
  const pads = layouts.flatMap((l) => measures.flatMap((m) => [-1, 1].map((v) => ({ layout: l.name, knob: '', scale: 1, measure: m, value: v, pad: true }))));
  const x = { field: 'scale', type: 'quantitative', title: 'frequency scale s (× nominal)', scale: { zero: false, nice: false } };
  const y = { field: 'value', type: 'quantitative', title: null };
  const names = Object.keys(KNOB_COLOURS).filter((n) => n.includes('network'));
  return {
    title: 'Network DVFS: energy and time change against the links\' frequency scale (estimated)',
    config: PLOT_CONFIG,
    data: { values: [...values, ...pads] },
    facet: {
      row: { field: 'measure', type: 'nominal', title: null, sort: measures },
      column: { field: 'layout', type: 'nominal', title: null, sort: layouts.map((l) => l.name) },
    },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 380,
      height: 170,
      layer: [
        { mark: { type: 'point', opacity: 0 }, encoding: { x, y } },
        { mark: { type: 'rule', color: '#999' }, encoding: { y: { datum: 0 } } },
        { transform: [{ filter: '!datum.pad' }], mark: { type: 'line', point: true }, encoding: {
          x, y,
          color: { field: 'knob', type: 'nominal', title: 'knob', scale: { domain: names, range: names.map((n) => KNOB_COLOURS[n as keyof typeof KNOB_COLOURS]) }, legend: { labelLimit: 240 } },
          tooltip: [{ field: 'knob', type: 'nominal' }, { field: 'scale', type: 'quantitative', title: 's' }, { field: 'measure', type: 'nominal' }, { field: 'value', type: 'quantitative', title: '%', format: '.3f' }],
        } },
      ],
    },
  } as TopLevelSpec;
}

/**
 * Per rank at nominal, the ledger's time split (engines/replay/ledger.ts rankTimeSplit): GPU compute, exposed
 * communication (no GPU compute running), host, waiting; they add up to the makespan. One panel per layout.
 */
export function rankTimeSpec(layouts: readonly CaseStudyLayout[]): TopLevelSpec {
  const parts = [
    { name: 'GPU compute', colour: COMPONENT_COLOURS.compute! },
    { name: 'exposed communication', colour: COMPONENT_COLOURS.communication! },
    { name: 'host (CPU only)', colour: COMPONENT_COLOURS.host! },
    { name: 'waiting', colour: COMPONENT_COLOURS.idle! },
  ];
  const values = layouts.flatMap((l) => l.ranks.flatMap((r) => [r.computeS, r.exposedCommS, r.hostS, r.waitS].map((s, order) => ({
    layout: l.name, rank: r.rank, part: parts[order]!.name, order, seconds: s,
  }))));
  return {
    title: `Per rank at nominal, in the replayed iteration of ${layouts.map((l) => `${l.extrapolation.replayedMicroBatches[1]}`).join(' / ')} micro-batches (estimated)`,
    config: PLOT_CONFIG,
    data: { values },
    facet: { column: { field: 'layout', type: 'nominal', title: null, sort: layouts.map((l) => l.name) } },
    resolve: { scale: { x: 'independent' } },
    spec: {
      width: 380,
      height: 320,
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'rank', type: 'ordinal', title: 'rank', axis: { labelFontSize: 8 } },
        x: { field: 'seconds', type: 'quantitative', stack: 'zero', title: 'time (s, estimated)' },
        color: { field: 'part', type: 'nominal', title: 'time', scale: { domain: parts.map((p) => p.name), range: parts.map((p) => p.colour) }, legend: { labelLimit: 240 } },
        order: { field: 'order', type: 'quantitative' },
        tooltip: [{ field: 'rank', type: 'ordinal' }, { field: 'part', type: 'nominal' }, { field: 'seconds', type: 'quantitative', title: 's', format: '.4~s' }],
      },
    },
  } as TopLevelSpec;
}

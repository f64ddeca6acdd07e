/**
 * Plots of the case study: energy shares per layout, the knobs' marginal-efficiency curves with bands, the GPU
 * clock's time–energy front, the network sweeps as relative change, and per-rank time at nominal. Relative axes
 * always span at least ±1 %, so a change of a few tenths of a percent looks as small as it is.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { CaseStudyLayout } from '../../engines/studies/types.js';
import {
  baseSpec,
  colourBy,
  colourByParts,
  COMPONENT_COLOURS,
  DOMINATED_GREY,
  PLOT_CONFIG,
  quantitative,
} from './render.js';

const KNOB_COLOURS = {
  'scale-out network DVFS': '#f58518',
  'scale-up network DVFS': '#e45756',
  'GPU SM clock': '#4c78a8',
};
const knobScale = { domain: Object.keys(KNOB_COLOURS), range: Object.values(KNOB_COLOURS) };

/**
 * A domain that holds every value and at least [−minSpan, +minSpan], 8 % headroom each way (for plots with one relative
 * axis per panel).
 */
export function relativeDomain(values: readonly number[], minSpan = 1): [number, number] {
  const lo = Math.min(-minSpan, ...values);
  const hi = Math.max(minSpan, ...values);
  const pad = 0.08 * (hi - lo);
  return [lo - pad, hi + pad];
}

/**
 * The encoding of 100 % stacked bars, one bar per `y`: each part's share (%) along x, coloured by part and stacked
 * in its order; the tooltip names the bar and the part (`names`), then the share and the figure it is a share of.
 */
function shareBars(y: object, axisTitle: string, color: object, names: object[], shareTitle: string, figure: object) {
  return {
    y,
    x: { field: 'sharePct', type: 'quantitative', stack: 'zero', title: axisTitle, scale: { domain: [0, 100] } },
    color,
    order: { field: 'order', type: 'quantitative' },
    tooltip: [...names, { field: 'sharePct', type: 'quantitative', title: shareTitle, format: '.3~g' }, figure],
  };
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
    return comps.map((c, order) => ({
      layout: l.name,
      component: c.name,
      order,
      sharePct: (100 * parts[order]!) / e.total,
      energyMJ: parts[order]! / 1e6,
    }));
  });
  // Slices under 1 % are too thin to see: each bar is followed by its scale-out links' share in words.
  const notes = layouts.map((l) => ({
    layout: l.name,
    text: `scale-out links ${Number((100 * l.nominal.shares.scaleOutEnergy).toPrecision(2))} %`,
  }));
  const y = { field: 'layout', type: 'nominal', title: null, sort: layouts.map((l) => l.name) };
  return {
    ...baseSpec(
      'Where the energy goes at nominal (% of the iteration, estimated)',
      480,
      Math.max(90, 40 * layouts.length),
    ),
    layer: [
      {
        data: { values },
        mark: { type: 'bar' },
        encoding: shareBars(
          y,
          'share of iteration energy (%)',
          colourByParts('component', 'component', comps, { orient: 'bottom', columns: 4 }),
          [
            { field: 'layout', type: 'nominal' },
            { field: 'component', type: 'nominal' },
          ],
          'share (%)',
          { field: 'energyMJ', type: 'quantitative', title: 'energy (MJ, estimated)', format: '.4~s' },
        ),
      },
      {
        data: { values: notes },
        mark: { type: 'text', align: 'left', dx: 6, fontSize: 11, color: '#b35900' },
        encoding: { y, x: { datum: 100 }, text: { field: 'text' } },
      },
    ],
  } as TopLevelSpec;
}

/**
 * The case study's figure: ΔE % against ΔT % of every setting of the three knobs, all layouts, on ONE shared pair of
 * axes (so the scale-out knob's tenths of a percent look as small as they are beside the SM clock's tens), with the
 * 10–90 % energy band of each point as a vertical bar, the nominal point marked, and the lowest-energy setting of a
 * knob labelled where it stands apart from the nominal point. Layouts differ by point shape and line dash.
 */
export function knobOverviewSpec(layouts: readonly CaseStudyLayout[]): TopLevelSpec {
  const points = layouts.flatMap((l) =>
    l.knobs.flatMap((k) =>
      k.points.map((p) => ({
        layout: l.name,
        knob: k.name,
        setting: k.settingUnit === 'MHz' ? `${p.setting} MHz` : `s = ${p.setting}`,
        dT: p.timeChangePct,
        dE: p.energyChangePct,
        lo: p.energyChangeBandPct[0],
        hi: p.energyChangeBandPct[1],
      })),
    ),
  );
  const span = (vals: number[]) => relativeDomain(vals, 1);
  const xDomain = span(points.map((p) => p.dT));
  const yDomain = span(points.flatMap((p) => [p.dE, p.lo, p.hi]));
  const yRange = yDomain[1] - yDomain[0];
  // One label per knob: its lowest-energy setting in the first layout, when it lies clear of the nominal point.
  const labels = layouts.slice(0, 1).flatMap((l) =>
    l.knobs
      .filter((k) => Math.abs(k.best.energyChangePct) > 0.08 * yRange)
      .map((k) => ({
        dT: k.best.timeChangePct,
        dE: k.best.energyChangePct,
        text: `${k.name}: ${k.settingUnit === 'MHz' ? `${k.best.setting} MHz` : `s = ${k.best.setting}`}`,
      })),
  );
  const x = quantitative('dT', 'time change ΔT vs nominal (%)', { domain: xDomain, nice: false });
  const y = quantitative('dE', 'energy change ΔE vs nominal (%)', { domain: yDomain, nice: false });
  const color = {
    field: 'knob',
    type: 'nominal',
    title: 'knob',
    scale: knobScale,
    legend: { labelLimit: 260, orient: 'right', symbolOpacity: 1, symbolType: 'square' },
  };
  const shape = {
    field: 'layout',
    type: 'nominal',
    title: 'layout',
    sort: layouts.map((l) => l.name),
    legend: { labelLimit: 260, orient: 'right' },
  };
  return {
    title: 'Energy change against time change of each knob setting (estimated; one scale for all knobs)',
    config: PLOT_CONFIG,
    width: 640,
    height: 300,
    layer: [
      { data: { values: [{}] }, mark: { type: 'rule', color: '#999' }, encoding: { y: { datum: 0 } } },
      { data: { values: [{}] }, mark: { type: 'rule', color: '#999' }, encoding: { x: { datum: 0 } } },
      {
        data: { values: points },
        mark: { type: 'rule', strokeWidth: 6, opacity: 0.3 },
        encoding: {
          x,
          y: { field: 'lo', type: 'quantitative', scale: y.scale, title: y.title },
          y2: { field: 'hi' },
          color,
        },
      },
      {
        data: { values: points },
        mark: { type: 'line', strokeWidth: 1.5 },
        encoding: {
          x,
          y,
          color,
          strokeDash: {
            field: 'layout',
            type: 'nominal',
            sort: layouts.map((l) => l.name),
            title: 'layout',
            legend: { labelLimit: 260, orient: 'right' },
          },
          detail: { field: 'layout' },
          order: { field: 'dT', type: 'quantitative' },
        },
      },
      {
        data: { values: points },
        mark: { type: 'point', filled: true, size: 50 },
        encoding: {
          x,
          y,
          color,
          shape,
          tooltip: [
            { field: 'layout', type: 'nominal' },
            { field: 'knob', type: 'nominal' },
            { field: 'setting', type: 'nominal' },
            { field: 'dT', type: 'quantitative', title: 'ΔT (%)', format: '.3~g' },
            { field: 'dE', type: 'quantitative', title: 'ΔE (%)', format: '.3~g' },
            { field: 'lo', type: 'quantitative', title: 'ΔE band low (%)', format: '.3~g' },
            { field: 'hi', type: 'quantitative', title: 'ΔE band high (%)', format: '.3~g' },
          ],
        },
      },
      {
        data: { values: [{ dT: 0, dE: 0 }] },
        mark: { type: 'point', shape: 'cross', size: 160, filled: true, color: '#222' },
        encoding: { x, y },
      },
      {
        data: { values: [{ dT: 0, dE: 0, text: 'nominal' }] },
        mark: { type: 'text', align: 'right', dx: -8, dy: -10, fontSize: 12, fontWeight: 'bold', color: '#222' },
        encoding: { x, y, text: { field: 'text' } },
      },
      {
        data: { values: labels },
        mark: { type: 'text', align: 'right', dx: -10, dy: 4, fontSize: 12, color: '#333' },
        encoding: { x, y, text: { field: 'text' } },
      },
    ],
  } as TopLevelSpec;
}

/** The GPU clock's points as iteration time against energy, the Pareto front joined, one panel per layout. */
export function clockFrontSpec(layouts: readonly CaseStudyLayout[]): TopLevelSpec {
  const values = layouts.flatMap((l) => {
    const k = l.knobs.find((x) => x.id === 'gpu-clock')!;
    return k.points.map((p) => {
      const dominated = k.points.some(
        (q) =>
          q !== p &&
          q.makespanS <= p.makespanS &&
          q.energyJ.total <= p.energyJ.total &&
          (q.makespanS < p.makespanS || q.energyJ.total < p.energyJ.total),
      );
      // Labels on the ends of the sweep and the lowest-energy clock only: neighbouring clocks' labels would collide.
      const label = p === k.points[0] || p === k.points[k.points.length - 1] || p.setting === k.best.setting;
      return {
        layout: l.name,
        clock: `${p.setting} MHz`,
        timeS: p.makespanS,
        energyMJ: p.energyJ.total / 1e6,
        status: dominated ? 'dominated' : 'Pareto front',
        label,
      };
    });
  });
  const x = quantitative('timeS', 'iteration time (s, estimated)', { zero: false, padding: 16 });
  const y = quantitative('energyMJ', 'iteration energy (MJ, estimated)', { zero: false, padding: 24 });
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
        {
          transform: [{ filter: "datum.status === 'Pareto front'" }],
          mark: { type: 'line', color: '#4c78a8' },
          encoding: { x, y, order: { field: 'timeS', type: 'quantitative' } },
        },
        {
          mark: { type: 'point', filled: true, size: 60 },
          encoding: {
            x,
            y,
            color: colourBy('status', 'point', ['Pareto front', 'dominated'], ['#4c78a8', DOMINATED_GREY]),
            tooltip: [
              { field: 'clock', type: 'nominal', title: 'SM clock' },
              { field: 'timeS', type: 'quantitative', title: 'time (s)', format: '.4~s' },
              { field: 'energyMJ', type: 'quantitative', title: 'energy (MJ)', format: '.4~s' },
            ],
          },
        },
        {
          transform: [{ filter: 'datum.label' }],
          mark: { type: 'text', dx: 6, dy: 12, align: 'left', fontSize: 11 },
          encoding: { x, y, text: { field: 'clock' } },
        },
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
  const values = layouts.flatMap((l) =>
    l.knobs
      .filter((k) => k.id !== 'gpu-clock')
      .flatMap((k) =>
        k.points.flatMap((p) => [
          {
            layout: l.name,
            knob: k.name,
            scale: p.setting,
            measure: measures[0],
            value: p.energyChangePct,
            pad: false,
          },
          { layout: l.name, knob: k.name, scale: p.setting, measure: measures[1], value: p.timeChangePct, pad: false },
        ]),
      ),
  );
  const pads = layouts.flatMap((l) =>
    measures.flatMap((m) =>
      [-1, 1].map((v) => ({ layout: l.name, knob: '', scale: 1, measure: m, value: v, pad: true })),
    ),
  );
  const x = quantitative('scale', 'frequency scale s (× nominal)', { zero: false, nice: false });
  const y = quantitative('value', null);
  const names = Object.keys(KNOB_COLOURS).filter((n) => n.includes('network'));
  return {
    title: "Network DVFS: energy and time change against the links' frequency scale (estimated)",
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
        {
          transform: [{ filter: '!datum.pad' }],
          mark: { type: 'line', point: true },
          encoding: {
            x,
            y,
            color: colourBy(
              'knob',
              'knob',
              names,
              names.map((n) => KNOB_COLOURS[n as keyof typeof KNOB_COLOURS]),
              { labelLimit: 240 },
            ),
            tooltip: [
              { field: 'knob', type: 'nominal' },
              quantitative('scale', 's'),
              { field: 'measure', type: 'nominal' },
              { field: 'value', type: 'quantitative', title: '%', format: '.3f' },
            ],
          },
        },
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
  // Shares of each rank's time: the replay behind this split has fewer micro-batches than the full iteration the
  // page's times are for, so seconds here would contradict them; the shares carry over (steady state).
  const values = layouts.flatMap((l) =>
    l.ranks.flatMap((r) => {
      const split = [r.computeS, r.exposedCommS, r.hostS, r.waitS];
      const total = split.reduce((a, b) => a + b, 0);
      return split.map((s, order) => ({
        layout: l.name,
        rank: r.rank,
        part: parts[order]!.name,
        order,
        sharePct: total > 0 ? (100 * s) / total : 0,
        seconds: s,
      }));
    }),
  );
  const ranks = Math.max(1, ...layouts.map((l) => l.ranks.length));
  return {
    title: "Where each rank's time goes at nominal (% of the rank's time, estimated)",
    config: PLOT_CONFIG,
    data: { values },
    facet: { column: { field: 'layout', type: 'nominal', title: null, sort: layouts.map((l) => l.name) } },
    spec: {
      width: 380,
      height: Math.max(160, 14 * ranks),
      mark: { type: 'bar' },
      encoding: shareBars(
        { field: 'rank', type: 'ordinal', title: 'rank' },
        "share of the rank's time (%)",
        colourByParts('part', 'time', parts, { labelLimit: 240 }),
        [
          { field: 'rank', type: 'ordinal' },
          { field: 'part', type: 'nominal' },
        ],
        '%',
        { field: 'seconds', type: 'quantitative', title: 's in the replayed iteration', format: '.4~g' },
      ),
    },
  } as TopLevelSpec;
}

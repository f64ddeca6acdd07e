/**
 * One self-contained HTML page for a list of results: inline CSS, inline SVG plots, no scripts and no external
 * URLs, so it opens from disk or an e-mail attachment. Output depends only on the inputs and options.
 */
import {
  clockFrontSpec,
  layoutSharesSpec,
  marginalSpec,
  networkKnobsSpec,
  rankTimeSpec,
  accuracySpec,
  energyBreakdownSpec,
  energyVsClockSpec,
  networkSweepSpec,
  networkSweepChangeSpec,
  extrinsicSpec,
  frontierSpec,
  paretoSpec,
  renderSvg,
  type BreakdownBar,
} from './plots/index.js';
import { describeAdvice } from '../engines/calibrate/advice.js';
import { layerStudySection } from './a30-layers-html.js';
import { breakdown, ENERGY_PARTS, energyDefinitions, TIME_DEFINITIONS } from '../engines/replay/ledger.js';
import { planHeadlineRows } from './plan-text.js';
import { fixed, formatRows, type Cell, type Column } from './tables.js';
import type {
  AccuracyTable,
  CaseStudySummary,
  EnergyBandJ,
  EnergyBreakdownJ,
  GpuClockPoint,
  GpuClockSweepResult,
  NetworkSweepResult,
  PlanSummary,
  ReplayRecord,
  ReportResult,
} from './types.js';
import { tracewattVersion } from './version.js';

export interface ReportOptions {
  /** Default: "tracewatt report". */
  title?: string;
  /** Default: the version in package.json. */
  version?: string;
  /** Shown in the header when given (left out by default so the page is reproducible). */
  generatedAt?: string;
}

/** Ranks drawn one bar each up to this count; beyond it consecutive ranks are grouped. */
const MAX_RANK_BARS = 64;

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function htmlTable(columns: readonly Column[], rows: readonly (readonly Cell[])[], caption?: string): string {
  const { text, align } = formatRows(columns, rows);
  const cls = (i: number) => (align[i] === 'right' ? ' class="num"' : '');
  const head = columns.map((c, i) => `<th${cls(i)}>${escapeHtml(c.header)}</th>`).join('');
  const body = text.map((r) => `<tr>${r.map((cell, i) => `<td${cls(i)}>${escapeHtml(cell)}</td>`).join('')}</tr>`).join('\n');
  // Wide tables scroll inside their own box instead of running off the card.
  return `<div class="table-scroll"><table>${caption ? `<caption>${escapeHtml(caption)}</caption>` : ''}<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>`;
}

/** Definitions printed under a table: a titled list. */
function definitionList(title: string, lines: readonly string[]): string {
  return `<details class="definitions" open><summary>${escapeHtml(title)}: definitions</summary><ul>${lines.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul></details>`;
}

/** A plot with its caption below and, when given, its one-line takeaway above. */
function figure(id: string, svg: string, caption: string, takeaway?: string): string {
  const head = takeaway ? `<p class="takeaway">${escapeHtml(takeaway)}</p>` : '';
  return `<figure class="plot" data-plot="${escapeHtml(id)}">${head}${svg}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

const pct = (share: number) => share * 100;
const J = 'J, estimated';
const S = 's, estimated';

function breakdownRows(e: EnergyBreakdownJ, band?: Pick<EnergyBandJ, 'computeP10' | 'computeP90' | 'totalP10' | 'totalP90'>): Cell[][] {
  const parts = [...ENERGY_PARTS, 'total'] as const;
  const bounds = (k: (typeof parts)[number]): Cell[] =>
    !band ? [] : k === 'compute' ? [band.computeP10, band.computeP90] : k === 'total' ? [band.totalP10, band.totalP90] : [null, null];
  return parts.map((k) => [k, e[k], e.total > 0 ? pct(e[k] / e.total) : null, ...bounds(k)]);
}

/** One bar per rank, or per group of consecutive ranks (mean per rank) when there are many ranks. */
function rankBars(ranks: ReplayRecord['ranks']): { bars: BreakdownBar[]; title: string } {
  const sorted = [...ranks].sort((a, b) => a.rank - b.rank);
  if (sorted.length <= MAX_RANK_BARS) return { bars: sorted.map((r) => ({ label: String(r.rank), energyJ: r.energyJ })), title: 'rank' };
  const size = Math.ceil(sorted.length / MAX_RANK_BARS);
  const bars: BreakdownBar[] = [];
  for (let i = 0; i < sorted.length; i += size) {
    const group = sorted.slice(i, i + size);
    const mean = (k: keyof EnergyBreakdownJ) => group.reduce((a, r) => a + r.energyJ[k], 0) / group.length;
    bars.push({
      label: `${group[0]!.rank}–${group[group.length - 1]!.rank}`,
      energyJ: breakdown({
        compute: mean('compute'), memory: mean('memory'), communication: mean('communication'), network: mean('network'), idle: mean('idle'), host: mean('host'),
      }),
    });
  }
  return { bars, title: `ranks (mean of ${size} per bar)` };
}

async function replaySection(r: ReplayRecord): Promise<string> {
  const t = r.timeS;
  const rankSeconds = t.makespan * r.ranks.length;
  const timeParts: [string, number | undefined][] = [
    ['GPU compute', t.compute],
    ['exposed communication (no GPU compute)', t.exposedCommunication],
    ['host exposed (CPU only)', t.hostExposed],
    ['remote memory exposed', t.remoteMemExposed],
    ['wait (nothing running)', t.wait],
    ['communication (all)', t.communication],
    ['communication hidden behind compute (overlap)', t.overlap],
    ['ASTRA-sim exposed communication (finish − GPU compute)', t.astraExposed],
  ];
  const timeRows: Cell[][] = timeParts
    .filter((row): row is [string, number] => row[1] !== undefined)
    .map(([name, s]) => [name, s, s / r.ranks.length, rankSeconds > 0 ? pct(s / rankSeconds) : null]);
  const { bars, title } = rankBars(r.ranks);
  const plot = await renderSvg(energyBreakdownSpec(bars, { title: 'Energy per rank by component', categoryTitle: title }));
  const dimRows = r.bytesSentPerDim.map((bytes, d) => [d, r.dimensionNames?.[d] ?? '', bytes / 1e9, r.networkEnergyPerDimJ?.[d] ?? null]);
  const rankRows = [...r.ranks]
    .sort((a, b) => a.rank - b.rank)
    .map((k) => [k.rank, k.finishNs / 1e9, k.exposedCommNs / 1e9, k.waitNs / 1e9, ...ENERGY_PARTS.map((p) => k.energyJ[p]), k.energyJ.total]);
  return [
    `<p>Makespan ${fixed(4)(r.makespanNs / 1e9)} s, total energy ${fixed(1)(r.energyJ.total)} J (estimated); ` +
      `${fixed(1)(pct(r.overlapShare))} % of communication time hidden behind compute (in the time table, the same overlap is a share of makespan × ranks).</p>`,
    '<div class="tables">',
    htmlTable(
      [
        { header: 'component' }, { header: `energy (${J})`, format: fixed(2) }, { header: 'share of total (%)', format: fixed(1) },
        ...(r.energyBandJ ? [{ header: `p10 (${J})`, format: fixed(2) }, { header: `p90 (${J})`, format: fixed(2) }] : []),
      ],
      breakdownRows(r.energyJ, r.energyBandJ),
      r.energyBandJ ? 'Energy, all ranks; 10–90 % band of compute from the nodes\' bands (nodes of one name err together, names independently)' : 'Energy, all ranks',
    ),
    definitionList('Energy parts', energyDefinitions(r.settings?.ledger)),
    htmlTable(
      [
        { header: 'quantity' },
        { header: `summed over ranks (${S})`, format: fixed(4) },
        { header: `mean per rank (${S})`, format: fixed(4) },
        { header: 'share of makespan × ranks (%)', format: fixed(1) },
      ],
      timeRows,
      'Time: GPU compute, exposed communication, host exposed, remote memory exposed and wait split makespan × ranks',
    ),
    definitionList('Time', TIME_DEFINITIONS),
    htmlTable(
      [{ header: 'dimension' }, { header: 'name' }, { header: 'data sent (GB)', format: fixed(3) }, { header: `network energy (${J})`, format: fixed(3) }],
      dimRows,
      'Traffic per network dimension',
    ),
    '</div>',
    figure('energy-per-rank', plot, 'Energy per rank, stacked by component (estimated).'),
    `<details><summary>Per-rank table (${r.ranks.length} ranks)</summary>`,
    htmlTable(
      [
        { header: 'rank' },
        { header: `finish (${S})`, format: fixed(4) },
        { header: `exposed comm (${S})`, format: fixed(4) },
        { header: `wait (${S})`, format: fixed(4) },
        ...ENERGY_PARTS.map((p): Column => ({ header: `${p} (${J})`, format: fixed(2) })),
        { header: `total (${J})`, format: fixed(2) },
      ],
      rankRows,
    ),
    '</details>',
  ].join('\n');
}

function pointAt(points: readonly GpuClockPoint[], clockMHz: number): GpuClockPoint | undefined {
  return points.find((p) => p.clockMHz === clockMHz);
}

async function gpuSweepSection(r: GpuClockSweepResult): Promise<string> {
  const points = [...r.points].sort((a, b) => a.clockMHz - b.clockMHz);
  const banded = points.some((p) => p.energyBandJ);
  const eOpt = pointAt(points, r.energyOptimalMHz);
  const tOpt = pointAt(points, r.timeOptimalMHz);
  const note = (p: GpuClockPoint) =>
    p.clockMHz === r.energyOptimalMHz ? `energy-optimal ${p.clockMHz} MHz` : p.clockMHz === r.timeOptimalMHz ? `time-optimal ${p.clockMHz} MHz` : '';
  const [uCurve, front] = await Promise.all([
    renderSvg(
      energyVsClockSpec(points, { title: 'Energy vs SM clock', energyOptimalMHz: r.energyOptimalMHz, timeOptimalMHz: r.timeOptimalMHz }),
    ),
    renderSvg(
      paretoSpec(
        points.map((p) => ({ label: `${p.clockMHz} MHz`, timeS: p.timeS, energyJ: p.energyJ.total, pareto: p.pareto, note: note(p) })),
        { title: 'Time–energy Pareto front', labelTitle: 'SM clock' },
      ),
    ),
  ]);
  const parts: string[] = [
    `<p>Energy-optimal clock ${r.energyOptimalMHz} MHz, time-optimal clock ${r.timeOptimalMHz} MHz; ` +
      `${points.filter((p) => p.pareto).length} of ${points.length} clocks are on the Pareto front.</p>`,
  ];
  if (eOpt && tOpt) {
    const savedJ = tOpt.energyJ.total - eOpt.energyJ.total;
    const extraS = eOpt.timeS - tOpt.timeS;
    parts.push(
      htmlTable(
        [
          { header: 'from: fastest (MHz)' },
          { header: 'to: lowest energy (MHz)' },
          { header: 'energy saved (%)', format: fixed(1) },
          { header: 'runtime penalty (%)', format: fixed(1) },
          { header: `energy saved (${J})`, format: fixed(2) },
          { header: `extra time (${S})`, format: fixed(4) },
        ],
        [[tOpt.clockMHz, eOpt.clockMHz, pct(savedJ / tOpt.energyJ.total), pct(extraS / tOpt.timeS), savedJ, extraS]],
        'Energy saved vs runtime penalty, fastest to lowest-energy Pareto point',
      ),
    );
  }
  parts.push(
    '<div class="row">',
    figure('energy-vs-clock', uCurve, 'Total and per-component energy against SM clock (estimated); dashed lines mark the optimal clocks.'),
    figure('pareto-front', front, 'Each clock as a time–energy point (estimated); grey points are dominated.'),
    '</div>',
    `<details><summary>All ${points.length} clocks</summary>`,
    htmlTable(
      [
        { header: 'SM clock (MHz)' },
        { header: `time (${S})`, format: fixed(4) },
        ...ENERGY_PARTS.map((p): Column => ({ header: `${p} (${J})`, format: fixed(2) })),
        { header: `total (${J})`, format: fixed(2) },
        { header: 'Pareto', align: 'left' },
        ...(banded ? [{ header: `total p10 (${J})`, format: fixed(2) }, { header: `total p90 (${J})`, format: fixed(2) }] : []),
      ],
      points.map((p) => [
        p.clockMHz, p.timeS, ...ENERGY_PARTS.map((k) => p.energyJ[k]), p.energyJ.total, p.pareto,
        ...(banded ? [p.energyBandJ?.totalP10 ?? null, p.energyBandJ?.totalP90 ?? null] : []),
      ]),
    ),
    '</details>',
    definitionList('Energy parts', energyDefinitions()),
  );
  return parts.join('\n');
}

async function networkSweepSection(r: NetworkSweepResult): Promise<string> {
  const points = [...r.points].sort((a, b) => a.scale - b.scale);
  const dims = Math.max(0, ...points.map((p) => p.networkByDimensionJ.length));
  const [sweep, bars] = await Promise.all([
    renderSvg(networkSweepSpec(points, { title: `Network dimension ${r.dimension}: energy and makespan change vs frequency scale`, dimension: r.dimension })),
    renderSvg(networkSweepChangeSpec(points, { title: 'What changes: energy per component against nominal', dimension: r.dimension })),
  ]);
  const columns: Column[] = [
    { header: 'scale (× nominal)', format: fixed(2) },
    { header: 'bandwidth (GB/s)', format: fixed(1) },
    { header: 'energy per bit (pJ/bit)', format: fixed(2) },
    { header: 'V/V(1)', format: fixed(3) },
    { header: `makespan (${S})`, format: fixed(4) },
    ...Array.from({ length: dims }, (_, d): Column => ({ header: `network dim ${d} (${J})`, format: fixed(2) })),
    { header: `communication (${J})`, format: fixed(2) },
    { header: `idle (${J})`, format: fixed(2) },
    { header: `total (${J})`, format: fixed(2) },
    { header: 'ΔE/ΔT vs next scale (W)', format: fixed(1) },
    { header: 'energy saved per 1 % slowdown (%)', format: fixed(3) },
    { header: 'dominated', align: 'left' },
  ];
  const rows = points.map((p) => [
    p.scale,
    p.bandwidthGBps,
    p.energyPerBitPJ,
    p.voltageRatio,
    p.makespanNs / 1e9,
    ...Array.from({ length: dims }, (_, d) => p.networkByDimensionJ[d] ?? null),
    p.energyJ.communication,
    p.energyJ.idle,
    p.energyJ.total,
    p.marginal?.energyPerTimeW ?? null,
    p.marginal?.energySavedPctPerSlowdownPct ?? null,
    p.dominated,
  ]);
  const dominated = points.filter((p) => p.dominated).length;
  return [
    `<p>${points.length} frequency scales of dimension ${r.dimension}; ${dominated} dominated (never worth taking: another scale is at least as fast and as cheap).</p>`,
    '<div class="row">',
    figure('network-sweep', sweep, 'Total energy and makespan against the frequency scale of the swept dimension, as change against nominal (estimated); grey points are dominated.'),
    figure('network-sweep-breakdown', bars, 'Change of each energy component against nominal, per frequency scale (estimated).'),
    '</div>',
    htmlTable(columns, rows, 'Sweep points; marginal efficiency against the neighbouring higher scale'),
    definitionList('Energy parts', energyDefinitions()),
  ].join('\n');
}

async function accuracySection(r: AccuracyTable): Promise<string> {
  const rows = [...r.frequencies].sort((a, b) => a.frequencyMHz - b.frequencyMHz);
  const plot = await renderSvg(accuracySpec(rows, { title: 'Model error per SM clock (MAPE)' }));
  // Band coverage: the share of kernels whose measurement lies in the predicted 10–90 % band.
  const covered = rows.some((x) => typeof x.timeCoveragePct === 'number' || typeof x.energyCoveragePct === 'number');
  return [
    `<p>Model against measurement${r.referenceClockMHz !== undefined ? `, profiled once at ${r.referenceClockMHz} MHz` : ''}. ` +
      'Errors are mean absolute percentage errors (MAPE) over the kernels at each clock: |model / measured − 1|, ' +
      'so they say how far off the model is, not in which direction. These are measured differences, not estimates.</p>',
    htmlTable(
      [
        { header: 'SM clock (MHz)' },
        { header: 'time MAPE (%)', format: fixed(1) },
        { header: 'power MAPE (%)', format: fixed(1) },
        { header: 'energy MAPE (%)', format: fixed(1) },
        { header: 'n (kernels)' },
        ...(covered ? [{ header: 'time in 10–90 % band (%)', format: fixed(0) }, { header: 'energy in 10–90 % band (%)', format: fixed(0) }] : []),
      ],
      rows.map((x) => [x.frequencyMHz, x.timeErrorPct, x.powerErrorPct, x.energyErrorPct, x.n, ...(covered ? [x.timeCoveragePct ?? null, x.energyCoveragePct ?? null] : [])]),
    ),
    ...(r.advice ? [`<p>Advice: ${escapeHtml(describeAdvice(r.advice))}.</p>`] : []),
    figure('accuracy', plot, 'Mean absolute percentage error of the model\'s time, power and energy per SM clock.'),
  ].join('\n');
}

const signedPct = (x: number, digits = 2) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)} %`;
const sharePct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)} %`;

/** The one-line takeaways above the case study's plots, from its numbers. */
function caseStudyTakeaways(r: CaseStudySummary): Record<string, string> {
  const ls = r.layouts;
  const each = (f: (l: CaseStudySummary['layouts'][number]) => string) => ls.map((l) => `${f(l)} (${l.name})`).join(', ');
  const knob = (l: CaseStudySummary['layouts'][number], id: string) => l.knobs.find((k) => k.id === id)!;
  const all = ls.flatMap((l) => l.knobs.map((k) => ({ l, k })));
  const top = all.reduce((a, b) => (b.k.best.energyChangePct < a.k.best.energyChangePct ? b : a));
  const so = ls.map((l) => knob(l, 'scale-out'));
  const soMax = Math.max(...so.flatMap((k) => k.points.map((p) => Math.abs(p.energyChangePct))));
  const slowest = (l: CaseStudySummary['layouts'][number]) => knob(l, 'scale-out').points[0]!;
  // Rank time = GPU compute + exposed communication + host + wait (the makespan of each rank).
  const waitShare = (l: CaseStudySummary['layouts'][number]) => {
    const tot = l.ranks.reduce((a, x) => a + x.computeS + x.exposedCommS + x.hostS + x.waitS, 0);
    return tot > 0 ? l.ranks.reduce((a, x) => a + x.waitS, 0) / tot : 0;
  };
  return {
    shares: `GPU power while only communication runs is ${each((l) => sharePct(l.nominal.shares.communicationEnergy))} of the energy, idle ` +
      `${each((l) => sharePct(l.nominal.shares.idleEnergy))}; the scale-out links only ${each((l) => sharePct(l.nominal.shares.scaleOutEnergy, 2))}.`,
    marginal: `Largest saving: ${top.k.name} in ${top.l.name}, ${signedPct(top.k.best.energyChangePct)} energy at ${signedPct(top.k.best.timeChangePct)} time; scale-out DVFS changes energy by at most ${soMax.toFixed(2)} %.`,
    front: `Lowest-energy SM clock: ${each((l) => { const k = knob(l, 'gpu-clock'); return `${k.best.setting} MHz, ${signedPct(k.best.energyChangePct)} energy, ${signedPct(k.best.timeChangePct)} time`; })}.`,
    network: `Halving the scale-out links' frequency (s = ${slowest(ls[0]!).setting}) costs ${each((l) => `${signedPct(slowest(l).timeChangePct)} time, ${signedPct(slowest(l).energyChangePct)} energy`)}.`,
    ranks: `Exposed communication (no GPU compute running) is ${each((l) => sharePct(l.nominal.shares.exposedCommunication))} of communication time, ` +
      `the rest hidden behind compute; waiting (pipeline bubbles, stragglers) is ${each((l) => sharePct(waitShare(l)))} of rank time.`,
  };
}

async function caseStudySection(r: CaseStudySummary): Promise<string> {
  const [shares, marginalPlot, front, network, ranks] = await Promise.all([
    renderSvg(layoutSharesSpec(r.layouts)), renderSvg(marginalSpec(r.layouts)), renderSvg(clockFrontSpec(r.layouts)),
    renderSvg(networkKnobsSpec(r.layouts)), renderSvg(rankTimeSpec(r.layouts)),
  ]);
  const t = caseStudyTakeaways(r);
  const parts = [
    `<p class="finding"><strong>Finding.</strong> ${escapeHtml(r.finding)}</p>`,
    `<ul class="system">${r.system.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`,
    `<details open><summary>Definitions</summary><ul>${r.definitions.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul></details>`,
    htmlTable(
      [
        { header: 'layout' },
        { header: 'micro-batches per pipeline' },
        { header: 'iteration time (s, estimated)', format: fixed(2) },
        { header: 'iteration energy (MJ, estimated)', format: fixed(3) },
        { header: 'direct network energy (% of total)', format: fixed(2) },
        { header: 'scale-out link energy (% of total)', format: fixed(3) },
        { header: 'communication hidden behind compute (% of communication time)', format: fixed(1) },
        { header: 'exposed communication (% of communication time)', format: fixed(1) },
        { header: 'communication energy (% of total)', format: fixed(1) },
        { header: 'idle energy (% of total)', format: fixed(1) },
        { header: 'extrapolation check: time / energy error (%)' },
      ],
      r.layouts.map((l) => {
        const s = l.nominal.shares;
        const x = l.extrapolation;
        return [l.name, l.microBatches, l.nominal.makespanS, l.nominal.energyJ.total / 1e6, pct(s.networkEnergy), pct(s.scaleOutEnergy),
          pct(s.hiddenCommunication), pct(s.exposedCommunication), pct(s.communicationEnergy), pct(s.idleEnergy), `${x.makespanErrorPct.toExponential(1)} / ${x.energyErrorPct.toExponential(1)} (at ${x.checkMicroBatches})`];
      }),
      'Nominal point per layout: the three shares that decide whether network DVFS pays off',
    ),
    // The finding starts with the layout and its verdict ("TP 8 × PP 4: reproduces the poster's finding …").
    ...r.layouts.map((l) => {
      const [head, ...rest] = l.finding.split('. ');
      return `<p class="finding layout"><strong>${escapeHtml(head!)}.</strong> ${escapeHtml(rest.join('. '))}</p>`;
    }),
    figure('case-shares', shares, 'Energy of one iteration by component, % of its total, at the nominal point (estimated).', t.shares),
    figure('case-marginal', marginalPlot, 'Each knob setting against nominal, one panel per layout and knob on its own scales (at least ±1 %); shaded: the 10–90 % band (network: 0.5–2× energy per bit; GPU: calibration error). Left of and below the cross = faster and cheaper.', t.marginal),
    htmlTable(
      [
        { header: 'layout' }, { header: 'knob' }, { header: 'setting' },
        { header: 'ΔT (%)', format: fixed(2) }, { header: 'ΔE (%)', format: fixed(2) },
        { header: 'ΔE band 10 % (%)', format: fixed(2) }, { header: 'ΔE band 90 % (%)', format: fixed(2) },
        { header: 'energy saved per 1 % slowdown (%)', format: fixed(2) }, { header: 'ΔE/ΔT (kW)', format: fixed(1) }, { header: 'note' },
      ],
      r.layouts.flatMap((l) => l.knobs.flatMap((k) => k.points.map((p) => [
        l.name, k.name, k.settingUnit === 'MHz' ? `${p.setting} MHz` : `s = ${p.setting}`, p.timeChangePct, p.energyChangePct,
        p.energyChangeBandPct[0], p.energyChangeBandPct[1], p.energySavedPctPerSlowdownPct,
        p.deltaEnergyPerDeltaTimeW === null ? null : p.deltaEnergyPerDeltaTimeW / 1e3,
        p.setting === k.nominalSetting ? 'nominal' : p.setting === k.best.setting ? `lowest energy${k.best.atEdge ? ` — ${k.best.atEdge} of the range swept` : ''}` : '',
      ]))),
      'Marginal efficiency of every knob setting against nominal',
    ),
    `<ul class="notes">${r.layouts[0]!.knobs.map((k) => `<li>${escapeHtml(k.name)}: ${escapeHtml(k.uncertainty)}</li>`).join('')}</ul>`,
    figure('case-clock-front', front, 'Iteration time and energy at each SM clock (calibrated kernel times and energies); grey points are dominated.', t.front),
    figure('case-network', network, 'Change against nominal of both network knobs; each row on its own axis spanning at least ±1 %, so small effects look small.', t.network),
    figure('case-ranks', ranks, 'Per-rank time at nominal: GPU compute, exposed communication (no GPU compute running), host (CPU only) and waiting; they add up to the makespan.', t.ranks),
  ];
  return parts.join('\n');
}

async function planSection(r: PlanSummary): Promise<string> {
  const b = r.baseline;
  const markers = [
    { name: 'all max clock', timeS: b.timeS, energyJ: b.energyJ },
    { name: 'EnvPipe-style', timeS: r.envPipe.timeS, energyJ: r.envPipe.energyJ },
    { name: 'no slowdown (intrinsic)', timeS: r.intrinsic.timeS, energyJ: r.intrinsic.energyJ },
    { name: 'lowest energy', timeS: r.minEnergy.timeS, energyJ: r.minEnergy.energyJ },
    ...(r.extrinsic ? [{ name: "straggler's deadline", timeS: r.extrinsic.plannedTimeS, energyJ: r.extrinsic.plannedEnergyJ - (r.extrinsic.deadlineS - r.extrinsic.plannedTimeS) * r.blockingPowerW * r.stages }] : []),
  ];
  const [front, extrinsic] = await Promise.all([
    renderSvg(frontierSpec({ title: 'Iteration time–energy frontier', frontier: r.frontier, splitFrontier: r.splitFrontier, markers })),
    renderSvg(extrinsicSpec(r.extrinsicCurve, 'Energy saved when another pipeline straggles')),
  ]);
  const head = planHeadlineRows(r);
  const parts = [
    `<p>${escapeHtml(r.schedule)} pipeline, ${r.stages} stages × ${r.microBatches} micro-batches, blocking power ${r.blockingPowerW} W; ` +
      `${r.source.mode === 'fit' ? `options modelled from ${escapeHtml(r.source.fitClocksMHz?.join(', ') ?? '')} MHz` : `options at ${r.source.clocksMHz.length} clocks`}. ` +
      `Intrinsic energy bloat removed without slowdown: ${fixed(2)(r.intrinsic.savingPct)} % (${fixed(2)(r.intrinsic.split.savingPct)} % with two clocks per computation).</p>`,
    htmlTable(
      head.columns,
      head.rows,
      'Plans against the all-max-clock iteration',
    ),
  ];
  if (r.extrinsic) {
    const e = r.extrinsic;
    parts.push(
      `<p>Straggler at ${fixed(4)(e.deadlineS)} s (×${fixed(3)(e.slowdownFactor)}): this pipeline's plan takes ${fixed(4)(e.plannedTimeS)} s and then waits; ` +
        `it saves ${fixed(2)(e.savingPct)} % against the all-max-clock pipeline waiting as long (${fixed(2)(e.extrinsicSavingPct)} % beyond the intrinsic plan).</p>`,
    );
  }
  parts.push(
    '<div class="row">',
    figure('plan-frontier', front, 'Iteration time–energy frontier (estimated): one clock per computation (solid), two clocks per computation (dashed; also the lower bound of one-clock plans), and named plans.'),
    figure('plan-extrinsic', extrinsic, 'Energy saved per non-straggler pipeline against the straggler slowdown (estimated; Perseus Figure 8).'),
    '</div>',
  );
  return parts.join('\n');
}

const KIND_TITLES: Record<ReportResult['kind'], string> = {
  replay: 'Replay',
  'gpu-clock-sweep': 'GPU clock sweep',
  'network-sweep': 'Network DVFS sweep',
  accuracy: 'Model accuracy',
  'case-study': 'Case study',
  plan: 'Clock plan',
  'layer-clock-study': 'Layer clock study',
};

async function sectionBody(r: ReportResult): Promise<string> {
  switch (r.kind) {
    case 'replay':
      return replaySection(r);
    case 'gpu-clock-sweep':
      return gpuSweepSection(r);
    case 'network-sweep':
      return networkSweepSection(r);
    case 'accuracy':
      return accuracySection(r);
    case 'case-study':
      return caseStudySection(r);
    case 'plan':
      return planSection(r);
    case 'layer-clock-study':
      return layerStudySection(r, { table: htmlTable, figure, escape: escapeHtml });
    default: {
      const never: never = r;
      throw new Error(`unhandled result kind ${(never as { kind: string }).kind}`);
    }
  }
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;margin:0;background:#fafafa}
header,main,footer{max-width:1180px;margin:0 auto;padding:0 20px}
header{padding-top:18px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:19px;margin:0 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#666;margin:0 0 10px}
.estimates{background:#fff6e0;border-left:4px solid #f0a500;padding:8px 12px;margin:8px 0}
nav ol{margin:6px 0 14px;padding-left:22px}
section.result{background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:14px 18px;margin:16px 0;min-width:0}
.kind{color:#888;font-weight:normal;font-size:14px}
table{border-collapse:collapse;margin:8px 16px 12px 0;font-size:13px;background:#fff}
caption{text-align:left;font-weight:600;padding:2px 0 4px}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
td{white-space:nowrap}
th{min-width:6em;max-width:16em}
th{background:#f2f2f2;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.tables{display:flex;flex-wrap:wrap;align-items:flex-start}
.table-scroll{max-width:100%;overflow-x:auto}
.takeaway{font-weight:600;margin:10px 0 2px;color:#234}
.finding.layout{background:#f5f8ee;border-left-color:#54a24b}
.row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
figure.plot{margin:8px 0;max-width:100%;overflow-x:auto}
figure.plot svg{display:block;max-width:none}
figcaption{color:#555;font-size:12px;margin-top:2px}
details{margin:6px 0}
summary{cursor:pointer;color:#345}
.finding{background:#eef5ff;border-left:4px solid #4c78a8;padding:8px 12px}
footer{color:#888;font-size:12px;padding-bottom:24px}
`;

/** The whole page as one HTML string. Sections follow the order of `results`. */
export async function buildReport(results: readonly ReportResult[], options: ReportOptions = {}): Promise<string> {
  const title = options.title ?? 'tracewatt report';
  const version = options.version ?? tracewattVersion();
  const bodies = await Promise.all(results.map(sectionBody));
  const sections = results.map(
    (r, i) =>
      `<section class="result" id="result-${i + 1}" data-kind="${r.kind}">\n` +
      `<h2>${escapeHtml(r.label)} <span class="kind">· ${KIND_TITLES[r.kind]}</span></h2>\n${bodies[i]}\n</section>`,
  );
  const toc = results.map((r, i) => `<li><a href="#result-${i + 1}">${escapeHtml(r.label)}</a> <span class="kind">${KIND_TITLES[r.kind]}</span></li>`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="tracewatt ${escapeHtml(version)}">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<p class="meta">tracewatt ${escapeHtml(version)} · ${results.length} result${results.length === 1 ? '' : 's'}${
    options.generatedAt ? ` · generated ${escapeHtml(options.generatedAt)}` : ''
  }</p>
<p class="estimates"><strong>Estimates.</strong> Energy, power and time figures on this page are modelled by tracewatt
(Chakra traces replayed with the GPU power and time model each result names, and configured network energy per bit),
not measured; headers and axes say "estimated" where this applies. Only the model-accuracy tables compare the model
with measurements.</p>
<nav><ol>${toc.join('')}</ol></nav>
</header>
<main>
${sections.join('\n')}
</main>
<footer>Made by tracewatt ${escapeHtml(version)}. Self-contained page: no scripts, no external resources.</footer>
</body>
</html>
`;
}

/**
 * One self-contained HTML page for a list of results: inline CSS, inline SVG plots, no scripts and no external
 * URLs, so it opens from disk or an e-mail attachment. Output depends only on the inputs and options.
 */
import {
  clockFrontSpec,
  layoutSharesSpec,
  knobOverviewSpec,
  byNameSpec,
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
import { sensitivityMapSection } from './sensitivity-map-html.js';
import type { HtmlParts } from './a30-layers-html.js';
import { measuredGroups, measuredSection, type MeasuredGroup } from './measured-html.js';
import { breakdown, ENERGY_PARTS, energyDefinitions, TIME_DEFINITIONS } from '../engines/replay/ledger.js';
import { planHeadlineRows } from './plan-text.js';
import { formatRows, signedFixed, significant, SWEEP_EDGE_DEFINITION, type Cell, type Column } from './tables.js';
import { knobNote } from './case-study-text.js';
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
  const body = text
    .map((r) => `<tr>${r.map((cell, i) => `<td${cls(i)}>${escapeHtml(cell)}</td>`).join('')}</tr>`)
    .join('\n');
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
/** Numbers to 3 significant digits (3.7e-5 J stays 0.000037, not 0.00): never fixed decimals. */
const sig = significant(3);
/** Units in table headers, as the terminal tables write them ("energy (J, est.)"). */
const J = 'J, est.';
const S = 's, est.';

function breakdownRows(
  e: EnergyBreakdownJ,
  band?: Pick<EnergyBandJ, 'computeP10' | 'computeP90' | 'totalP10' | 'totalP90'>,
): Cell[][] {
  const parts = [...ENERGY_PARTS, 'total'] as const;
  const bounds = (k: (typeof parts)[number]): Cell[] =>
    !band
      ? []
      : k === 'compute'
        ? [band.computeP10, band.computeP90]
        : k === 'total'
          ? [band.totalP10, band.totalP90]
          : [null, null];
  return parts.map((k) => [k, e[k], e.total > 0 ? pct(e[k] / e.total) : null, ...bounds(k)]);
}

/** One bar per rank, or per group of consecutive ranks (mean per rank) when there are many ranks. */
function rankBars(ranks: ReplayRecord['ranks']): { bars: BreakdownBar[]; title: string } {
  const sorted = [...ranks].sort((a, b) => a.rank - b.rank);
  if (sorted.length <= MAX_RANK_BARS)
    return { bars: sorted.map((r) => ({ label: String(r.rank), energyJ: r.energyJ })), title: 'rank' };
  const size = Math.ceil(sorted.length / MAX_RANK_BARS);
  const bars: BreakdownBar[] = [];
  for (let i = 0; i < sorted.length; i += size) {
    const group = sorted.slice(i, i + size);
    const mean = (k: keyof EnergyBreakdownJ) => group.reduce((a, r) => a + r.energyJ[k], 0) / group.length;
    bars.push({
      label: `${group[0]!.rank}–${group[group.length - 1]!.rank}`,
      energyJ: breakdown({
        compute: mean('compute'),
        memory: mean('memory'),
        communication: mean('communication'),
        network: mean('network'),
        idle: mean('idle'),
        host: mean('host'),
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
  const [plot, byName] = await Promise.all([
    renderSvg(energyBreakdownSpec(bars, { title: 'Energy per rank by component', categoryTitle: title })),
    r.byName && r.byName.length > 0 ? renderSvg(byNameSpec(r.byName)) : Promise.resolve(null),
  ]);
  const dimRows = r.bytesSentPerDim.map((bytes, d) => [
    d,
    r.dimensionNames?.[d] ?? '',
    bytes / 1e9,
    r.networkEnergyPerDimJ?.[d] ?? null,
  ]);
  const rankRows = [...r.ranks]
    .sort((a, b) => a.rank - b.rank)
    .map((k) => [
      k.rank,
      k.finishNs / 1e9,
      k.exposedCommNs / 1e9,
      k.waitNs / 1e9,
      ...ENERGY_PARTS.map((p) => k.energyJ[p]),
      k.energyJ.total,
    ]);
  return [
    `<p>Makespan ${sig(r.makespanNs / 1e9)} s, total energy ${sig(r.energyJ.total)} J (estimated); ` +
      `${sig(pct(r.overlapShare))} % of communication time hidden behind compute (in the time table, the same overlap is a share of makespan × ranks).</p>`,
    '<div class="tables">',
    htmlTable(
      [
        { header: 'component' },
        { header: `energy (${J})`, format: sig },
        { header: 'share of total (%)', format: sig },
        ...(r.energyBandJ
          ? [
              { header: `p10 (${J})`, format: sig },
              { header: `p90 (${J})`, format: sig },
            ]
          : []),
      ],
      breakdownRows(r.energyJ, r.energyBandJ),
      r.energyBandJ
        ? "Energy, all ranks; 10–90 % band of compute from the nodes' bands (nodes of one name err together, names independently)"
        : 'Energy, all ranks',
    ),
    definitionList('Energy parts', energyDefinitions(r.settings?.ledger)),
    htmlTable(
      [
        { header: 'quantity' },
        { header: `summed over ranks (${S})`, format: sig },
        { header: `mean per rank (${S})`, format: sig },
        { header: 'share of makespan × ranks (%)', format: sig },
      ],
      timeRows,
      'Time: GPU compute, exposed communication, host exposed, remote memory exposed and wait split makespan × ranks',
    ),
    definitionList('Time', TIME_DEFINITIONS),
    htmlTable(
      [
        { header: 'dimension' },
        { header: 'name' },
        { header: 'data sent (GB)', format: sig },
        { header: `network energy (${J})`, format: sig },
      ],
      dimRows,
      'Traffic per network dimension',
    ),
    '</div>',
    ...(byName
      ? [
          figure(
            'energy-by-name',
            byName,
            'Energy of the largest kernels, ops and collectives (collectives by type, size and process group), stacked by ledger part; "(idle)" and "(network static)" belong to no node. All rows add up to the total above (estimated).',
          ),
        ]
      : []),
    figure('energy-per-rank', plot, 'Energy per rank, stacked by component (estimated).'),
    `<details><summary>Per-rank table (${r.ranks.length} rank${r.ranks.length === 1 ? '' : 's'})</summary>`,
    htmlTable(
      [
        { header: 'rank' },
        { header: `finish (${S})`, format: sig },
        { header: `exposed comm (${S})`, format: sig },
        { header: `wait (${S})`, format: sig },
        ...ENERGY_PARTS.map((p): Column => ({ header: `${p} (${J})`, format: sig })),
        { header: `total (${J})`, format: sig },
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
    p.clockMHz === r.energyOptimalMHz
      ? `energy-optimal ${p.clockMHz} MHz`
      : p.clockMHz === r.timeOptimalMHz
        ? `time-optimal ${p.clockMHz} MHz`
        : '';
  const [uCurve, front] = await Promise.all([
    renderSvg(
      energyVsClockSpec(points, {
        title: 'Energy vs SM clock',
        energyOptimalMHz: r.energyOptimalMHz,
        timeOptimalMHz: r.timeOptimalMHz,
      }),
    ),
    renderSvg(
      paretoSpec(
        points.map((p) => ({
          label: `${p.clockMHz} MHz`,
          timeS: p.timeS,
          energyJ: p.energyJ.total,
          pareto: p.pareto,
          note: note(p),
        })),
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
          { header: 'energy saved (%)', format: sig },
          { header: 'runtime penalty (%)', format: sig },
          { header: `energy saved (${J})`, format: sig },
          { header: `extra time (${S})`, format: sig },
        ],
        [[tOpt.clockMHz, eOpt.clockMHz, pct(savedJ / tOpt.energyJ.total), pct(extraS / tOpt.timeS), savedJ, extraS]],
        'Energy saved vs runtime penalty, fastest to lowest-energy Pareto point',
      ),
    );
  }
  parts.push(
    '<div class="row">',
    figure(
      'energy-vs-clock',
      uCurve,
      'Total and per-component energy against SM clock (estimated); dashed lines mark the optimal clocks.',
    ),
    figure('pareto-front', front, 'Each clock as a time–energy point (estimated); grey points are dominated.'),
    '</div>',
    `<details><summary>All ${points.length} clocks</summary>`,
    htmlTable(
      [
        { header: 'SM clock (MHz)' },
        { header: `time (${S})`, format: sig },
        ...ENERGY_PARTS.map((p): Column => ({ header: `${p} (${J})`, format: sig })),
        { header: `total (${J})`, format: sig },
        { header: 'Pareto', align: 'left' },
        ...(banded
          ? [
              { header: `total p10 (${J})`, format: sig },
              { header: `total p90 (${J})`, format: sig },
            ]
          : []),
      ],
      points.map((p) => [
        p.clockMHz,
        p.timeS,
        ...ENERGY_PARTS.map((k) => p.energyJ[k]),
        p.energyJ.total,
        p.pareto,
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
    renderSvg(
      networkSweepSpec(points, {
        title: `Network dimension ${r.dimension}: energy and makespan change vs frequency scale`,
        dimension: r.dimension,
      }),
    ),
    renderSvg(
      networkSweepChangeSpec(points, {
        title: 'What changes: energy per component against nominal',
        dimension: r.dimension,
      }),
    ),
  ]);
  const columns: Column[] = [
    { header: 'scale (× nominal)', format: sig },
    { header: 'bandwidth (GB/s)', format: sig },
    { header: 'energy per bit (pJ/bit)', format: sig },
    { header: 'V/V(1)', format: sig },
    { header: `makespan (${S})`, format: sig },
    ...Array.from({ length: dims }, (_, d): Column => ({ header: `network dim ${d} (${J})`, format: sig })),
    { header: `communication (${J})`, format: sig },
    { header: `idle (${J})`, format: sig },
    { header: `total (${J})`, format: sig },
    { header: 'ΔE/ΔT vs next scale (W)', format: sig },
    { header: 'energy saved per 1 % slowdown (%)', format: sig },
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
    figure(
      'network-sweep',
      sweep,
      'Total energy and makespan against the frequency scale of the swept dimension, as change against nominal (estimated); grey points are dominated.',
    ),
    figure(
      'network-sweep-breakdown',
      bars,
      'Change of each energy component against nominal, per frequency scale (estimated).',
    ),
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
        { header: 'time MAPE (%)', format: sig },
        { header: 'power MAPE (%)', format: sig },
        { header: 'energy MAPE (%)', format: sig },
        { header: 'n (kernels)' },
        ...(covered
          ? [
              { header: 'time in 10–90 % band (%)', format: sig },
              { header: 'energy in 10–90 % band (%)', format: sig },
            ]
          : []),
      ],
      rows.map((x) => [
        x.frequencyMHz,
        x.timeErrorPct,
        x.powerErrorPct,
        x.energyErrorPct,
        x.n,
        ...(covered ? [x.timeCoveragePct ?? null, x.energyCoveragePct ?? null] : []),
      ]),
    ),
    ...(r.advice ? [`<p>Advice: ${escapeHtml(describeAdvice(r.advice))}.</p>`] : []),
    figure('accuracy', plot, "Mean absolute percentage error of the model's time, power and energy per SM clock."),
  ].join('\n');
}

const signedPct = (x: number, digits = 2) => `${signedFixed(digits)(x)} %`;
const sharePct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)} %`;

/** The one-line takeaways above the case study's plots, from its numbers. */
function caseStudyTakeaways(r: CaseStudySummary): Record<string, string> {
  const ls = r.layouts;
  const each = (f: (l: CaseStudySummary['layouts'][number]) => string) =>
    ls.map((l) => `${f(l)} (${l.name})`).join(', ');
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
    shares:
      `GPU power while only communication runs is ${each((l) => sharePct(l.nominal.shares.communicationEnergy))} of the energy, idle ` +
      `${each((l) => sharePct(l.nominal.shares.idleEnergy))}; the scale-out links only ${each((l) => sharePct(l.nominal.shares.scaleOutEnergy, 2))}.`,
    marginal: `Largest saving: ${top.k.name} in ${top.l.name}, ${signedPct(top.k.best.energyChangePct)} energy at ${signedPct(top.k.best.timeChangePct)} time; scale-out DVFS changes energy by at most ${soMax.toFixed(2)} %.`,
    front: `Lowest-energy SM clock: ${each((l) => {
      const k = knob(l, 'gpu-clock');
      return `${k.best.setting} MHz, ${signedPct(k.best.energyChangePct)} energy, ${signedPct(k.best.timeChangePct)} time`;
    })}.`,
    network: `Halving the scale-out links' frequency (s = ${slowest(ls[0]!).setting}) costs ${each((l) => `${signedPct(slowest(l).timeChangePct)} time, ${signedPct(slowest(l).energyChangePct)} energy`)}.`,
    ranks:
      `Exposed communication (no GPU compute running) is ${each((l) => sharePct(l.nominal.shares.exposedCommunication))} of communication time, ` +
      `the rest hidden behind compute; waiting (pipeline bubbles, stragglers) is ${each((l) => sharePct(waitShare(l)))} of rank time.`,
  };
}

/**
 * The case study's finding in one sentence, from its numbers: the knob that saves most and what it costs, and how
 * far the other knobs move energy at most (over every layout and setting).
 */
export function caseStudyHeadline(r: CaseStudySummary): string {
  const all = r.layouts.flatMap((l) => l.knobs.map((k) => ({ l, k })));
  const top = all.reduce((a, b) => (b.k.best.energyChangePct < a.k.best.energyChangePct ? b : a));
  const setting = (k: CaseStudySummary['layouts'][number]['knobs'][number]) =>
    k.settingUnit === 'MHz' ? `${k.best.setting} MHz` : `s = ${k.best.setting}`;
  const others = [...new Set(all.map((x) => x.k.id))]
    .filter((id) => id !== top.k.id)
    .map((id) => {
      const ks = all.filter((x) => x.k.id === id);
      const most = Math.max(...ks.flatMap((x) => x.k.points.map((p) => Math.abs(p.energyChangePct))));
      return `${ks[0]!.k.name} by at most ${sig(most)} %`;
    });
  return (
    `${top.k.name} is the knob that matters: at ${setting(top.k)} it changes energy by ${signedPct(top.k.best.energyChangePct, 1)} ` +
    `for ${signedPct(top.k.best.timeChangePct, 1)} time (${top.l.name}); ${others.join(', ')} (estimated).`
  );
}

/** Key numbers per layout under the first figure: iteration time and energy, each knob's lowest-energy setting. */
function caseStudyKeyNumbers(r: CaseStudySummary): string {
  const knobs = r.layouts[0]!.knobs;
  return htmlTable(
    [
      { header: 'layout' },
      { header: 'iteration (s)', format: sig },
      { header: 'energy (MJ)', format: sig },
      ...knobs.map((k): Column => ({ header: `${k.name}: best ΔE / ΔT`, align: 'left' })),
    ],
    r.layouts.map((l) => [
      l.name,
      l.nominal.makespanS,
      l.nominal.energyJ.total / 1e6,
      ...l.knobs.map(
        (k) =>
          `${signedPct(k.best.energyChangePct, 2)} / ${signedPct(k.best.timeChangePct, 2)} (${k.settingUnit === 'MHz' ? `${k.best.setting} MHz` : `s = ${k.best.setting}`})`,
      ),
    ]),
    'Key numbers at the nominal point (estimated); best = the lowest-energy setting swept',
  );
}

async function caseStudySection(r: CaseStudySummary): Promise<string> {
  const [overview, shares, front, network, ranks] = await Promise.all([
    renderSvg(knobOverviewSpec(r.layouts)),
    renderSvg(layoutSharesSpec(r.layouts)),
    renderSvg(clockFrontSpec(r.layouts)),
    renderSvg(networkKnobsSpec(r.layouts)),
    renderSvg(rankTimeSpec(r.layouts)),
  ]);
  const t = caseStudyTakeaways(r);
  const gpu = r.system.find((line) => line.startsWith('GPU:')) ?? '';
  const source = /datasheet/i.test(gpu)
    ? 'kernel times and energies from the datasheet calibration, not fitted to a measurement'
    : 'kernel times and energies from the GPU calibration named under Method';
  const parts = [
    `<p class="headline">${escapeHtml(caseStudyHeadline(r))}</p>`,
    figure(
      'case-knobs',
      overview,
      'Every setting of the three knobs against nominal, all on one scale; bars: the 10–90 % energy band (network: 0.5–2× energy per bit; GPU: calibration error). Left of and below the cross = faster and cheaper.',
    ),
    caseStudyKeyNumbers(r),
    `<p class="finding"><strong>Finding.</strong> ${escapeHtml(r.finding)}</p>`,
    ...r.layouts.map((l) => {
      const [head, ...rest] = l.finding.split('. ');
      return `<p class="finding layout"><strong>${escapeHtml(head!)}.</strong> ${escapeHtml(rest.join('. '))}</p>`;
    }),
    figure(
      'case-shares',
      shares,
      'Energy of one iteration by component, % of its total, at the nominal point (estimated); slices under 1 % are named beside the bar.',
      t.shares,
    ),
    figure(
      'case-clock-front',
      front,
      `Iteration time and energy at each SM clock (${source}); grey points are dominated; labelled: the ends of the sweep and the lowest-energy clock.`,
      t.front,
    ),
    figure(
      'case-network',
      network,
      'Change against nominal of both network knobs; each row on its own axis spanning at least ±1 %, so small effects look small.',
      t.network,
    ),
    figure(
      'case-ranks',
      ranks,
      `Per-rank time at nominal as shares of the rank's time (from the replay of ${r.layouts.map((l) => l.extrapolation.replayedMicroBatches[1]).join(' / ')} micro-batches; the page's times are for the full iteration): GPU compute, exposed communication (no GPU compute running), host (CPU only) and waiting.`,
      t.ranks,
    ),
    await sensitivityMapSection(r.sensitivity, { table: htmlTable, figure, escape: escapeHtml }),
    '<details class="method"><summary>Method, definitions and all numbers</summary>',
    `<ul class="system">${r.system.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`,
    `<ul>${r.definitions.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>`,
    htmlTable(
      [
        { header: 'layout' },
        { header: 'micro-batches per pipeline' },
        { header: 'iteration (s)', format: sig },
        { header: 'energy (MJ)', format: sig },
        { header: 'network energy (%)', format: sig },
        { header: 'scale-out links (%)', format: sig },
        { header: 'comm. hidden (%)', format: sig },
        { header: 'comm. exposed (%)', format: sig },
        { header: 'comm. energy (%)', format: sig },
        { header: 'idle energy (%)', format: sig },
        { header: 'extrapolation error, time / energy (%)' },
      ],
      r.layouts.map((l) => {
        const s = l.nominal.shares;
        const x = l.extrapolation;
        return [
          l.name,
          l.microBatches,
          l.nominal.makespanS,
          l.nominal.energyJ.total / 1e6,
          pct(s.networkEnergy),
          pct(s.scaleOutEnergy),
          pct(s.hiddenCommunication),
          pct(s.exposedCommunication),
          pct(s.communicationEnergy),
          pct(s.idleEnergy),
          `${x.makespanErrorPct.toExponential(1)} / ${x.energyErrorPct.toExponential(1)} (at ${x.checkMicroBatches})`,
        ];
      }),
      'Nominal point per layout (estimated): energy shares of the total; hidden and exposed communication as shares of communication time',
    ),
    htmlTable(
      [
        { header: 'layout' },
        { header: 'knob' },
        { header: 'setting' },
        { header: 'ΔT (%)', format: sig },
        { header: 'ΔE (%)', format: sig },
        { header: 'ΔE 10 % (%)', format: sig },
        { header: 'ΔE 90 % (%)', format: sig },
        { header: 'saved per 1 % slower (%)', format: sig },
        { header: 'ΔE/ΔT (W)', format: sig },
        { header: 'note', align: 'left' },
      ],
      r.layouts.flatMap((l) =>
        l.knobs.flatMap((k) =>
          k.points.map((p) => [
            l.name,
            k.name,
            k.settingUnit === 'MHz' ? `${p.setting} MHz` : `s = ${p.setting}`,
            p.timeChangePct,
            p.energyChangePct,
            p.energyChangeBandPct[0],
            p.energyChangeBandPct[1],
            p.energySavedPctPerSlowdownPct,
            p.deltaEnergyPerDeltaTimeW,
            knobNote(k, p.setting),
          ]),
        ),
      ),
      `Every knob setting against nominal (estimated); ${SWEEP_EDGE_DEFINITION}`,
    ),
    `<ul class="notes">${r.layouts[0]!.knobs.map((k) => `<li>${escapeHtml(k.name)}: ${escapeHtml(k.uncertainty)}</li>`).join('')}</ul>`,
    '</details>',
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
    ...(r.extrinsic
      ? [
          {
            name: "straggler's deadline",
            timeS: r.extrinsic.plannedTimeS,
            energyJ:
              r.extrinsic.plannedEnergyJ -
              (r.extrinsic.deadlineS - r.extrinsic.plannedTimeS) * r.blockingPowerW * r.stages,
          },
        ]
      : []),
  ];
  const [front, extrinsic] = await Promise.all([
    renderSvg(
      frontierSpec({
        title: 'Iteration time–energy frontier',
        frontier: r.frontier,
        splitFrontier: r.splitFrontier,
        markers,
      }),
    ),
    renderSvg(extrinsicSpec(r.extrinsicCurve, 'Energy saved when another pipeline straggles')),
  ]);
  const head = planHeadlineRows(r);
  const parts = [
    `<p>${escapeHtml(r.schedule)} pipeline, ${r.stages} stages × ${r.microBatches} micro-batches, blocking power ${r.blockingPowerW} W; ` +
      `${r.source.mode === 'fit' ? `options modelled from ${escapeHtml(r.source.fitClocksMHz?.join(', ') ?? '')} MHz` : `options at ${r.source.clocksMHz.length} clocks`}. ` +
      `Intrinsic energy bloat removed without slowdown: ${sig(r.intrinsic.savingPct)} % (${sig(r.intrinsic.split.savingPct)} % with two clocks per computation).</p>`,
    htmlTable(head.columns, head.rows, 'Plans against the all-max-clock iteration'),
  ];
  if (r.extrinsic) {
    const e = r.extrinsic;
    parts.push(
      `<p>Straggler at ${sig(e.deadlineS)} s (×${sig(e.slowdownFactor)}): this pipeline's plan takes ${sig(e.plannedTimeS)} s and then waits; ` +
        `it saves ${sig(e.savingPct)} % against the all-max-clock pipeline waiting as long (${sig(e.extrinsicSavingPct)} % beyond the intrinsic plan).</p>`,
    );
  }
  parts.push(
    '<div class="row">',
    figure(
      'plan-frontier',
      front,
      'Iteration time–energy frontier (estimated): one clock per computation (solid), two clocks per computation (dashed; also the lower bound of one-clock plans), and named plans.',
    ),
    figure(
      'plan-extrinsic',
      extrinsic,
      'Energy saved per non-straggler pipeline against the straggler slowdown (estimated; Perseus Figure 8).',
    ),
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
header{padding-top:10px}
h1{font-size:22px;margin:0 0 2px}
h2{font-size:19px;margin:0 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#666;margin:0 0 4px}
.estimates{background:#fff6e0;border-left:4px solid #f0a500;padding:4px 10px;margin:4px 0;font-size:13px}
nav ol{margin:6px 0 14px;padding-left:22px}
section.result{background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:10px 18px;margin:10px 0;min-width:0}
.headline{font-size:17px;font-weight:600;margin:4px 0 6px;color:#123}
details.method{border-top:1px solid #ddd;padding-top:6px;margin-top:12px}
.kind{color:#888;font-weight:normal;font-size:14px}
table{border-collapse:collapse;margin:8px 16px 12px 0;font-size:13px;background:#fff}
caption{text-align:left;font-weight:600;padding:2px 0 4px}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
td.num,td:first-child{white-space:nowrap}
th{min-width:4.5em;max-width:16em}
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

/** One section of the page: a result, or an imported run's measurement beside its replays. */
interface PageSection {
  id: string;
  kind: string;
  kindTitle: string;
  label: string;
  body: string;
}

/** The run a group of replays shares: the as-measured label without " as measured", else a modelled one without " on <network>". */
function measuredGroupLabel(g: MeasuredGroup): string {
  return g.asMeasured ? g.asMeasured.label.replace(/ as measured$/, '') : g.modelled[0]!.label.replace(/ on .+$/, '');
}

/** The whole page as one HTML string. Sections follow the order of `results`; an imported run's measured-beside-modelled section comes before its first replay. */
export async function buildReport(results: readonly ReportResult[], options: ReportOptions = {}): Promise<string> {
  const title = options.title ?? 'tracewatt report';
  const version = options.version ?? tracewattVersion();
  const parts: HtmlParts = { table: htmlTable, figure, escape: escapeHtml };
  const groups = measuredGroups(results);
  const [bodies, groupBodies] = await Promise.all([
    Promise.all(results.map(sectionBody)),
    Promise.all(groups.map((g) => measuredSection(g, parts))),
  ]);
  const page: PageSection[] = [];
  results.forEach((r, i) => {
    groups.forEach((g, j) => {
      if (g.indexes[0] === i)
        page.push({
          id: `measured-${j + 1}`,
          kind: 'measured',
          kindTitle: 'Measured beside modelled',
          label: measuredGroupLabel(g),
          body: groupBodies[j]!,
        });
    });
    page.push({
      id: `result-${i + 1}`,
      kind: r.kind,
      kindTitle: KIND_TITLES[r.kind],
      label: r.label,
      body: bodies[i]!,
    });
  });
  const sections = page.map(
    (s) =>
      `<section class="result" id="${s.id}" data-kind="${s.kind}">\n` +
      `<h2>${escapeHtml(s.label)} <span class="kind">· ${s.kindTitle}</span></h2>\n${s.body}\n</section>`,
  );
  const toc = page.map(
    (s) => `<li><a href="#${s.id}">${escapeHtml(s.label)}</a> <span class="kind">${s.kindTitle}</span></li>`,
  );
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
<p class="estimates"><strong>Estimates.</strong> Energy, power and time on this page are modelled by tracewatt, not measured
(only ${groups.length ? 'the measured-beside-modelled sections and ' : ''}the model-accuracy tables compare with measurements).</p>
${page.length > 1 ? `<nav><ol>${toc.join('')}</ol></nav>` : ''}
</header>
<main>
${sections.join('\n')}
</main>
<footer>Made by tracewatt ${escapeHtml(version)}. Self-contained page: no scripts, no external resources.</footer>
</body>
</html>
`;
}

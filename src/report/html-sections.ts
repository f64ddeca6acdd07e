/**
 * The HTML report's section for each result kind but the case studies (case-study-html.ts, a30-layers-html.ts):
 * tables and SVG plots built from the record's fields. The result-kind registry (kinds.ts) names them.
 */
import {
  byNameSpec,
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
import { breakdown, ENERGY_PARTS, energyDefinitions, TIME_DEFINITIONS } from '../engines/replay/ledger.js';
import { planHeadlineRows } from './plan-text.js';
import { significant, type Cell, type Column } from './tables.js';
import type {
  AccuracyTable,
  EnergyBandJ,
  EnergyBreakdownJ,
  GpuClockPoint,
  GpuClockSweepResult,
  NetworkSweepResult,
  PlanSummary,
  ReplayRecord,
} from './types.js';
import { definitionList, escapeHtml, figure, htmlTable } from './html-parts.js';
/** Ranks drawn one bar each up to this count; beyond it consecutive ranks are grouped. */
const MAX_RANK_BARS = 64;

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

export async function replaySection(r: ReplayRecord): Promise<string> {
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
      `${sig(pct(r.overlapShare))} % of communication time hidden behind compute (in the time table, the same ` +
      `overlap is a share of makespan × ranks).</p>`,
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
        ? "Energy, all ranks; 10–90 % band of compute from the nodes' bands (nodes of one name err together, " +
            'names independently)'
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
            'Energy of the largest kernels, ops and collectives (collectives by type, size and process group), ' +
              'stacked by ledger part; "(idle)" and "(network static)" belong to no node. All rows add up to the ' +
              'total above (estimated).',
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

export async function gpuSweepSection(r: GpuClockSweepResult): Promise<string> {
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

export async function networkSweepSection(r: NetworkSweepResult): Promise<string> {
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
    `<p>${points.length} frequency scales of dimension ${r.dimension}; ${dominated} dominated (never worth ` +
      `taking: another scale is at least as fast and as cheap).</p>`,
    '<div class="row">',
    figure(
      'network-sweep',
      sweep,
      'Total energy and makespan against the frequency scale of the swept dimension, as change against nominal ' +
        '(estimated); grey points are dominated.',
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

export async function accuracySection(r: AccuracyTable): Promise<string> {
  const rows = [...r.frequencies].sort((a, b) => a.frequencyMHz - b.frequencyMHz);
  const plot = await renderSvg(accuracySpec(rows, { title: 'Model error per SM clock (MAPE)' }));
  // Band coverage: the share of kernels whose measurement lies in the predicted 10–90 % band.
  const covered = rows.some((x) => typeof x.timeCoveragePct === 'number' || typeof x.energyCoveragePct === 'number');
  return [
    `<p>Model against measurement` +
      `${r.referenceClockMHz !== undefined ? `, profiled once at ${r.referenceClockMHz} MHz` : ''}. ` +
      'Errors are mean absolute percentage errors (MAPE) over the kernels at each clock: |model / measured − 1|, ' +
      'so they say how far off the model is, not in which direction. These are measured differences, not ' +
      'estimates.</p>',
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

export async function planSection(r: PlanSummary): Promise<string> {
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
    `<p>${escapeHtml(r.schedule)} pipeline, ${r.stages} stages × ${r.microBatches} micro-batches, blocking ` +
      `power ${r.blockingPowerW} W; ` +
      (r.source.mode === 'fit'
        ? `options modelled from ${escapeHtml(r.source.fitClocksMHz?.join(', ') ?? '')} MHz`
        : `options at ${r.source.clocksMHz.length} clocks`) +
      `. ` +
      `Intrinsic energy bloat removed without slowdown: ${sig(r.intrinsic.savingPct)} % (` +
      `${sig(r.intrinsic.split.savingPct)} % with two clocks per computation).</p>`,
    htmlTable(head.columns, head.rows, 'Plans against the all-max-clock iteration'),
  ];
  if (r.extrinsic) {
    const e = r.extrinsic;
    parts.push(
      `<p>Straggler at ${sig(e.deadlineS)} s (×${sig(e.slowdownFactor)}): this pipeline's plan takes ` +
        `${sig(e.plannedTimeS)} s and then waits; ` +
        `it saves ${sig(e.savingPct)} % against the all-max-clock pipeline waiting as long (` +
        `${sig(e.extrinsicSavingPct)} % beyond the intrinsic plan).</p>`,
    );
  }
  parts.push(
    '<div class="row">',
    figure(
      'plan-frontier',
      front,
      'Iteration time–energy frontier (estimated): one clock per computation (solid), two clocks per ' +
        'computation (dashed; also the lower bound of one-clock plans), and named plans.',
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

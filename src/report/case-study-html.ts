/**
 * The HTML report's section for a case study: headline, key numbers, takeaways, plots per layout and knob, and the
 * sensitivity map when the study ran one.
 */
import {
  clockFrontSpec,
  layoutSharesSpec,
  knobOverviewSpec,
  networkKnobsSpec,
  rankTimeSpec,
  renderSvg,
} from './plots/index.js';
import { sensitivityMapSection } from './sensitivity-map-html.js';
import { signedFixed, significant, SWEEP_EDGE_DEFINITION, type Column } from './tables.js';
import { knobNote, knobPointFigures } from './case-study-text.js';
import type { CaseStudySummary } from './types.js';
import { escapeHtml, figure, HTML_PARTS, htmlTable } from './html-parts.js';
/** Numbers to 3 significant digits (3.7e-5 J stays 0.000037, not 0.00): never fixed decimals. */
const sig = significant(3);
const pct = (share: number) => share * 100;

const signedPct = (x: number, digits = 2) => `${signedFixed(digits)(x)} %`;
const sharePct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)} %`;

/** The nominal table's share columns (%): header and share. */
const NOMINAL_SHARES = [
  ['network energy (%)', 'networkEnergy'],
  ['scale-out links (%)', 'scaleOutEnergy'],
  ['comm. hidden (%)', 'hiddenCommunication'],
  ['comm. exposed (%)', 'exposedCommunication'],
  ['comm. energy (%)', 'communicationEnergy'],
  ['idle energy (%)', 'idleEnergy'],
] as const;

/** Headers of a knob setting's figures, in the order knobPointFigures gives them. */
const KNOB_FIGURE_HEADERS = ['ΔT (%)', 'ΔE (%)', 'ΔE 10 % (%)', 'ΔE 90 % (%)', 'saved per 1 % slower (%)', 'ΔE/ΔT (W)'];

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
      `GPU power while only communication runs is ` +
      `${each((l) => sharePct(l.nominal.shares.communicationEnergy))} of the energy, idle ` +
      `${each((l) => sharePct(l.nominal.shares.idleEnergy))}; the scale-out links only ` +
      `${each((l) => sharePct(l.nominal.shares.scaleOutEnergy, 2))}.`,
    marginal:
      `Largest saving: ${top.k.name} in ${top.l.name}, ${signedPct(top.k.best.energyChangePct)} energy at ` +
      `${signedPct(top.k.best.timeChangePct)} time; scale-out DVFS changes energy by at most ${soMax.toFixed(2)} ` +
      `%.`,
    front:
      `Lowest-energy SM clock: ` +
      each((l) => {
        const k = knob(l, 'gpu-clock');
        return (
          `${k.best.setting} MHz, ${signedPct(k.best.energyChangePct)} energy, ${signedPct(k.best.timeChangePct)}` +
          ` time`
        );
      }) +
      `.`,
    network:
      `Halving the scale-out links' frequency (s = ${slowest(ls[0]!).setting}) costs ` +
      each((l) => `${signedPct(slowest(l).timeChangePct)} time, ${signedPct(slowest(l).energyChangePct)} energy`) +
      `.`,
    ranks:
      `Exposed communication (no GPU compute running) is ` +
      `${each((l) => sharePct(l.nominal.shares.exposedCommunication))} of communication time, ` +
      `the rest hidden behind compute; waiting (pipeline bubbles, stragglers) is ` +
      `${each((l) => sharePct(waitShare(l)))} of rank time.`,
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
    `${top.k.name} is the knob that matters: at ${setting(top.k)} it changes energy by ` +
    `${signedPct(top.k.best.energyChangePct, 1)} ` +
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
          `${signedPct(k.best.energyChangePct, 2)} / ${signedPct(k.best.timeChangePct, 2)} (` +
          `${k.settingUnit === 'MHz' ? `${k.best.setting} MHz` : `s = ${k.best.setting}`})`,
      ),
    ]),
    'Key numbers at the nominal point (estimated); best = the lowest-energy setting swept',
  );
}

export async function caseStudySection(r: CaseStudySummary): Promise<string> {
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
      'Every setting of the three knobs against nominal, all on one scale; bars: the 10–90 % energy band ' +
        '(network: 0.5–2× energy per bit; GPU: calibration error). Left of and below the cross = faster and ' +
        'cheaper.',
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
      'Energy of one iteration by component, % of its total, at the nominal point (estimated); slices under 1 ' +
        '% are named beside the bar.',
      t.shares,
    ),
    figure(
      'case-clock-front',
      front,
      `Iteration time and energy at each SM clock (${source}); grey points are dominated; labelled: the ends ` +
        `of the sweep and the lowest-energy clock.`,
      t.front,
    ),
    figure(
      'case-network',
      network,
      'Change against nominal of both network knobs; each row on its own axis spanning at least ±1 %, so small ' +
        'effects look small.',
      t.network,
    ),
    figure(
      'case-ranks',
      ranks,
      `Per-rank time at nominal as shares of the rank's time (from the replay of ` +
        `${r.layouts.map((l) => l.extrapolation.replayedMicroBatches[1]).join(' / ')} micro-batches; the page's ` +
        `times are for the full iteration): GPU compute, exposed communication (no GPU compute running), host ` +
        `(CPU only) and waiting.`,
      t.ranks,
    ),
    await sensitivityMapSection(r.sensitivity, HTML_PARTS),
    '<details class="method"><summary>Method, definitions and all numbers</summary>',
    `<ul class="system">${r.system.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`,
    `<ul>${r.definitions.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>`,
    htmlTable(
      [
        { header: 'layout' },
        { header: 'micro-batches per pipeline' },
        { header: 'iteration (s)', format: sig },
        { header: 'energy (MJ)', format: sig },
        ...NOMINAL_SHARES.map(([header]) => ({ header, format: sig })),
        { header: 'extrapolation error, time / energy (%)' },
      ],
      r.layouts.map((l) => {
        const x = l.extrapolation;
        return [
          l.name,
          l.microBatches,
          l.nominal.makespanS,
          l.nominal.energyJ.total / 1e6,
          ...NOMINAL_SHARES.map(([, share]) => pct(l.nominal.shares[share])),
          `${x.makespanErrorPct.toExponential(1)} / ${x.energyErrorPct.toExponential(1)} (at ${x.checkMicroBatches})`,
        ];
      }),
      'Nominal point per layout (estimated): energy shares of the total; hidden and exposed communication as ' +
        'shares of communication time',
    ),
    htmlTable(
      [
        { header: 'layout' },
        { header: 'knob' },
        { header: 'setting' },
        ...KNOB_FIGURE_HEADERS.map((header) => ({ header, format: sig })),
        { header: 'note', align: 'left' },
      ],
      r.layouts.flatMap((l) =>
        l.knobs.flatMap((k) =>
          k.points.map((p) => [
            l.name,
            k.name,
            k.settingUnit === 'MHz' ? `${p.setting} MHz` : `s = ${p.setting}`,
            ...knobPointFigures(p),
            knobNote(k, p.setting),
          ]),
        ),
      ),
      `Every knob setting against nominal (estimated); ${SWEEP_EDGE_DEFINITION}`,
    ),
    `<ul class="notes">` +
      r.layouts[0]!.knobs.map((k) => `<li>${escapeHtml(k.name)}: ${escapeHtml(k.uncertainty)}</li>`).join('') +
      `</ul>`,
    '</details>',
  ];
  return parts.join('\n');
}

/**
 * Measured beside modelled in the report: an imported run's replays grouped with the measurement they share. An
 * as-measured replay (`replay --as-measured --json`) and the modelled replays of the same run (`replay --json` on the
 * imported trace; their ranks carry the same measuredIterationNs) form one group; per rank the page sets the measured
 * iteration beside the as-measured replay and each modelled replay with their errors, and, when a power log was
 * joined, the log's energy over the iteration beside the estimates. html.ts hands in its table and figure builders.
 */
import type { HtmlParts } from './a30-layers-html.js';
import { measuredBesideSpec, type MeasuredBar } from './plots/measured.js';
import { renderSvg } from './plots/render.js';
import { signedFixed, significant, type Cell, type Column } from './tables.js';
import type { ReplayRecord, ReportResult } from './types.js';

/** An imported run's measurement and the replays that share it. */
export interface MeasuredGroup {
  asMeasured: ReplayRecord | null;
  modelled: ReplayRecord[];
  /** Indexes of the records in the report's result list (the group is drawn before the first of them). */
  indexes: number[];
}

/** rank → measured iteration (ns) of a replay record, or null when no rank carries one. */
function measuredKey(r: ReplayRecord): string | null {
  const ranks = [...r.ranks].sort((a, b) => a.rank - b.rank);
  if (!ranks.some((k) => typeof k.measuredIterationNs === 'number')) return null;
  return ranks.map((k) => `${k.rank}:${k.measuredIterationNs ?? ''}`).join(',');
}

/**
 * Replay records grouped by the measurement they carry (the same ranks with the same measured iterations: the same
 * imported run). At most one as-measured replay per group (a second starts a group of its own); modelled replays join
 * the first group with their measurement.
 */
export function measuredGroups(results: readonly ReportResult[]): MeasuredGroup[] {
  const groups: (MeasuredGroup & { key: string })[] = [];
  results.forEach((r, i) => {
    if (r.kind !== 'replay') return;
    const key = measuredKey(r);
    if (key === null) return;
    const asMeasured = r.mode === 'as-measured';
    let g = groups.find((x) => x.key === key && (!asMeasured || x.asMeasured === null));
    if (!g) groups.push((g = { key, asMeasured: null, modelled: [], indexes: [] }));
    if (asMeasured) g.asMeasured = r;
    else g.modelled.push(r);
    g.indexes.push(i);
  });
  return groups.map(({ key: _key, ...g }) => g);
}

/** A modelled replay's short name in the legend: the network it ran on ("… on net.yml" → "modelled, net.yml"). */
function modelledName(r: ReplayRecord, i: number, all: readonly ReplayRecord[]): string {
  const on = / on (.+)$/.exec(r.label)?.[1];
  const base = on?.startsWith('one NPU') ? 'one NPU' : on ? on.split('/').pop()! : all.length > 1 ? String(i + 1) : '';
  const name = base ? `modelled, ${base}` : 'modelled';
  return name.length > 40 ? `${name.slice(0, 39)}…` : name;
}

/** "modelled, net.yml" → "modelled on net.yml", for sentences. */
const onName = (n: string) => n.replace(/^modelled, (.+)$/, 'modelled on $1');

const MEASURED = 'measured';
const AS_MEASURED = 'as-measured replay';
const sig = significant(4);
/** Errors with their sign, 3 significant digits from 1 up and 2 decimals below (+157, +57.3, −0.41, 0.00). */
const signedPct = (v: Cell) =>
  typeof v === 'number' && Number.isFinite(v)
    ? signedFixed(Math.max(0, 2 - Math.floor(Math.log10(Math.max(Math.abs(v), 1)))))(v)
    : '';
const errPct = (x: number | null | undefined, ref: number | null | undefined) =>
  typeof x === 'number' && typeof ref === 'number' && ref > 0 ? ((x - ref) / ref) * 100 : null;

/** The figures of one group, per rank: times (ms) and energies (J); null where a series has no value. */
export function measuredRows(g: MeasuredGroup) {
  const modelled = g.modelled.map((r) => new Map(r.ranks.map((k) => [k.rank, k])));
  const logged = new Map((g.asMeasured?.powerLog?.ranks ?? []).map((k) => [k.rank, k.energyJ]));
  const first = g.asMeasured ?? g.modelled[0]!;
  return [...first.ranks]
    .sort((a, b) => a.rank - b.rank)
    .map((k) => {
      const asm = g.asMeasured?.ranks.find((x) => x.rank === k.rank);
      return {
        rank: k.rank,
        measuredNs: k.measuredIterationNs ?? null,
        asMeasuredNs: asm?.finishNs ?? null,
        modelledNs: modelled.map((m) => m.get(k.rank)?.finishNs ?? null),
        loggedJ: logged.get(k.rank) ?? null,
        asMeasuredJ: asm?.energyJ.total ?? null,
        modelledJ: modelled.map((m) => m.get(k.rank)?.energyJ.total ?? null),
      };
    });
}

/** One sentence: the worst rank's time error of each replay, and the energies summed over the ranks against the log. */
export function measuredHeadline(g: MeasuredGroup): string {
  const rows = measuredRows(g);
  const names = g.modelled.map((r, i) => modelledName(r, i, g.modelled));
  const worst = (errs: (number | null)[]) => {
    const e = errs.filter((x): x is number => x !== null);
    return e.length ? e.reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a)) : null;
  };
  const measured = rows.filter((r) => r.measuredNs !== null);
  const span = measured.map((r) => r.measuredNs! / 1e6);
  const off = [
    ...(g.asMeasured
      ? [`as-measured ${signedPct(worst(rows.map((r) => errPct(r.asMeasuredNs, r.measuredNs))))} %`]
      : []),
    ...names.map(
      (n, i) => `${onName(n)} ${signedPct(worst(rows.map((r) => errPct(r.modelledNs[i], r.measuredNs))))} %`,
    ),
  ];
  let text =
    `Measured iteration ` +
    (measured.length === 1
      ? `${sig(span[0]!)} ms`
      : `${sig(Math.min(...span))}–${sig(Math.max(...span))} ms over ${measured.length} ranks`) +
    `; ` +
    `replay ${measured.length === 1 ? 'error' : 'error of the worst rank'}: ${off.join(', ')}.`;
  const logJ = rows.reduce((a, r) => a + (r.loggedJ ?? 0), 0);
  if (g.asMeasured?.powerLog && logJ > 0) {
    const est = [
      ...(g.asMeasured
        ? [`${sig(rows.reduce((a, r) => a + (r.asMeasuredJ ?? 0), 0))} J on the as-measured timeline`]
        : []),
      ...names.map((n, i) => `${sig(rows.reduce((a, r) => a + (r.modelledJ[i] ?? 0), 0))} J ${onName(n)}`),
    ];
    text +=
      ` Energy: the power log measured ${sig(logJ)} J over the iteration${rows.length > 1 ? 's' : ''}; ` +
      `estimated: ${est.join(', ')}.`;
  }
  return text;
}

/** The section: headline, figure, per-rank table, what each column means. */
export async function measuredSection(g: MeasuredGroup, h: HtmlParts): Promise<string> {
  const rows = measuredRows(g);
  const names = g.modelled.map((r, i) => modelledName(r, i, g.modelled));
  const series = [MEASURED, ...(g.asMeasured ? [AS_MEASURED] : []), ...names];
  const timeMs: MeasuredBar[] = [];
  const energyJ: MeasuredBar[] = [];
  const push = (out: MeasuredBar[], rank: number, s: string, v: number | null, scale = 1) => {
    if (v !== null) out.push({ rank, series: s, value: v * scale });
  };
  const logged = Boolean(g.asMeasured?.powerLog);
  for (const r of rows) {
    push(timeMs, r.rank, MEASURED, r.measuredNs, 1e-6);
    push(timeMs, r.rank, AS_MEASURED, r.asMeasuredNs, 1e-6);
    names.forEach((n, i) => push(timeMs, r.rank, n, r.modelledNs[i]!, 1e-6));
    if (logged) {
      push(energyJ, r.rank, MEASURED, r.loggedJ);
      push(energyJ, r.rank, AS_MEASURED, r.asMeasuredJ);
      names.forEach((n, i) => push(energyJ, r.rank, n, r.modelledJ[i]!));
    }
  }
  const svg = await renderSvg(measuredBesideSpec({ series, timeMs, energyJ }));
  const ms = (ns: number | null) => (ns === null ? null : ns / 1e6);
  const timeColumns: Column[] = [
    { header: 'rank' },
    { header: 'measured (ms)', format: sig },
    ...(g.asMeasured
      ? [
          { header: 'as-measured replay (ms)', format: sig },
          { header: 'error (%)', format: signedPct },
        ]
      : []),
    ...names.flatMap((n): Column[] => [
      { header: `${n} (ms, est.)`, format: sig },
      { header: 'error (%)', format: signedPct },
    ]),
  ];
  const timeRows: Cell[][] = rows.map((r) => [
    r.rank,
    ms(r.measuredNs),
    ...(g.asMeasured ? [ms(r.asMeasuredNs), errPct(r.asMeasuredNs, r.measuredNs)] : []),
    ...r.modelledNs.flatMap((ns) => [ms(ns), errPct(ns, r.measuredNs)]),
  ]);
  const energyColumns: Column[] = [
    { header: 'rank' },
    ...(logged ? [{ header: 'power log (J, measured)', format: sig }] : []),
    ...(g.asMeasured
      ? [
          { header: 'as-measured replay (J, est.)', format: sig },
          ...(logged ? [{ header: 'error (%)', format: signedPct }] : []),
        ]
      : []),
    ...names.flatMap((n): Column[] => [
      { header: `${n} (J, est.)`, format: sig },
      ...(logged ? [{ header: 'error (%)', format: signedPct }] : []),
    ]),
  ];
  const energyRows: Cell[][] = rows.map((r) => [
    r.rank,
    ...(logged ? [r.loggedJ] : []),
    ...(g.asMeasured ? [r.asMeasuredJ, ...(logged ? [errPct(r.asMeasuredJ, r.loggedJ)] : [])] : []),
    ...r.modelledJ.flatMap((j) => [j, ...(logged ? [errPct(j, r.loggedJ)] : [])]),
  ]);
  const sources = [
    ...(g.asMeasured
      ? [`as-measured replay: "${g.asMeasured.label}" (every node at its measured duration and delay)`]
      : []),
    ...g.modelled.map((r, i) => `${names[i]}: "${r.label}" (durations and collectives modelled)`),
  ];
  const defs = [
    'measured iteration: the ProfilerStep (or window) the import recorded, from its start to the later of its ' +
      'end and the end of the last GPU op starting in it',
    'error: (replay − measured) / measured; energy error: (estimate − power log) / power log',
    ...(logged
      ? [
          `power log energy: ${g.asMeasured!.powerLog!.file}` +
            `${g.asMeasured!.powerLog!.gpu ? ` (GPU ${g.asMeasured!.powerLog!.gpu})` : ''} integrated over each ` +
            `rank's measured iteration; ${g.asMeasured!.powerLog!.notes.join('; ')}`,
        ]
      : []),
    'estimates: the energy ledger on the replayed timeline (as-measured: no network modelled; modelled: up to ' +
      'the makespan)',
    ...sources,
  ];
  return [
    `<p class="headline">${h.escape(measuredHeadline(g))}</p>`,
    h.figure(
      'measured-beside-modelled',
      svg,
      `Per rank: the measured iteration${logged ? " and the power log's energy over it" : ''} (black) beside ` +
        `the replays (estimated).`,
    ),
    '<div class="tables">',
    h.table(timeColumns, timeRows, 'Iteration time per rank'),
    h.table(
      energyColumns,
      energyRows,
      logged
        ? 'Energy of the iteration per rank'
        : 'Energy of the iteration per rank (no power log joined: estimates only)',
    ),
    '</div>',
    `<ul class="notes">${defs.map((d) => `<li>${h.escape(d)}</li>`).join('')}</ul>`,
  ].join('\n');
}

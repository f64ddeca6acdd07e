/**
 * Text and CSV views of a `plan` record: the headline savings, the frontier (one clock per computation, with the
 * two-clock plan beside it), and the plans per computation. Times in s and energies in J per iteration, estimated.
 */
import type { NamedPlan, PlannedComputation, PlanRecord, Saving, SplitComputation } from '../engines/plan/types.js';
import type { RowSet } from './text.js';
import {
  fixed,
  formatTable,
  recordTable,
  significant,
  wrapText,
  type RecordColumn,
  type TableOptions,
} from './tables.js';

const J = 'J, est.';
const S = 's, est.';

/** The frontier: one row per Pareto plan, fastest first. */
export function planFrontierRows(r: PlanRecord): RowSet {
  return recordTable(r.frontier, [
    { header: `iteration time (${S})`, format: fixed(4), value: (p) => p.timeS },
    { header: `iteration energy (${J})`, format: significant(6), value: (p) => p.energyJ },
    { header: `deadline (${S})`, format: fixed(4), value: (p) => p.deadlineS },
    { header: `computation energy (${J})`, format: significant(6), value: (p) => p.computeEnergyJ },
    { header: `blocking energy (${J})`, format: significant(6), value: (p) => p.blockingEnergyJ },
    { header: `two-clock plan energy at the deadline (${J})`, format: significant(6), value: (p) => p.splitEnergyJ },
    {
      header: 'saving vs all max clock (%)',
      format: fixed(2),
      value: (p) => 100 * (1 - p.energyJ / r.baseline.energyJ),
    },
    { header: 'time vs all max clock (%)', format: fixed(2), value: (p) => 100 * (p.timeS / r.baseline.timeS - 1) },
  ]);
}

/** One row per computation: where it runs, its clock columns, its time and energy. */
function computationTable<T extends PlannedComputation>(computations: readonly T[], clocks: RecordColumn<T>[]): RowSet {
  return recordTable(computations, [
    { header: 'stage', value: (c) => c.stage },
    { header: 'instruction', align: 'left', value: (c) => c.instruction },
    { header: 'micro-batch', value: (c) => c.microBatch },
    ...clocks,
    { header: `time (${S})`, format: significant(6), value: (c) => c.timeS },
    { header: `energy (${J})`, format: significant(6), value: (c) => c.energyJ },
  ]);
}

/** A plan: one row per computation. */
export function planComputationRows(plan: NamedPlan): RowSet {
  return computationTable(plan.computations, [{ header: 'SM clock (MHz)', value: (c) => c.clockMHz }]);
}

/** The two-clock intrinsic plan: one row per computation. */
export function splitPlanRows(plan: readonly SplitComputation[]): RowSet {
  return computationTable(plan, [
    { header: 'first SM clock (MHz)', value: (c) => c.clockMHz },
    { header: 'share of work at the first clock', value: (c) => c.shareAtFirst },
    { header: 'second SM clock (MHz)', value: (c) => c.secondClockMHz },
  ]);
}

/** Savings per non-straggler pipeline against the straggler's slowdown (Perseus Figure 8). */
export function extrinsicCurveRows(r: PlanRecord): RowSet {
  return recordTable(r.extrinsicCurve, [
    { header: 'straggler slowdown (T′/T)', format: fixed(2), value: (e) => e.slowdownFactor },
    { header: 'saving vs all max clock (%, est.)', format: fixed(2), value: (e) => e.savingPct },
    { header: 'saving vs the intrinsic plan (%, est.)', format: fixed(2), value: (e) => e.extrinsicSavingPct },
    { header: 'two-clock saving vs all max clock (%, est.)', format: fixed(2), value: (e) => e.splitSavingPct },
  ]);
}

/** A named plan and what it saves. */
type NamedSaving = Saving & { plan: string };

/** A plan with one clock per computation and its two-clock version, named after what they aim for. */
const clockPlans = (aim: string, s: Saving & { split: Saving }): NamedSaving[] => [
  { ...s, plan: `${aim}, one clock per computation` },
  { ...s.split, plan: `${aim}, two clocks per computation` },
];

/** The named plans against the all-max-clock baseline. */
export function planHeadlineRows(
  r: Pick<PlanRecord, 'baseline' | 'intrinsic' | 'minEnergy' | 'envPipe'> & Partial<Pick<PlanRecord, 'fastest'>>,
): RowSet {
  const b = r.baseline;
  // Only where the options allow an iteration faster than all-max clocks (records before this field have none).
  const fastest = r.fastest && r.fastest.timeS < b.timeS * (1 - 1e-6) ? r.fastest : null;
  const plans: NamedSaving[] = [
    { ...b, savingPct: 0, timeChangePct: 0, plan: 'all max clock (baseline)' },
    ...(fastest ? clockPlans('fastest', fastest) : []),
    ...clockPlans('no slowdown', r.intrinsic),
    ...clockPlans('lowest energy', r.minEnergy),
    { ...r.envPipe, plan: 'EnvPipe-style (envelope at the highest clock)' },
  ];
  return recordTable(plans, [
    { header: 'plan', align: 'left', value: (p) => p.plan },
    { header: `iteration time (${S})`, format: fixed(4), value: (p) => p.timeS },
    { header: `iteration energy (${J})`, format: significant(6), value: (p) => p.energyJ },
    { header: 'energy saved (%)', format: fixed(2), value: (p) => p.savingPct },
    { header: 'time change (%)', format: fixed(2), value: (p) => p.timeChangePct },
  ]);
}

/** The headline table and a sample of the frontier. */
export function planText(r: PlanRecord, options: TableOptions = {}): string {
  const head = planHeadlineRows(r);
  const lines = [
    wrapText(
      `${r.label}: ${r.schedule}, ${r.stages} stages × ${r.microBatches} micro-batches, blocking power ` +
        `${r.blockingPowerW} W per stage` +
        `${r.gpusPerStage > 1 ? ` (${r.gpusPerStage} GPUs)` : ''}; ` +
        (r.source.mode === 'fit'
          ? `options modelled from ${r.source.fitClocksMHz!.join(', ')} MHz at ${r.source.clocksMHz.length} clocks`
          : `${r.source.clocksMHz.length} clocks`),
      options.width,
    ),
    '',
    formatTable(head.columns, head.rows, options).trimEnd(),
  ];
  if (r.extrinsic) {
    const e = r.extrinsic;
    lines.push(
      '',
      `straggler: iteration time ${e.deadlineS.toFixed(4)} s (×${e.slowdownFactor.toFixed(3)}): this ` +
        `pipeline's plan runs ${e.plannedTimeS.toFixed(4)} s, then waits; ` +
        `saves ${e.savingPct.toFixed(2)} % against the all-max-clock pipeline waiting as long (` +
        `${e.extrinsicSavingPct.toFixed(2)} % against the intrinsic plan; ` +
        `${e.splitSavingPct.toFixed(2)} % with two clocks per computation)`,
    );
  }
  if (r.replayCheck) {
    const c = r.replayCheck;
    lines.push(
      '',
      `replayed (all ${c.groups} groups, ${c.replays} replays): all max clock ${c.baseline.timeS.toFixed(6)} ` +
        `s, ${c.baseline.energyJ.toFixed(2)} J; ` +
        `plan ${c.plan.timeS.toFixed(6)} s (${c.plan.timeChangePct >= 0 ? '+' : ''}` +
        `${c.plan.timeChangePct.toFixed(3)} %), ${c.plan.energyJ.toFixed(2)} J: ` +
        `saves ${c.plan.savingPct.toFixed(2)} % (estimated)` +
        (c.slowdownShare < 1
          ? `; planned slowdowns scaled to ${(100 * c.slowdownShare).toFixed(1)} % to stay within ${c.tolerancePct} %`
          : ''),
    );
  }
  if (r.measuredCheck) {
    const m = r.measuredCheck;
    lines.push(
      '',
      `on the measured sweep, the intrinsic plan's clocks take ${m.intrinsic.timeS.toFixed(4)} s (` +
        `${m.intrinsic.timeChangePct >= 0 ? '+' : ''}${m.intrinsic.timeChangePct.toFixed(3)} %) ` +
        `and save ${m.intrinsic.savingPct.toFixed(2)} % against the measured all-max-clock iteration` +
        (m.missing ? ` (${m.missing} computations at clocks not measured: modelled)` : ''),
    );
  }
  const f = planFrontierRows(r);
  const step = Math.max(1, Math.ceil(f.rows.length / 10));
  const sample = f.rows.filter((_, i) => i % step === 0 || i === f.rows.length - 1);
  lines.push(
    '',
    `frontier (${r.frontier.length} plans, one clock per computation; every ${step}th shown, all with --csv):`,
    formatTable(
      f.columns.slice(0, 2).concat(f.columns.slice(5)),
      sample.map((row) => row.slice(0, 2).concat(row.slice(5))),
      options,
    ).trimEnd(),
  );
  lines.push('', `solver: ${r.solver.steps} min-cut steps, ${r.solver.plansRealized} plans realized`);
  for (const n of r.notes) lines.push(`note: ${n}`);
  return `${lines.join('\n')}\n`;
}

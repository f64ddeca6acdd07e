/**
 * The files `tracewatt plan --out <dir>` writes: the record (plan.json) and its tables as CSV (the frontier, the
 * two-clock frontier, the extrinsic curve, the two-clock intrinsic plan and each plan per computation), all renamed
 * into place together once complete.
 */
import path from 'node:path';
import { toJson } from '../../formats/json.js';
import type { PlanRecord } from '../../engines/plan/types.js';
import { OutputSet } from '../../formats/output.js';
import { extrinsicCurveRows, planComputationRows, planFrontierRows, splitPlanRows } from '../plan-text.js';
import { toCsv } from '../tables.js';
import type { RowSet } from '../text.js';

const csv = (t: RowSet) => toCsv(t.columns, t.rows);

/** The record and its tables as [file name, content] pairs. */
export function planOutputFiles(r: PlanRecord): [string, string][] {
  return [
    ['plan.json', `${toJson(r)}\n`],
    ['frontier.csv', csv(planFrontierRows(r))],
    [
      'split-frontier.csv',
      toCsv(
        [{ header: 'iteration time (s, est.)' }, { header: 'iteration energy (J, est.)' }],
        r.splitFrontier.map((p) => [p.timeS, p.energyJ]),
      ),
    ],
    ['extrinsic.csv', csv(extrinsicCurveRows(r))],
    ['split-plan-intrinsic.csv', csv(splitPlanRows(r.splitPlan))],
    ...r.plans.map((p): [string, string] => [`plan-${p.name}.csv`, csv(planComputationRows(p))]),
  ];
}

/** Writes the record and its tables into `dir` (all or none); returns the paths written. */
export async function writePlanOutputs(dir: string, r: PlanRecord): Promise<string[]> {
  const files = planOutputFiles(r);
  await OutputSet.write(
    dir,
    async (set) => {
      for (const [name, text] of files) await set.put(path.join(dir, name), text);
    },
    { folder: true },
  );
  return files.map(([name]) => path.join(dir, name));
}

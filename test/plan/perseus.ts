/** Perseus' A40 data for the plan tests: the stage profiles tracewatt ships, and Perseus' own frontiers. */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import {
  makeCurve,
  measuredStageOptions,
  pipelineGraph,
  planPipeline,
  planProfile,
  quantizeOptions,
  type PlanRecord,
  type StageOptions,
} from '../../src/engines/plan/index.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { fixturePath, hasShared, perseusStages, shared } from '../helpers/shared.js';

export const MODELS = ['gpt3-175b', 'bloom'] as const;
export type Model = (typeof MODELS)[number];
export const MICRO_BATCHES = [12, 24, 48, 96] as const;
/** Perseus' intrinsic savings (evaluation.ipynb, Large-Scale Emulation, A40), % per micro-batch count. */
export const PERSEUS_INTRINSIC: Record<Model, number[]> = {
  'gpt3-175b': [11.8, 10.2, 9.3, 8.9],
  bloom: [7.0, 4.5, 3.1, 2.4],
};
export const A40_BLOCKING_W = 70.38;

export const stageProfile = perseusStages;

/**
 * Perseus' frontier file: vendored whole for 12 micro-batches; for the others the whole file in ../shared, or without
 * it every 50th point of it (fastest and slowest kept; test/fixtures/NOTICE.md says how they were cut).
 */
export function frontierFile(model: Model, microBatches: number): string {
  const name = `${model}_bf16_mb${microBatches}.csv`;
  if (microBatches === 12) return fixturePath('perseus', name);
  return hasShared
    ? shared('profiles', 'perseus-sosp24', 'frontiers', 'a40', name)
    : fixturePath('perseus', 'every-50th', name);
}

/** `time,energy` rows, fastest first. */
export function readFrontier(file: string): { timeS: number; energyJ: number }[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [t, e] = line.split(',').map(Number);
      return { timeS: t!, energyJ: e! };
    })
    .sort((a, b) => a.timeS - b.timeS);
}

/**
 * EnvPipe's iteration energy for a model and micro-batch count, in the profile's units (the file is scaled ×10·TP =
 * ×80).
 */
export function envPipeEnergyJ(model: Model, microBatches: number): number {
  const rows = readFileSync(fixturePath('perseus', 'envpipe_result_a40.csv'), 'utf8').trim().split('\n').slice(1);
  const row = rows.map((l) => l.split(',')).find((c) => c[0] === model && Number(c[3]) === microBatches)!;
  return Number(row[6]) / 80;
}

/** Stage options of a Perseus stage CSV, times floored to `quantumS` (Perseus' convention) when given. */
export async function stageOptions(file: string, quantumS?: number): Promise<StageOptions[]> {
  const measured = measuredStageOptions(await readProfile(file, { format: 'perseus' }), 8, file);
  return quantumS ? quantizeOptions(measured, quantumS) : measured;
}

/** The plan of a Perseus stage CSV (8 stages, 1F1B, A40 blocking power). */
export function planStages(stages: StageOptions[], microBatches: number, file = 'stages'): PlanRecord {
  return planPipeline({
    label: file,
    source: { mode: 'profile', file, clocksMHz: [] },
    stages,
    microBatches,
    schedule: '1f1b',
    blockingPowerW: A40_BLOCKING_W,
  });
}

/** The shortest iteration the options allow: every computation at its fastest option, whatever its clock. */
export function fastestScheduleS(stages: StageOptions[], microBatches: number): number {
  const fastest = (o: StageOptions['forward']) => [o.reduce((a, b) => (b.timeS < a.timeS ? b : a))];
  const curves = stages.map((s, i) => ({
    forward: makeCurve(`${i}f`, fastest(s.forward), 0),
    backward: makeCurve(`${i}b`, fastest(s.backward), 0),
  }));
  const g = pipelineGraph('1f1b', 8, microBatches, curves);
  return g.dag.makespan(Float64Array.from(g.dag.curveOf, (c) => c.timeS[0]!));
}

/**
 * tracewatt's frontier against Perseus': the ratio of the fastest times, and the largest excess of tracewatt's least
 * energy within each of Perseus' iteration times over Perseus' energy there (%), over every Perseus time tracewatt's
 * fastest plan reaches (`uncovered`: Perseus' times faster than that, which floored computation times can give).
 */
export function againstPerseus(r: PlanRecord, perseus: readonly { timeS: number; energyJ: number }[]) {
  const fastestS = r.frontier[0]!.timeS;
  let worstGapPct = -Infinity;
  let worstAtS = NaN;
  let uncovered = 0;
  for (const p of perseus) {
    if (p.timeS < fastestS * (1 - 1e-9)) {
      uncovered++;
      continue;
    }
    const gap = 100 * (bestWithin(r.frontier, p.timeS * (1 + 1e-9)) / p.energyJ - 1);
    if (gap > worstGapPct) [worstGapPct, worstAtS] = [gap, p.timeS];
  }
  return { fastestRatio: fastestS / perseus[0]!.timeS, worstGapPct, worstAtS, uncovered, points: perseus.length };
}

/**
 * tracewatt's plans against Perseus' frontier: the fastest plan at Perseus' fastest time or up to 0.05 % slower
 * (Perseus floors computation times to 0.1 ms), and within 0.5 % of Perseus' energy or below at every one of its
 * times from there, with one clock per computation (frontier) and with two (split frontier).
 */
export function expectWithinPerseus(r: PlanRecord, perseus: readonly { timeS: number; energyJ: number }[]): void {
  const d = againstPerseus(r, perseus);
  expect(d.fastestRatio).toBeGreaterThanOrEqual(1);
  expect(d.fastestRatio).toBeLessThan(1.0005);
  expect(d.worstGapPct).toBeLessThanOrEqual(0.5);
  for (const p of perseus)
    if (p.timeS >= r.frontier[0]!.timeS)
      expect(100 * (interpolate(r.splitFrontier, p.timeS) / p.energyJ - 1)).toBeLessThanOrEqual(0.5);
}

/**
 * The straggler curve beside Perseus' with the same per-pipeline formula: its frontier's cheapest point that
 * finishes by T′, then blocking power on every stage until T′, against the all-max-clock pipeline waiting until T′.
 */
export function extrinsicAgainstPerseus(r: PlanRecord, perseus: readonly { timeS: number; energyJ: number }[]) {
  const waitW = r.lanes * r.blockingPowerW;
  return r.extrinsicCurve.map((c) => {
    const deadlineS = c.slowdownFactor * r.baseline.timeS;
    const best = Math.min(
      ...perseus.filter((p) => p.timeS <= deadlineS).map((p) => p.energyJ + waitW * (deadlineS - p.timeS)),
    );
    return {
      slowdownFactor: c.slowdownFactor,
      savingPct: c.savingPct,
      perseusPct: 100 * (1 - best / (r.baseline.energyJ + waitW * (deadlineS - r.baseline.timeS))),
    };
  });
}

/** The plan `tracewatt plan --profile` makes of a model's A40 stage profile (8 stages, 1F1B, A40 blocking power). */
export async function planFor(
  model: Model,
  microBatches: number,
  extra: { fitClocksMHz?: number[]; powerCapW?: number; points?: number } = {},
): Promise<PlanRecord> {
  const fit = extra.fitClocksMHz;
  return planProfile({
    file: stageProfile(model),
    stages: 8,
    microBatches,
    schedule: '1f1b',
    blockingPowerW: A40_BLOCKING_W,
    fit: fit && { clocksMHz: fit, powerCapW: extra.powerCapW },
    points: extra.points,
  });
}

/** Linear interpolation on points sorted by time (clamped at the ends). */
export function interpolate(points: readonly { timeS: number; energyJ: number }[], timeS: number): number {
  if (timeS <= points[0]!.timeS) return points[0]!.energyJ;
  for (let k = 0; k + 1 < points.length; k++) {
    const a = points[k]!;
    const b = points[k + 1]!;
    if (timeS <= b.timeS)
      return b.timeS === a.timeS
        ? Math.min(a.energyJ, b.energyJ)
        : a.energyJ + ((b.energyJ - a.energyJ) * (timeS - a.timeS)) / (b.timeS - a.timeS);
  }
  return points[points.length - 1]!.energyJ;
}

/** The one-clock plans as a step function: the least energy of a plan that takes at most `timeS`. */
export function bestWithin(frontier: readonly { timeS: number; energyJ: number }[], timeS: number): number {
  let best = Infinity;
  for (const p of frontier) if (p.timeS <= timeS * (1 + 1e-12) && p.energyJ < best) best = p.energyJ;
  return best;
}

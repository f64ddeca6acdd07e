/** Perseus' A40 data for the plan tests: the stage profiles tracewatt ships, and Perseus' own frontiers. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { measuredStageOptions, planPipeline, type PlanRecord } from '../../src/engines/plan/index.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { repoRoot, shared } from '../helpers/shared.js';

export const MODELS = ['gpt3-175b', 'bloom'] as const;
export type Model = (typeof MODELS)[number];
export const MICRO_BATCHES = [12, 24, 48, 96] as const;
/** Perseus' intrinsic savings (evaluation.ipynb, Large-Scale Emulation, A40), % per micro-batch count. */
export const PERSEUS_INTRINSIC: Record<Model, number[]> = { 'gpt3-175b': [11.8, 10.2, 9.3, 8.9], bloom: [7.0, 4.5, 3.1, 2.4] };
export const A40_BLOCKING_W = 70.38;

export function stageProfile(model: Model): string {
  return path.join(repoRoot, 'calibration', 'profiles', 'perseus-sosp24', `${model}+a40_bf16.csv`);
}

/** Perseus' frontier file: vendored for 12 micro-batches, in ../shared for the others. */
export function frontierFile(model: Model, microBatches: number): string {
  const name = `${model}_bf16_mb${microBatches}.csv`;
  return microBatches === 12 ? path.join(repoRoot, 'test', 'fixtures', 'perseus', name) : shared('profiles', 'perseus-sosp24', 'frontiers', 'a40', name);
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

/** EnvPipe's iteration energy for a model and micro-batch count, in the profile's units (the file is scaled ×10·TP = ×80). */
export function envPipeEnergyJ(model: Model, microBatches: number): number {
  const rows = readFileSync(path.join(repoRoot, 'test', 'fixtures', 'perseus', 'envpipe_result_a40.csv'), 'utf8').trim().split('\n').slice(1);
  const row = rows.map((l) => l.split(',')).find((c) => c[0] === model && Number(c[3]) === microBatches)!;
  return Number(row[6]) / 80;
}

export async function planFor(model: Model, microBatches: number, extra: { fitClocksMHz?: number[]; powerCapW?: number; points?: number } = {}): Promise<PlanRecord> {
  const file = stageProfile(model);
  const measured = measuredStageOptions(await readProfile(file), 8, file);
  const { fittedStageOptions, clockGrid } = await import('../../src/engines/plan/index.js');
  const fit = extra.fitClocksMHz;
  const clocksMHz = fit ? clockGrid(Math.min(...fit), Math.max(...fit), 15) : [];
  return planPipeline({
    label: `${model} ${microBatches}`,
    source: { mode: fit ? 'fit' : 'profile', file, clocksMHz, ...(fit ? { fitClocksMHz: fit } : {}) },
    stages: fit ? fittedStageOptions(measured, fit, clocksMHz, file, extra.powerCapW ?? null) : measured,
    ...(fit ? { measured } : {}),
    microBatches,
    schedule: '1f1b',
    blockingPowerW: A40_BLOCKING_W,
    points: extra.points,
  });
}

/** Linear interpolation on points sorted by time (clamped at the ends). */
export function interpolate(points: readonly { timeS: number; energyJ: number }[], timeS: number): number {
  if (timeS <= points[0]!.timeS) return points[0]!.energyJ;
  for (let k = 0; k + 1 < points.length; k++) {
    const a = points[k]!;
    const b = points[k + 1]!;
    if (timeS <= b.timeS) return b.timeS === a.timeS ? Math.min(a.energyJ, b.energyJ) : a.energyJ + ((b.energyJ - a.energyJ) * (timeS - a.timeS)) / (b.timeS - a.timeS);
  }
  return points[points.length - 1]!.energyJ;
}

/** The one-clock plans as a step function: the least energy of a plan that takes at most `timeS`. */
export function bestWithin(frontier: readonly { timeS: number; energyJ: number }[], timeS: number): number {
  let best = Infinity;
  for (const p of frontier) if (p.timeS <= timeS * (1 + 1e-12) && p.energyJ < best) best = p.energyJ;
  return best;
}

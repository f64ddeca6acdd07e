#!/usr/bin/env node
// Plan benchmark: the full time–energy frontier (400 one-clock plans and the two-clock frontier) of Perseus' A40
// stage profiles, 8 stages × 12 … 96 micro-batches (1F1B), each the median of 3 runs in this process; beside it
// the share of the time the exact relaxation (min-cut sweep) takes, and the same for 96 micro-batches from three
// profiled clocks (60 modelled clocks: many more hull vertices, many more steps).
// Run after `npm run build`: node scripts/bench-plan.mjs [repetitions]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  clockGrid,
  fittedStageOptions,
  makeCurve,
  measuredStageOptions,
  pipelineGraph,
  planPipeline,
  sweep,
} from '../dist/engines/plan/index.js';
import { readProfile } from '../dist/formats/profiles/index.js';

const reps = Number(process.argv[2] ?? 3);
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const BLOCKING_W = 70.38;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function options(model) {
  const file = path.join(root, 'calibration', 'profiles', 'perseus-sosp24', `${model}+a40_bf16.csv`);
  return { file, measured: measuredStageOptions(await readProfile(file), 8, file) };
}

function timeIt(fn) {
  const times = [];
  let out;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    out = fn();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), out };
}

const rows = [];
for (const model of ['gpt3-175b', 'bloom']) {
  const { file, measured } = await options(model);
  for (const microBatches of [12, 24, 48, 96]) {
    const plan = timeIt(() =>
      planPipeline({
        label: model,
        source: { mode: 'profile', file, clocksMHz: [] },
        stages: measured,
        microBatches,
        schedule: '1f1b',
        blockingPowerW: BLOCKING_W,
      }),
    );
    const curves = measured.map((s, i) => ({
      forward: makeCurve(`s${i}f`, s.forward, BLOCKING_W),
      backward: makeCurve(`s${i}b`, s.backward, BLOCKING_W),
    }));
    const relax = timeIt(() =>
      sweep(pipelineGraph('1f1b', 8, microBatches, curves).dag, { stopAtS: plan.out.baseline.timeS }),
    );
    rows.push([
      model,
      'full sweep (60 clocks)',
      microBatches,
      plan.ms,
      relax.ms,
      relax.out.steps,
      plan.out.frontier.length,
    ]);
  }
}
{
  const { file, measured } = await options('gpt3-175b');
  const clocks = clockGrid(855, 1740, 15);
  const fitted = fittedStageOptions(measured, [855, 1305, 1740], clocks, file, 293.06);
  const plan = timeIt(() =>
    planPipeline({
      label: 'fit',
      source: { mode: 'fit', file, clocksMHz: clocks },
      stages: fitted,
      microBatches: 96,
      schedule: '1f1b',
      blockingPowerW: BLOCKING_W,
    }),
  );
  rows.push([
    'gpt3-175b',
    'three clocks (60 modelled)',
    96,
    plan.ms,
    null,
    plan.out.solver.steps,
    plan.out.frontier.length,
  ]);
}
const header = [
  'model',
  'options',
  'micro-batches',
  'frontier (ms, median)',
  'relaxation only (ms)',
  'min-cut steps',
  'Pareto plans',
];
console.log(`plan frontier, 8 stages, 1F1B, median of ${reps} (node ${process.version})`);
console.log(header.join(' | '));
for (const r of rows)
  console.log(
    r.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(0)) : (v ?? ''))).join(' | '),
  );
const worst = Math.max(...rows.filter((r) => r[1].startsWith('full') && r[2] === 96).map((r) => r[3]));
console.log(`96 micro-batches × 8 stages, full sweep: ${(worst / 1000).toFixed(2)} s (target ≤ 10 s)`);

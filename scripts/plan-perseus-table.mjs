#!/usr/bin/env node
// The comparison with Perseus' emulation (8 stages, 1F1B) that docs/plans.md quotes:
// 1. A40 (GPT-3 175B and BLOOM, 12/24/48/96 micro-batches): tracewatt's intrinsic saving at the all-max-clock
//    iteration time (one and two clocks per computation), Perseus' published figure, the same figure recomputed from
//    Perseus' frontier file with its notebook's formula (baseline = all-max-clock energy at the frontier's *fastest*
//    time), Perseus' frontier at the all-max-clock time with tracewatt's formula, the plans from three profiled
//    clocks (855, 1305, 1740 MHz).
// 2. The frontier against Perseus' from Perseus' fastest point on, case by case: the A40 set and the capped stage
//    profiles of test/fixtures/perseus/capped (some stages faster below the highest clock; Perseus' frontiers for
//    them computed by its own solver, that folder's README): fastest plan against all-max clocks, fastest time against
//    Perseus' (real times; Perseus floors each computation's time to its quantum), the largest energy excess over
//    Perseus' frontier at its times (one and two clocks per computation), the same in Perseus' time convention
//    (--time-quantum), and, where recorded, against Perseus' own plans re-scored on the measurements.
// Needs ../shared/profiles/perseus-sosp24/frontiers/a40 (24–96 micro-batches). Run after `npm run build`:
//   node scripts/plan-perseus-table.mjs
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  clockGrid,
  fittedStageOptions,
  measuredStageOptions,
  planPipeline,
  quantizeOptions,
} from '../dist/engines/plan/index.js';
import { readProfile } from '../dist/formats/profiles/index.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = process.env.TRACEWATT_SHARED ?? path.join(root, '..', 'shared');
const capped = path.join(root, 'test', 'fixtures', 'perseus', 'capped');
const BLOCKING_W = 70.38;
const CAP_W = 293.06; // calibration/a40.json power cap, as test/plan/fit.test.ts uses it
const PERSEUS = { 'gpt3-175b': [11.8, 10.2, 9.3, 8.9], bloom: [7.0, 4.5, 3.1, 2.4] };
const FIT = [855, 1305, 1740];
const MB = [12, 24, 48, 96];

const readCsv = (file) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',').map(Number));
const frontierOf = (file) =>
  readCsv(file)
    .map(([timeS, energyJ]) => ({ timeS, energyJ }))
    .sort((a, b) => a.timeS - b.timeS);
const bestWithin = (pts, t) =>
  pts.reduce((e, p) => (p.timeS <= t * (1 + 1e-9) && p.energyJ < e ? p.energyJ : e), Infinity);
const interp = (pts, t) => {
  for (let i = 0; i + 1 < pts.length; i++)
    if (t <= pts[i + 1].timeS) {
      const a = pts[i],
        b = pts[i + 1];
      return b.timeS === a.timeS
        ? Math.min(a.energyJ, b.energyJ)
        : a.energyJ + ((b.energyJ - a.energyJ) * (t - a.timeS)) / (b.timeS - a.timeS);
    }
  return pts.at(-1).energyJ;
};
const f = (x, d = 2) => (x >= 0 ? '+' : '') + x.toFixed(d);
const options = async (file) => measuredStageOptions(await readProfile(file, { format: 'perseus' }), 8, file);
const plan = (stages, mb, file, extra = {}) =>
  planPipeline({
    label: path.basename(file),
    source: { mode: 'profile', file, clocksMHz: [] },
    stages,
    microBatches: mb,
    schedule: '1f1b',
    blockingPowerW: BLOCKING_W,
    ...extra,
  });

/** Largest excess (%) of the one-clock frontier (least energy within each time) and the two-clock one over `points`. */
function worstGap(r, points) {
  let one = -Infinity,
    two = -Infinity;
  for (const p of points) {
    if (p.timeS < r.frontier[0].timeS * (1 - 1e-9)) continue;
    one = Math.max(one, 100 * (bestWithin(r.frontier, p.timeS) / p.energyJ - 1));
    two = Math.max(two, 100 * (interp(r.splitFrontier, p.timeS) / p.energyJ - 1));
  }
  return { one, two };
}

console.log('A40: intrinsic saving (no slowdown)\n');
console.log(
  '| model | mb | Perseus (%) | Perseus recomputed from its file (%) | Perseus frontier at all-max time (%) | tracewatt 1 clock (%) | 2 clocks (%) | Δ vs Perseus (pts) | lowest energy: saving at time (%) | 3 clocks: modelled / on measured sweep (%) | Δ (pts) | measured time change (%) |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
const frontierRows = [];
for (const model of ['gpt3-175b', 'bloom']) {
  const file = path.join(root, 'calibration', 'profiles', 'perseus-sosp24', `${model}+a40_bf16.csv`);
  const measured = await options(file);
  const quantized = quantizeOptions(measured, 0.0001);
  const maxClock = (opts) => opts.reduce((a, b) => (b.clockMHz > a.clockMHz ? b : a));
  const stageMax = measured.map((s) => ({ f: maxClock(s.forward), b: maxClock(s.backward) }));
  const clocks = clockGrid(855, 1740, 15);
  const fitted = fittedStageOptions(measured, FIT, clocks, file, CAP_W);
  for (const [k, mb] of MB.entries()) {
    const r = plan(measured, mb, file);
    const p = frontierOf(
      path.join(shared, 'profiles', 'perseus-sosp24', 'frontiers', 'a40', `${model}_bf16_mb${mb}.csv`),
    );
    // Perseus' notebook: all-max-clock computation energy plus blocking power for the rest of the frontier's fastest time.
    const allMaxAt = (t) =>
      stageMax.reduce(
        (e, s) => e + (s.f.energyJ + s.b.energyJ) * mb + BLOCKING_W * (t - (s.f.timeS + s.b.timeS) * mb),
        0,
      );
    const recomputed = 100 * (1 - p[0].energyJ / allMaxAt(p[0].timeS));
    const atBaseline = 100 * (1 - bestWithin(p, r.baseline.timeS) / r.baseline.energyJ);
    const fr = plan(fitted, mb, file, {
      source: { mode: 'fit', file, clocksMHz: clocks, fitClocksMHz: FIT },
      measured,
      points: 40,
    });
    const target = PERSEUS[model][k];
    console.log(
      `| ${model} | ${mb} | ${target.toFixed(1)} | ${recomputed.toFixed(2)} | ${atBaseline.toFixed(2)} | ${r.intrinsic.savingPct.toFixed(2)} | ${r.intrinsic.split.savingPct.toFixed(2)} | ${f(r.intrinsic.savingPct - target)} | ${r.minEnergy.savingPct.toFixed(1)} at ${f(r.minEnergy.timeChangePct, 1)} | ${fr.intrinsic.savingPct.toFixed(2)} / ${fr.measuredCheck.intrinsic.savingPct.toFixed(2)} | ${f(fr.intrinsic.savingPct - target)} / ${f(fr.measuredCheck.intrinsic.savingPct - target)} | ${f(fr.measuredCheck.intrinsic.timeChangePct)} |`,
    );
    frontierRows.push({ data: 'A40', model, mb, r, q: plan(quantized, mb, file), perseus: p });
  }
}
for (const model of ['gpt3-175b', 'bloom']) {
  const file = path.join(capped, `${model}+a40-capped_bf16.csv`);
  const measured = await options(file);
  const r = plan(measured, 12, file);
  const rescored = path.join(capped, `${model}-capped_bf16_mb12_rescored.csv`);
  const replans = existsSync(rescored) ? frontierOf(rescored) : null;
  frontierRows.push({
    data: 'A40 capped',
    model,
    mb: 12,
    r,
    q: plan(quantizeOptions(measured, 0.0001), 12, file),
    perseus: frontierOf(path.join(capped, `${model}-capped_bf16_mb12.csv`)),
    replans,
  });
  frontierRows.push({
    data: 'A40 capped, 1 ms quanta',
    model,
    mb: 12,
    r,
    q: plan(quantizeOptions(measured, 0.001), 12, file),
    perseus: frontierOf(path.join(capped, `${model}-capped_bf16_mb12_1ms.csv`)),
  });
}

console.log("\nThe frontier against Perseus' from its fastest point on\n");
console.log(
  "| data | model | mb | fastest plan vs all-max clocks (%) | fastest time / Perseus' | worst energy gap vs Perseus' frontier, 1 clock / 2 clocks (%) | in Perseus' time convention: fastest time / Perseus', worst gap (%) | vs Perseus' plans re-scored on the measurements: worst gap (%) | straggler ×1.00–1.50: least saving above Perseus' (pts) |",
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const { data, model, mb, r, q, perseus, replans } of frontierRows) {
  const real = worstGap(r, perseus);
  const conv = worstGap(q, perseus);
  const waitW = r.lanes * r.blockingPowerW;
  const straggler = Math.min(
    ...r.extrinsicCurve.map((c) => {
      const deadlineS = c.slowdownFactor * r.baseline.timeS;
      const best = Math.min(
        ...perseus.filter((p) => p.timeS <= deadlineS).map((p) => p.energyJ + waitW * (deadlineS - p.timeS)),
      );
      return c.savingPct - 100 * (1 - best / (r.baseline.energyJ + waitW * (deadlineS - r.baseline.timeS)));
    }),
  );
  const vsPlans = replans ? f(worstGap(r, replans).one) : '–';
  console.log(
    `| ${data} | ${model} | ${mb} | ${f(r.fastest.timeChangePct, 3)} | ${(r.frontier[0].timeS / perseus[0].timeS).toFixed(5)} | ${f(real.one)} / ${f(real.two)} | ${(q.frontier[0].timeS / perseus[0].timeS).toFixed(5)}, ${f(conv.one)} | ${vsPlans} | ${f(straggler)} |`,
  );
}

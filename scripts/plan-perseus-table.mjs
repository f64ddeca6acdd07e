#!/usr/bin/env node
// The 8-case comparison with Perseus' A40 emulation (GPT-3 175B and BLOOM, 8 stages, 1F1B, 12/24/48/96
// micro-batches): tracewatt's intrinsic saving at the all-max-clock iteration time (one and two clocks per
// computation), Perseus' published figure, the same figure recomputed from Perseus' frontier file with its
// notebook's formula (baseline = all-max-clock energy at the frontier's *fastest* time, which for BLOOM is 0.7 %
// faster than the all-max-clock iteration), Perseus' frontier at the all-max-clock time with tracewatt's formula,
// the largest deviation from Perseus' frontier, and the plans from three profiled clocks (855, 1305, 1740 MHz).
// Needs ../shared/profiles/perseus-sosp24/frontiers/a40 (24–96 micro-batches). Run after `npm run build`:
//   node scripts/plan-perseus-table.mjs
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clockGrid, fittedStageOptions, measuredStageOptions, planPipeline } from '../dist/engines/plan/index.js';
import { readProfile } from '../dist/formats/profiles/index.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = process.env.TRACEWATT_SHARED ?? path.join(root, '..', 'shared');
const BLOCKING_W = 70.38;
const CAP_W = 293.06; // calibration/a40.json power cap, as test/plan/fit.test.ts uses it
const PERSEUS = { 'gpt3-175b': [11.8, 10.2, 9.3, 8.9], bloom: [7.0, 4.5, 3.1, 2.4] };
const FIT = [855, 1305, 1740];

const frontierOf = (model, mb) =>
  readFileSync(path.join(shared, 'profiles', 'perseus-sosp24', 'frontiers', 'a40', `${model}_bf16_mb${mb}.csv`), 'utf8')
    .trim().split('\n').slice(1).map((l) => l.split(',').map(Number)).map(([timeS, energyJ]) => ({ timeS, energyJ }))
    .sort((a, b) => a.timeS - b.timeS);
const bestWithin = (pts, t) => Math.min(...pts.filter((p) => p.timeS <= t * (1 + 1e-12)).map((p) => p.energyJ));
const f = (x, d = 2) => (x >= 0 ? ' ' : '') + x.toFixed(d);

console.log('| model | mb | Perseus (%) | Perseus recomputed from its file (%) | Perseus frontier at all-max time (%) | tracewatt 1 clock (%) | 2 clocks (%) | Δ vs Perseus (pts) | max dev. from Perseus frontier, 1 clock / 2 clocks (%) | fastest plan vs all-max (%) | 3 clocks: modelled / on measured sweep (%) | Δ (pts) | measured time change (%) |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const model of ['gpt3-175b', 'bloom']) {
  const file = path.join(root, 'calibration', 'profiles', 'perseus-sosp24', `${model}+a40_bf16.csv`);
  const measured = measuredStageOptions(await readProfile(file), 8, file);
  const maxClock = (opts) => opts.reduce((a, b) => (b.clockMHz > a.clockMHz ? b : a));
  const stageMax = measured.map((s) => ({ f: maxClock(s.forward), b: maxClock(s.backward) }));
  const clocks = clockGrid(855, 1740, 15);
  const fitted = fittedStageOptions(measured, FIT, clocks, file, CAP_W);
  for (const [k, mb] of [12, 24, 48, 96].entries()) {
    const r = planPipeline({ label: model, source: { mode: 'profile', file, clocksMHz: [] }, stages: measured, microBatches: mb, schedule: '1f1b', blockingPowerW: BLOCKING_W });
    const p = frontierOf(model, mb);
    // Perseus' notebook: all-max-clock computation energy plus blocking power for the rest of the frontier's fastest time.
    const allMaxAt = (t) => stageMax.reduce((e, s) => e + (s.f.energyJ + s.b.energyJ) * mb + BLOCKING_W * (t - (s.f.timeS + s.b.timeS) * mb), 0);
    const recomputed = 100 * (1 - p[0].energyJ / allMaxAt(p[0].timeS));
    const atBaseline = 100 * (1 - bestWithin(p, r.baseline.timeS) / r.baseline.energyJ);
    let one = -Infinity, two = -Infinity;
    const interp = (pts, t) => { for (let i = 0; i + 1 < pts.length; i++) if (t <= pts[i + 1].timeS) { const a = pts[i], b = pts[i + 1]; return b.timeS === a.timeS ? Math.min(a.energyJ, b.energyJ) : a.energyJ + ((b.energyJ - a.energyJ) * (t - a.timeS)) / (b.timeS - a.timeS); } return pts.at(-1).energyJ; };
    for (const q of p) {
      if (q.timeS < r.baseline.timeS) continue;
      one = Math.max(one, 100 * (bestWithin(r.frontier, q.timeS) / q.energyJ - 1));
      two = Math.max(two, 100 * (interp(r.splitFrontier, q.timeS) / q.energyJ - 1));
    }
    const fastest = 100 * (Math.min(...r.frontier.map((x) => x.timeS)) / r.baseline.timeS - 1);
    const fr = planPipeline({ label: model, source: { mode: 'fit', file, clocksMHz: clocks, fitClocksMHz: FIT }, stages: fitted, measured, microBatches: mb, schedule: '1f1b', blockingPowerW: BLOCKING_W, points: 40 });
    const target = PERSEUS[model][k];
    console.log(`| ${model} | ${mb} | ${target.toFixed(1)} | ${recomputed.toFixed(2)} | ${atBaseline.toFixed(2)} | ${r.intrinsic.savingPct.toFixed(2)} | ${r.intrinsic.split.savingPct.toFixed(2)} | ${f(r.intrinsic.savingPct - target)} | ${f(one)} / ${f(two)} | ${f(fastest, 3)} | ${fr.intrinsic.savingPct.toFixed(2)} / ${fr.measuredCheck.intrinsic.savingPct.toFixed(2)} | ${f(fr.intrinsic.savingPct - target)} / ${f(fr.measuredCheck.intrinsic.savingPct - target)} | ${f(fr.measuredCheck.intrinsic.timeChangePct)} |`);
  }
}

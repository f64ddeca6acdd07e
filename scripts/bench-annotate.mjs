#!/usr/bin/env node
// Annotate benchmark: writes a generated 32-rank × 20,000-node trace whose GPU kernels carry the names of the
// RTX 8000 real kernels of NV-DVFS-Benchmark (spelled exactly, bare, demangled and mangled), plus unprofiled
// kernels with num_ops / tensor_size (roofline), host-side ops and all-reduces; then annotates it at one clock and
// at three, and prints annotated nodes/s (all nodes streamed per second, and annotated ones) and peak RSS.
// Each measurement runs in a fresh process, as a CLI run would (a second call in one process would find the
// calling thread's code already compiled). The time covers the whole annotateTrace call: starting the worker,
// reading the calibration and profile, the plan, reading every rank and writing every output (to the page cache,
// as any run does); peak RSS is that process's. The generated trace and each run's outputs are flushed to disk
// (or deleted) outside the timed region, so that one run's write-back does not land in the next. --repeat N runs
// each case N times and adds min / median lines; noise is large on a shared machine, so compare medians.
// The same at one clock on a trace --scale times larger (default 5) gives, by the difference between the two sizes
// run one after the other, the sustained rate (once threads are started and their code compiled) and the fixed
// cost of a call. The cases are taken in turn within each repetition, so that all sample the machine alike.
// Run after `npm run build`:
//   node scripts/bench-annotate.mjs [--ranks 32] [--nodes 20000] [--scale 5] [--workers N] [--repeat N] [--keep]
import { spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSmallRanks } from './lib/trace-gen.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = (name, def) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : def);
const ranks = arg('ranks', 32);
const perRank = arg('nodes', 20000);
const workers = arg('workers', os.availableParallelism());
const repeat = arg('repeat', 1);
const scale = arg('scale', 5);
const profile = path.resolve(
  here,
  '..',
  '..',
  'shared',
  'profiles',
  'nv-dvfs-benchmark',
  'rtx8000-dvfs-real-profile.csv',
);
const calibration = path.resolve(here, '..', 'calibration', 'rtx8000.json');

// Child mode: one annotateTrace call, timed, reported as one JSON line.
if (args[0] === '--measure') {
  const [, trace, out, freqs] = args;
  const { annotateTrace } = await import('../dist/engines/annotate/index.js');
  const t1 = performance.now();
  const cpu0 = process.cpuUsage();
  const res = await annotateTrace({
    trace,
    out,
    calibration,
    profiles: [profile],
    frequenciesMHz: JSON.parse(freqs),
    workers,
  });
  const s = (performance.now() - t1) / 1e3;
  const cpu = process.cpuUsage(cpu0);
  const t = res.total;
  console.log(
    JSON.stringify({
      s,
      cpuS: (cpu.user + cpu.system) / 1e6,
      nodes: t.nodes,
      annotated: t.gpuCompNodes - t.untouched,
      matchRate: t.matchRate,
      roofline: t.roofline,
      slowPath: t.slowPathNodes,
      parallelism: res.parallelism,
      peakRss: process.resourceUsage().maxRSS * 1024,
    }),
  );
  process.exit(0);
}

/** The trace of one size: `ranks` rank files of `perRank` nodes (scripts/lib/trace-gen.mjs). */
function generate(dir, perRank) {
  return writeSmallRanks(path.join(dir, `bench${perRank}`), ranks, perRank);
}

/** Writes the files under `d` to disk, so that their write-back does not run during a measurement. */
function settle(d) {
  for (const f of readdirSync(d, { recursive: true, withFileTypes: true })) {
    if (!f.isFile()) continue;
    const fd = openSync(path.join(f.parentPath ?? f.path, f.name), 'r');
    fsyncSync(fd);
    closeSync(fd);
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'tracewatt-bench-annotate-'));

/** One run of a case in a fresh process; prints it and returns its figures. */
function runOnce({ prefix, freqs, label }, run) {
  const out = path.join(dir, `out-${run}`);
  const child = spawnSync(
    process.execPath,
    [fileURLToPath(import.meta.url), '--measure', prefix, path.join(out, 'bench'), JSON.stringify(freqs), ...args],
    { encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(`measurement failed: ${child.stderr}`);
  const r = JSON.parse(child.stdout.trim().split('\n').pop());
  const { s, nodes, annotated } = r;
  console.log(
    `  ${label}, ${freqs.length} clock(s) [${freqs.join(', ')} MHz]: ${nodes} nodes in ${s.toFixed(2)} s → ${(nodes / s / 1e6).toFixed(2)} M nodes/s streamed, ` +
      `${(annotated / s / 1e6).toFixed(2)} M annotated nodes/s (${annotated} annotated × ${freqs.length} outputs; match rate ${((r.matchRate ?? 0) * 100).toFixed(1)}%, ` +
      `roofline ${r.roofline}, slow path ${r.slowPath}); ${r.parallelism.mode} ${r.parallelism.threads} thread(s); peak RSS ${(r.peakRss / 2 ** 20).toFixed(0)} MiB`,
  );
  // Outputs go to disk (or away) before the next run, so that each run starts with the disk idle.
  if (repeat > 1) rmSync(out, { recursive: true, force: true });
  else settle(out);
  return { s, nodes, annotated, streamed: nodes / s / 1e6, annotatedRate: annotated / s / 1e6, peak: r.peakRss };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * Runs every case `repeat` times, each run in a fresh process, the cases taken in turn within each repetition so
 * that they all sample the same stretches of a shared machine's speed; with --repeat, min / median lines.
 */
function measure(cases) {
  const runs = cases.map(() => []);
  for (let k = 0; k < repeat; k++) cases.forEach((c, i) => runs[i].push(runOnce(c, `${k}-${i}`)));
  if (repeat > 1) {
    cases.forEach(({ freqs, label }, i) => {
      const stat = (f, digits = 2) =>
        `min ${Math.min(...runs[i].map(f)).toFixed(digits)} median ${median(runs[i].map(f)).toFixed(digits)}`;
      console.log(
        `  ${label}, ${freqs.length} clock(s), ${repeat} runs: M nodes/s streamed ${stat((r) => r.streamed)}; M annotated nodes/s ${stat((r) => r.annotatedRate)}; ` +
          `s ${stat((r) => r.s)}; peak RSS MiB ${stat((r) => r.peak / 2 ** 20, 0)}`,
      );
    });
  }
  return runs;
}

try {
  const t0 = performance.now();
  const prefix = await generate(dir, perRank);
  const genS = (performance.now() - t0) / 1e3;
  const bigPrefix = scale > 1 ? await generate(dir, perRank * scale) : null;
  settle(dir);
  console.log(
    `annotate benchmark: ${ranks} ranks × ${perRank} nodes (${ranks * perRank} nodes), generated in ${genS.toFixed(1)} s; node ${process.version}, ${os.availableParallelism()} CPUs, ${workers} worker(s)`,
  );
  const label = `${ranks} × ${perRank}`;
  // The large case right after the small one: the sustained rate compares runs taken back to back.
  const cases = [{ prefix, freqs: [1410], label }];
  if (bigPrefix) cases.push({ prefix: bigPrefix, freqs: [1410], label: `${ranks} × ${perRank * scale}` });
  cases.push({ prefix, freqs: [705, 1110, 1710], label });
  const runs = measure(cases);
  const [small, big] = [runs[0], bigPrefix ? runs[1] : null];
  if (big) {
    // Per repetition, what the larger trace adds over the time it adds (both runs taken one after the other); medians.
    const pairs = small.map((a, k) => ({ a, b: big[k], dt: big[k].s - a.s }));
    const rate = median(pairs.map(({ a, b, dt }) => (b.annotated - a.annotated) / dt));
    const streamed = median(pairs.map(({ a, b, dt }) => (b.nodes - a.nodes) / dt));
    const fixedS = median(pairs.map(({ a, b, dt }) => a.s - a.annotated / ((b.annotated - a.annotated) / dt)));
    console.log(
      `  sustained, 1 clock (the ${ranks} × ${perRank * scale} trace less the ${ranks} × ${perRank} one run just before it; medians): ${(streamed / 1e6).toFixed(2)} M nodes/s streamed, ` +
        `${(rate / 1e6).toFixed(2)} M annotated nodes/s; fixed cost per call (worker start, calibration, profile, plan, compiling) ${fixedS.toFixed(2)} s`,
    );
  }
} finally {
  if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}

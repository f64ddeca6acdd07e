#!/usr/bin/env node
// Compares the cold annotate call of several builds on one trace: each run is a fresh process running one build's
// `bench-annotate.mjs --measure` (the whole annotateTrace call timed, and its CPU time), the builds taken in turn
// (their order reversed every other round), so that all of them sample the same stretches of a shared machine's
// speed. Prints per build the median and minimum time, the annotated nodes/s at the median and the median CPU
// seconds. A build is a checkout with its dependencies installed and built, beside ../shared, e.g.
//   git worktree add ../tw-before <rev> && (cd ../tw-before && npm ci)
// The trace: a prefix kept by `node scripts/bench-annotate.mjs --keep`.
//   node scripts/compare-annotate.mjs --trace <prefix> [--runs 16] [--frequencies 1410] <build> <build> ...
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const opt = (name, def) => (args.includes(`--${name}`) ? args.splice(args.indexOf(`--${name}`), 2)[1] : def);
const trace = opt('trace', null);
const runs = Number(opt('runs', 16));
const freqs = JSON.stringify(String(opt('frequencies', '1410')).split(',').map(Number));
const builds = args.map((b) => path.resolve(b));
if (!trace || builds.length < 1) {
  console.error(
    'usage: node scripts/compare-annotate.mjs --trace <prefix> [--runs N] [--frequencies F,...] <build> <build> ...',
  );
  process.exit(2);
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'tracewatt-compare-'));
const results = new Map(builds.map((b) => [b, []]));
try {
  for (let k = 0; k < runs; k++) {
    for (const b of k % 2 ? [...builds].reverse() : builds) {
      const out = path.join(dir, `out-${k}`);
      const child = spawnSync(
        process.execPath,
        [path.join(b, 'scripts', 'bench-annotate.mjs'), '--measure', trace, path.join(out, 'bench'), freqs],
        { encoding: 'utf8' },
      );
      if (child.status !== 0) throw new Error(`${b}: measurement failed: ${child.stderr}`);
      results.get(b).push(JSON.parse(child.stdout.trim().split('\n').pop()));
      rmSync(out, { recursive: true, force: true });
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const median = (xs) => [...xs].sort((a, c) => a - c)[xs.length >> 1];
for (const [b, rs] of results) {
  const s = median(rs.map((r) => r.s));
  const cpu = rs[0].cpuS === undefined ? 'n/a' : median(rs.map((r) => r.cpuS)).toFixed(3);
  console.log(
    `${b}: ${runs} runs, median ${s.toFixed(3)} s (min ${Math.min(...rs.map((r) => r.s)).toFixed(3)}), ` +
      `${(rs[0].annotated / s / 1e6).toFixed(2)} M annotated nodes/s at the median, median CPU ${cpu} s`,
  );
}

#!/usr/bin/env node
// Start-up benchmark: whole processes as a user runs them (scripts/lib/whole-process.mjs), against a bare
// `node -e 0` started in turn with them: `tracewatt --version`, `tracewatt --help` and `tracewatt inspect` of the
// 8-rank 1 MB all-reduce trace shipped in traces/. Median of --runs (10) rounds with the spread (min–max), wall and
// CPU seconds, and each command's ratio to bare Node taken round by round. The issue-27 targets: --version and
// --help ≤ 2× bare Node, inspect ≤ 3×. Also says whether the executable ran from its one-file build.
//   npm run build && node scripts/bench-startup.mjs [--runs 10]
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ratioSpread, seconds, spread, timeInTurn, times } from './lib/whole-process.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 10;

/** The commands timed, bare Node first; shared with bench-check.mjs. */
export const STARTUP_COMMANDS = [
  ['bare node (node -e 0)', ['-e', '0']],
  ['tracewatt --version', ['dist/cli/main.js', '--version']],
  ['tracewatt --help', ['dist/cli/main.js', '--help']],
  [
    'tracewatt inspect (8 ranks, 1 MB all-reduce)',
    ['dist/cli/main.js', 'inspect', 'traces/astra-sim/all_reduce/8npus_1MB/all_reduce'],
  ],
];

/** [{ name, wall, cpu, ratio (wall, to bare Node) }] of the commands above. */
export function measureStartup(n = runs) {
  const results = timeInTurn(
    STARTUP_COMMANDS.map(([, a]) => [process.execPath, ...a]),
    { runs: n, cwd: root },
  );
  return STARTUP_COMMANDS.map(([name], i) => ({
    name,
    wall: spread(results[i].wallS),
    cpu: results[i].cpuS.includes(null) ? null : spread(results[i].cpuS),
    ratio: ratioSpread(results[i], results[0]),
    cpuRatio: results[i].cpuS.includes(null) ? null : ratioSpread(results[i], results[0], 'cpuS'),
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bundled = existsSync(path.join(root, 'dist', 'cli', 'tracewatt.bundle.cjs'));
  console.log(
    `start-up: whole processes, median (min–max) of ${runs} rounds in turn; node ${process.version}, ${os.availableParallelism()} CPUs, ` +
      `load ${os.loadavg()[0].toFixed(1)}; the executable ${bundled ? 'from its one-file build' : 'loading its modules one by one (no bundle)'}`,
  );
  for (const r of measureStartup()) {
    console.log(
      `  ${r.name.padEnd(46)} ${seconds(r.wall)} wall${r.cpu ? `, ${seconds(r.cpu)} CPU` : ''}` +
        (r.name.startsWith('bare')
          ? ''
          : `: ${times(r.ratio)} bare Node by wall${r.cpuRatio ? `, ${times(r.cpuRatio)} by CPU` : ''}`),
    );
  }
}

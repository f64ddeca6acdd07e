// Big CSV profiles (issue 14): a ~300,000-row profile made of the real RTX 8000 NV-DVFS microbenchmark table
// (../shared/profiles/nv-dvfs-benchmark) repeated, each repeat's times nudged so repeats really average, run through
// the built CLI's `calibrate`, `predict` and `accuracy`, each in its own process. Prints wall time, CPU time
// (user + system) and peak RSS of each (process.resourceUsage of the child), and the same for the baseline of
// this run: the CLI's --help (Node start-up and module loading). Targets: 20 s and 300 MiB each on an idle machine.
// node scripts/bench-csv.mjs [--rows 300000]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const bin = path.join(root, 'dist', 'cli', 'main.js');
const arg = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const sharedDir = process.env.TRACEWATT_SHARED ?? path.resolve(root, '..', 'shared');
const src = path.join(sharedDir, 'profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-microbenchmark-profile.csv');

// Child mode: run the CLI in this process and report its own resource use.
if (process.argv[2] === '--child') {
  const argv = process.argv.slice(3);
  const t0 = performance.now();
  const { runCli } = await import(path.join(root, 'dist', 'cli', 'program.js'));
  let out = 0;
  const code = await runCli(argv, { out: (t) => void (out += t.length), err: () => {}, isTTY: false });
  const u = process.resourceUsage();
  console.log(
    JSON.stringify({
      code,
      seconds: +((performance.now() - t0) / 1000).toFixed(2),
      cpuSeconds: +((u.userCPUTime + u.systemCPUTime) / 1e6).toFixed(2),
      peakRssMiB: Math.round(u.maxRSS / 1024),
      outputChars: out,
    }),
  );
  process.exit(0);
}

if (!existsSync(bin)) throw new Error('build first: npx tsc -p tsconfig.json');
if (!existsSync(src)) {
  console.log(`skipped: ${src} not found (set TRACEWATT_SHARED)`);
  process.exit(0);
}
const rowsWanted = Number(arg('--rows')) || 300_000;
const [head, ...rows] = readFileSync(src, 'utf8').trimEnd().split('\n');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'tw-bench-csv-'));
const big = path.join(tmp, 'big.csv');
const cal = path.join(tmp, 'cal.json');
try {
  const parts = [head];
  for (let k = 0; parts.length <= rowsWanted; k++)
    for (const r of rows) {
      if (parts.length > rowsWanted) break;
      parts.push(
        k === 0 ? r : r.replace(/,(\d+\.\d+)$/, (_, t) => `,${(Number(t) * (1 + 1e-4 * (k % 100))).toFixed(6)}`),
      );
    }
  writeFileSync(big, `${parts.join('\n')}\n`);
  console.log(
    `profile: ${rowsWanted} rows, ${(statSync(big).size / 1e6).toFixed(1)} MB (the real RTX 8000 microbenchmark table, ${rows.length} rows, repeated); load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`,
  );
  const runs = [
    ['baseline: --help', ['--help']],
    ['calibrate', ['calibrate', big, '--out', cal]],
    ['predict', ['predict', '--calibration', cal, '--profile', big, '--reference-frequency', '1710', '--csv']],
    ['accuracy', ['accuracy', '--calibration', cal, '--profile', big, '--reference-frequency', '1710']],
  ];
  for (const [label, argv] of runs) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', ...argv], { encoding: 'utf8' });
    const line = (r.stdout ?? '').trim().split('\n').pop();
    console.log(`${label.padEnd(18)} ${line || `failed: ${r.status} ${(r.stderr ?? '').slice(0, 300)}`}`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

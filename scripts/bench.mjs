// `npm run bench`: runs every benchmark script in its own process (so each peak RSS is its own)
// and prints their figures. Benchmarks measure; no unit test asserts timings.
// `npm run bench -- --check`: only the quick check of the hot paths against in-run baselines (bench-check.mjs),
// which exits 1 when a ratio falls below its floor.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const benches = process.argv.includes('--check')
  ? ['bench-check.mjs']
  : [
      'bench-startup.mjs',
      'bench-codec.mjs',
      'bench-inspect.mjs',
      'bench-annotate.mjs',
      'bench-replay.mjs',
      'bench-replay-scale.mjs',
      'bench-generate.mjs',
      'bench-kineto.mjs',
      'bench-plan.mjs',
      'bench-csv.mjs',
    ];
let failed = 0;
for (const b of benches) {
  const file = path.join(here, b);
  if (!existsSync(file)) continue;
  console.log(`\n== ${b}`);
  const r = spawnSync(process.execPath, [file], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.error(`${b} exited with ${r.status ?? r.signal}`);
  }
}
process.exitCode = failed ? 1 : 0;

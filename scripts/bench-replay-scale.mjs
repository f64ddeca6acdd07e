#!/usr/bin/env node
// Replay at scale: LLaMA-2-70B on 4,096 ranks (tp 8 × pp 8 × dp 64, global batch 512 × 4,096 tokens), generated
// into a temporary folder, then `tracewatt replay` on it in a child process (wall, CPU seconds, peak RSS), once as
// the command runs it (ranks with the same trace and peers simulated once per class) and once simulating every rank.
// Run after `npm run build`: node scripts/bench-replay-scale.mjs [dp=64]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const main = path.join(here, '..', 'dist', 'cli', 'main.js');
const dp = Number(process.argv[2] ?? 64);
const dir = mkdtempSync(path.join(tmpdir(), 'tw-bench-scale-'));
try {
  const prefix = path.join(dir, 'llama70b');
  const t0 = process.hrtime.bigint();
  const gen = spawnSync(process.execPath, [main, 'generate', 'llm', '--model', 'llama2-70b', '--tp', '8', '--pp', '8', '--dp', String(dp),
    '--micro-batch', '1', '--global-batch', String(8 * dp), '--seq', '4096', '--out', prefix], { encoding: 'utf8' });
  if (gen.status !== 0) throw new Error(gen.stderr);
  console.log(`generated ${8 * 8 * dp} ranks in ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(1)} s`);
  const hook = path.join(dir, 'usage.mjs');
  writeFileSync(hook, "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write(`bench-usage ${u.maxRSS} ${(u.userCPUTime + u.systemCPUTime) / 1e6}\\n`); });\n");
  // The library call with the shortcut on or off; the command is the same call with it on.
  const runner = path.join(dir, 'run.mjs');
  writeFileSync(runner, `import { replayFiles } from ${JSON.stringify(pathToFileURL(path.join(here, '..', 'dist', 'engines', 'replay', 'index.js')).href)};
const res = await replayFiles({ trace: process.argv[2], system: process.argv[2] + '.system.json', network: process.argv[2] + '.network.yml', identicalRanksOnce: process.argv[3] === 'once' });
console.log(JSON.stringify({ nodes: res.nodes, makespanNs: res.makespanNs, finishes: res.ranks.map((r) => r.finishNs).join(','), note: res.diagnostics.find((d) => d.code === 'replay.identical-ranks-simulated-once')?.samples[0]?.message ?? null }));
`);
  let reference = null;
  for (const mode of ['once', 'every']) {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, runner, prefix, mode], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const s = Number(process.hrtime.bigint() - start) / 1e9;
    if (r.status !== 0) throw new Error(r.stderr);
    const [, rssKiB, cpuS] = r.stderr.match(/bench-usage (\d+) ([\d.]+)/);
    const out = JSON.parse(r.stdout);
    reference ??= out.finishes;
    console.log(`${mode === 'once' ? 'as tracewatt replay runs it' : 'every rank simulated'}: ${out.nodes} nodes in ${s.toFixed(1)} s wall, ` +
      `${Number(cpuS).toFixed(1)} CPU-s, peak RSS ${(Number(rssKiB) / 1024).toFixed(0)} MiB; makespan ${out.makespanNs} ns` +
      `${mode === 'every' ? `; per-rank finishes ${out.finishes === reference ? 'equal' : 'DIFFER'} to the first run's` : ''}${out.note ? ` (${out.note.split(';')[0]})` : ''}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

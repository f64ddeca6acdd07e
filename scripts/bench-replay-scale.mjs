#!/usr/bin/env node
// Replay at scale: LLaMA-2-70B on 4,096 ranks (tp 8 × pp 8 × dp 64, global batch 512 × 4,096 tokens), generated
// into a temporary folder, then `tracewatt replay` on it in a child process (wall, CPU seconds, peak RSS), once as
// the command runs it (ranks with the same trace and peers simulated once per class) and once simulating every rank.
// Run after `npm run build`: node scripts/bench-replay-scale.mjs [dp=64] [--once]
// (--once: only as the command runs it; dp 256 is the 16,384-rank case, generation and replay timed apart).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { reportModes } from './replay-child.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const main = path.join(here, '..', 'dist', 'cli', 'main.js');
const args = process.argv.slice(2);
const dp = Number(args.find((a) => !a.startsWith('--')) ?? 64);
const modes = args.includes('--once') ? ['once'] : ['once', 'every'];
const dir = mkdtempSync(path.join(tmpdir(), 'tw-bench-scale-'));
try {
  const prefix = path.join(dir, 'llama70b');
  const t0 = process.hrtime.bigint();
  const gen = spawnSync(
    process.execPath,
    [
      main,
      'generate',
      'llm',
      '--model',
      'llama2-70b',
      '--tp',
      '8',
      '--pp',
      '8',
      '--dp',
      String(dp),
      '--micro-batch',
      '1',
      '--global-batch',
      String(8 * dp),
      '--seq',
      '4096',
      '--out',
      prefix,
    ],
    { encoding: 'utf8' },
  );
  if (gen.status !== 0) throw new Error(gen.stderr);
  console.log(`generated ${8 * 8 * dp} ranks in ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(1)} s`);
  reportModes(`LLaMA-2-70B, ${8 * 8 * dp} ranks`, prefix, modes);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

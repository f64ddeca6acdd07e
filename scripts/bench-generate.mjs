#!/usr/bin/env node
/**
 * Benchmark of `generate llm`: one GPT-3 175B iteration on 1,024 GPUs in the layout of Narayanan
 * et al. 2021, Table 1 (tp 8 × pp 16 × dp 8, global batch 1,536, sequence 2,048: 192 micro-batches
 * per pipeline). Reports wall time, nodes, bytes and peak resident memory.
 *
 *   npm run build && node scripts/bench-generate.mjs [--out DIR] [--keep] [--ranks-only N]
 *
 * TRACEWATT_DIST points at another build folder (default ./dist).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const value = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

const dist = path.resolve(process.env.TRACEWATT_DIST ?? new URL('../dist/', import.meta.url).pathname);
const { writeLlmTraces, generateLlmTraces } = await import(
  pathToFileURL(path.join(dist, 'engines/generate/index.js')).href
);

const options = {
  model: 'gpt3-175b',
  dp: 8,
  tp: 8,
  pp: 16,
  microBatch: 1,
  globalBatch: 1536,
  seqLen: 2048,
  sequenceParallel: true,
};

const outDir = value('out') ?? (await mkdtemp(path.join(os.tmpdir(), 'tracewatt-bench-gen-')));
const t0 = performance.now();
let result;
if (value('ranks-only')) {
  // In-memory generation only (no encoding or files): nodes of the first N ranks.
  const set = generateLlmTraces(options);
  let nodes = 0;
  for (let r = 0; r < Number(value('ranks-only')); r++) nodes += set.nodesOf(r).length;
  result = { ranks: Number(value('ranks-only')), nodes, bytes: 0 };
} else {
  result = await writeLlmTraces({ ...options, outPrefix: path.join(outDir, 'gpt3') });
}
const seconds = (performance.now() - t0) / 1000;
const maxRssMiB = process.resourceUsage().maxRSS / 1024;
console.log(
  JSON.stringify(
    {
      benchmark: 'generate llm gpt3-175b, 1024 ranks (tp 8, pp 16, dp 8, 192 micro-batches, SP)',
      ranks: result.ranks,
      nodes: result.nodes,
      bytes: result.bytes,
      seconds: Number(seconds.toFixed(2)),
      nodesPerSecond: Math.round(result.nodes / seconds),
      mbPerSecond: Number((result.bytes / 1e6 / seconds).toFixed(1)),
      maxRssMiB: Math.round(maxRssMiB),
      cpus: os.cpus().length,
      node: process.version,
    },
    null,
    2,
  ),
);
if (!flag('keep') && !value('out')) await rm(outDir, { recursive: true, force: true });

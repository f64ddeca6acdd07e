#!/usr/bin/env node
// Replay benchmark: a 32-rank × 20,000-node compute / all-reduce chain (in memory, the shape of ASTRA-sim's cost
// anchor) with equal compute durations, the same with random per-rank durations (every all-reduce reached at
// different times, so each is timed per rank), the first one again from files (as `tracewatt replay` runs it, and
// with every rank simulated), and a 1,024-rank trace; Switch(8)×Ring(4) (×32 for 1,024) with the "example" system
// (4 splits). The in-memory cases simulate every rank. Prints events/s and peak RSS.
// Run after `npm run build`: node scripts/bench-replay.mjs [nodesPerRank] [windowNodes]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { replay } from '../dist/engines/replay/index.js';
import { parseNetworkConfig, parsePowerConfig, parseSystemConfig } from '../dist/formats/astra/index.js';
import * as chakra from '../dist/formats/chakra/index.js';
import { reportModes } from './replay-child.mjs';
import { BENCH_NETWORK_1024, BENCH_NETWORK_32, BENCH_SYSTEM, chainSources } from './replay-traces.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const nodesPerRank = Number(process.argv[2] ?? 20000);
const windowNodes = Number(process.argv[3] ?? 4096);
const system = parseSystemConfig('bench-sys.json', JSON.stringify(BENCH_SYSTEM));
const power = parsePowerConfig(
  'bench-power.json',
  JSON.stringify({
    gpu: { activePowerW: 700, idlePowerW: 80 },
    memory: { energyPjPerBit: 5 },
    network: [{ energyPjPerBit: 2 }, { energyPjPerBit: 25 }, { energyPjPerBit: 25 }],
  }),
);

async function bench(label, networkYaml, ranks, perRank, seed) {
  const network = parseNetworkConfig('bench-net.yml', networkYaml);
  const sources = chainSources(chakra, ranks, perRank, seed);
  let peakRss = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 20);
  const t0 = process.hrtime.bigint();
  const res = await replay(sources, { system, network, power, windowNodes, identicalRanksOnce: false });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  clearInterval(timer);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  console.log(
    `${label}: ${res.nodes} nodes, ${res.events} events in ${s.toFixed(2)} s → ${Math.round(res.events / s)} events/s, ` +
      `${Math.round(res.nodes / s)} nodes/s; makespan ${res.makespanNs} ns, rank 0 ${res.ranks[0].finishNs} ns; ` +
      `peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB (window ${windowNodes} nodes/rank)`,
  );
}

/** The 32-rank trace written as files, replayed in a child process (peak RSS: the issue-13 target is ≤ 250 MiB). */
function benchFiles(perRank) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tw-bench-replay-'));
  try {
    const prefix = path.join(dir, 'chain');
    const write = spawnSync(
      process.execPath,
      [path.join(here, 'write-chain-trace.mjs'), prefix, '32', String(perRank)],
      { encoding: 'utf8' },
    );
    if (write.status !== 0) throw new Error(write.stderr);
    reportModes('32 ranks from files (default window)', prefix);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await bench('32 ranks', BENCH_NETWORK_32, 32, nodesPerRank);
benchFiles(nodesPerRank);
await bench('32 ranks, random per-rank durations (seed 1)', BENCH_NETWORK_32, 32, nodesPerRank, 1);
await bench('1024 ranks', BENCH_NETWORK_1024, 1024, Math.max(2, Math.floor(nodesPerRank / 20)));

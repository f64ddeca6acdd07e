#!/usr/bin/env node
// Writes the replay benchmark's chain trace (scripts/replay-traces.mjs) as Chakra files, with a network.yml and an
// ASTRA-sim system.json, so ASTRA-sim can run the same trace: <prefix>.<rank>.et, <prefix>.network.yml,
// <prefix>.system.json. Run after `npm run build`:
//   node scripts/write-chain-trace.mjs <prefix> [ranks=32] [nodesPerRank=20000] [seed]
// (no seed: every compute node 10 µs; a seed: random per-rank durations). 32 ranks use Switch(8)×Ring(4).
import { writeFileSync } from 'node:fs';
import * as chakra from '../dist/formats/chakra/index.js';
import { BENCH_NETWORK_32, BENCH_SYSTEM, chainBatches } from './replay-traces.mjs';

const [prefix, ranksArg = '32', countArg = '20000', seedArg] = process.argv.slice(2);
if (!prefix) throw new Error('usage: node scripts/write-chain-trace.mjs <prefix> [ranks] [nodesPerRank] [seed]');
const ranks = Number(ranksArg);
if (ranks !== 32) throw new Error('only the 32-rank Switch(8)×Ring(4) network is written');
const count = Number(countArg);
const seed = seedArg === undefined ? undefined : Number(seedArg);
for (let rank = 0; rank < ranks; rank++) {
  const next = chainBatches(chakra, rank, count, seed);
  const nodes = [];
  for (let b = next(); b; b = next()) nodes.push(...b);
  // ASTRA-sim's feeder needs the global-metadata frame first.
  await chakra.writeTraceFile(`${prefix}.${rank}.et`, { version: '0.0.4', attrs: [] }, nodes);
}
writeFileSync(`${prefix}.network.yml`, BENCH_NETWORK_32);
// One implementation per dimension: ASTRA-sim asserts on longer lists.
const two = (list) => list.slice(0, 2);
writeFileSync(
  `${prefix}.system.json`,
  JSON.stringify(
    {
      ...BENCH_SYSTEM,
      'all-reduce-implementation': two(BENCH_SYSTEM['all-reduce-implementation']),
      'all-gather-implementation': two(BENCH_SYSTEM['all-gather-implementation']),
      'reduce-scatter-implementation': two(BENCH_SYSTEM['reduce-scatter-implementation']),
      'all-to-all-implementation': two(BENCH_SYSTEM['all-to-all-implementation']),
      'roofline-enabled': 0,
    },
    null,
    1,
  ),
);
console.log(`wrote ${prefix}.0.et … ${prefix}.${ranks - 1}.et, ${prefix}.network.yml, ${prefix}.system.json`);

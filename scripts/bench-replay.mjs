#!/usr/bin/env node
// Replay benchmark: generates a 32-rank × 20,000-node compute / all-reduce chain (in memory, the
// shape of ASTRA-sim's cost anchor) and a 1,024-rank trace, replays them on Switch(8)×Ring(4)
// (×32 for 1,024) with the "example" system (4 splits), and prints events/s and peak RSS.
// Run after `npm run build`: node scripts/bench-replay.mjs [nodesPerRank] [windowNodes]
import { replay } from '../dist/engines/replay/index.js';
import { parseNetworkConfig, parsePowerConfig, parseSystemConfig } from '../dist/formats/astra/index.js';
import { emptyNode, makeAttr, NodeType } from '../dist/formats/chakra/index.js';

const nodesPerRank = Number(process.argv[2] ?? 20000);
const windowNodes = Number(process.argv[3] ?? 4096);
const system = parseSystemConfig('bench-sys.json', JSON.stringify({
  'scheduling-policy': 'LIFO', 'endpoint-delay': 10, 'active-chunks-per-dimension': 1, 'preferred-dataset-splits': 4,
  'all-reduce-implementation': ['ring', 'ring', 'ring'], 'all-gather-implementation': ['ring', 'ring', 'ring'],
  'reduce-scatter-implementation': ['ring', 'ring', 'ring'], 'all-to-all-implementation': ['ring', 'ring', 'ring'],
  'collective-optimization': 'localBWAware', 'local-mem-bw': 1600, 'peak-perf': 900,
}));
const power = parsePowerConfig('bench-power.json', JSON.stringify({
  gpu: { activePowerW: 700, idlePowerW: 80 }, memory: { energyPjPerBit: 5 },
  network: [{ energyPjPerBit: 2 }, { energyPjPerBit: 25 }, { energyPjPerBit: 25 }],
}));

/** Nodes are generated lazily per batch, so the generator itself holds no trace in memory. */
function source(rank, count) {
  let next = 0;
  return {
    rank, file: `generated.${rank}.et`,
    async nextBatch() {
      if (next >= count) return null;
      const batch = [];
      for (const end = Math.min(count, next + 1024); next < end; next++) {
        const id = BigInt(rank * count + next);
        const isColl = next % 2 === 1;
        const n = emptyNode(id, isColl ? `allreduce${next}` : `comp${next}`, isColl ? NodeType.COMM_COLL_NODE : NodeType.COMP_NODE);
        if (next > 0) n.dataDeps = [id - 1n];
        if (isColl) n.attrs = [makeAttr('comm_type', 'int64_val', 0), makeAttr('comm_size', 'int64_val', 1 << 20)];
        else n.durationMicros = 10n;
        batch.push(n);
      }
      return batch;
    },
  };
}

async function bench(label, networkYaml, ranks, perRank) {
  const network = parseNetworkConfig('bench-net.yml', networkYaml);
  const sources = Array.from({ length: ranks }, (_, r) => source(r, perRank));
  let peakRss = process.memoryUsage().rss;
  const timer = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 20);
  const t0 = process.hrtime.bigint();
  const res = await replay(sources, { system, network, power, windowNodes });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  clearInterval(timer);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  console.log(`${label}: ${res.nodes} nodes, ${res.events} events in ${s.toFixed(2)} s → ${Math.round(res.events / s)} events/s, ` +
    `${Math.round(res.nodes / s)} nodes/s; makespan ${res.makespanNs} ns; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB (window ${windowNodes} nodes/rank)`);
}

await bench('32 ranks', 'topology: [Switch, Ring]\nnpus_count: [8, 4]\nbandwidth: [50, 50]\nlatency: [500, 500]\n', 32, nodesPerRank);
await bench('1024 ranks', 'topology: [Switch, Ring, Ring]\nnpus_count: [8, 4, 32]\nbandwidth: [50, 50, 25]\nlatency: [500, 500, 1000]\n', 1024, Math.max(2, Math.floor(nodesPerRank / 20)));

#!/usr/bin/env node
// Replays one collective with every rank arriving at once over a matrix of networks and system settings, with
// the replay engine of a given build, and prints { case: { finishNs, bytesSentPerDim } } as JSON (rank 0's
// finish; bytes summed over ranks). test/fixtures/replay/equal-arrival-06bb150.json was written by it from the
// lockstep engine (commit 06bb150), to check that per-rank progress leaves equal-arrival results unchanged:
//   node scripts/replay-equal-arrival-matrix.mjs <build>/dist > test/fixtures/replay/equal-arrival-06bb150.json
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { equalArrivalMatrix } from './replay-matrix.mjs';

const dist = pathToFileURL(path.resolve(process.argv[2] ?? 'dist')).href;
const { replay } = await import(`${dist}/engines/replay/index.js`);
const { parseNetworkConfig, parsePowerConfig, parseSystemConfig } = await import(`${dist}/formats/astra/index.js`);
const { emptyNode, makeAttr, NodeType } = await import(`${dist}/formats/chakra/index.js`);

const power = parsePowerConfig(
  'p.json',
  JSON.stringify({
    gpu: { activePowerW: 700, idlePowerW: 80 },
    memory: { energyPjPerBit: 5 },
    network: [{ energyPjPerBit: 2 }, { energyPjPerBit: 25 }, { energyPjPerBit: 25 }],
  }),
);
const out = {};
for (const c of equalArrivalMatrix()) {
  const network = parseNetworkConfig('n.yml', c.networkYaml);
  const system = parseSystemConfig('s.json', JSON.stringify(c.system));
  const sources = Array.from({ length: c.ranks }, (_, rank) => {
    let done = false;
    return {
      rank,
      file: `m.${rank}.et`,
      async nextBatch() {
        if (done) return null;
        done = true;
        const n = emptyNode(1n, 'c', NodeType.COMM_COLL_NODE);
        n.attrs = [makeAttr('comm_type', 'int64_val', c.commType), makeAttr('comm_size', 'int64_val', c.bytes)];
        return [n];
      },
    };
  });
  const res = await replay(sources, { system, network, power });
  out[c.name] = { finishNs: res.ranks[0].finishNs, bytesSentPerDim: res.bytesSentPerDim };
}
console.log(JSON.stringify(out, null, 0).replace(/\},"/g, '},\n"'));

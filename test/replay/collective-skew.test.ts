/**
 * Per-rank collective progress (collective.ts): properties that hold for any arrival pattern, and equal-arrival
 * results against the lockstep engine it replaced. The ASTRA-sim agreement itself is in astra-skew-cases.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replay, type RankSource, type ReplayResult } from '../../src/engines/replay/index.js';
import { parseNetworkConfig, parsePowerConfig, parseSystemConfig } from '../../src/formats/astra/index.js';
import { emptyNode, makeAttr, NodeType, type ChakraNode } from '../../src/formats/chakra/index.js';
import { equalArrivalMatrix } from '../../scripts/replay-matrix.mjs';
import { seededRandom } from '../../scripts/replay-traces.mjs';

const power = parsePowerConfig(
  'p.json',
  JSON.stringify({
    gpu: { activePowerW: 700, idlePowerW: 80 },
    memory: { energyPjPerBit: 5 },
    network: [{ energyPjPerBit: 2 }, { energyPjPerBit: 25 }, { energyPjPerBit: 25 }],
  }),
);
const COMM = { ALL_REDUCE: 0, ALL_GATHER: 2, ALL_TO_ALL: 6, REDUCE_SCATTER: 7 } as const;

function system(impl: string, dims: number, extra: object = {}) {
  const list = Array(dims).fill(impl);
  return parseSystemConfig(
    's.json',
    JSON.stringify({
      'scheduling-policy': 'LIFO',
      'endpoint-delay': 10,
      'active-chunks-per-dimension': 1,
      'preferred-dataset-splits': 4,
      'all-reduce-implementation': list,
      'all-gather-implementation': list,
      'reduce-scatter-implementation': list,
      'all-to-all-implementation': Array(dims).fill(impl === 'halvingDoubling' ? 'ring' : impl),
      'collective-optimization': 'localBWAware',
      'local-mem-bw': 1600,
      'peak-perf': 900,
      ...extra,
    }),
  );
}

/** Every rank computes `computeNs[rank]` (whole µs), then runs one collective. */
function skewed(computeUs: number[], commType: number, bytes: number): RankSource[] {
  return computeUs.map((us, rank) => {
    let done = false;
    return {
      rank,
      file: `m.${rank}.et`,
      async nextBatch(): Promise<ChakraNode[] | null> {
        if (done) return null;
        done = true;
        const c = emptyNode(0n, 'c', NodeType.COMP_NODE);
        c.durationMicros = BigInt(us);
        const n = emptyNode(1n, 'coll', NodeType.COMM_COLL_NODE);
        n.dataDeps = [0n];
        n.attrs = [makeAttr('comm_type', 'int64_val', commType), makeAttr('comm_size', 'int64_val', bytes)];
        return [c, n];
      },
    };
  });
}

interface Setup {
  name: string;
  network: string;
  impl: string;
  kind: keyof typeof COMM;
  extra?: object;
}
const SETUPS: Setup[] = [
  {
    name: 'ring all-reduce on Ring(8)',
    network: 'topology: [Ring]\nnpus_count: [8]\nbandwidth: [50]\nlatency: [500]\n',
    impl: 'ring',
    kind: 'ALL_REDUCE',
  },
  {
    name: 'ring all-gather on Switch(8)',
    network: 'topology: [Switch]\nnpus_count: [8]\nbandwidth: [50]\nlatency: [500]\n',
    impl: 'ring',
    kind: 'ALL_GATHER',
  },
  {
    name: 'ring all-to-all on Ring(4)',
    network: 'topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n',
    impl: 'ring',
    kind: 'ALL_TO_ALL',
  },
  {
    name: 'direct all-reduce on Ring(8)',
    network: 'topology: [Ring]\nnpus_count: [8]\nbandwidth: [50]\nlatency: [500]\n',
    impl: 'direct',
    kind: 'ALL_REDUCE',
  },
  {
    name: 'direct reduce-scatter on FullyConnected(4)',
    network: 'topology: [FullyConnected]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [700]\n',
    impl: 'direct',
    kind: 'REDUCE_SCATTER',
  },
  {
    name: 'halving-doubling all-reduce on Ring(8)',
    network: 'topology: [Ring]\nnpus_count: [8]\nbandwidth: [50]\nlatency: [500]\n',
    impl: 'halvingDoubling',
    kind: 'ALL_REDUCE',
  },
  {
    name: '2-D localBWAware all-reduce on Switch(4)×Ring(2), 2 active chunks',
    network: 'topology: [Switch, Ring]\nnpus_count: [4, 2]\nbandwidth: [50, 25]\nlatency: [500, 1000]\n',
    impl: 'ring',
    kind: 'ALL_REDUCE',
    extra: { 'active-chunks-per-dimension': 2 },
  },
  {
    name: '3-D baseline all-gather on Ring(2)×Ring(2)×Ring(2)',
    network:
      'topology: [Ring, Ring, Ring]\nnpus_count: [2, 2, 2]\nbandwidth: [50, 40, 25]\nlatency: [500, 700, 1000]\n',
    impl: 'ring',
    kind: 'ALL_GATHER',
    extra: { 'collective-optimization': 'baseline' },
  },
];

async function run(s: Setup, computeUs: number[], shortcut = true): Promise<ReplayResult> {
  const network = parseNetworkConfig('n.yml', s.network);
  return replay(skewed(computeUs, COMM[s.kind], 1 << 20), {
    system: system(s.impl, network.dims.length, s.extra),
    network,
    power,
    equalArrivalShortcut: shortcut,
  });
}
const finishes = (r: ReplayResult) => r.ranks.map((x) => x.finishNs);

describe('per-rank collective progress: properties', () => {
  for (const s of SETUPS) {
    it(
      `${s.name}: each rank ends after its own issue plus its own steps, after the last issue, and no later than ` +
        `with everyone last`,
      async () => {
        const network = parseNetworkConfig('n.yml', s.network);
        const ranks = network.dims.reduce((a, d) => a * d.npus, 1);
        const equal = await run(s, Array(ranks).fill(0));
        const durationNs = equal.ranks[0].finishNs - 1;
        const rnd = seededRandom(ranks * 7919);
        for (let trial = 0; trial < 5; trial++) {
          const us = Array.from({ length: ranks }, () => 1 + Math.floor(rnd() * 80));
          const res = await run(s, us);
          const lastIssueNs = Math.max(...us) * 1000;
          for (const r of res.ranks) {
            const issueNs = us[r.rank] * 1000;
            // Its own sends and bus delays alone, with every message already waiting: at least one endpoint delay per
            // step of the last phase, plus the first one.
            expect(r.finishNs, `rank ${r.rank}`).toBeGreaterThan(issueNs + 10);
            expect(r.finishNs, `rank ${r.rank}`).toBeGreaterThan(lastIssueNs);
            expect(r.finishNs, `rank ${r.rank}`).toBeLessThanOrEqual(lastIssueNs + durationNs);
            // The comm slot is busy from this rank's own issue to its own finish; after that the rank is idle.
            expect(r.commNs, `rank ${r.rank}`).toBe(r.finishNs - issueNs);
            expect(r.astraExposedNs).toBe(r.finishNs - issueNs);
          }
        }
      },
    );

    it(
      `${s.name}: no rank takes less from its own issue to its finish than when it alone is late and every other ` +
        `message already waits`,
      async () => {
        const network = parseNetworkConfig('n.yml', s.network);
        const ranks = network.dims.reduce((a, d) => a * d.npus, 1);
        // The minimum time of rank r: everyone else issues at 1 µs, rank r 10 ms later (longer than the collective),
        // so everything that does not depend on r's own data has arrived when r issues.
        const minimumNs: number[] = [];
        for (let r = 0; r < ranks; r++) {
          const us = Array<number>(ranks).fill(1);
          us[r] = 10_001;
          const res = await run(s, us);
          minimumNs.push(res.ranks[r].finishNs - us[r] * 1000);
          // At least its own first send and one endpoint delay per step: more than the endpoint delay.
          expect(minimumNs[r]).toBeGreaterThan(10);
        }
        const rnd = seededRandom(ranks * 15485863);
        for (let trial = 0; trial < 5; trial++) {
          const us = Array.from({ length: ranks }, () => 1 + Math.floor(rnd() * 80));
          const res = await run(s, us);
          for (const r of res.ranks)
            expect(r.finishNs - us[r.rank] * 1000, `rank ${r.rank}`).toBeGreaterThanOrEqual(minimumNs[r.rank]);
        }
      },
    );

    // Rings and direct exchanges look the same from every position (rotations); halving-doubling's butterfly from
    // positions that differ in one bit (x → x XOR 1).
    const symmetry = s.impl === 'halvingDoubling' ? 'flipping' : 'rotating';
    it(`${s.name}: ${symmetry} which ranks are late along a dimension moves the finishes the same way`, async () => {
      const network = parseNetworkConfig('n.yml', s.network);
      const ranks = network.dims.reduce((a, d) => a * d.npus, 1);
      const rnd = seededRandom(ranks * 104729);
      const us = Array.from({ length: ranks }, () => 1 + Math.floor(rnd() * 60));
      const base = finishes(await run(s, us));
      let stride = 1;
      for (const d of network.dims) {
        // rank r moves to the rank one step further along dimension d (or to its partner at distance 1).
        const moved = (r: number) => {
          const x = Math.floor(r / stride) % d.npus;
          const to = symmetry === 'flipping' ? x ^ 1 : (x + 1) % d.npus;
          return r + (to - x) * stride;
        };
        const rotatedUs = new Array<number>(ranks);
        for (let r = 0; r < ranks; r++) rotatedUs[moved(r)] = us[r];
        const rotated = finishes(await run(s, rotatedUs));
        for (let r = 0; r < ranks; r++) expect(rotated[moved(r)], `rank ${r} → ${moved(r)}`).toBe(base[r]);
        stride *= d.npus;
      }
    });

    it(`${s.name}: the equal-arrival shortcut and the full per-rank timing give the same result`, async () => {
      const network = parseNetworkConfig('n.yml', s.network);
      const ranks = network.dims.reduce((a, d) => a * d.npus, 1);
      for (const us of [Array(ranks).fill(5), Array.from({ length: ranks }, (_, r) => 1 + ((r * 37) % 23))]) {
        const fast = await run(s, us, true);
        const full = await run(s, us, false);
        expect(fast).toEqual(full);
      }
      const equal = finishes(await run(s, Array(ranks).fill(5), false));
      expect(new Set(equal).size).toBe(1);
    });
  }
});

describe("equal arrivals give the lockstep engine's result (commit 06bb150)", () => {
  const recorded = JSON.parse(
    readFileSync(new URL('../fixtures/replay/equal-arrival-06bb150.json', import.meta.url), 'utf8'),
  ) as Record<string, { finishNs: number; bytesSentPerDim: number[] }>;
  const cases = equalArrivalMatrix();
  it('covers every recorded case', () => {
    expect(cases.map((c) => c.name).sort()).toEqual(Object.keys(recorded).sort());
  });
  for (const shortcut of [true, false]) {
    it(`${cases.length} cases, ${shortcut ? 'with' : 'without'} the equal-arrival shortcut`, async () => {
      const mismatches: string[] = [];
      for (const c of cases) {
        const network = parseNetworkConfig('n.yml', c.networkYaml);
        const res = await replay(skewed(Array(c.ranks).fill(0), c.commType, c.bytes), {
          system: parseSystemConfig('s.json', JSON.stringify(c.system)),
          network,
          power,
          equalArrivalShortcut: shortcut,
        });
        const want = recorded[c.name];
        // The recorded runs have no compute node before the collective; here every rank first computes 1 ns.
        const got = { finishNs: res.ranks[0].finishNs - 1, bytesSentPerDim: res.bytesSentPerDim };
        if (JSON.stringify(got) !== JSON.stringify(want) || new Set(finishes(res)).size !== 1)
          mismatches.push(`${c.name}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
      }
      expect(mismatches).toEqual([]);
    });
  }
});

/**
 * Ranks with the same trace and peers in the same places are simulated once per class (rank-classes.ts): the
 * result must be the full replay's, rank for rank, and the shortcut must be said in the diagnostics when taken.
 */
import { describe, expect, it } from 'vitest';
import { replay, type RankSource, type ReplayOptions, type ReplayResult } from '../../src/engines/replay/index.js';
import {
  parseCommGroupConfig,
  parseNetworkConfig,
  parsePowerConfig,
  parseSystemConfig,
} from '../../src/formats/astra/index.js';
import * as chakra from '../../src/formats/chakra/index.js';
import { emptyNode, makeAttr, NodeType, type ChakraNode } from '../../src/formats/chakra/index.js';
import { generateLlmTraces, type LlmGenerateOptions } from '../../src/engines/generate/index.js';
import { BENCH_NETWORK_32, BENCH_SYSTEM, chainSources } from '../../scripts/replay-traces.mjs';

const power = parsePowerConfig(
  'p.json',
  JSON.stringify({
    gpu: { activePowerW: 700, idlePowerW: 80 },
    memory: { energyPjPerBit: 5 },
    network: [{ energyPjPerBit: 2 }, { energyPjPerBit: 25 }, { energyPjPerBit: 25 }],
  }),
);
const NOTE = 'replay.identical-ranks-simulated-once';

function sources(nodesOf: (rank: number) => ChakraNode[], ranks: number): RankSource[] {
  return Array.from({ length: ranks }, (_, rank) => {
    let done = false;
    return { rank, file: `m.${rank}.et`, nextBatch: async () => (done ? null : ((done = true), nodesOf(rank))) };
  });
}

/** Replays with and without the shortcut; returns both, the parts that must agree made comparable. */
async function both(make: () => RankSource[], opts: Omit<ReplayOptions, 'identicalRanksOnce'>) {
  const once = await replay(make(), opts);
  const every = await replay(make(), { ...opts, identicalRanksOnce: false });
  // byName sums a class's nodes once × the class size instead of rank by rank: equal up to rounding (to 1e-9).
  const comparable = (r: ReplayResult) => ({
    ...r,
    events: 0,
    diagnostics: r.diagnostics.filter((d) => d.code !== NOTE),
    byName: undefined,
  });
  const sameByName = () => {
    // Rows of near-equal energy may swap places with rounding: compared by name and kind.
    const key = (x: NonNullable<ReplayResult['byName']>[number]) => `${x.kind}:${x.name}`;
    const theirs = new Map(every.byName!.map((x) => [key(x), x]));
    expect(once.byName!.length).toBe(every.byName!.length);
    for (const x of once.byName!) {
      const y = theirs.get(key(x))!;
      expect(y, key(x)).toBeDefined();
      expect(x.count).toBe(y.count);
      expect(Math.abs(x.energyJ.total - y.energyJ.total)).toBeLessThanOrEqual(1e-9 * Math.max(1e-12, y.energyJ.total));
      expect(Math.abs(x.timeNs - y.timeNs)).toBeLessThanOrEqual(1e-9 * Math.max(1, y.timeNs));
    }
  };
  return {
    once,
    every,
    same: () => {
      expect(comparable(once)).toEqual(comparable(every));
      sameByName();
    },
  };
}
const classesNote = (r: ReplayResult) => r.diagnostics.find((d) => d.code === NOTE)?.samples[0]?.message;

describe('identical ranks simulated once', () => {
  const llms: [string, LlmGenerateOptions][] = [
    [
      '1F1B, tp 2 × pp 2 × dp 4',
      { model: 'llama2-7b', tp: 2, pp: 2, dp: 4, microBatch: 1, globalBatch: 16, seqLen: 1024 },
    ],
    [
      'GPipe, sequence parallel, recompute, tp 2 × pp 4 × dp 2',
      {
        model: 'llama2-7b',
        tp: 2,
        pp: 4,
        dp: 2,
        microBatch: 1,
        globalBatch: 8,
        seqLen: 1024,
        schedule: 'gpipe',
        sequenceParallel: true,
        recompute: 'full',
      },
    ],
    [
      '1F1B, tp 4 × pp 2 × dp 2, 13B',
      { model: 'llama2-13b', tp: 4, pp: 2, dp: 2, microBatch: 1, globalBatch: 8, seqLen: 2048 },
    ],
  ];
  for (const [name, options] of llms) {
    it(`generated LLM iteration (${name}): one rank per pipeline stage, the full replay's result`, async () => {
      const set = generateLlmTraces(options);
      const { once, same } = await both(() => sources((r) => set.nodesOf(r), set.ranks), {
        system: parseSystemConfig('s.json', set.systemJson()),
        network: parseNetworkConfig('n.yml', set.networkYaml()),
        power,
      });
      same();
      expect(classesNote(once)).toMatch(new RegExp(`the ${set.ranks} ranks form ${options.pp} classes`));
    });
  }

  it('the 32-rank chain with equal durations is one class; with random per-rank durations, none', async () => {
    const opts = {
      system: parseSystemConfig('s.json', JSON.stringify(BENCH_SYSTEM)),
      network: parseNetworkConfig('n.yml', BENCH_NETWORK_32),
      power,
    };
    const equal = await both(() => chainSources(chakra, 32, 400), opts);
    equal.same();
    expect(classesNote(equal.once)).toMatch(/the 32 ranks form 1 class of/);
    const random = await both(() => chainSources(chakra, 32, 400, 3), opts);
    random.same();
    expect(classesNote(random.once)).toBeUndefined();
  });

  const comp = (id: number, us: number, deps: number[] = []) => {
    const n = emptyNode(BigInt(id), `c${id}`, NodeType.COMP_NODE);
    n.durationMicros = BigInt(us);
    n.dataDeps = deps.map(BigInt);
    return n;
  };
  const p2p = (id: number, type: number, peer: number, deps: number[]) => {
    const n = emptyNode(BigInt(id), `p${id}`, type);
    n.dataDeps = deps.map(BigInt);
    n.attrs = [
      makeAttr(type === NodeType.COMM_SEND_NODE ? 'comm_dst' : 'comm_src', 'int64_val', peer),
      makeAttr('comm_size', 'int64_val', 1 << 20),
      makeAttr('comm_tag', 'int64_val', 7),
    ];
    return n;
  };
  const exchange = (partner: (r: number) => number) => (r: number) => [
    comp(0, 5),
    p2p(1, NodeType.COMM_SEND_NODE, partner(r), [0]),
    p2p(2, NodeType.COMM_RECV_NODE, partner(r), [0]),
    comp(3, 2, [1, 2]),
  ];
  const sys1 = parseSystemConfig(
    's.json',
    JSON.stringify({
      ...BENCH_SYSTEM,
      'all-reduce-implementation': ['ring'],
      'all-gather-implementation': ['ring'],
      'reduce-scatter-implementation': ['ring'],
      'all-to-all-implementation': ['ring'],
    }),
  );

  it(
    'ranks that share one table while loading get their own back, ids shifted and peers their own ' +
      '(shared-tables.ts)',
    async () => {
      const ring6 = parseNetworkConfig('n.yml', 'topology: [Ring]\nnpus_count: [6]\nbandwidth: [50]\nlatency: [500]\n');
      const ring4 = parseNetworkConfig('n.yml', 'topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n');
      // Ids from rank × 100: every rank has rank 0's nodes up to that offset.
      const at = (r: number, nodes: ChakraNode[]) =>
        nodes.map((n) =>
          Object.assign(n, { id: n.id + BigInt(r * 100), dataDeps: n.dataDeps.map((d) => d + BigInt(r * 100)) }),
        );
      // Two classes ({0, 1}, {2, 3, 4, 5}); the second's representative (rank 2) shared rank 0's table.
      const partner = (r: number) => [1, 0, 4, 5, 2, 3][r];
      const pairs = await both(() => sources((r) => at(r, exchange(partner)(r)), 6), {
        system: sys1,
        network: ring6,
        power,
      });
      pairs.same();
      expect(classesNote(pairs.once)).toMatch(/the 6 ranks form 2 classes/);
      // Each rank sends to two ranks of its class with one tag: no classes, every rank simulated on its own table.
      const twice = (r: number) =>
        at(r, [
          comp(0, 5),
          p2p(1, NodeType.COMM_SEND_NODE, (r + 1) % 4, [0]),
          p2p(2, NodeType.COMM_SEND_NODE, (r + 2) % 4, [0]),
          p2p(3, NodeType.COMM_RECV_NODE, (r + 3) % 4, [0]),
          p2p(4, NodeType.COMM_RECV_NODE, (r + 2) % 4, [0]),
          comp(5, 2, [1, 2, 3, 4]),
        ]);
      const refuted = await both(() => sources(twice, 4), { system: sys1, network: ring4, power });
      refuted.same();
      expect(classesNote(refuted.once)).toBeUndefined();
      expect(refuted.once.ranks.map((r) => r.finishNs)).toEqual(refuted.every.ranks.map((r) => r.finishNs));
    },
  );

  it('sends and receives: classes split by the route to the peer, and meet by class', async () => {
    const ring6 = parseNetworkConfig('n.yml', 'topology: [Ring]\nnpus_count: [6]\nbandwidth: [50]\nlatency: [500]\n');
    // Pairs 0↔1 (1 hop), 2↔4 and 3↔5 (2 hops): two classes.
    const partner = (r: number) => [1, 0, 4, 5, 2, 3][r];
    const pairs = await both(() => sources(exchange(partner), 6), { system: sys1, network: ring6, power });
    pairs.same();
    expect(classesNote(pairs.once)).toMatch(/the 6 ranks form 2 classes/);
    // Everyone sends to the next rank and receives from the previous one: one class.
    const around = await both(
      () =>
        sources(
          (r) => [
            comp(0, 5),
            p2p(1, NodeType.COMM_SEND_NODE, (r + 1) % 6, [0]),
            p2p(2, NodeType.COMM_RECV_NODE, (r + 5) % 6, [0]),
            comp(3, 2, [1, 2]),
          ],
          6,
        ),
      { system: sys1, network: ring6, power },
    );
    around.same();
    expect(classesNote(around.once)).toMatch(/the 6 ranks form 1 class of/);
  });

  it('no shortcut where a collective would not end together for its members (a comm group across dimensions)', async () => {
    const net = parseNetworkConfig(
      'n.yml',
      'topology: [Switch, Ring]\nnpus_count: [2, 2]\nbandwidth: [50, 25]\nlatency: [500, 1000]\n',
    );
    const sys2 = parseSystemConfig('s.json', JSON.stringify(BENCH_SYSTEM));
    // The ring 0 → 1 → 2 → 0 takes dimension 0 twice and dimension 1 once; rank 3 only computes.
    const groups = parseCommGroupConfig('g.json', JSON.stringify({ 1: [0, 1, 2] }), 4);
    const node = (r: number) => {
      if (r === 3) return [comp(0, 5)];
      const n = emptyNode(1n, 'ar', NodeType.COMM_COLL_NODE);
      n.attrs = [
        makeAttr('comm_type', 'int64_val', 0),
        makeAttr('comm_size', 'int64_val', 1 << 20),
        makeAttr('pg_name', 'string_val', '1'),
      ];
      return [comp(0, 5), Object.assign(n, { dataDeps: [0n] })];
    };
    const r = await both(() => sources(node, 4), { system: sys2, network: net, power, commGroups: groups });
    r.same();
    expect(classesNote(r.once)).toBeUndefined();
    expect(new Set(r.every.ranks.slice(0, 3).map((x) => x.finishNs)).size).toBeGreaterThan(1);
  });
});

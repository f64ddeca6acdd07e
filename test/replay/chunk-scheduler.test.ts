/**
 * The chunk scheduler's stall: on a 3-D network a localBWAware all-reduce runs the reduce-scatter and the all-gather
 * of the middle dimension in one queue per rank, so ranks that reach it at different times can each hold that queue
 * with a different chunk while their peers wait for the other (ASTRA-sim stalls there too: collective.ts). The
 * scheduler takes each member's finishes in its own order (chunk-scheduler.ts); this checks it still finds the stall
 * and names what each member runs, and that equal arrivals do not stall.
 */
import { describe, expect, it } from 'vitest';
import { parseNetworkConfig, parseSystemConfig } from '../../src/formats/astra/index.js';
import { CollectiveModel } from '../../src/engines/replay/collective.js';
import { makeCluster } from '../../src/engines/replay/network.js';
import { ChunkScheduler } from '../../src/engines/replay/chunk-scheduler.js';
import type { CollectiveKind } from '../../src/vocab/collectives.js';
import { equalArrivalMatrix } from '../../scripts/replay-matrix.mjs';
import { BENCH_NETWORK_32, BENCH_SYSTEM, seededRandom } from '../../scripts/replay-traces.mjs';

// The benchmark's system: ASTRA-sim's "example" (4 splits, 1 active chunk, localBWAware), ring on every dimension.
const system = parseSystemConfig('sys.json', JSON.stringify(BENCH_SYSTEM));
const network = parseNetworkConfig(
  'net.yml',
  'topology: [Ring, Ring, Ring]\nnpus_count: [2, 2, 2]\nbandwidth: [50, 50, 50]\nlatency: [500, 500, 500]\n',
);
const members = [0, 1, 2, 3, 4, 5, 6, 7];

function allReduce(issuedNs: number[]) {
  const model = new CollectiveModel(makeCluster(network), system, { equalArrivalShortcut: false });
  const plan = model.plan('ar', () => ({ kind: 'ALL_REDUCE', bytes: 1 << 20, members, commGroup: false }));
  const finishNs = new Float64Array(members.length);
  return { plan, stall: model.finishTimes(plan, issuedNs, finishNs), finishNs };
}

describe('chunk scheduler on a 3-D localBWAware all-reduce', () => {
  it('equal arrivals: every member finishes, all at the same ns', () => {
    const { stall, finishNs } = allReduce([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(stall).toBeNull();
    expect(new Set(finishNs).size).toBe(1);
    expect(finishNs[0]).toBeGreaterThan(0);
  });

  it('ranks 2, 3, 6, 7 100 µs late: each middle-dimension queue holds another chunk than its peer waits for', () => {
    const { plan, stall } = allReduce([0, 0, 100_000, 100_000, 0, 0, 100_000, 100_000]);
    expect(plan.phases.map((ph) => `${ph.kind}@${ph.queue}`)).toEqual([
      'REDUCE_SCATTER@0',
      'REDUCE_SCATTER@1',
      'ALL_REDUCE@2',
      'ALL_GATHER@1',
      'ALL_GATHER@0',
    ]);
    // The early ranks run chunk 1's reduce-scatter on dimension 1, the late ones chunk 0's all-gather there.
    expect(stall?.running).toEqual([
      { member: 0, chunk: 1, phase: 1 },
      { member: 1, chunk: 1, phase: 1 },
      { member: 2, chunk: 0, phase: 3 },
      { member: 3, chunk: 0, phase: 3 },
      { member: 4, chunk: 1, phase: 1 },
      { member: 5, chunk: 1, phase: 1 },
      { member: 6, chunk: 0, phase: 3 },
      { member: 7, chunk: 0, phase: 3 },
    ]);
  });
});

/**
 * The in-order run (one active chunk, every queue's order fixed: chunk-scheduler.ts runInOrder) against the general
 * one, on the equal-arrival matrix's plans plus the benchmark's Switch(8)×Ring(4) and comm-group rings, with random
 * issue times (spread over µs, within a few ns, and with ties): the same finishes and the same stall verdicts.
 */
describe('chunk scheduler: the in-order run and the general run agree', () => {
  const KINDS: Record<number, CollectiveKind> = {
    0: 'ALL_REDUCE',
    2: 'ALL_GATHER',
    6: 'ALL_TO_ALL',
    7: 'REDUCE_SCATTER',
  };
  interface Case {
    name: string;
    networkYaml: string;
    system: object;
    kind: CollectiveKind;
    bytes: number;
    members?: number[];
  }
  const cases: Case[] = equalArrivalMatrix().map((c) => ({ ...c, kind: KINDS[c.commType] }));
  for (const kind of ['ALL_REDUCE', 'ALL_GATHER', 'REDUCE_SCATTER', 'ALL_TO_ALL'] as const) {
    cases.push({ name: `bench ${kind}`, networkYaml: BENCH_NETWORK_32, system: BENCH_SYSTEM, kind, bytes: 1 << 20 });
    cases.push({
      name: `comm group ${kind}`,
      networkYaml: BENCH_NETWORK_32,
      system: BENCH_SYSTEM,
      kind,
      bytes: 1000003,
      members: [5, 0, 17, 9, 30, 2],
    });
  }
  const rnd = seededRandom(27);
  const draws: ((n: number) => number[])[] = [
    (n) => Array.from({ length: n }, () => Math.floor(rnd() * 200_000)),
    (n) => Array.from({ length: n }, () => 1000 + Math.floor(rnd() * 12)),
    (n) => Array.from({ length: n }, () => [0, 500, 50_000][Math.floor(rnd() * 3)]),
    (n) => Array.from({ length: n }, (_, m) => (m % 3 === 0 ? 100_000 : 0)),
  ];

  it(`${cases.length} plans × ${draws.length * 4} issue patterns`, () => {
    let inOrder = 0;
    const mismatches: string[] = [];
    for (const c of cases) {
      const network = parseNetworkConfig('n.yml', c.networkYaml);
      const sys = parseSystemConfig('s.json', JSON.stringify(c.system));
      const all = Array.from({ length: network.dims.reduce((a, d) => a * d.npus, 1) }, (_, r) => r);
      const members = c.members ?? all;
      const model = new CollectiveModel(makeCluster(network), sys);
      const plan = model.plan('p', () => ({ kind: c.kind, bytes: c.bytes, members, commGroup: !!c.members }));
      if (plan.phases.length === 0) continue;
      if (sys.activeChunksPerDimension === 1 && fixedQueueOrder(plan.phases.map((ph) => ph.queue))) inOrder++;
      const fast = new ChunkScheduler(sys.activeChunksPerDimension);
      const general = new ChunkScheduler(sys.activeChunksPerDimension, false);
      for (const draw of draws) {
        for (let trial = 0; trial < 4; trial++) {
          const issued = draw(members.length);
          const a = new Float64Array(members.length);
          const b = new Float64Array(members.length);
          const stallA = fast.run(plan, issued, a);
          const stallB = general.run(plan, issued, b);
          const same = JSON.stringify(stallA) === JSON.stringify(stallB) && (stallA !== null || `${a}` === `${b}`);
          if (!same) mismatches.push(`${c.name} [${issued}]: ${a} / ${JSON.stringify(stallA)} vs ${b}`);
        }
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    // The in-order run was taken (1-D rings, 2-D localBWAware all-reduces, comm groups …), and not always.
    expect(inOrder).toBeGreaterThan(50);
    expect(inOrder).toBeLessThan(cases.length);
  });
});

/** Every queue holds one phase, or phase 0 and one more (the condition of the in-order run, restated). */
function fixedQueueOrder(queues: number[]): boolean {
  return queues.every((q, j) => {
    const first = queues.indexOf(q);
    return first === j || (first === 0 && queues.indexOf(q, 1) === j);
  });
}

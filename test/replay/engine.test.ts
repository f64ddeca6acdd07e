import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replay, replayFiles, type RankSource } from '../../src/engines/replay/index.js';
import {
  parseNetworkConfig,
  parsePowerConfig,
  parseCommGroupConfig,
  checkSystemAgainstNetwork,
} from '../../src/formats/astra/index.js';
import { emptyNode, makeAttr, NodeType, type ChakraNode } from '../../src/formats/chakra/index.js';
import { replayCommand } from '../../src/cli/commands/replay.js';
import { astraRef, mlpModelParallel } from '../helpers/astra-reference.js';
import { hasShared } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';
import { ringCluster, ringSystem } from '../helpers/ring-cluster.js';

const sys = (extra: object = {}) => ringSystem(2, extra);
const net1 = ringCluster().net;
const power = parsePowerConfig(
  'p.json',
  JSON.stringify({
    gpu: { activePowerW: 700, idlePowerW: 80 },
    memory: { energyPjPerBit: 5 },
    network: [{ energyPjPerBit: 2 }, { energyPjPerBit: 25 }],
  }),
);

function comp(id: number, durUs: number, deps: number[] = [], attrs: ChakraNode['attrs'] = []): ChakraNode {
  const n = emptyNode(BigInt(id), `c${id}`, NodeType.COMP_NODE);
  n.durationMicros = BigInt(durUs);
  n.dataDeps = deps.map(BigInt);
  n.attrs = attrs;
  return n;
}
function coll(id: number, type: number, bytes: number, deps: number[] = []): ChakraNode {
  const n = emptyNode(BigInt(id), `coll${id}`, NodeType.COMM_COLL_NODE);
  n.dataDeps = deps.map(BigInt);
  n.attrs = [makeAttr('comm_type', 'int64_val', type), makeAttr('comm_size', 'int64_val', bytes)];
  return n;
}
function sources(perRank: ChakraNode[][], batch = 1000): RankSource[] {
  return perRank.map((nodes, rank) => {
    let i = 0;
    return {
      rank,
      file: `mem.${rank}.et`,
      async nextBatch() {
        if (i >= nodes.length) return null;
        const b = nodes.slice(i, i + batch);
        i += batch;
        return b;
      },
    };
  });
}
const opts = { system: sys(), network: net1, power };

describe('replay engine (in-memory traces)', () => {
  it(
    'rankStartNs: a rank starts at its time, the collective waits for it, and each finishNs counts from its own ' +
      'start',
    async () => {
      // Every rank: 10 µs of compute, then an all-reduce, then 5 µs. Rank 2 starts 30 µs late; the others wait for it.
      const ranks = [0, 1, 2, 3].map(() => [comp(0, 10), coll(1, 0, 1 << 16, [0]), comp(2, 5, [1])]);
      const together = await replay(sources(ranks), opts);
      const late = await replay(sources(ranks), { ...opts, rankStartNs: [0, 0, 30_000, 0] });
      const t = together.ranks[0]!.finishNs;
      expect(together.ranks.every((r) => r.finishNs === t && r.startOffsetNs === undefined)).toBe(true);
      expect(late.ranks.map((r) => r.startOffsetNs)).toEqual([0, 0, 30_000, 0]);
      // The late rank's own iteration is as long as before; the others' up to 30 µs longer (they waited in the
      // collective).
      expect(late.ranks[2]!.finishNs).toBe(t);
      // (each a little less: the ring's first steps between the waiting members were done before rank 2 arrived)
      for (const r of [0, 1, 3]) {
        expect(late.ranks[r]!.finishNs).toBeLessThanOrEqual(t + 30_000);
        expect(late.ranks[r]!.finishNs).toBeGreaterThan(t + 27_000);
      }
      expect(late.makespanNs).toBe(Math.max(...late.ranks.map((r) => r.finishNs)));
      for (const r of late.ranks)
        expect(r.gpuComputeNs + r.exposedCommNs + r.hostExposedNs + r.remoteMemExposedNs + r.waitNs).toBe(
          late.makespanNs,
        );
      await expect(replay(sources(ranks), { ...opts, rankStartNs: [0, 0, -1, 0] })).rejects.toThrow(/rank start times/);
    },
  );

  it('energies add up to the total, per rank and overall, and times stay within the makespan', async () => {
    const ranks = [0, 1, 2, 3].map((r) => [
      comp(0, 10 + r),
      coll(1, 0, 1 << 20, [0]),
      comp(2, 20, [0]),
      comp(3, 5, [1, 2], [makeAttr('tensor_size', 'uint64_val', 4096)]),
    ]);
    const res = await replay(sources(ranks), opts);
    for (const e of [res.energyJ, ...res.ranks.map((r) => r.energyJ)]) {
      expect(e.compute + e.memory + e.communication + e.network + e.idle + e.host).toBeCloseTo(e.total, 12);
      expect(e.compute).toBeGreaterThan(0);
      expect(e.network).toBeGreaterThan(0);
    }
    // Idle: what is left of the makespan beside compute and communication-only time (0 on a rank busy throughout).
    expect(res.energyJ.idle).toBeGreaterThan(0);
    for (const r of res.ranks) {
      expect(r.finishNs).toBeLessThanOrEqual(res.makespanNs);
      expect(r.gpuComputeNs + r.astraExposedNs).toBe(r.finishNs);
      expect(r.overlapNs).toBeLessThanOrEqual(Math.min(r.gpuComputeNs, r.commNs));
      expect(r.wallNs).toBe(r.gpuComputeNs + r.commNs - r.overlapNs);
      // The time split: GPU compute, exposed communication (comm with no GPU compute), host, remote memory, wait.
      expect(r.exposedCommNs).toBe(r.commNs - r.overlapNs);
      expect(r.gpuComputeNs + r.exposedCommNs + r.hostExposedNs + r.remoteMemExposedNs + r.waitNs).toBe(res.makespanNs);
    }
    expect(res.makespanNs).toBe(Math.max(...res.ranks.map((r) => r.finishNs)));
  });

  it(
    'each part follows the power config: compute + memory = active W × GPU busy with memory carved out, ' +
      'communication = comm W × comm-only time, idle = idle W × the rest, network per bit + static',
    async () => {
      const withIdleLinks = parsePowerConfig(
        'p2.json',
        JSON.stringify({
          gpu: { activePowerW: 700, idlePowerW: 80 },
          memory: { energyPjPerBit: 5 },
          network: [{ energyPjPerBit: 2 }],
          networkIdlePowerWPerRank: 3,
        }),
      );
      const tensorBytes = 4096;
      const ranks = [0, 1, 2, 3].map((r) => [
        comp(0, 10 + r),
        coll(1, 0, 1 << 20, [0]),
        comp(2, 20, [0]),
        comp(3, 5, [1, 2], [makeAttr('tensor_size', 'uint64_val', tensorBytes)]),
      ]);
      const res = await replay(sources(ranks), { ...opts, power: withIdleLinks });
      for (const r of res.ranks) {
        // The GPU slot runs the three compute nodes one after another: (10 + rank) + 20 + 5 µs.
        const busyNs = (35 + r.rank) * 1000;
        expect(r.gpuComputeNs).toBe(busyNs);
        // The DRAM part is carved out of the nodes' energy, never added: compute + memory = active W × busy time.
        expect(r.energyJ.memory).toBeCloseTo(tensorBytes * 8 * 5e-12, 18);
        expect(r.energyJ.compute).toBeCloseTo(700 * busyNs * 1e-9 - tensorBytes * 8 * 5e-12, 15);
        // No commPowerW given: idle + 0.3 × (active − idle) = 266 W while only the all-reduce runs.
        expect(r.exposedCommNs).toBe(r.commNs - r.overlapNs);
        expect(r.energyJ.communication).toBeCloseTo(266 * r.exposedCommNs * 1e-9, 15);
        expect(r.energyJ.idle).toBeCloseTo(80 * (res.makespanNs - busyNs - r.exposedCommNs) * 1e-9, 15);
        expect(r.bytesSentPerDim[0]).toBeGreaterThan(0);
        expect(r.energyJ.network).toBeCloseTo(r.bytesSentPerDim[0] * 8 * 2e-12 + 3 * res.makespanNs * 1e-9, 15);
        expect(r.energyJ.host).toBe(0);
      }
      expect(res.settings.ledger).toMatchObject({
        commPowerW: 266,
        commPowerAssumed: true,
        idlePowerW: 80,
        hostPowerWPerRank: 0,
      });
      // A ring all-reduce of 1 MiB over 4 ranks sends 2 × (4 − 1)/4 of the data from every rank.
      expect(res.bytesSentPerDim[0]).toBe(4 * 2 * (3 / 4) * (1 << 20));
      // The network static power (3 W per rank over the makespan) is in energyJ.network but in no dimension.
      expect(res.networkEnergyPerDimJ[0]).toBeCloseTo(res.energyJ.network - 4 * 3 * res.makespanNs * 1e-9, 15);
      expect(res.energyJ.idle).toBeCloseTo(
        res.ranks.reduce((a, r) => a + r.energyJ.idle, 0),
        12,
      );
    },
  );

  it('a late member holds the others up, and each member finishes the collective at its own time', async () => {
    const ranks = [0, 1, 2, 3].map((r) => [comp(0, r === 2 ? 100 : 1), coll(1, 0, 1 << 20, [0])]);
    const res = await replay(sources(ranks), opts);
    const alone = await replay(sources([0, 1, 2, 3].map(() => [coll(1, 0, 1 << 20)])), opts);
    for (const r of res.ranks) {
      expect(r.finishNs).toBeGreaterThan(100_000);
      expect(r.finishNs).toBeLessThanOrEqual(100_000 + alone.makespanNs);
    }
    // The late rank's ring successor gets its data last; the others finish earlier than it.
    expect(res.makespanNs).toBe(100_000 + alone.makespanNs);
    expect(new Set(res.ranks.map((r) => r.finishNs)).size).toBeGreaterThan(1);
  });

  it('the same result with a small reading window as with the whole trace loaded', async () => {
    const chain = (r: number) =>
      Array.from({ length: 200 }, (_, i) =>
        i % 5 === 4 ? coll(i, 0, 65536 * (1 + (i % 3)), [i - 1]) : comp(i, 1 + ((i * 7 + r) % 13), i ? [i - 1] : []),
      );
    const whole = await replay(sources([0, 1, 2, 3].map(chain)), opts);
    const windowed = await replay(sources([0, 1, 2, 3].map(chain), 7), { ...opts, windowNodes: 16 });
    expect(windowed.ranks.map((r) => [r.finishNs, r.exposedCommNs])).toEqual(
      whole.ranks.map((r) => [r.finishNs, r.exposedCommNs]),
    );
  });

  it('ready nodes on one slot are issued lowest id first', async () => {
    const timeline: [bigint, number][] = [];
    const ranks = [0, 1, 2, 3].map(() => [comp(9, 3), comp(4, 2), comp(7, 1)]);
    await replay(sources(ranks), {
      ...opts,
      onSlice: (s) => {
        if (s.rank === 0) timeline.push([s.nodeId, s.startNs]);
      },
    });
    expect(timeline).toEqual([
      [4n, 0],
      [7n, 2000],
      [9n, 3000],
    ]);
  });

  it('ids above 2^53 keep their exact order and identity', async () => {
    const big = 2n ** 53n;
    const node = (id: bigint, us: number) => {
      const n = emptyNode(id, `c${id}`, NodeType.COMP_NODE);
      n.durationMicros = BigInt(us);
      return n;
    };
    const timeline: [bigint, number][] = [];
    // 2^53 + 1 and 2^53 + 2 are the same double; the child depends on the larger and waits for the GPU behind 2^53 + 3.
    const ranks = [0, 1, 2, 3].map(() => {
      const child = node(big + 9n, 1);
      child.dataDeps = [big + 2n];
      return [node(big + 3n, 3), node(big + 1n, 2), node(big + 2n, 1), child];
    });
    await replay(sources(ranks), {
      ...opts,
      onSlice: (s) => {
        if (s.rank === 0) timeline.push([s.nodeId, s.startNs]);
      },
    });
    expect(timeline).toEqual([
      [big + 1n, 0],
      [big + 2n, 2000],
      [big + 3n, 3000],
      [big + 9n, 6000],
    ]);
  });

  it('plain GB/s reading gives longer times than the GiB/s quirk', async () => {
    const t = (bandwidthUnit: 'astra-sim' | 'GBps') =>
      replay(sources([0, 1, 2, 3].map(() => [coll(0, 0, 1 << 20)])), { ...opts, bandwidthUnit });
    expect((await t('GBps')).makespanNs).toBeGreaterThan((await t('astra-sim')).makespanNs);
  });

  it('energy_j annotations replace active power × time', async () => {
    const ranks = [0, 1, 2, 3].map(() => [comp(0, 10, [], [makeAttr('energy_j', 'double_val', 0.5)])]);
    const res = await replay(sources(ranks), opts);
    expect(res.ranks[0].energyJ.compute).toBe(0.5);
  });
});

describe('clear errors', () => {
  it('COMM_COLL without comm_size names the node and the attribute', async () => {
    const n = coll(55, 0, 1);
    n.attrs = n.attrs.filter((a) => a.name !== 'comm_size');
    await expect(replay(sources([[n], [n], [n], [n]]), opts)).rejects.toThrow(/node 55 .*comm_size/);
  });
  it('an implementation list shorter than the network refuses, naming the key', () => {
    const net2 = parseNetworkConfig(
      'n2.yml',
      'topology: [Switch, Ring]\nnpus_count: [8, 4]\nbandwidth: [50, 50]\nlatency: [500, 500]\n',
    );
    expect(() => checkSystemAgainstNetwork(sys({ 'all-reduce-implementation': ['ring'] }), net2)).toThrow(
      /all-reduce-implementation.*1 entry.*2 dimensions/,
    );
  });
  it('unknown system keys, bad topologies, group 0 and mismatched rank counts are refused', async () => {
    expect(() => sys({ 'endpoint-dealy': 3 })).toThrow(/endpoint-dealy/);
    expect(() =>
      parseNetworkConfig('n.yml', 'topology: [Torus]\nnpus_count: [4]\nbandwidth: [1]\nlatency: [1]'),
    ).toThrow(/topology.*Torus/);
    expect(() =>
      parseNetworkConfig('n.yml', 'topology: [Ring, Ring]\nnpus_count: [4]\nbandwidth: [1, 1]\nlatency: [1, 1]'),
    ).toThrow(/npus_count/);
    expect(() => parseCommGroupConfig('g.json', '{"0": [0, 1]}')).toThrow(/reserved/);
    await expect(replay(sources([[comp(0, 1)]]), opts)).rejects.toThrow(/1 rank file.*4 NPUs/);
  });
  it('a collective one rank never reaches is reported instead of hanging', async () => {
    const ranks = [0, 1, 2, 3].map((r) => (r === 3 ? [comp(0, 1)] : [coll(0, 0, 4096)]));
    await expect(replay(sources(ranks), opts)).rejects.toThrow(/never reached by rank\(s\) 3/);
  });
});

describe('real traces (shipped, vendored, and the MLP trace in ../shared)', () => {
  const ref = (p: string) => astraRef('configs', p);
  const tempDirs: string[] = [];
  const mkdtemp = (prefix: string) => {
    const dir = mkdtempSync(prefix);
    tempDirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
  it('ResNet-50 data-parallel (64 ranks, no comm_size): a clear error naming what is missing', async () => {
    const dir = mkdtemp(path.join(tmpdir(), 'tw-replay-'));
    const n = path.join(dir, 'net.yml');
    writeFileSync(n, 'topology: [Switch, Ring]\nnpus_count: [8, 8]\nbandwidth: [50, 50]\nlatency: [500, 500]\n');
    const s = path.join(dir, 'sys.json');
    writeFileSync(s, readFileSync(ref('sys2d_ring_pure.json')));
    await expect(
      replayFiles({
        trace: shipped('astra-sim-history', 'resnet_dp', 'Resnet50_DataParallel'),
        system: s,
        network: n,
      }),
    ).rejects.toThrow(/COMM_COLL_NODE.*no comm_size attribute/);
  });
  it.runIf(hasShared)('MLP model-parallel (32 ranks, ../shared) replays on Switch(8)×Ring(4)', async () => {
    const res = await replayFiles({
      trace: mlpModelParallel(),
      system: ref('sys2d_ring_pure.json'),
      network: ref('Switch8_Ring4.yml'),
    });
    expect(res.ranks).toHaveLength(32);
    for (const r of res.ranks) {
      expect(r.finishNs).toBeGreaterThan(r.gpuComputeNs);
      expect(r.exposedCommNs).toBeGreaterThan(0);
    }
    const e = res.energyJ;
    expect(e.compute + e.memory + e.communication + e.network + e.idle + e.host).toBeCloseTo(e.total, 9);
  });
  it('the PyTorch feeder trace replays on one NPU, or stops with an error naming the nodes that block it', async () => {
    const dir = mkdtemp(path.join(tmpdir(), 'tw-replay-'));
    const n = path.join(dir, 'net1.yml');
    writeFileSync(n, 'topology: [Ring]\nnpus_count: [1]\nbandwidth: [50]\nlatency: [500]\n');
    const run = replayFiles({
      trace: shipped('chakra-tests', 'feeder_tests_chakra.0.et'),
      system: ref('Ring_4chunks.json'),
      network: n,
    });
    await run.then(
      (res) => expect(res.nodes).toBe(3664),
      (e: Error) => expect(e.message).toMatch(/feeder_tests_chakra\.0\.et: (dependency cycle \d+( → \d+)+|nodes \d+)/),
    );
  });
  it('the CLI prints JSON with the documented fields and writes a timeline', async () => {
    const dir = mkdtemp(path.join(tmpdir(), 'tw-replay-'));
    const out: string[] = [];
    const tl = path.join(dir, 'tl.json');
    const code = await replayCommand.run(
      [astraRef('traces', 'overlap4', 'o')],
      { system: ref('sys_ring_example.json'), network: ref('Ring_4npus.yml'), json: true, timeline: tl },
      { out: (t) => out.push(t), err: () => {}, isTTY: false },
    );
    expect(code).toBe(0);
    const j = JSON.parse(out.join(''));
    expect(Object.keys(j.energyJ).sort()).toEqual([
      'communication',
      'compute',
      'host',
      'idle',
      'memory',
      'network',
      'total',
    ]);
    expect(j.ranks[0]).toMatchObject({ rank: 0, finishNs: j.makespanNs });
    expect(typeof j.ranks[0].exposedCommNs).toBe('number');
    const trace = JSON.parse(readFileSync(tl, 'utf8'));
    const slices = trace.traceEvents.filter((e: { ph: string }) => e.ph === 'X');
    expect(slices.length).toBe(16);
    expect(Math.max(...slices.map((e: { ts: number; dur: number }) => e.ts + e.dur))).toBeCloseTo(
      j.makespanNs / 1000,
      6,
    );
    expect(trace.traceEvents.some((e: { ph: string }) => e.ph === 'C')).toBe(true);
  });
});

describe('collectives grouped by involved_dim (no pg_name)', () => {
  it(
    'an all-reduce over dimension 0 of Switch(4)×Ring(2) runs as two independent groups of 4, each timed like a ' +
      '1-D Switch(4)',
    async () => {
      const twoD = parseNetworkConfig(
        '2d.yml',
        'topology: [Switch, Ring]\nnpus_count: [4, 2]\nbandwidth: [50, 25]\nlatency: [500, 700]\n',
      );
      const oneD = parseNetworkConfig(
        '1d.yml',
        'topology: [Switch]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n',
      );
      const dim0 = (n: ChakraNode) => {
        n.attrs.push(makeAttr('involved_dim', 'bool_list', [true, false]));
        return n;
      };
      // The second group starts later, so a group spanning all 8 ranks would delay the first.
      const twoDRanks = [...Array(8).keys()].map((r) => [comp(0, r < 4 ? 1 : 50), dim0(coll(1, 0, 1 << 20, [0]))]);
      const grouped = await replay(sources(twoDRanks), { system: sys(), network: twoD, power });
      const plain = await replay(sources([...Array(4).keys()].map(() => [comp(0, 1), coll(1, 0, 1 << 20, [0])])), {
        system: sys({
          'all-reduce-implementation': ['ring'],
          'all-gather-implementation': ['ring'],
          'reduce-scatter-implementation': ['ring'],
          'all-to-all-implementation': ['ring'],
        }),
        network: oneD,
        power,
      });
      const collNs = plain.ranks[0].finishNs - 1000;
      for (const r of grouped.ranks) {
        expect(r.finishNs, `rank ${r.rank}`).toBe((r.rank < 4 ? 1000 : 50_000) + collNs);
      }
      // Nothing crosses the scale-out ring.
      expect(grouped.bytesSentPerDim[1]).toBe(0);
    },
  );
});

/**
 * The energy ledger's properties (src/engines/replay/ledger.ts), on real traces (traces/, ../shared), traces tracewatt
 * generates and annotates, and small in-memory traces that reach every part:
 * - the parts add up to the total, per rank and over the cluster;
 * - the total is the integral of the replay timeline's modelled power counters (to 1e-9, every rank);
 * - Σ GPU node energies (energy_j) = compute + memory: the DRAM part is carved out of the nodes, never added;
 * - a trace annotated at an SM clock replays as `sweep gpu` gives that clock, in time and energy (issue 24, 1);
 * - a node's energy_memory_j is its memory part (issue 24, 2), and a trace without collectives has no exposed
 *   communication (issue 24, 6).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  POWER_COUNTER,
  replay,
  replayFiles,
  TimelineRecorder,
  type RankSource,
  type ReplayOptions,
  type ReplayResult,
} from '../../src/engines/replay/index.js';
import { parsePowerConfig, parseRemoteMemoryConfig, parseSystemConfig } from '../../src/formats/astra/index.js';
import {
  attrBool,
  attrNumber,
  emptyNode,
  makeAttr,
  NodeType,
  readTraceFile,
  resolveRankFiles,
  type ChakraNode,
} from '../../src/formats/chakra/index.js';
import { TraceEventWriter } from '../../src/formats/trace-event/index.js';
import { cli, generateLlama } from '../helpers/cli.js';
import { allCases, astraRef, mlpModelParallel } from '../helpers/astra-reference.js';
import { hasShared, repoRoot } from '../helpers/shared.js';
import { ringCluster } from '../helpers/ring-cluster.js';
import { shipped } from '../helpers/traces.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-ledger-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Per rank (pid), the modelled power counter's steps: [t ns, W]. */
async function powerCounters(file: string): Promise<Map<number, [number, number][]>> {
  const doc = JSON.parse(await readFile(file, 'utf8')) as {
    traceEvents: { ph: string; name: string; pid: number; ts: number; args: { W: number } }[];
  };
  const out = new Map<number, [number, number][]>();
  for (const e of doc.traceEvents) {
    if (e.ph !== 'C' || e.name !== POWER_COUNTER) continue;
    let list = out.get(e.pid);
    if (!list) out.set(e.pid, (list = []));
    list.push([Math.round(e.ts * 1000), e.args.W]);
  }
  return out;
}

/** ∫ of a step function over [0, end], J. */
function integral(steps: [number, number][], endNs: number): number {
  let e = 0;
  for (let i = 0; i < steps.length; i++) {
    const next = i + 1 < steps.length ? steps[i + 1]![0] : endNs;
    e += steps[i]![1] * (next - steps[i]![0]) * 1e-9;
  }
  return e;
}

/** The ledger's invariants on one result and its timeline. */
async function checkLedger(res: ReplayResult, timeline: string, what: string): Promise<void> {
  const counters = await powerCounters(timeline);
  for (const [i, e] of [res.energyJ, ...res.ranks.map((r) => r.energyJ)].entries()) {
    const parts = e.compute + e.memory + e.communication + e.network + e.idle + e.host;
    expect(
      Math.abs(parts - e.total),
      `${what}: ${i === 0 ? 'cluster' : `rank ${i - 1}`}: parts add up`,
    ).toBeLessThanOrEqual(1e-12 * Math.max(1e-12, e.total));
    for (const k of ['compute', 'memory', 'communication', 'network', 'idle', 'host'] as const)
      expect(e[k], `${what}: ${k}`).toBeGreaterThanOrEqual(0);
  }
  for (const r of res.ranks) {
    const steps = counters.get(r.rank) ?? [];
    expect(steps[0]?.[0], `${what}: rank ${r.rank}'s power starts at 0`).toBe(0);
    expect(steps[steps.length - 1]![0], `${what}: rank ${r.rank}'s power ends at the makespan`).toBe(res.makespanNs);
    const j = integral(steps, res.makespanNs);
    expect(
      Math.abs(j - r.energyJ.total),
      `${what}: rank ${r.rank}: ∫ power dt = total (${j} J vs ${r.energyJ.total} J)`,
    ).toBeLessThanOrEqual(1e-9 * r.energyJ.total);
    expect(
      r.gpuComputeNs + r.exposedCommNs + r.hostExposedNs + r.remoteMemExposedNs + r.waitNs,
      `${what}: rank ${r.rank}: time split`,
    ).toBe(res.makespanNs);
  }
}

/** Σ energy_j of the GPU compute nodes of every rank file of a trace. */
async function nodeEnergyJ(prefix: string): Promise<{ energyJ: number; memoryJ: number; nodes: number }> {
  let energyJ = 0;
  let memoryJ = 0;
  let nodes = 0;
  for (const { file } of await resolveRankFiles(prefix)) {
    for (const n of (await readTraceFile(file)).nodes) {
      if (n.type !== NodeType.COMP_NODE || attrBool(n, 'is_cpu_op')) continue;
      energyJ += attrNumber(n, 'energy_j') ?? NaN;
      memoryJ += attrNumber(n, 'energy_memory_j') ?? 0;
      nodes++;
    }
  }
  return { energyJ, memoryJ, nodes };
}

describe('ledger on real traces: parts add up, total = ∫ modelled power dt, time split = makespan', () => {
  it('shipped: all-reduce on Switch(8), the h100-cluster preset', async () => {
    const timeline = path.join(dir, 'ar8.json');
    const res = await replayFiles({
      trace: shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce'),
      system: shipped('configs', 'sys_ring_example.json'),
      network: shipped('configs', 'Switch_8npus.yml'),
      power: 'h100-cluster',
      timeline,
    });
    await checkLedger(res, timeline, 'all_reduce 8npus');
    // Nothing but the all-reduce runs: its whole time is communication at the preset's 266 W, the rest idle.
    expect(res.settings.ledger).toMatchObject({ commPowerW: 266, commPowerAssumed: false, idlePowerW: 80 });
    for (const r of res.ranks) {
      expect(r.exposedCommNs).toBe(r.finishNs);
      expect(r.energyJ.communication).toBeCloseTo(266 * r.finishNs * 1e-9, 15);
    }
  });

  it('every reference and skew case of astra-sim-reference (vendored)', async () => {
    const cases = allCases();
    expect(cases).toHaveLength(46);
    for (const [i, { c, files }] of cases.entries()) {
      const timeline = path.join(dir, `ref-${i}.json`);
      await checkLedger(await replayFiles({ ...files, timeline }), timeline, c.name);
    }
  }, 120_000);

  it.runIf(hasShared)(
    '../shared: MLP model-parallel, 32 ranks on Switch(8) × Ring(4)',
    async () => {
      const timeline = path.join(dir, 'mlp.json');
      const res = await replayFiles({
        trace: mlpModelParallel(),
        system: astraRef('configs', 'sys2d_ring_pure.json'),
        network: astraRef('configs', 'Switch8_Ring4.yml'),
        timeline,
      });
      expect(res.ranks).toHaveLength(32);
      await checkLedger(res, timeline, 'MLP_ModelParallel');
    },
    60_000,
  );
});

describe('a trace annotated at an SM clock (issue 24, reproduction 1)', () => {
  // generate llm --model llama2-7b --tp 2 --pp 2 --global-batch 4 --seq 1024; annotate at 810 MHz with the H100
  // datasheet calibration; replay with the generated system.json (roofline-enabled 1) and the annotated power.json.
  const l = () => path.join(dir, 'l');
  const l810 = () => path.join(dir, 'l810');
  const h100 = path.join(repoRoot, 'calibration', 'h100-datasheet.json');
  let replayed: ReplayResult;
  let timeline: string;

  beforeAll(async () => {
    expect((await generateLlama(l(), '--tp 2 --pp 2 --global-batch 4 --seq 1024')).code).toBe(0);
    expect((await cli(['annotate', l(), '--calibration', h100, '--frequency', '810', '--out', l810()])).code).toBe(0);
    timeline = path.join(dir, 'l810.timeline.json');
    replayed = await replayFiles({
      trace: l810(),
      system: `${l()}.system.json`,
      network: `${l()}.network.yml`,
      power: `${l810()}.power.json`,
      timeline,
    });
  }, 120_000);

  it('replays its annotated durations under roofline-enabled, and says so', async () => {
    const { rooflineEnabled } = parseSystemConfig('s', await readFile(`${l()}.system.json`, 'utf8'));
    expect(rooflineEnabled).toBe(true);
    const gpuNodes = (await nodeEnergyJ(l810())).nodes;
    expect(replayed.durationSources).toEqual({ annotated: gpuNodes, measured: 0, roofline: 0, zero: 0 });
    const text = await cli([
      'replay',
      l810(),
      '--system',
      `${l()}.system.json`,
      '--network',
      `${l()}.network.yml`,
      '--power',
      `${l810()}.power.json`,
    ]);
    expect(text.out).toContain(
      `GPU compute node durations: ${gpuNodes} annotated, 0 measured (trace duration), 0 roofline, 0 zero`,
    );
  });

  it('equals `sweep gpu` at 810 MHz in time and energy, part by part', async () => {
    const sweep = await cli([
      'sweep',
      'gpu',
      l(),
      '--calibration',
      h100,
      '--frequencies',
      '810',
      '--system',
      `${l()}.system.json`,
      '--network',
      `${l()}.network.yml`,
      '--threads',
      '1',
      '--json',
    ]);
    expect(sweep.code).toBe(0);
    const point = (
      JSON.parse(sweep.out) as { points: { clockMHz: number; timeS: number; energyJ: ReplayResult['energyJ'] }[] }
    ).points[0]!;
    expect(point.clockMHz).toBe(810);
    expect(point.timeS).toBe(replayed.makespanNs * 1e-9);
    for (const k of Object.keys(point.energyJ) as (keyof ReplayResult['energyJ'])[])
      expect(point.energyJ[k], k).toBeCloseTo(replayed.energyJ[k], 9);
  }, 120_000);

  it('Σ node energy_j = compute + memory (no DRAM counted twice), and the ledger holds on its timeline', async () => {
    const nodes = await nodeEnergyJ(l810());
    expect(Number.isFinite(nodes.energyJ)).toBe(true);
    const e = replayed.energyJ;
    expect(Math.abs(e.compute + e.memory - nodes.energyJ)).toBeLessThanOrEqual(1e-9 * nodes.energyJ);
    expect(e.memory).toBeGreaterThan(0);
    await checkLedger(replayed, timeline, 'llama2-7b at 810 MHz');
  });
});

// In-memory traces that reach every part: compute with and without energy_j / energy_memory_j, collectives,
// remote memory, CPU nodes with a host power, network static power.
const { sys, net } = ringCluster();
const memory = parseRemoteMemoryConfig(
  'mem.json',
  JSON.stringify({ 'memory-type': 'PER_NPU_MEMORY_EXPANSION', 'remote-mem-latency': 100, 'remote-mem-bw': 20 }),
);
const allParts = parsePowerConfig(
  'p.json',
  JSON.stringify({
    gpu: { activePowerW: 700, idlePowerW: 60, commPowerW: 200, idleSource: 'test' },
    memory: { energyPjPerBit: 5, remoteEnergyPjPerBit: 30 },
    network: [{ energyPjPerBit: 4 }],
    networkIdlePowerWPerRank: 7,
    hostPowerWPerRank: 150,
  }),
);

function node(id: number, type: NodeType, deps: number[], attrs: ChakraNode['attrs'], durUs = 0): ChakraNode {
  const n = emptyNode(BigInt(id), `n${id}`, type);
  n.durationMicros = BigInt(durUs);
  n.dataDeps = deps.map(BigInt);
  n.attrs = attrs;
  return n;
}
const gpu = (id: number, us: number, deps: number[], extra: ChakraNode['attrs'] = []) =>
  node(id, NodeType.COMP_NODE, deps, [makeAttr('tensor_size', 'uint64_val', 1 << 20), ...extra], us);
const cpu = (id: number, us: number, deps: number[]) =>
  node(id, NodeType.COMP_NODE, deps, [makeAttr('is_cpu_op', 'bool_val', true)], us);
const allReduce = (id: number, deps: number[]) =>
  node(id, NodeType.COMM_COLL_NODE, deps, [
    makeAttr('comm_type', 'int64_val', 0),
    makeAttr('comm_size', 'int64_val', 1 << 20),
  ]);
const load = (id: number, deps: number[]) =>
  node(id, NodeType.MEM_LOAD_NODE, deps, [makeAttr('tensor_size', 'uint64_val', 1 << 16)]);
const energy = (j: number, memJ?: number) => [
  makeAttr('energy_j', 'double_val', j),
  ...(memJ === undefined ? [] : [makeAttr('energy_memory_j', 'double_val', memJ)]),
];

function sources(perRank: ChakraNode[][]): RankSource[] {
  return perRank.map((nodes, rank) => {
    let done = false;
    return { rank, file: `mem.${rank}.et`, nextBatch: async () => (done ? null : ((done = true), nodes)) };
  });
}

async function replayWithTimeline(
  perRank: ChakraNode[][],
  opts: ReplayOptions,
  name: string,
): Promise<{ res: ReplayResult; timeline: string }> {
  const timeline = path.join(dir, `${name}.json`);
  const writer = await TraceEventWriter.create(timeline);
  const rec = new TimelineRecorder(writer, opts.power);
  const res = await replay(sources(perRank), { ...opts, onSlice: rec.slice, backpressure: rec.pending });
  await rec.finish(res.ranks.length, res.makespanNs);
  await writer.close();
  return { res, timeline };
}

describe('ledger on in-memory traces that reach every part', () => {
  const trace = () =>
    [0, 1, 2, 3].map((r) => [
      cpu(0, 3 + r, []),
      gpu(1, 10 + r, [0], energy(0.004, 0.001)),
      allReduce(2, [1]),
      gpu(3, 20, [1]),
      load(4, [3]),
      gpu(5, 5, [2, 3, 4], energy(0.002)),
      cpu(6, 2, [5]),
    ]);

  it('parts add up, ∫ power = total, the time split fills the makespan', async () => {
    const { res, timeline } = await replayWithTimeline(
      trace(),
      { system: sys, network: net, memory, power: allParts },
      'all-parts',
    );
    await checkLedger(res, timeline, 'all parts');
    for (const k of ['compute', 'memory', 'communication', 'network', 'idle', 'host'] as const)
      expect(res.energyJ[k], k).toBeGreaterThan(0);
    for (const r of res.ranks) {
      expect(r.hostExposedNs).toBeGreaterThan(0);
      expect(r.energyJ.host).toBeCloseTo(150 * r.cpuComputeNs * 1e-9, 15);
      expect(r.energyJ.communication).toBeCloseTo(200 * r.exposedCommNs * 1e-9, 15);
      expect(r.energyJ.idle).toBeCloseTo(60 * (res.makespanNs - r.gpuComputeNs - r.exposedCommNs) * 1e-9, 15);
    }
  });

  it(
    'memory: energy_memory_j where a node carries it, else tensor_size × pJ/bit carved out of the node (issue ' +
      '24, 2)',
    async () => {
      const { res } = await replayWithTimeline(
        trace(),
        { system: sys, network: net, memory, power: allParts },
        'memory',
      );
      const dram = (1 << 20) * 8 * 5e-12;
      const remote = (1 << 16) * 8 * 30e-12;
      for (const r of res.ranks) {
        // Node 1: energy_j 4 mJ of which 1 mJ DRAM; node 3: 700 W × 20 µs, DRAM carved out; node 5: 2 mJ, DRAM carved
        // out.
        const nodesJ = 0.004 + 700 * 20e-6 + 0.002;
        expect(r.energyJ.memory).toBeCloseTo(0.001 + dram + dram + remote, 15);
        expect(r.energyJ.compute + r.energyJ.memory - remote).toBeCloseTo(nodesJ, 15);
      }
    },
  );

  it('a DRAM part larger than its node is cut to the node and warned about', async () => {
    const ranks = [0, 1, 2, 3].map(() => [gpu(1, 1, [], energy(0.001, 0.002))]);
    const { res } = await replayWithTimeline(ranks, { system: sys, network: net, memory, power: allParts }, 'clamped');
    expect(res.energyJ.memory).toBeCloseTo(4 * 0.001, 15);
    expect(res.energyJ.compute).toBe(0);
    expect(res.diagnostics.find((d) => d.code === 'replay.memory-energy-exceeds-node')?.count).toBe(4);
  });

  it('durations: annotated kept under roofline, roofline from num_ops, and a node with neither is named', async () => {
    const roofline = { ...sys, rooflineEnabled: true };
    const ranks = [0, 1, 2, 3].map(() => [
      gpu(1, 7, [], [makeAttr('frequency_mhz', 'double_val', 810)]),
      gpu(2, 9, [1], [makeAttr('num_ops', 'int64_val', 1e9)]),
      node(3, NodeType.COMP_NODE, [2], [], 4),
    ]);
    const { res } = await replayWithTimeline(ranks, { system: roofline, network: net, power: allParts }, 'durations');
    expect(res.durationSources).toEqual({ annotated: 4, measured: 0, roofline: 4, zero: 4 });
    // 7 µs as annotated + the roofline's ⌊1e9 / min(1600e9 × 1e9/2^20, 900e12) × 1e9⌋ ns + 0.
    expect(res.ranks[0]!.gpuComputeNs).toBe(
      7000 + Math.trunc((1e9 / Math.min(1600e9 * (1e9 / (1 << 20)), 900e12)) * 1e9),
    );
    const warn = res.diagnostics.find((d) => d.code === 'replay.gpu-node-without-time');
    expect(warn?.count).toBe(4);
    expect(warn?.samples[0]?.message).toMatch(
      /node 3 \("n3", COMP_NODE\): roofline-enabled and no tensor_size.*takes 0 ns.*duration_micros 4 is not used/,
    );
  });
});

describe('no collective, no exposed communication (issue 24, reproduction 6)', () => {
  it('a real one-rank PyTorch run (H200, imported): host time is host time, not communication', async () => {
    const prefix = path.join(dir, 'h200');
    expect(
      (await cli(['import', 'pytorch', '--dir', shipped('pytorch-real', 'h200-gpt-nostep'), '--out', prefix])).code,
    ).toBe(0);
    const net1 = path.join(dir, 'net1.yml');
    await writeFile(net1, 'topology: [Ring]\nnpus_count: [1]\nbandwidth: [50]\nlatency: [500]\n');
    const timeline = path.join(dir, 'h200.timeline.json');
    const res = await replayFiles({
      trace: prefix,
      system: shipped('configs', 'sys_ring_example.json'),
      network: net1,
      timeline,
    });
    await checkLedger(res, timeline, 'h200-gpt-nostep');
    const r = res.ranks[0]!;
    expect(r.commNs).toBe(0);
    expect(r.exposedCommNs).toBe(0);
    expect(res.timeS.exposedCommunication).toBe(0);
    expect(r.hostExposedNs).toBeGreaterThan(0);
    // ASTRA-sim's figure (finish − GPU compute) is all host time here, kept apart.
    expect(r.astraExposedNs).toBe(r.hostExposedNs + r.remoteMemExposedNs + r.waitNs);
    expect(res.energyJ.communication).toBe(0);
  }, 60_000);
});

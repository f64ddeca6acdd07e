/**
 * `fit network` (issue 25, item 4): per dimension, the bandwidth and latency that make the replay's collective model
 * give an imported run's measured collective times. Checked three ways: durations the replay itself produces for
 * known links are fitted back to those links; bad input is refused with the node, dimension or option named; and the
 * real DLRM run (8 × V100, traces/pytorch-real/dlrm) fits with a smaller error than the network it shipped with.
 */
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fitLinks, type fitNetwork, readMeasuredCollectives } from '../../src/engines/netfit/index.js';
import { replay, replayFiles, type RankSource } from '../../src/engines/replay/index.js';
import {
  loadNetworkConfig,
  parseNetworkConfig,
  parsePowerConfig,
  parseSystemConfig,
  type NetworkConfig,
} from '../../src/formats/astra/index.js';
import { emptyNode, makeAttr, NodeType, writeTraceFile, type ChakraNode } from '../../src/formats/chakra/index.js';
import { cli } from '../helpers/cli.js';

const systemJson = (dims: number) =>
  JSON.stringify({
    'scheduling-policy': 'LIFO',
    'endpoint-delay': 10,
    'active-chunks-per-dimension': 1,
    'preferred-dataset-splits': 4,
    'all-reduce-implementation': Array(dims).fill('ring'),
    'all-gather-implementation': Array(dims).fill('ring'),
    'reduce-scatter-implementation': Array(dims).fill('ring'),
    'all-to-all-implementation': Array(dims).fill('direct'),
    'collective-optimization': 'localBWAware',
    'local-mem-bw': 1600,
    'peak-perf': 900,
  });
const power = parsePowerConfig(
  'p.json',
  JSON.stringify({
    gpu: { activePowerW: 300, idlePowerW: 60 },
    memory: { energyPjPerBit: 5 },
    network: [{ energyPjPerBit: 2 }, { energyPjPerBit: 2 }],
  }),
);
const netYaml = (dims: [string, number, number, number][]) =>
  `topology: [${dims.map((d) => d[0]).join(', ')}]\nnpus_count: [${dims.map((d) => d[1]).join(', ')}]\n` +
  `bandwidth: [${dims.map((d) => d[2]).join(', ')}]\nlatency: [${dims.map((d) => d[3]).join(', ')}]\n`;

/** The true links: a 4-NPU switch (NVLink-like) and a 2-NPU ring between the two halves. */
const TRUE: [string, number, number, number][] = [
  ['Switch', 4, 120, 700],
  ['Ring', 2, 12.5, 4000],
];
/** Where the fit starts: the defaults of a generic file. */
const START: [string, number, number, number][] = [
  ['Switch', 4, 50, 500],
  ['Ring', 2, 50, 500],
];

const ALL_REDUCE = 0;
const ALL_GATHER = 2;
const ALL_TO_ALL = 6;
interface Coll {
  type: number;
  bytes: number;
  involved?: boolean[];
}
/** Collectives of all 8 ranks: on both dimensions, on the switch only, and on the ring only, in several sizes. */
const COLLECTIVES: Coll[] = [
  { type: ALL_REDUCE, bytes: 1 << 16 },
  { type: ALL_REDUCE, bytes: 1 << 22 },
  { type: ALL_REDUCE, bytes: 3 << 24 },
  { type: ALL_TO_ALL, bytes: 1 << 14, involved: [true, false] },
  { type: ALL_TO_ALL, bytes: 1 << 21, involved: [true, false] },
  { type: ALL_GATHER, bytes: 1 << 15, involved: [false, true] },
  { type: ALL_GATHER, bytes: 1 << 20, involved: [false, true] },
  { type: ALL_REDUCE, bytes: 1 << 23, involved: [true, false] },
];

function collNode(id: number, c: Coll, durationMicros: bigint, startMicros: bigint): ChakraNode {
  const n = emptyNode(BigInt(id), `ncclKernel_${c.type}`, NodeType.COMM_COLL_NODE);
  n.attrs = [
    makeAttr('is_cpu_op', 'bool_val', false),
    makeAttr('comm_type', 'int64_val', BigInt(c.type)),
    makeAttr('comm_size', 'int64_val', BigInt(c.bytes)),
  ];
  if (c.involved) n.attrs.push(makeAttr('involved_dim', 'bool_list', c.involved));
  if (id > 0) n.dataDeps = [BigInt(id - 1)];
  n.durationMicros = durationMicros;
  n.startTimeMicros = startMicros;
  return n;
}

/** What the replay (the whole engine, not the fit's model) takes for one collective issued by every rank at 0, ns. */
async function replayedNs(c: Coll, network: NetworkConfig): Promise<number> {
  const sources: RankSource[] = Array.from({ length: 8 }, (_, rank) => {
    let done = false;
    return {
      rank,
      file: `one.${rank}.et`,
      async nextBatch() {
        if (done) return null;
        done = true;
        return [collNode(0, c, 0n, 0n)];
      },
    };
  });
  const r = await replay(sources, { system: parseSystemConfig('sys.json', systemJson(2)), network, power });
  return r.makespanNs;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-netfit-'));
});

/** `tracewatt fit network <prefix> --system --network --out <out> …more` on the files of files(). */
function fitCli(
  prefix: string,
  f: { sys: string; net: string },
  out = path.join(dir, 'x.yml'),
  ...more: string[]
): ReturnType<typeof cli> {
  return cli(['fit', 'network', prefix, '--system', f.sys, '--network', f.net, '--out', out, ...more]);
}

/** Writes an "imported run": per rank the collectives in order, each with its duration (µs) and a start. */
async function writeRun(
  name: string,
  colls: Coll[],
  durationsMicros: bigint[],
  change?: (rank: number, nodes: ChakraNode[]) => ChakraNode[],
): Promise<string> {
  const prefix = path.join(dir, name);
  for (let rank = 0; rank < 8; rank++) {
    let t = 1_700_000_000_000_000n;
    const nodes = colls.map((c, i) => {
      const n = collNode(i, c, durationsMicros[i], t);
      t += durationsMicros[i] + 5n;
      return n;
    });
    await writeTraceFile(`${prefix}.${rank}.et`, null, change ? change(rank, nodes) : nodes);
  }
  return prefix;
}

async function files(name: string, dims: [string, number, number, number][]) {
  const sys = path.join(dir, `${name}.sys.json`);
  const net = path.join(dir, `${name}.network.yml`);
  await import('node:fs/promises').then((fs) =>
    Promise.all([fs.writeFile(sys, systemJson(dims.length)), fs.writeFile(net, netYaml(dims))]),
  );
  return { sys, net };
}

describe('fit network: durations made by the replay are fitted back to the links that made them', () => {
  it("exact model times (ns): both dimensions' bandwidth and latency within 0.5 %", async () => {
    const { sys, net } = await files('exact', START);
    const trueNet = parseNetworkConfig('true.yml', netYaml(TRUE));
    const truth = await Promise.all(COLLECTIVES.map((c) => replayedNs(c, trueNet)));
    const prefix = await writeRun(
      'exact',
      COLLECTIVES,
      truth.map(() => 1n),
    );
    const system = parseSystemConfig(sys, systemJson(2));
    const network = await loadNetworkConfig(net);
    const run = await readMeasuredCollectives({ trace: prefix, system, network });
    // Whole-cluster collectives meet once; those on one dimension once per group of it (2 switches, 4 ring pairs).
    const groups = (c: Coll) => (!c.involved ? 1 : c.involved[0] ? 2 : 4);
    expect(run.collectives).toHaveLength(COLLECTIVES.reduce((a, c) => a + groups(c), 0));
    for (const c of run.collectives) {
      c.measuredNs = truth[COLLECTIVES.findIndex((x) => x.bytes === c.bytes)];
    }
    const fit = fitLinks(run.collectives, { system, network, bandwidthUnit: 'astra-sim' });
    fit.dims.forEach((d, i) => {
      expect(Math.abs(d.bandwidthGBps / TRUE[i][2] - 1)).toBeLessThan(0.005);
      expect(Math.abs(d.latencyNs / TRUE[i][3] - 1)).toBeLessThan(0.005);
    });
    fit.modelledNs.forEach((m, i) => expect(Math.abs(m / run.collectives[i].measuredNs - 1)).toBeLessThan(0.002));
  });

  it(
    'through the files and the CLI (durations in whole µs): bandwidth within 2 %, latency within 6 %, written as ' +
      'an ASTRA-sim network.yml',
    async () => {
      const { sys, net } = await files('cli', START);
      const trueNet = parseNetworkConfig('true.yml', netYaml(TRUE));
      const truth = await Promise.all(COLLECTIVES.map((c) => replayedNs(c, trueNet)));
      // Members wait for late peers except ranks 0, 1, 6 and 7 (one in every group): the fit must take the shortest.
      const onTime = [0, 1, 6, 7];
      const prefix = await writeRun(
        'cli',
        COLLECTIVES,
        truth.map((ns) => BigInt(Math.round(ns / 1000))),
        (rank, nodes) => {
          if (!onTime.includes(rank)) for (const n of nodes) n.durationMicros += BigInt(37 * (rank + 1));
          return nodes;
        },
      );
      const out = path.join(dir, 'fitted.yml');
      const r = await fitCli(prefix, { sys, net }, out, '--json');
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const j = JSON.parse(r.out);
      expect(j.instances.every((x: { lastRank: number }) => onTime.includes(x.lastRank))).toBe(true);
      const written = await loadNetworkConfig(out);
      written.dims.forEach((d, i) => {
        expect(d.topology).toBe(TRUE[i][0]);
        expect(d.npus).toBe(TRUE[i][1]);
        // The shortest collective (a 16 KiB all-to-all, 5.708 µs) is written as 6 µs (+5.1 %): whole-µs durations cost
        // the latency most.
        expect(Math.abs(d.bandwidthGBps / TRUE[i][2] - 1)).toBeLessThan(0.02);
        expect(Math.abs(d.latencyNs / TRUE[i][3] - 1)).toBeLessThan(0.06);
      });
      const text = await readFile(out, 'utf8');
      expect(text).toMatch(/^# tracewatt fit network: /);
      expect(text).toMatch(/# ALL_REDUCE +5 +65536–50331648 /);
      // No worse than the whole-µs rounding of the shortest ones (5.708 → 6 µs, 9.748 → 10 µs).
      for (const k of j.byKind) expect(k.fitted.maxAbsErrorPct).toBeLessThan(6);
      expect(j.notes.join('\n')).toMatch(/8 collective\(s\) shorter than 20 µs: .* up to ±8 % rounding/);
      // The text view: the same tables, units in every header.
      const t = await fitCli(prefix, { sys, net }, out, '--wide');
      expect(t.out).toMatch(/fitted bandwidth \(GB\/s as ASTRA-sim reads it\)/);
      expect(t.out).toMatch(/measured mean \(µs\)/);
      expect(t.out).toMatch(/wrote .*fitted\.yml/);
    },
  );
});

describe('fit network: bad input', () => {
  it('no collective in the run', async () => {
    const { sys, net } = await files('none', START);
    const prefix = path.join(dir, 'none');
    for (let rank = 0; rank < 8; rank++) {
      const n = emptyNode(0n, 'aten::mm', NodeType.COMP_NODE);
      n.durationMicros = 5n;
      await writeTraceFile(`${prefix}.${rank}.et`, null, [n]);
    }
    const r = await fitCli(prefix, { sys, net });
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/no collective with comm_type and comm_size in any of its 8 rank file\(s\).*nothing to fit/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  it('a collective without comm_size: the file and node named', async () => {
    const { sys, net } = await files('nosize', START);
    const prefix = await writeRun('nosize', COLLECTIVES.slice(0, 2), [100n, 200n], (rank, nodes) => {
      if (rank === 3) nodes[1].attrs = nodes[1].attrs.filter((a) => a.name !== 'comm_size');
      return nodes;
    });
    const r = await fitCli(prefix, { sys, net });
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/nosize\.3\.et: node 1 \("ncclKernel_0"\) is a collective without comm_size/);
  });

  it('a dimension no collective crosses is refused by name, and fits once kept from the file', async () => {
    const { sys, net } = await files('onedim', START);
    const onlySwitch = COLLECTIVES.filter((c) => c.involved?.[0] && !c.involved[1]);
    const trueNet = parseNetworkConfig('true.yml', netYaml(TRUE));
    const truth = await Promise.all(onlySwitch.map((c) => replayedNs(c, trueNet)));
    const prefix = await writeRun(
      'onedim',
      onlySwitch,
      truth.map((ns) => BigInt(Math.round(ns / 1000))),
    );
    const out = path.join(dir, 'onedim.yml');
    const r = await fitCli(prefix, { sys, net }, out);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(
      /no measured collective crosses dimension 1 \(Ring, 2 NPUs\): its latency and bandwidth cannot be fitted; keep them from .* with --keep-latency 1 --keep-bandwidth 1/,
    );
    const kept = await fitCli(prefix, { sys, net }, out, '--keep-latency', '1', '--keep-bandwidth', '1');
    expect(kept.err).toBe('');
    expect(kept.code).toBe(0);
    const written = await loadNetworkConfig(out);
    expect(written.dims[1]).toMatchObject({ bandwidthGBps: 50, latencyNs: 500 });
  });

  it('latency and bandwidth of a dimension that only ever sends one size cannot be told apart', async () => {
    const { sys, net } = await files('onesize', [['Switch', 8, 50, 500]]);
    const one = { type: ALL_REDUCE, bytes: 1 << 20 };
    const prefix = await writeRun('onesize', [one, one, one], [80n, 81n, 79n]);
    const r = await fitCli(prefix, { sys, net });
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(
      /cannot tell apart the latency of dimension 0 \(Switch, 8 NPUs\) and bandwidth of dimension 0 .*--keep-latency 0 or --keep-bandwidth 0/,
    );
    const kept = await fitCli(prefix, { sys, net }, path.join(dir, 'x.yml'), '--keep-latency', '0', '--json');
    expect(kept.code).toBe(0);
    expect(JSON.parse(kept.out).dims[0]).toMatchObject({ fittedLatencyNs: 500, fitted: ['bandwidth'] });
  });

  it('a rank with fewer collectives, a network of another size, a dimension that does not exist', async () => {
    const { sys, net } = await files('short', START);
    const prefix = await writeRun('short', COLLECTIVES.slice(0, 3), [100n, 200n, 300n], (rank, nodes) =>
      rank === 6 ? nodes.slice(0, 2) : nodes,
    );
    const r = await fitCli(prefix, { sys, net });
    expect(r.err).toMatch(
      /collective #2 of all ranks \(ALL_REDUCE of 50331648 B, .*short\.0\.et node 2\) has no counterpart in .*short\.6\.et/,
    );
    const four = await files('four', [['Switch', 4, 50, 500]]);
    const r4 = await fitCli(prefix, four);
    expect(r4.err).toMatch(/8 rank file\(s\) but .*four\.network\.yml describes 4 NPUs/);
    const ok = await writeRun('ok', COLLECTIVES.slice(0, 3), [100n, 200n, 300n]);
    const bad = await fitCli(ok, { sys, net }, path.join(dir, 'x.yml'), '--keep-latency', '2');
    expect(bad.err).toMatch(/--keep-latency: dimension 2 is not in .* \(dimensions 0\.\.1\)/);
  });
});

describe('fit network: the real DLRM run (8 × V100, traces/pytorch-real/dlrm)', () => {
  const dlrmDir = path.join('traces', 'pytorch-real', 'dlrm');
  const system = 'traces/configs/sys_ring_example.json';
  const given = 'traces/configs/Switch_8npus.yml';
  let prefix: string;
  let fitted: string;
  let fit: Awaited<ReturnType<typeof fitNetwork>>;
  beforeAll(async () => {
    prefix = path.join(dir, 'dlrm');
    const imp = await cli(['import', 'pytorch', '--dir', dlrmDir, '--out', prefix]);
    expect(imp.code).toBe(0);
    fitted = path.join(dir, 'dlrm-fitted.yml');
    const r = await fitCli(prefix, { sys: system, net: given }, fitted, '--json');
    expect(r.code).toBe(0);
    fit = JSON.parse(r.out);
  });

  it('fits the measured NCCL kernels far closer than the shipped Switch network', () => {
    // 5 all-to-alls and 3 all-reduces, matched over the 8 ranks; each one's time is its last member's kernel.
    expect(fit.byKind.map((k) => [k.kind, k.instances])).toEqual([
      ['ALL_TO_ALL', 5],
      ['ALL_REDUCE', 3],
    ]);
    expect(fit.instances.map((i) => i.measuredNs)).toEqual([10000, 8000, 7000, 7000, 86000, 10000, 20000, 69000]);
    expect(fit.rmsErrorPct.given).toBeGreaterThan(1000);
    expect(fit.rmsErrorPct.fitted).toBeLessThan(35);
    const allToAll = fit.byKind.find((k) => k.kind === 'ALL_TO_ALL')!;
    expect(Math.abs(allToAll.fitted.meanErrorPct)).toBeLessThan(10);
  });

  /**
   * Each rank's measured iteration and start, read from its raw Kineto JSON (not through tracewatt's reader): the
   * ProfilerStep event's "dur" and "ts" (µs) and distributedInfo.rank.
   */
  async function measuredSteps(): Promise<{ durNs: number; startUs: number }[]> {
    const out: { durNs: number; startUs: number }[] = [];
    for (const f of (await readdir(dlrmDir)).filter((n) => n.startsWith('worker'))) {
      const json = JSON.parse(gunzipSync(await readFile(path.join(dlrmDir, f))).toString('utf8')) as {
        distributedInfo: { rank: number };
        traceEvents: { ph?: string; name?: string; ts?: number; dur?: number }[];
      };
      const steps = json.traceEvents.filter((e) => e.ph === 'X' && /^ProfilerStep#/.test(e.name ?? ''));
      expect(steps).toHaveLength(1);
      out[json.distributedInfo.rank] = { durNs: Math.round(steps[0]!.dur! * 1000), startUs: steps[0]!.ts! };
    }
    return out;
  }

  it(
    'the network is not where the modelled replay loses: given, fitted and infinitely fast networks finish every ' +
      'rank within 1 %',
    async () => {
      const fast = path.join(dir, 'dlrm-fast.yml');
      await writeFile(fast, 'topology: [Switch]\nnpus_count: [8]\nbandwidth: [1000000000]\nlatency: [0]\n');
      const finish = async (network: string) =>
        (await replayFiles({ trace: prefix, system, network })).ranks.map((x) => x.finishNs);
      const [onGiven, onFitted, onFast] = [await finish(given), await finish(fitted), await finish(fast)];
      onFitted.forEach((f, rank) => {
        expect(Math.abs(f / onGiven[rank] - 1)).toBeLessThan(0.01);
        expect(Math.abs(f / onFast[rank] - 1)).toBeLessThan(0.01);
      });
    },
  );

  // The import cuts from each host op's duration_micros the time it was blocked in CUDA synchronisation (a dependency
  // on the awaited GPU work stands for it) and the time the autograd thread's ops ran inside "## backward ##" (the one
  // CPU slot runs them themselves); the replay starts each rank at its measured start (ranks entered the step up to
  // 7.5 ms apart) and counts its iteration from there.
  it(
    'the modelled replay lands within 5 % of the measured iteration on every rank, on the shipped and on the ' +
      'fitted network',
    async () => {
      const measured = await measuredSteps();
      expect(measured.map((m) => m.durNs)).toEqual([
        14455000, 19901000, 13017000, 19313000, 17979000, 17797000, 13091000, 12509000,
      ]);
      const first = Math.min(...measured.map((m) => m.startUs));
      for (const network of [given, fitted]) {
        const res = await replayFiles({ trace: prefix, system, network });
        for (const x of res.ranks) {
          expect(x.startOffsetNs).toBe((measured[x.rank]!.startUs - first) * 1000);
          expect(Math.abs(x.finishNs / measured[x.rank]!.durNs - 1)).toBeLessThan(0.05);
        }
      }
      // Started together (the library option), the late ranks wait in their first collective for the early ones.
      const together = await replayFiles({ trace: prefix, system, network: fitted, startAsMeasured: false });
      expect(together.ranks.every((x) => x.startOffsetNs === undefined)).toBe(true);
      expect(
        Math.max(...together.ranks.map((x) => Math.abs(x.finishNs / measured[x.rank]!.durNs - 1))),
      ).toBeGreaterThan(0.2);
    },
  );

  it("a what-if sweep starts the ranks as replay does: its point at the given network is replay's makespan", async () => {
    const r = await cli([
      'sweep',
      'network',
      prefix,
      '--system',
      system,
      '--network',
      given,
      '--dimension',
      '0',
      '--scale',
      '1:1:1',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const point = (JSON.parse(r.out) as { points: { makespanNs: number }[] }).points[0]!;
    expect(point.makespanNs).toBe((await replayFiles({ trace: prefix, system, network: given })).makespanNs);
  });

  it('replay prints the measured iteration beside the modelled one, with the start offsets said', async () => {
    const r = await cli(['replay', prefix, '--system', system, '--network', fitted]);
    expect(r.code).toBe(0);
    const section = r.out.slice(r.out.indexOf('measured beside modelled'));
    expect(section).toMatch(
      /start offset \(ns\)\s+measured iteration \(ns\)\s+modelled iteration \(ns\)\s+modelled − measured \(%\)/,
    );
    expect(section).toMatch(/\n1\s+0\s+19901000\s+\d+\s+-?\d\.\d\d\n/);
    expect(section.replace(/\s+/g, ' ')).toContain('its modelled iteration is its finish less that offset');
    // --start-together: every rank from 0, as ASTRA-sim runs it; no offsets, the finish beside the measurement.
    const together = await cli(['replay', prefix, '--system', system, '--network', fitted, '--start-together']);
    expect(together.code).toBe(0);
    expect(together.out).toMatch(/rank\s+measured iteration \(ns\)\s+modelled finish \(ns\)/);
    expect(together.out).not.toMatch(/start offset/);
  });
});

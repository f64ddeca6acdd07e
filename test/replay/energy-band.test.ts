/**
 * Issue 18: replay carries the 10–90 % band of its compute energy from the bands annotate writes on nodes
 * (energy_j_p10 ≤ energy_j ≤ energy_j_p90). Nodes of one name are combined as fully correlated, names as
 * independent (engines/replay/energy-band.ts); the every-node-the-same-way sum is given beside it.
 * Until annotate writes the attributes, the traces here get them from `predict` on the RTX 8000 real kernels.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { energyFromAstraSimLog } from '../../src/engines/astra-sim/index.js';
import { predictProfile, type PredictResult } from '../../src/engines/calibrate/predict.js';
import { replay, replayFiles, resolvePower, type RankSource } from '../../src/engines/replay/index.js';
import { gpuSweepRecord, runPoints, sweepPointOf } from '../../src/engines/studies/index.js';
import { loadNetworkConfig, loadSystemConfig, parsePowerConfig } from '../../src/formats/astra/index.js';
import {
  emptyNode,
  makeAttr,
  NodeType,
  readTraceFile,
  setAttr,
  TraceWriter,
  writeTraceFile,
  type ChakraNode,
} from '../../src/formats/chakra/index.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { loadCalibration } from '../../src/model/calibration.js';
import { buildReport, gpuSweepRows, gpuSweepText, parseResults, replayText } from '../../src/report/index.js';
import { cli } from '../helpers/cli.js';
import { astraRef, recordedLog } from '../helpers/astra-reference.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';
import { ringCluster } from '../helpers/ring-cluster.js';
import { shipped } from '../helpers/traces.js';

const { sys, net } = ringCluster();
const power = parsePowerConfig(
  'p.json',
  JSON.stringify({
    gpu: { activePowerW: 700, idlePowerW: 80 },
    memory: { energyPjPerBit: 5 },
    network: [{ energyPjPerBit: 2 }],
  }),
);
const opts = { system: sys, network: net, power };

const band = (e: number, p10: number, p90: number) => [
  makeAttr('energy_j', 'double_val', e),
  makeAttr('energy_j_p10', 'double_val', p10),
  makeAttr('energy_j_p90', 'double_val', p90),
];
function comp(id: number, name: string, attrs: ChakraNode['attrs'] = []): ChakraNode {
  const n = emptyNode(BigInt(id), name, NodeType.COMP_NODE);
  n.durationMicros = 10n;
  if (id > 0) n.dataDeps = [BigInt(id - 1)];
  n.attrs = attrs;
  return n;
}
function sources(perRank: ChakraNode[][]): RankSource[] {
  return perRank.map((nodes, rank) => {
    let done = false;
    return {
      rank,
      file: `mem.${rank}.et`,
      async nextBatch() {
        if (done) return null;
        done = true;
        return nodes;
      },
    };
  });
}

describe('replay energy band (in-memory traces)', () => {
  // Per rank: gemm twice (1 J, band 0.9–1.2), attn once (2 J, band 1.5–2.1), one node without band, one without
  // energy_j.
  const rank = () => [
    comp(0, 'gemm', band(1, 0.9, 1.2)),
    comp(1, 'gemm', band(1, 0.9, 1.2)),
    comp(2, 'attn', band(2, 1.5, 2.1)),
    comp(3, 'plain', [makeAttr('energy_j', 'double_val', 0.5)]),
    comp(4, 'unannotated'),
  ];

  it('one name errs together, names independently; the every-node sum beside it; other parts without band', async () => {
    const res = await replay(sources([0, 1, 2, 3].map(rank)), opts);
    const b = res.energyBandJ!;
    const e = res.energyJ;
    // gemm: 8 nodes × 0.1 J below, × 0.2 J above; attn: 4 nodes × 0.5 J below, × 0.1 above.
    expect(e.compute - b.computeP10).toBeCloseTo(Math.hypot(0.8, 2.0), 12);
    expect(b.computeP90 - e.compute).toBeCloseTo(Math.hypot(1.6, 0.4), 12);
    expect(e.compute - b.correlatedComputeP10).toBeCloseTo(2.8, 12);
    expect(b.correlatedComputeP90 - e.compute).toBeCloseTo(2.0, 12);
    expect(b.totalP10).toBeCloseTo(b.computeP10 + e.memory + e.network + e.idle, 12);
    expect(b.totalP90 - b.totalP10).toBeCloseTo(b.computeP90 - b.computeP10, 12);
    expect({ bandedNodes: b.bandedNodes, gpuNodes: b.gpuNodes, kernels: b.kernels }).toEqual({
      bandedNodes: 12,
      gpuNodes: 20,
      kernels: 2,
    });
    // 4 × 4 J banded of 4 × (4.5 J + 700 W × 10 µs).
    expect(b.bandedShare).toBeCloseTo(16 / (4 * (4.5 + 700 * 10e-6)), 12);
  });

  it('the same band when identical ranks are simulated once or every rank on its own', async () => {
    const once = await replay(sources([0, 1, 2, 3].map(rank)), opts);
    const all = await replay(sources([0, 1, 2, 3].map(rank)), { ...opts, identicalRanksOnce: false });
    expect(all.energyBandJ).toEqual(once.energyBandJ);
  });

  it('no band attributes: no energyBandJ and no band columns', async () => {
    const res = await replay(
      sources([0, 1, 2, 3].map(() => [comp(0, 'gemm', [makeAttr('energy_j', 'double_val', 1)])])),
      opts,
    );
    expect(res).not.toHaveProperty('energyBandJ');
    expect(replayText(res)).not.toMatch(/p10/);
  });

  it('an unusable band (one bound, or not around energy_j) counts the node without band and says so', async () => {
    const bad = [
      comp(0, 'gemm', band(1, 1.1, 1.2)),
      comp(1, 'gemm', [makeAttr('energy_j', 'double_val', 1), makeAttr('energy_j_p90', 'double_val', 2)]),
      comp(2, 'attn', band(2, 1.5, 2.1)),
    ];
    const res = await replay(sources([0, 1, 2, 3].map(() => bad.map((n) => ({ ...n })))), opts);
    expect(res.energyBandJ).toMatchObject({ bandedNodes: 4, gpuNodes: 12, kernels: 1 });
    const d = res.diagnostics.find((x) => x.code === 'replay.energy-band-unusable')!;
    expect(d.count).toBe(8);
    expect(d.samples[0]!.message).toMatch(
      /mem\.0\.et: node 0 \("gemm", COMP_NODE\): energy band energy_j_p10 = 1\.1, energy_j = 1, energy_j_p90 = 1\.2 is not/,
    );
    expect(d.samples[1]!.message).toMatch(/energy_j_p10 = absent/);
  });
});

/** Four ranks, each running every predicted kernel once with its band, then an all-reduce. */
async function writeBandedTrace(prefix: string, rows: PredictResult['rows']): Promise<void> {
  for (let r = 0; r < 4; r++) {
    const w = await TraceWriter.create(`${prefix}.${r}.et`, {
      version: '',
      attrs: [makeAttr('schema', 'string_val', '1.0.2-chakra.0.0.4')],
    });
    rows.forEach((row, i) => {
      const n = comp(i, row.kernel, [
        makeAttr('is_cpu_op', 'bool_val', false),
        ...band(row.energyJ, row.energyJP10!, row.energyJP90!),
      ]);
      n.durationMicros = BigInt(Math.max(1, Math.round(row.durationNs / 1000)));
      w.write(n);
    });
    const ar = emptyNode(BigInt(rows.length), 'allreduce', NodeType.COMM_COLL_NODE);
    ar.dataDeps = [BigInt(rows.length - 1)];
    ar.attrs = [
      makeAttr('is_cpu_op', 'bool_val', false),
      makeAttr('comm_type', 'int64_val', 0),
      makeAttr('comm_size', 'int64_val', 1 << 20),
    ];
    w.write(ar);
    await w.close();
  }
}

describeShared('replay energy band: RTX 8000 real kernels with bands from predict (calibration/rtx8000.json)', () => {
  let dir: string;
  let pred: PredictResult;
  const CLOCKS = [945, 1410];
  const configs = {
    system: shipped('configs', 'sys_ring_example.json'),
    network: shipped('configs', 'Ring_4npus.yml'),
  };
  const prefix = (f: number) => path.join(dir, `t${f}`);
  const rowsAt = (f: number) => pred.rows.filter((r) => r.frequencyMHz === f);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-band-'));
    const cal = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    const real = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'));
    // The real kernels profiled at 1710 MHz, predicted at each clock with their bands (what annotate will write).
    pred = predictProfile(cal, real, { referenceClocksMHz: [1710], targetClocksMHz: CLOCKS });
    for (const f of CLOCKS) await writeBandedTrace(prefix(f), rowsAt(f));
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it(
    "each side of the band is 4 × that of predict's total (the same kernels on 4 ranks, one name erring " + 'together)',
    async () => {
      const res = await replayFiles({ trace: prefix(945), ...configs });
      const b = res.energyBandJ!;
      const total = pred.totals[0]!.energyJ;
      expect(rowsAt(945).length).toBe(20);
      expect(res.energyJ.compute).toBeCloseTo(4 * total.p50, 9);
      expect(res.energyJ.compute - b.computeP10).toBeCloseTo(4 * (total.p50 - total.p10), 9);
      expect(b.computeP90 - res.energyJ.compute).toBeCloseTo(4 * (total.p90 - total.p50), 9);
      expect(b).toMatchObject({ bandedNodes: 80, gpuNodes: 80, kernels: 20, bandedShare: 1 });
      // The every-node-the-same-way reading is wider.
      expect(b.correlatedComputeP10).toBeLessThan(b.computeP10);
      expect(b.correlatedComputeP90).toBeGreaterThan(b.computeP90);
    },
  );

  it('the CLI shows p10 / p90 of compute and total energy, within 100 columns; JSON has energyBandJ', async () => {
    const args = ['replay', prefix(945), '--system', configs.system, '--network', configs.network];
    const t = await cli(args);
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/part\s+energy \(J, est\.\)\s+share \(%\)\s+p10 \(J, est\.\)\s+p90 \(J, est\.\)/);
    expect(t.out).toMatch(/^compute(\s+[\d.]+){4}$/m);
    expect(t.out).toMatch(/^total(\s+[\d.]+){3}$/m);
    expect(t.out).toMatch(
      /^10–90 % band of compute energy.*\n {2}80 of 80 GPU nodes carry one \(100\.0% of compute J\)/m,
    );
    // The energy table and the band's note (the headline and the rank table are as before).
    const lines = t.out.split('\n');
    const ours = lines.slice(
      lines.findIndex((l) => l.startsWith('part ')),
      lines.findIndex((l) => l.includes('every node erred')) + 1,
    );
    expect(ours).toHaveLength(13);
    for (const line of ours) expect(line.length).toBeLessThanOrEqual(100);
    const j = JSON.parse((await cli([...args, '--json'])).out);
    expect(j.energyBandJ).toMatchObject({
      computeP10: expect.any(Number),
      totalP90: expect.any(Number),
      bandedNodes: 80,
    });
  });

  it("sweep gpu: each clock's point carries its band; the text, CSV and HTML report show it", async () => {
    const system = await loadSystemConfig(configs.system);
    const network = await loadNetworkConfig(configs.network);
    const h100 = await resolvePower();
    const run = await runPoints(
      CLOCKS.map((f) => ({ trace: { kind: 'files' as const, trace: prefix(f) }, system, network, power: h100 })),
      { threads: 1 },
    );
    const record = gpuSweepRecord(
      'band test',
      run.results.map((r, i) => sweepPointOf(CLOCKS[i]!, r)),
    );
    record.points.forEach((p, i) => {
      expect(p.energyBandJ).toEqual(
        Object.fromEntries(Object.entries(run.results[i]!.energyBandJ!).filter(([k]) => k !== 'sums')),
      );
      expect(p.energyBandJ!.totalP10).toBeLessThan(p.energyJ.total);
      expect(p.energyBandJ!.totalP90).toBeGreaterThan(p.energyJ.total);
    });
    // Farther from the profiled 1710 MHz, a wider band.
    const rel = (p: (typeof record.points)[number]) =>
      (p.energyBandJ!.totalP90 - p.energyBandJ!.totalP10) / p.energyJ.total;
    expect(rel(record.points[0]!)).toBeGreaterThan(rel(record.points[1]!));
    const text = gpuSweepText(record);
    const lines = text.split('\n');
    const from = lines.findIndex((l) => l.startsWith('10–90 % band of the energy'));
    expect(from).toBeGreaterThan(0);
    expect(lines[from + 2]).toMatch(
      /^SM clock \(MHz\)\s+total \(J, est\.\)\s+total p10 \(J, est\.\)\s+total p90 \(J, est\.\)\s+banded \(% of compute\)$/,
    );
    for (const line of lines.slice(from, from + 6)) expect(line.length).toBeLessThanOrEqual(100);
    expect(lines[from + 4]).toMatch(/^\s+945(\s+[\d.]+){3}\s+100\.0$/);
    const csv = gpuSweepRows(record);
    expect(csv.columns.map((c) => c.header).slice(-3)).toEqual([
      'total p10 (J, est.)',
      'total p90 (J, est.)',
      'banded (% of compute)',
    ]);
    const [r] = parseResults(JSON.parse(JSON.stringify(record)), 'gpu.json');
    expect(await buildReport([r!])).toMatch(
      /<th class="num">total p10 \(J, est\.\)<\/th><th class="num">total p90 \(J, est\.\)<\/th>/,
    );
  });

  it('the HTML report of a replay shows p10 / p90 beside compute and total energy', async () => {
    const res = await replayFiles({ trace: prefix(945), ...configs });
    const [r] = parseResults(JSON.parse(JSON.stringify(res)), 'replay.json');
    const html = await buildReport([r!]);
    expect(html).toMatch(/<caption>Energy, all ranks; 10–90 % band of compute/);
    expect(html).toMatch(/<th class="num">p10 \(J, est\.\)<\/th><th class="num">p90 \(J, est\.\)<\/th>/);
    const bad = JSON.parse(JSON.stringify(res));
    bad.energyBandJ.totalP90 = 'x';
    expect(() => parseResults(bad, 'replay.json')).toThrow(/energyBandJ\.totalP90/);
  });
});

describe('energy --astra-sim-log keeps the band: the same result as replay (overlap4 with bands, recorded stdout)', () => {
  let dir: string;
  const ref = astraRef;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-band-astra-'));
    for (const f of (await readdir(ref('traces', 'overlap4'))).filter((x) => x.endsWith('.et'))) {
      const t = await readTraceFile(ref('traces', 'overlap4', f));
      for (const n of t.nodes)
        if (n.type === NodeType.COMP_NODE) for (const a of band(0.01, 0.008, 0.013)) setAttr(n, a);
      await writeTraceFile(path.join(dir, f), t.metadata, t.nodes);
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('identical, band included', async () => {
    const input = {
      trace: path.join(dir, 'o'),
      system: ref('configs', 'sys_ring_example.json'),
      network: ref('configs', 'Ring_4npus.yml'),
      memory: ref('configs', 'mem.json'),
    };
    const log = recordedLog('overlap4__sys_ring_example__Ring_4npus.txt');
    const replayed = await replayFiles(input);
    const fromLog = await energyFromAstraSimLog({ ...input, astraSimLog: log });
    expect(replayed.energyBandJ).toMatchObject({ bandedNodes: 12, gpuNodes: 12, kernels: 3 });
    // byName needs each node's times: the replay has it, the ASTRA-sim log's per-rank times do not (issue 28, open).
    expect(fromLog.byName).toBeUndefined();
    expect({ ...fromLog, label: '' }).toEqual({ ...replayed, label: '', byName: undefined });
  });
});

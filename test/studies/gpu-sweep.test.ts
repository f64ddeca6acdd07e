/**
 * GPU clock sweep on a small 4-rank trace whose kernels are the RTX 8000 real kernels of NV-DVFS-Benchmark
 * (../shared): annotate at each clock, replay, and check the record against the annotate engine's own per-clock
 * compute energy, the Pareto flags against their definition, and the optimal clocks against the points.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { emptyNode, makeAttr, NodeType, TraceWriter, type ChakraNode } from '../../src/formats/chakra/index.js';
import { loadNetworkConfig, loadSystemConfig } from '../../src/formats/astra/index.js';
import { maxSlowdown, sweepGpu, type GpuSweepOutput } from '../../src/engines/studies/index.js';
import { buildReport, parseResults } from '../../src/report/index.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const KERNELS = ['matrixMulCUDA', 'BlackScholesGPU', 'vectorAdd', 'transposeCoalesced'];
const CLOCKS = [705, 945, 1215, 1410, 1710];
let dir: string;

async function writeTrace(prefix: string): Promise<void> {
  for (let r = 0; r < 4; r++) {
    const w = await TraceWriter.create(`${prefix}.${r}.et`, {
      version: '',
      attrs: [makeAttr('schema', 'string_val', '1.0.2-chakra.0.0.4')],
    });
    for (let i = 0; i < 40; i++) {
      const id = BigInt(i);
      let n: ChakraNode;
      if (i % 10 === 9) {
        n = emptyNode(id, `allreduce_${i}`, NodeType.COMM_COLL_NODE);
        n.attrs = [
          makeAttr('is_cpu_op', 'bool_val', false),
          makeAttr('comm_type', 'int64_val', 0),
          makeAttr('comm_size', 'int64_val', 1 << 20),
        ];
      } else {
        n = emptyNode(id, KERNELS[i % KERNELS.length], NodeType.COMP_NODE);
        n.durationMicros = 50n;
        n.attrs = [makeAttr('is_cpu_op', 'bool_val', false)];
      }
      if (i > 0) n.dataDeps = [id - 1n];
      const p = w.write(n);
      if (p) await p;
    }
    await w.close();
  }
}

describeShared('sweep gpu on RTX 8000 real kernels', () => {
  let res: GpuSweepOutput;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-sweep-gpu-'));
    const prefix = path.join(dir, 't');
    await writeTrace(prefix);
    res = await sweepGpu({
      label: 'rtx8000 test',
      trace: prefix,
      calibration: path.join(repoRoot, 'calibration', 'rtx8000.json'),
      profiles: [shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv')],
      frequenciesMHz: CLOCKS,
      system: await loadSystemConfig(shipped('configs', 'sys_ring_example.json')),
      network: await loadNetworkConfig(shipped('configs', 'Ring_4npus.yml')),
      selectors: [maxSlowdown(5)],
      threads: 1,
      workDir: path.join(dir, 'work'),
    });
  }, 120_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'one point per clock; compute + memory energy is what annotate wrote on the nodes at that clock (the ledger ' +
      'carves the DRAM part out of energy_j)',
    () => {
      expect(res.record.points.map((p) => p.clockMHz)).toEqual(CLOCKS);
      expect(res.annotate.total.untouched).toBe(0);
      res.record.points.forEach((p) => {
        const out = res.annotate.outputs.find((o) => o.frequencyMHz === p.clockMHz)!;
        const nodesJ = p.energyJ.compute + p.energyJ.memory;
        expect(Math.abs(nodesJ - out.computeEnergyJ)).toBeLessThanOrEqual(1e-9 * out.computeEnergyJ);
      });
    },
  );

  it('lower clocks take longer (kernels slow down), and the optimal clocks are the extremes of the points', () => {
    const pts = res.record.points;
    expect(pts[0].timeS).toBeGreaterThan(pts.at(-1)!.timeS);
    const minE = pts.reduce((a, p) => (p.energyJ.total < a.energyJ.total ? p : a));
    const minT = pts.reduce((a, p) => (p.timeS < a.timeS ? p : a));
    expect(res.record.energyOptimalMHz).toBe(minE.clockMHz);
    expect(res.record.timeOptimalMHz).toBe(minT.clockMHz);
  });

  it('Pareto flags and the trade-off table follow their definitions', () => {
    const pts = res.record.points;
    pts.forEach((p) => {
      const dominated = pts.some(
        (q) =>
          q !== p &&
          q.timeS <= p.timeS &&
          q.energyJ.total <= p.energyJ.total &&
          (q.timeS < p.timeS || q.energyJ.total < p.energyJ.total),
      );
      expect(p.pareto).toBe(!dominated);
    });
    const t = res.record.tradeoff;
    expect(t[0].clockMHz).toBe(res.record.timeOptimalMHz);
    expect(t.at(-1)!.clockMHz).toBe(res.record.energyOptimalMHz);
    const fastest = pts.find((p) => p.clockMHz === t[0].clockMHz)!;
    for (const row of t) {
      expect(row.energySavedPct).toBeCloseTo((100 * (fastest.energyJ.total - row.energyJ)) / fastest.energyJ.total, 9);
      expect(row.runtimePenaltyPct).toBeCloseTo((100 * (row.timeS - fastest.timeS)) / fastest.timeS, 9);
    }
    const sel = res.record.selections[0];
    const limit = fastest.timeS * 1.05;
    const ok = pts.filter((p) => p.timeS <= limit);
    expect(sel.clockMHz).toBe(ok.reduce((a, p) => (p.energyJ.total < a.energyJ.total ? p : a)).clockMHz);
  });

  it('is a valid gpu-clock-sweep record and renders in the report', async () => {
    const [r] = parseResults(JSON.parse(JSON.stringify(res.record)), 'gpu.json');
    const html = await buildReport([r]);
    expect(html).toContain('<svg');
  });
});

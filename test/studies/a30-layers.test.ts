/**
 * The A30 layer study (`case-study a30-layers`): its calibration holds datasheet facts only and is what the shared
 * datasheet code path writes; the published table is the one quoted in issue 31; the record's arithmetic (saving,
 * penalty, differences, mean absolute difference, the observations' verdicts) on hand-made sweeps; and a subset of the
 * real study (a memory-bound and a compute-bound layer, every A30 clock) checked against physics and rendered.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  a30ClocksMHz,
  A30_PUBLISHED,
  meanAbsDifference,
  observations,
  rowOf,
  runA30LayerStudy,
  spearman,
  type A30StudyOutput,
  type LayerSweep,
} from '../../src/engines/studies/index.js';
import type { GpuClockSweepRecord } from '../../src/engines/studies/types.js';
import { loadCalibration } from '../../src/model/calibration.js';
import { datasheetCalibration } from '../../src/model/datasheet-calibration.js';
import { buildReport } from '../../src/report/html.js';
import { parseResults } from '../../src/report/validate.js';
import { layerStudyText } from '../../src/report/a30-layers-text.js';
import { cli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';

const calFile = path.join(repoRoot, 'calibration', 'a30-datasheet.json');

describe('A30 datasheet calibration', () => {
  it('is what datasheetCalibration writes for the A30 (the H100/A100 path), nothing else', async () => {
    const file = await loadCalibration(calFile);
    const made = datasheetCalibration('NVIDIA A30');
    // `tracewatt calibrate --datasheet A30` writes it: everything but the provenance (command, time) is the library's.
    expect({ ...file, provenance: null }).toEqual({ ...made, provenance: null });
  });

  it('holds the cited datasheet facts, each in its source line', async () => {
    const ds = (await loadCalibration(calFile)).datasheet!;
    expect(ds).toMatchObject({
      tdpW: 165,
      maxSmClockMHz: 1440,
      memoryBandwidthBytesPerS: 933e9,
      peakFlopsPerS: { fp16Tensor: 165e12 },
    });
    for (const fact of [
      '24 GB HBM2 at 933 GB/s',
      'max TDP 165 W',
      'BF16/FP16 tensor 165 TFLOP/s',
      'TF32 tensor 82 TFLOP/s',
      '210–1440 MHz in 15 MHz steps',
      'HBM at 1215 MHz',
    ]) {
      expect(ds.source).toContain(fact);
    }
    const cal = await loadCalibration(calFile);
    expect(cal.idle).toMatchObject({ powerW: 30, smClockMHz: 1440 });
    expect(cal.idle!.source).toContain('an estimate, not a datasheet value');
  });

  it('has the default V–f shape and power-cap rule of the other datasheet calibrations', async () => {
    const a30 = await loadCalibration(calFile);
    for (const other of ['h100-datasheet.json', 'a100-datasheet.json']) {
      const o = await loadCalibration(path.join(repoRoot, 'calibration', other));
      expect(a30.vf!.kneeMHz / a30.datasheet!.maxSmClockMHz).toBeCloseTo(o.vf!.kneeMHz / o.datasheet!.maxSmClockMHz, 2);
      expect(a30.vf!.slopePerGHz).toBe(o.vf!.slopePerGHz);
      expect(a30.powerCap.source).toBe(o.powerCap.source);
      expect(a30.powerCap.powerW).toBe(a30.datasheet!.tdpW);
    }
  });
});

describe("the study's fixed inputs", () => {
  it("sweeps the A30's 83 SM clocks, 210–1440 MHz in 15 MHz steps", () => {
    const c = a30ClocksMHz();
    expect(c.length).toBe(83);
    expect([c[0], c[c.length - 1]]).toEqual([210, 1440]);
    expect(c.every((f, i) => i === 0 || f - c[i - 1]! === 15)).toBe(true);
  });

  it('compares with the published table (issue 31), cell by cell', () => {
    const table: Record<string, [number, number][]> = {
      'gpt3-125m': [
        [5.3, 1.6],
        [30.8, 23.9],
        [28.1, 18.3],
      ],
      'gpt3-1.3b': [
        [24.5, 27.4],
        [20.5, 14.8],
        [21.0, 12.8],
      ],
      'gpt3-13b': [
        [14.6, 14.9],
        [10.8, 12.7],
        [11.8, 11.3],
      ],
      'gpt3-175b': [
        [13.5, 11.3],
        [9.0, 15.5],
        [19.9, 30.7],
      ],
    };
    const got = Object.fromEntries(
      Object.keys(table).map((m) => [
        m,
        [128, 512, 1024].map((s) => {
          const c = A30_PUBLISHED.find((p) => p.model === m && p.seqLen === s)!;
          return [c.energySavingPct, c.runtimePenaltyPct];
        }),
      ]),
    );
    expect(got).toEqual(table);
    expect(A30_PUBLISHED.length).toBe(12);
  });
});

/** A sweep record from (clock, time, energy) triples, dominance and trade-off as the GPU sweep computes them. */
function sweep(points: [number, number, number][]): GpuClockSweepRecord {
  const pts = points.map(([clockMHz, timeS, e]) => ({
    clockMHz,
    timeS,
    energyJ: { compute: e, memory: 0, network: 0, idle: 0, total: e },
    pareto: true,
  }));
  for (const p of pts)
    p.pareto = !pts.some(
      (q) =>
        q !== p &&
        q.timeS <= p.timeS &&
        q.energyJ.total <= p.energyJ.total &&
        (q.timeS < p.timeS || q.energyJ.total < p.energyJ.total),
    );
  const front = pts.filter((p) => p.pareto).sort((a, b) => a.timeS - b.timeS);
  const f = front[0]!;
  return {
    kind: 'gpu-clock-sweep',
    schemaVersion: 1,
    label: 't',
    points: pts,
    energyOptimalMHz: 0,
    timeOptimalMHz: 0,
    selections: [],
    estimate: true,
    tradeoff: front.map((p) => ({
      clockMHz: p.clockMHz,
      timeS: p.timeS,
      energyJ: p.energyJ.total,
      energySavedPct: (100 * (f.energyJ.total - p.energyJ.total)) / f.energyJ.total,
      runtimePenaltyPct: (100 * (p.timeS - f.timeS)) / f.timeS,
    })),
  };
}

describe('record arithmetic', () => {
  // A U: 1000 MHz is the lowest energy, 1400 MHz the fastest.
  const u: LayerSweep = {
    model: 'gpt3-125m',
    layer: 'GPT 125M',
    seqLen: 512,
    maxKernelPowerW: 100,
    sweep: sweep([
      [600, 2, 12],
      [1000, 1.2, 8],
      [1400, 1, 10],
    ]),
  };

  it('takes saving and penalty of the lowest-energy Pareto point against the fastest, and the differences', () => {
    const row = rowOf(u, { model: 'gpt3-125m', seqLen: 512, energySavingPct: 30.8, runtimePenaltyPct: 23.9 });
    expect(row).toMatchObject({
      fastestClockMHz: 1400,
      lowestEnergyClockMHz: 1000,
      fastestPowerW: 10,
      fastestTimeUs: 1e6,
    });
    expect(row.energySavingPct).toBeCloseTo(20, 10);
    expect(row.runtimePenaltyPct).toBeCloseTo(20, 10);
    expect(row.energySavingDiffPts).toBeCloseTo(20 - 30.8, 10);
    expect(row.runtimePenaltyDiffPts).toBeCloseTo(20 - 23.9, 10);
    // Only 1000 MHz is within 2 % of the lowest energy: no width.
    expect(row.bottomWidthPct).toBe(0);
    const mad = meanAbsDifference([row, { ...row, energySavingDiffPts: 2, runtimePenaltyDiffPts: -1 }], 5);
    expect(mad.energySavingPts).toBeCloseTo((10.8 + 2) / 2, 10);
    expect(mad.runtimePenaltyPts).toBeCloseTo((3.9 + 1) / 2, 10);
  });

  it('ranks with ties averaged', () => {
    expect(spearman([1, 2, 3], [10, 20, 30])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3], [30, 20, 10])).toBeCloseTo(-1, 12);
    expect(spearman([1, 1, 2], [5, 5, 5])).toBe(0);
  });

  it('calls an observation refuted when the sweeps show the opposite', () => {
    // Monotone energy (no U), fastest at the top clock, one layer only.
    const flat: LayerSweep = {
      ...u,
      sweep: sweep([
        [600, 2, 12],
        [1000, 1.2, 11],
        [1400, 1, 10],
      ]),
    };
    const rows = [rowOf(flat, { model: 'gpt3-125m', seqLen: 512, energySavingPct: 1, runtimePenaltyPct: 1 })];
    const obs = observations([flat], rows, ['gpt3-125m'], [512], 165);
    expect(obs.find((o) => o.id === 'u-shaped-energy')!.verdict).toBe('refuted');
    expect(obs.find((o) => o.id === 'fastest-below-max-clock')!.verdict).toBe('refuted');
    // Slower at the top clock than one below it: the published observation holds.
    const slowTop: LayerSweep = {
      ...u,
      sweep: sweep([
        [600, 2, 12],
        [1000, 1.2, 8],
        [1200, 1, 9],
        [1400, 1.1, 10],
      ]),
    };
    const o2 = observations(
      [slowTop],
      [rowOf(slowTop, { model: 'gpt3-125m', seqLen: 512, energySavingPct: 1, runtimePenaltyPct: 1 })],
      ['gpt3-125m'],
      [512],
      165,
    );
    expect(o2.find((o) => o.id === 'fastest-below-max-clock')!.verdict).toBe('confirmed');
    expect(o2.find((o) => o.id === 'u-shaped-energy')!.verdict).toBe('confirmed');
  });
});

describe('a memory-bound and a compute-bound layer over every A30 clock', () => {
  let r: A30StudyOutput;
  beforeAll(async () => {
    r = await runA30LayerStudy({ models: ['gpt3-125m', 'gpt3-13b'], seqLens: [128, 1024], threads: 1 });
  }, 240_000);

  it('sweeps each layer at all 83 clocks and keeps the published pair beside each row', () => {
    expect(r.replays).toBe(4 * 83);
    expect(r.record.rows.map((x) => `${x.model}@${x.seqLen}`)).toEqual([
      'gpt3-125m@128',
      'gpt3-125m@1024',
      'gpt3-13b@128',
      'gpt3-13b@1024',
    ]);
    for (const row of r.record.rows) {
      const p = A30_PUBLISHED.find((c) => c.model === row.model && c.seqLen === row.seqLen)!;
      expect([row.publishedEnergySavingPct, row.publishedRuntimePenaltyPct]).toEqual([
        p.energySavingPct,
        p.runtimePenaltyPct,
      ]);
      expect(row.energySavingDiffPts).toBeCloseTo(row.energySavingPct - p.energySavingPct, 10);
    }
  });

  it(
    'obeys physics: runtime never rises with the clock, power stays under the 165 W cap, parts add up, clocks ' +
      'exist',
    () => {
      const clocks = new Set(a30ClocksMHz());
      for (const l of r.record.layers) {
        const pts = l.sweep.points;
        expect(pts.map((p) => p.clockMHz)).toEqual(a30ClocksMHz());
        for (let i = 1; i < pts.length; i++) expect(pts[i]!.timeS).toBeLessThanOrEqual(pts[i - 1]!.timeS);
        for (const p of pts) {
          const e = p.energyJ;
          expect(e.compute + e.memory + e.network + e.idle).toBeCloseTo(e.total, 12);
          expect(e.compute / p.timeS).toBeLessThanOrEqual(165);
        }
      }
      for (const row of r.record.rows) {
        expect(clocks.has(row.fastestClockMHz) && clocks.has(row.lowestEnergyClockMHz)).toBe(true);
        expect(row.maxKernelPowerW).toBeLessThanOrEqual(165);
      }
    },
  );

  it("finds the U (lowest energy inside the range) and the memory-bound layer's flat top", () => {
    expect(r.record.observations.find((o) => o.id === 'u-shaped-energy')!.verdict).toBe('confirmed');
    const small = r.record.rows.find((x) => x.model === 'gpt3-125m' && x.seqLen === 128)!;
    const big = r.record.rows.find((x) => x.model === 'gpt3-13b' && x.seqLen === 1024)!;
    expect(small.fastestClockMHz).toBeLessThan(1440);
    expect(big.fastestClockMHz).toBe(1440);
  });

  it(
    'writes a report that validates, plots the U and the fronts with published points, and text within 100 ' +
      'columns',
    async () => {
      const [back] = parseResults(JSON.parse(JSON.stringify([r.record])), 'results.json');
      const html = await buildReport([back!]);
      expect(html).toContain('data-plot="layer-energy-vs-clock"');
      expect(html).toContain('data-plot="layer-pareto-fronts"');
      expect(html).toContain('published lowest-energy point');
      expect(html).toMatch(/Mean absolute difference over the 4 cells/);
      const text = layerStudyText(r.record);
      expect(Math.max(...text.split('\n').map((l) => l.length))).toBeLessThanOrEqual(100);
    },
  );
});

describe('case-study a30-layers options', () => {
  it("refuses the LLaMA study's options, and the A30 study's on the LLaMA one", async () => {
    const seq = await cli(['case-study', 'a30-layers', '--seq', '512', '--out', 'out/never']);
    expect(seq.code).toBe(2);
    expect(seq.err).toMatch(/--seq belongs to the llama2-70b case study/);
    const mb = await cli(['case-study', 'llama2-70b', '--micro-batch', '2', '--out', 'out/never']);
    expect(mb.code).toBe(2);
    expect(mb.err).toMatch(/--micro-batch belongs to the a30-layers case study/);
    const other = await cli(['case-study', 'a40-layers']);
    expect(other.err).toMatch(/the ones shipped are llama2-70b and a30-layers/);
  });
});

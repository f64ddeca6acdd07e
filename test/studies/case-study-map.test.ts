/**
 * The case study's sensitivity map on a reduced iteration (sequences of 512 tokens, batches 16–64, scale-out
 * bandwidths 25, 50 (preset) and 100 GB/s, scales 1 and 1.25): the grid's shape and units, the shares as ratios,
 * one cell per layout recomputed by replaying the whole batch at that bandwidth and scale (no extrapolation), and the
 * report's heat map with the real-batch point marked.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { parseSystemConfig, type NetworkConfig } from '../../src/formats/astra/index.js';
import { calibratedTimeModel, networkConfig, resolvePlan, systemJson } from '../../src/engines/generate/index.js';
import { resolvePower } from '../../src/engines/replay/index.js';
import { loadCalibration, maxSmClock } from '../../src/model/calibration.js';
import {
  atScaleOutBandwidth,
  CASE_STUDY_DEFAULTS,
  DEFAULT_SERDES_VF_CURVE,
  CASE_STUDY_LAYOUTS,
  runCaseStudy,
  runPoint,
  scaledConfigs,
  type CaseStudyOutput,
} from '../../src/engines/studies/index.js';
import { buildReport } from '../../src/report/index.js';
import { renderPlot, sensitivityMapSpec } from '../../src/report/plots/index.js';
import { parseResults } from '../../src/report/validate.js';
import { toJson } from '../../src/formats/json.js';

let cs: CaseStudyOutput;
const seqLen = 512;
beforeAll(async () => {
  cs = await runCaseStudy({
    globalBatch: 64,
    seqLen,
    scales: [1.25],
    clocksMHz: [],
    threads: 1,
    map: { batchesSequences: [16, 32, 64], scaleOutBandwidthsGBps: [25, 100] },
  });
}, 300_000);

const map = () => cs.record.sensitivity!;

describe('case study sensitivity map (reduced)', () => {
  it('has one row per layout × batch × bandwidth (the preset bandwidth added), units in the names, shares in %', () => {
    const m = map();
    expect(m.batchesSequences).toEqual([16, 32, 64]);
    expect(m.scaleOutBandwidthsGBps).toEqual([25, 50, 100]);
    expect(m.scales).toEqual([1, 1.25]);
    expect(m.rows).toHaveLength(2 * 3 * 3);
    expect(Object.keys(m.rows[0]!).sort()).toEqual([
      'bestAtEdge',
      'bestScale',
      'byScale',
      'deltaEnergyPerDeltaTimeW',
      'energyChangePct',
      'energySavedPctPerSlowdownPct',
      'globalBatchSequences',
      'hiddenCommunicationSharePct',
      'idleEnergySharePct',
      'layout',
      'microBatchesPerPipeline',
      'networkEnergySharePct',
      'nominalEnergyJ',
      'nominalMakespanS',
      'realBatchPoint',
      'scaleOutBandwidthGBps',
      'scaleOutEnergySharePct',
      'timeChangePct',
    ]);
    expect(
      m.rows.filter((r) => r.realBatchPoint).map((r) => [r.layout, r.globalBatchSequences, r.scaleOutBandwidthGBps]),
    ).toEqual([
      ['TP 8 × DP 4', 64, 50],
      ['TP 8 × PP 4', 64, 50],
    ]);
    for (const r of m.rows) {
      for (const k of [
        'networkEnergySharePct',
        'hiddenCommunicationSharePct',
        'idleEnergySharePct',
        'scaleOutEnergySharePct',
      ] as const) {
        expect(r[k]).toBeGreaterThanOrEqual(0);
        expect(r[k]).toBeLessThanOrEqual(100);
      }
      // The best is the lowest energy of the scales, s = 1 among them at exactly zero.
      expect(r.byScale.find((s) => s.scale === 1)!.energyChangePct).toBe(0);
      expect(r.energyChangePct).toBe(Math.min(...r.byScale.map((s) => s.energyChangePct)));
      if (r.timeChangePct !== 0)
        expect(r.deltaEnergyPerDeltaTimeW).toBeCloseTo(
          (r.nominalEnergyJ * r.energyChangePct) / (r.nominalMakespanS * r.timeChangePct),
          6,
        );
      else expect(r.deltaEnergyPerDeltaTimeW).toBeNull();
    }
    // At the preset bandwidth and the study's batch the map's cell is the scale-out knob's own point.
    for (const l of cs.record.layouts) {
      const cell = m.rows.find((r) => r.layout === l.name && r.realBatchPoint)!;
      const knob = l.knobs.find((k) => k.id === 'scale-out')!;
      expect(cell.nominalEnergyJ).toBeCloseTo(l.nominal.energyJ.total, 6);
      expect(cell.byScale.find((s) => s.scale === 1.25)!.energyChangePct).toBeCloseTo(
        knob.points.find((p) => p.setting === 1.25)!.energyChangePct,
        9,
      );
      expect(cell.networkEnergySharePct).toBeCloseTo(100 * l.nominal.shares.networkEnergy, 9);
    }
    expect(m.finding).toMatch(/TP 8 × DP 4: .*TP 8 × PP 4: /);
    expect(parseResults(JSON.parse(toJson([cs.record])), 'map.json').map((r) => r.kind)).toEqual(['case-study']);
  });

  it('agrees with a full replay of the whole batch at that bandwidth and scale (no extrapolation)', async () => {
    const cal = await loadCalibration(CASE_STUDY_DEFAULTS.calibration);
    const fMax = maxSmClock(cal).mhz;
    const power = await resolvePower('h100-cluster');
    // DP 4 at 64 sequences (16 micro-batches, replayed at 4 and 8) and PP 4 at 32 (32 micro-batches, replayed at 8 and
    // 12), both at 25 GB/s.
    for (const [name, batch] of [
      ['TP 8 × DP 4', 64],
      ['TP 8 × PP 4', 32],
    ] as const) {
      const L = CASE_STUDY_LAYOUTS.find((x) => x.name === name)!;
      const options = { model: 'llama2-70b', dp: L.dp, tp: L.tp, pp: L.pp, microBatch: 1, globalBatch: batch, seqLen };
      const plan = resolvePlan({ ...options, timeModel: calibratedTimeModel(cal, fMax, 'bf16') });
      const gen = networkConfig(plan);
      const network: NetworkConfig = {
        file: 'test network',
        dims: gen.topology.map((topology, i) => ({
          topology,
          npus: gen.npusCount[i]!,
          bandwidthGBps: power.network[i]!.bandwidthGBps ?? gen.bandwidthGBps[i]!,
          latencyNs: gen.latencyNs[i]!,
        })),
      };
      const system = parseSystemConfig('test system.json', systemJson(plan));
      const base = atScaleOutBandwidth(network, power, 25);
      const fast = scaledConfigs(base.network, base.power, 1, 1.25, DEFAULT_SERDES_VF_CURVE);
      const replayAt = (c: { network: NetworkConfig; power: typeof power }) =>
        runPoint({
          trace: {
            kind: 'llm',
            options,
            calibrated: { calibrationFile: CASE_STUDY_DEFAULTS.calibration, clockMHz: fMax },
          },
          system,
          network: c.network,
          power: c.power,
        });
      const [r1, r125] = [await replayAt(base), await replayAt(fast)];
      const cell = map().rows.find(
        (r) => r.layout === name && r.globalBatchSequences === batch && r.scaleOutBandwidthGBps === 25,
      )!;
      expect(Math.abs(cell.nominalEnergyJ / r1.energyJ.total - 1), name).toBeLessThan(1e-9);
      expect(Math.abs(cell.nominalMakespanS / (r1.makespanNs * 1e-9) - 1), name).toBeLessThan(1e-9);
      const dE = (100 * (r125.energyJ.total - r1.energyJ.total)) / r1.energyJ.total;
      const dT = (100 * (r125.makespanNs - r1.makespanNs)) / r1.makespanNs;
      expect(Math.abs(dE), name).toBeGreaterThan(0.01);
      const s125 = cell.byScale.find((s) => s.scale === 1.25)!;
      expect(s125.energyChangePct, name).toBeCloseTo(dE, 6);
      expect(s125.timeChangePct, name).toBeCloseTo(dT, 6);
      expect(cell.idleEnergySharePct, name).toBeCloseTo((100 * r1.energyJ.idle) / r1.energyJ.total, 6);
      expect(cell.hiddenCommunicationSharePct, name).toBeCloseTo((100 * r1.timeS.overlap) / r1.timeS.communication, 6);
    }
  }, 300_000);

  it('the report draws the heat map with the real-batch point marked and the sentence above it', async () => {
    const html = await buildReport([cs.record], { title: 't' });
    const fig = html.slice(html.indexOf('data-plot="case-sensitivity-map"'));
    expect(fig).toMatch(/<svg/);
    expect(fig.slice(0, fig.indexOf('</figure>'))).toContain('★');
    expect(html).toContain('<strong>Sensitivity map.</strong>');
    expect(html).toContain('Sensitivity map: best scale-out DVFS setting per cell');
    // The heat map compiles without vega-lite warnings (bold cells beyond the threshold included) and stars the real
    // batch.
    const plot = await renderPlot(sensitivityMapSpec(map()));
    expect(plot.warnings).toEqual([]);
    expect(plot.svg).toContain('★');
  });
});

/**
 * The LLaMA-2-70B case study end to end on a reduced iteration (4 micro-batches of 512 tokens, scales 0.5, 1, 1.25):
 * the shares are the ratios of the nominal replay, the sweep's scale-out energy follows the V–f rule, the finding
 * states the numbers, and the command writes results JSON that validates and an HTML report with the plots.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaseStudy, type CaseStudyOutput } from '../../src/engines/studies/index.js';
import { caseStudyCommand } from '../../src/cli/commands/case-study.js';
import { loadResults } from '../../src/report/index.js';

let dir: string;
let cs: CaseStudyOutput;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-case-'));
  cs = await runCaseStudy({ microBatches: 4, seqLen: 512, scales: [0.5, 1.25], threads: 1 });
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('case study llama2-70b (reduced)', () => {
  it('replays 32 ranks on Switch(8)×Ring(4) with the case-study powers', () => {
    expect(cs.replay.ranks.length).toBe(32);
    expect(cs.replay.dimensionNames).toEqual(['scale-up (Switch 8)', 'scale-out (Ring 4)']);
    expect(cs.networkYaml).toMatch(/bandwidth: \[ 400\.0, 50\.0 \]/);
    expect(cs.summary.system.join('\n')).toMatch(/active 700 W, idle 80 W/);
    // Tensor-parallel all-reduces on the switch, pipeline sends on the ring.
    expect(cs.replay.bytesSentPerDim[0]).toBeGreaterThan(0);
    expect(cs.replay.bytesSentPerDim[1]).toBeGreaterThan(0);
  });

  it('shares are the ratios of the nominal breakdown', () => {
    const e = cs.replay.energyJ;
    expect(cs.summary.shares.networkEnergyShare).toBeCloseTo(e.network / e.total, 12);
    expect(cs.summary.shares.idleEnergyShare).toBeCloseTo(e.idle / e.total, 12);
    expect(cs.summary.shares.overlap).toBeCloseTo(cs.replay.timeS.overlap / cs.replay.timeS.communication, 12);
    expect(e.compute + e.memory + e.network + e.idle).toBeCloseTo(e.total, 6);
  });

  it('scale-out energy at s = 0.5 is the nominal bytes × 25 pJ/bit × 0.8², and the point is slower', () => {
    const [low, nominal, high] = cs.sweep.record.points;
    expect([low.scale, nominal.scale, high.scale]).toEqual([0.5, 1, 1.25]);
    expect(high.makespanNs).toBeLessThanOrEqual(nominal.makespanNs);
    expect(low.networkByDimensionJ[1]).toBeCloseTo(cs.replay.bytesSentPerDim[1] * 8 * 25 * 0.64 * 1e-12, 12);
    expect(nominal.networkByDimensionJ[0]).toBeCloseTo(cs.replay.bytesSentPerDim[0] * 8 * 2 * 1e-12, 12);
    expect(low.networkByDimensionJ[0]).toBe(nominal.networkByDimensionJ[0]);
    expect(low.makespanNs).toBeGreaterThan(nominal.makespanNs);
  });

  it('the best scale and the finding agree with the sweep', () => {
    const pts = cs.sweep.record.points;
    const best = pts.reduce((a, p) => (p.energyJ.total < a.energyJ.total ? p : a));
    const nominal = pts.find((p) => p.scale === 1)!;
    expect(cs.summary.bestNetworkScale!.scale).toBe(best.scale);
    expect(cs.summary.bestNetworkScale!.energySavedPct).toBeCloseTo((100 * (nominal.energyJ.total - best.energyJ.total)) / nominal.energyJ.total, 9);
    const direction = best.energyJ.total >= nominal.energyJ.total ? null : best.scale > 1 ? 'up' : 'down';
    expect(cs.summary.finding).toMatch(direction ? new RegExp(`frequency ${direction} gives an efficiency gain`) : /gives no efficiency gain/);
    // Both directions are described with their own numbers.
    expect(cs.summary.finding).toMatch(/at s = 0\.5 the scale-out links save/);
    expect(cs.summary.finding).toMatch(/at s = 1\.25 the scale-out links cost/);
    expect(cs.summary.finding).toContain(`${(100 * cs.summary.shares.networkEnergyShare).toFixed(2)}%`);
    expect(cs.summary.finding).toContain(`${(100 * cs.summary.shares.idleEnergyShare).toFixed(1)}%`);
  });

  it('the command writes results that validate and a report with the case study and its plots', async () => {
    const out = path.join(dir, 'cs');
    const lines: string[] = [];
    const code = await caseStudyCommand.run(['llama2-70b'], { out, microBatches: 4, seq: 512, scale: '0.5', threads: 1 },
      { out: (t) => void lines.push(t), err: () => undefined, isTTY: false });
    expect(code).toBe(0);
    const results = await loadResults([path.join(out, 'results.json')]);
    expect(results.map((r) => r.kind)).toEqual(['replay', 'network-sweep', 'case-study']);
    const html = await readFile(path.join(out, 'report.html'), 'utf8');
    expect((html.match(/<svg/g) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(html).toContain('Case study');
    expect(lines.join('')).toMatch(/efficiency gain/);
  }, 120_000);

  it('rejects an unknown case study', async () => {
    await expect(caseStudyCommand.run(['gpt4'], {}, { out: () => undefined, err: () => undefined, isTTY: false })).rejects.toThrow(/llama2-70b/);
  });
});

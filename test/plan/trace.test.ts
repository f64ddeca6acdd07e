/**
 * Planning an annotated multi-rank trace: LLaMA-2 7B with 4 pipeline stages (tp 2) from `generate llm`, annotated
 * at four A100 clocks (datasheet calibration, roofline estimates), planned and replayed: the replayed iteration is
 * within 0.1 % of the all-max-clock one and uses less energy. Also through the CLI, and its bad input.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotateTrace } from '../../src/engines/annotate/index.js';
import { resolveGpu } from '../../src/engines/generate/gpus.js';
import { writeLlmTraces } from '../../src/engines/generate/index.js';
import { planTrace, type PlanRecord } from '../../src/engines/plan/index.js';
import { cli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';

const CLOCKS = [1410, 1260, 1110, 960];
let dir: string;
let gen: string;
let annotated: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-plan-trace-'));
  gen = path.join(dir, 'llama');
  annotated = path.join(dir, 'a');
  await writeLlmTraces({
    model: 'llama2-7b',
    dp: 1,
    tp: 2,
    pp: 4,
    microBatch: 1,
    globalBatch: 8,
    seqLen: 2048,
    gpu: resolveGpu('a100'),
    outPrefix: gen,
  });
  await annotateTrace({
    trace: gen,
    out: annotated,
    calibration: path.join(repoRoot, 'calibration', 'a100-datasheet.json'),
    profiles: [],
    frequenciesMHz: CLOCKS,
    perFrequencyOutputs: true,
    workers: 1,
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('plan --trace on a generated LLaMA-2 7B trace (pp 4, tp 2)', () => {
  let r: PlanRecord;
  it('plans a clock per micro-batch pass and stage from replays at each clock', async () => {
    r = await planTrace({
      trace: annotated,
      frequenciesMHz: CLOCKS,
      system: `${gen}.system.json`,
      network: `${gen}.network.yml`,
      points: 60,
    });
    expect(r.source.mode).toBe('trace');
    expect(r.stages).toBe(4);
    expect(r.microBatches).toBe(8);
    expect(r.gpusPerStage).toBe(2);
    expect(r.replayCheck!.groups).toBe(8 * 8 * 2);
    expect(r.notes.join(' ')).toMatch(/roofline-enabled: replayed with it off/);
  });
  it('never plans below the two-clock bound, past the relaxation’s lowest-energy time too', () => {
    // Past it the relaxation rises (waiting costs more than slowing saves): the bound is its least energy by the
    // deadline.
    for (const p of r.frontier) expect(p.energyJ).toBeGreaterThanOrEqual(p.splitEnergyJ * (1 - 1e-9));
  });
  it('replays within 0.1 % of the all-max-clock iteration time with less energy', () => {
    const c = r.replayCheck!;
    expect(c.plan.timeS).toBeLessThanOrEqual(c.baseline.timeS * 1.001);
    expect(c.plan.energyJ).toBeLessThan(c.baseline.energyJ);
    expect(c.plan.savingPct).toBeGreaterThan(2);
    expect(c.plan.savingPct).toBeCloseTo(100 * (1 - c.plan.energyJ / c.baseline.energyJ), 10);
  });
  it('runs through the CLI and refuses profile options with --trace', async () => {
    const base = [
      'plan',
      '--trace',
      annotated,
      '--frequencies',
      CLOCKS.join(','),
      '--system',
      `${gen}.system.json`,
      '--network',
      `${gen}.network.yml`,
      '--points',
      '20',
    ];
    const ok = await cli(base);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/replayed \(all 128 groups, \d+ replays\): .* saves \d+\.\d\d % \(estimated\)/);
    const bad = await cli([...base, '--stages', '4']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--stages: not with --trace/);
    const missing = await cli([
      'plan',
      '--trace',
      annotated,
      '--frequencies',
      '1410,1300',
      '--system',
      `${gen}.system.json`,
      '--network',
      `${gen}.network.yml`,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/1300MHz/);
    const noMeta = await cli([
      'plan',
      '--trace',
      path.join(dir, 'nothing'),
      '--frequencies',
      '1410,1260',
      '--system',
      `${gen}.system.json`,
      '--network',
      `${gen}.network.yml`,
    ]);
    expect(noMeta.code).toBe(2);
  });
});

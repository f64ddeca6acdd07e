/**
 * A GPU clock sweep replays each clock's annotated durations, even when the trace's system.json
 * turns on ASTRA-sim's roofline mode (which would recompute every compute time at one fixed peak
 * and make all clocks look equally fast). Generated LLaMA trace + the H100 datasheet calibration.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLlmTraces } from '../../src/engines/generate/index.js';
import { sweepGpu, type GpuSweepOutput } from '../../src/engines/studies/index.js';
import { parseNetworkConfig, parseSystemConfig } from '../../src/formats/astra/index.js';
import { repoRoot } from '../helpers/shared.js';

let dir: string;
let out: GpuSweepOutput;
let rooflineInTrace: boolean;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-gpusweep-'));
  const w = await writeLlmTraces({
    model: 'llama2-7b',
    dp: 1,
    tp: 2,
    pp: 1,
    microBatch: 1,
    globalBatch: 1,
    seqLen: 512,
    outPrefix: path.join(dir, 't'),
  });
  const system = parseSystemConfig(w.systemFile, await readFile(w.systemFile, 'utf8'));
  rooflineInTrace = system.rooflineEnabled;
  out = await sweepGpu({
    label: 'roofline sweep',
    trace: path.join(dir, 't'),
    calibration: path.join(repoRoot, 'calibration', 'h100-datasheet.json'),
    profiles: [],
    frequenciesMHz: [810, 1395, 1980],
    system,
    network: parseNetworkConfig(w.networkFile, await readFile(w.networkFile, 'utf8')),
    threads: 1,
  });
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sweep gpu on a roofline-enabled trace', () => {
  it('the generated system.json does enable roofline mode (the case this guards)', () => {
    expect(rooflineInTrace).toBe(true);
  });

  it('iteration time falls as the SM clock rises, and the annotated compute energy differs per clock', () => {
    const pts = out.record.points;
    expect(pts.map((p) => p.clockMHz)).toEqual([810, 1395, 1980]);
    for (let i = 1; i < pts.length; i++) expect(pts[i].timeS).toBeLessThan(pts[i - 1].timeS);
    expect(new Set(pts.map((p) => p.energyJ.compute.toFixed(6))).size).toBe(3);
    // Each point's GPU node energy (compute + its DRAM part, memory) is what annotate wrote for that clock.
    for (const [i, o] of out.annotate.outputs.entries())
      expect(pts[i].energyJ.compute + pts[i].energyJ.memory).toBeCloseTo(o.computeEnergyJ, 6);
  });
});

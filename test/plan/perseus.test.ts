/**
 * Against Perseus' own emulation (SOSP'24, A40, 8 stages, 1F1B): intrinsic savings, the frontier at every iteration
 * time of Perseus' frontier files from its fastest on (in real time, and in Perseus' own convention of floored
 * computation times), the lowest-energy end, and EnvPipe's results. 12 micro-batches run from vendored files; 24, 48
 * and 96 from ../shared, or without it from every 50th point of Perseus' frontier (vendored).
 */
import { describe, expect, it } from 'vitest';
import type { PlanRecord } from '../../src/engines/plan/index.js';
import { hasShared } from '../helpers/shared.js';
import {
  againstPerseus,
  expectWithinPerseus,
  envPipeEnergyJ,
  extrinsicAgainstPerseus,
  fastestScheduleS,
  frontierFile,
  MODELS,
  PERSEUS_INTRINSIC,
  planFor,
  planStages,
  readFrontier,
  stageOptions,
  stageProfile,
  type Model,
} from './perseus.js';

/** Perseus' A40 frontier files floor every computation's time to 0.1 ms. */
const A40_QUANTUM_S = 0.0001;

function checkCase(model: Model, index: number, microBatches: number) {
  let r: PlanRecord;
  it('plans', async () => {
    r = await planFor(model, microBatches);
    expect(r.frontier.length).toBeGreaterThan(20);
  });
  it(
    `removes at least Perseus' intrinsic bloat (${PERSEUS_INTRINSIC[model][index]} %) less 0.5 points, with one ` +
      `and with two clocks per computation`,
    () => {
      const target = PERSEUS_INTRINSIC[model][index]!;
      expect(r.intrinsic.savingPct).toBeGreaterThanOrEqual(target - 0.5);
      expect(r.intrinsic.split.savingPct).toBeGreaterThanOrEqual(r.intrinsic.savingPct);
      expect(Math.abs(r.intrinsic.timeChangePct)).toBeLessThan(1e-3);
    },
  );
  it(
    'starts at the fastest schedule the measurements allow, every plan within its deadline and above the ' +
      'two-clock bound',
    async () => {
      const fastestS = fastestScheduleS(await stageOptions(stageProfile(model)), microBatches);
      expect(r.frontier[0]!.timeS / fastestS - 1).toBeCloseTo(0, 9);
      expect(r.fastest.timeS).toBe(r.frontier[0]!.timeS);
      expect(r.fastest.timeS).toBeLessThanOrEqual(r.baseline.timeS);
      for (const p of r.frontier) {
        expect(p.timeS).toBeLessThanOrEqual(p.deadlineS * (1 + 1e-9));
        // The two-clock plan at the deadline is the lower bound of every one-clock plan that meets it.
        expect(p.energyJ).toBeGreaterThanOrEqual(p.splitEnergyJ * (1 - 1e-9));
      }
    },
  );
  it(
    "is within 0.5 % of Perseus' frontier or below at every one of its iteration times from its fastest on, with " +
      'one and with two clocks per computation',
    () => {
      // Perseus' times are floored to 0.1 ms per computation: its fastest is up to 0.05 % shorter than the same plan
      // runs.
      expectWithinPerseus(r, readFrontier(frontierFile(model, microBatches)));
    },
  );
  it(
    "in Perseus' time convention (computation times floored to 0.1 ms) starts at its fastest time to the digit " +
      'and is within 0.5 % of it or below at every point',
    async () => {
      const q = planStages(await stageOptions(stageProfile(model), A40_QUANTUM_S), microBatches);
      const d = againstPerseus(q, readFrontier(frontierFile(model, microBatches)));
      expect(d.fastestRatio - 1).toBeCloseTo(0, 9);
      expect(d.uncovered).toBe(0);
      expect(d.worstGapPct).toBeLessThanOrEqual(0.5);
    },
  );
  it(
    "saves at least what Perseus' frontier saves less 0.5 points when a straggler sets the iteration time " +
      '(Figure 8, slowdowns 1.00–1.50)',
    () => {
      const curve = extrinsicAgainstPerseus(r, readFrontier(frontierFile(model, microBatches)));
      expect(curve).toHaveLength(51);
      for (const c of curve) expect(c.savingPct).toBeGreaterThanOrEqual(c.perseusPct - 0.5);
    },
  );
  it(
    "gives Perseus' published intrinsic figure from its own frontier file with its notebook's formula (baseline " +
      "at the frontier's fastest time)",
    () => {
      // evaluation.ipynb: all-max-clock computation energy plus blocking power for the rest of the frontier's fastest
      // time. For BLOOM that time is 0.7 % shorter than the all-max-clock iteration, so its figure is not a saving at
      // the all-max-clock time; tracewatt's is (docs/plans.md explains the difference).
      const fastest = readFrontier(frontierFile(model, microBatches))[0]!;
      const allMaxAt = (timeS: number) => r.baseline.energyJ + r.lanes * r.blockingPowerW * (timeS - r.baseline.timeS);
      expect(100 * (1 - fastest.energyJ / allMaxAt(fastest.timeS))).toBeCloseTo(PERSEUS_INTRINSIC[model][index]!, 1);
    },
  );
  it("reproduces EnvPipe's result within 0.2 %", () => {
    expect(Math.abs(r.envPipe.energyJ / envPipeEnergyJ(model, microBatches) - 1)).toBeLessThan(0.002);
    expect(Math.abs(r.envPipe.timeChangePct)).toBeLessThan(1e-6);
  });
}

for (const model of MODELS) {
  describe(`${model}, 12 micro-batches (vendored Perseus frontier)`, () => checkCase(model, 0, 12));
  [24, 48, 96].forEach((mb, k) =>
    describe(
      `${model}, ${mb} micro-batches (Perseus frontier in ../shared` +
        `${hasShared ? '' : ': every 50th point, vendored'})`,
      () => checkCase(model, k + 1, mb),
    ),
  );
}

describe('the lowest-energy end (GPT-3, 12 micro-batches)', () => {
  it("saves at least Perseus' 19.4 % less 0.5 points at about Perseus' +9.2 % time", async () => {
    const r = await planFor('gpt3-175b', 12);
    expect(r.minEnergy.savingPct).toBeGreaterThanOrEqual(18.9);
    expect(Math.abs(r.minEnergy.timeChangePct - 9.2)).toBeLessThan(1);
  });
});

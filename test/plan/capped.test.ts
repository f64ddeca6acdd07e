/**
 * Stage measurements on which some stages run faster at clocks below the highest (as on Perseus' A100 profiles):
 * Perseus' A40 profiles with a time rise above a knee clock in 10 (GPT-3) and 8 (BLOOM) stage passes
 * (test/fixtures/perseus/capped, written by scripts/write-capped-stage-profiles.mjs), against the frontiers Perseus'
 * own solver computes for them (its output numbers only; that folder's README says how they were made), at its A40
 * time quantum (0.1 ms) and its A100 one (1 ms), and against its plans evaluated on the measurements.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlanRecord, StageOptions } from '../../src/engines/plan/index.js';
import { repoRoot } from '../helpers/shared.js';
import {
  againstPerseus,
  expectWithinPerseus,
  extrinsicAgainstPerseus,
  fastestScheduleS,
  planStages,
  readFrontier,
  stageOptions,
  type Model,
} from './perseus.js';

const dir = path.join(repoRoot, 'test', 'fixtures', 'perseus', 'capped');
const profile = (model: Model) => path.join(dir, `${model}+a40-capped_bf16.csv`);
const frontier = (model: Model, quantum: '' | '_1ms') =>
  readFrontier(path.join(dir, `${model}-capped_bf16_mb12${quantum}.csv`));

for (const model of ['gpt3-175b', 'bloom'] as const) {
  describe(`${model}, capped stages, 12 micro-batches`, () => {
    let measured: StageOptions[];
    let r: PlanRecord;
    it('plans', async () => {
      measured = await stageOptions(profile(model));
      r = planStages(measured, 12, profile(model));
    });
    it('starts at the fastest schedule the measurements allow, faster than all-max clocks', () => {
      expect(r.frontier[0]!.timeS / fastestScheduleS(measured, 12) - 1).toBeCloseTo(0, 9);
      expect(r.fastest.timeChangePct).toBeLessThan(-0.5);
      expect(Math.abs(r.intrinsic.timeChangePct)).toBeLessThan(1e-3);
    });
    it(
      "is within 0.5 % of Perseus' frontier (0.1 ms quanta) or below at every one of its times from its fastest " +
        'on, with one and with two clocks',
      () => {
        expectWithinPerseus(r, frontier(model, ''));
      },
    );
    it(
      "is within 0.5 % of Perseus' own plans evaluated on the measurements, or below, at the real time of every " +
        'one of them',
      () => {
        // Perseus' frontier energies are its fitted models'; its plans (every 10th, 0.1 ms run) on the measured
        // options.
        const d = againstPerseus(r, readFrontier(path.join(dir, `${model}-capped_bf16_mb12_rescored.csv`)));
        expect(d.uncovered).toBe(0);
        expect(d.worstGapPct).toBeLessThanOrEqual(0.5);
      },
    );
    it(
      "saves at least what Perseus' frontier saves less 0.5 points when a straggler sets the iteration time " +
        '(slowdowns 1.00–1.50)',
      () => {
        for (const c of extrinsicAgainstPerseus(r, frontier(model, '')))
          expect(c.savingPct).toBeGreaterThanOrEqual(c.perseusPct - 0.5);
      },
    );
    for (const [quantum, quantumS] of [
      ['', 0.0001],
      ['_1ms', 0.001],
    ] as const) {
      it(
        `in Perseus' time convention (${quantumS * 1000} ms quanta) starts at its fastest time to the digit and ` +
          `is within 0.5 % of it or below at every point`,
        async () => {
          const d = againstPerseus(
            planStages(await stageOptions(profile(model), quantumS), 12),
            frontier(model, quantum),
          );
          expect(d.fastestRatio - 1).toBeCloseTo(0, 9);
          expect(d.uncovered).toBe(0);
          expect(d.worstGapPct).toBeLessThanOrEqual(0.5);
        },
      );
    }
  });
}

/** The plan as it crosses to worker threads: serialized once into shared memory, deserialized once per plan. */
import path from 'node:path';
import { expect, it } from 'vitest';
import { buildPlan } from '../../src/engines/annotate/index.js';
import { PlanReceiver, sharePlan } from '../../src/engines/annotate/shared-plan.js';
import { loadCalibration } from '../../src/engines/calibrate/index.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';

describeShared('annotate: the plan shared with worker threads', () => {
  it('arrives whole (Maps, encoded attributes, calibration) and is deserialized once per plan', async () => {
    const cal = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    const profile = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'));
    const plan = buildPlan(cal, [profile], { frequenciesMHz: [870, 1410] });
    const s = sharePlan(plan);
    expect(s.id).toBe(plan.id);
    expect(s.bytes).toBeInstanceOf(SharedArrayBuffer);
    const receiver = new PlanReceiver();
    const got = receiver.plan(s);
    expect(got).not.toBe(plan);
    expect(got).toEqual(plan);
    expect(got.keys.exact).toBeInstanceOf(Map);
    expect(got.entries[0].perFreq[0].block).toEqual(plan.entries[0].perFreq[0].block);
    // The same plan again (the next rank): the same object, not a new copy.
    expect(receiver.plan(sharePlan(plan))).toBe(got);
    // Another plan (the next call): a new one.
    const other = buildPlan(cal, [profile], { frequenciesMHz: [1410] });
    const next = receiver.plan(sharePlan(other));
    expect(next.id).toBe(other.id);
    expect(next.frequenciesMHz).toEqual([1410]);
  });
});

/**
 * Every case in astra-sim-reference/skew/cases.json (vendored from ../shared): ranks reach their collectives at
 * different times; every rank's finish and exposed communication, as ASTRA-sim printed them, must be reproduced to
 * the nanosecond.
 */
import { describe, expect, it } from 'vitest';
import { replayFiles, resolvePower, type ReplaySlice } from '../../src/engines/replay/index.js';
import { astraRef, caseFiles, skewCases as cases, type SkewCase } from '../helpers/astra-reference.js';

const files = (c: SkewCase) => caseFiles(astraRef('skew'), c);

describe('ASTRA-sim reference cases with arrival skew (every rank)', () => {
  it('has the 12 cases', () => {
    expect(cases.length).toBe(12);
  });
  for (const c of cases) {
    it(c.name, async () => {
      const res = await replayFiles(files(c));
      const got = Object.fromEntries(
        res.ranks.map((r) => [String(r.rank), { finish_ns: r.finishNs, exposed_comm_ns: r.astraExposedNs }]),
      );
      expect(got).toEqual(c.expected.ranks);
    });
  }
});

describe("the energy split follows each rank's own finish (skew cases)", () => {
  const byName = (n: string) => cases.find((c) => c.name === n)!;
  async function run(c: SkewCase) {
    const slices: ReplaySlice[] = [];
    const res = await replayFiles({ ...files(c), onSlice: (s) => slices.push(s) });
    return { res, slices };
  }

  it(
    'a01: rank 0 communicates from its issue (10 µs) to its own finish (30,533 ns), then waits until the ' + 'makespan',
    async () => {
      const { res, slices } = await run(byName('a01_skew2_ring2_pure'));
      const comm = slices.filter((s) => s.slot === 'comm').map((s) => [s.rank, s.startNs, s.endNs]);
      expect(comm).toEqual([
        [0, 10_000, 30_533],
        [1, 20_000, 40_533],
      ]);
      const [r0, r1] = res.ranks;
      expect(res.makespanNs).toBe(40_533);
      expect([r0.commNs, r0.wallNs, r1.commNs, r1.wallNs]).toEqual([20_533, 30_533, 20_533, 40_533]);
      // The preset's communication power over the 20,533 ns each rank communicates with no compute; its idle power
      // over the rest, such as rank 0's 10,000 ns after its own finish (waiting for the last rank).
      const p = await resolvePower(undefined);
      expect(p.gpu.commPowerW).toBeDefined();
      expect(r0.waitNs).toBe(10_000 + (10_000 - r0.gpuComputeNs));
      for (const r of res.ranks) {
        expect(r.exposedCommNs).toBe(20_533);
        expect(r.waitNs).toBe(40_533 - r.gpuComputeNs - 20_533);
        expect(r.energyJ.communication).toBeCloseTo(p.gpu.commPowerW! * 20_533 * 1e-9, 15);
        expect(r.energyJ.idle).toBeCloseTo(p.gpu.idlePowerW * (40_533 - r.gpuComputeNs - 20_533) * 1e-9, 15);
      }
      expect(r0.energyJ.network).toBe(r1.energyJ.network);
    },
  );

  it("every case: each rank's communication ends by its own finish, and its energies add up", async () => {
    for (const c of cases) {
      const { res, slices } = await run(c);
      for (const r of res.ranks) {
        const own = slices.filter((s) => s.rank === r.rank);
        expect(Math.max(...own.map((s) => s.endNs)), `${c.name} rank ${r.rank}`).toBe(r.finishNs);
        expect(r.commNs, `${c.name} rank ${r.rank}`).toBeLessThanOrEqual(r.finishNs);
        const e = r.energyJ;
        expect(e.compute + e.memory + e.communication + e.network + e.idle + e.host).toBeCloseTo(e.total, 12);
        expect(
          r.gpuComputeNs + r.exposedCommNs + r.hostExposedNs + r.remoteMemExposedNs + r.waitNs,
          `${c.name} rank ${r.rank}`,
        ).toBe(res.makespanNs);
      }
    }
  });
});

/**
 * Every case in ../shared/astra-sim-reference/skew/cases.json: ranks reach their collectives at different times;
 * every rank's finish and exposed communication, as ASTRA-sim printed them, must be reproduced to the nanosecond.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { replayFiles } from '../../src/engines/replay/index.js';
import { describeShared, hasShared, shared } from '../helpers/shared.js';

interface SkewCase {
  name: string;
  workload: string;
  system: string;
  network: string;
  memory?: string;
  expected: { ranks: Record<string, { finish_ns: number; exposed_comm_ns: number }> };
}

const skew = (...p: string[]) => shared('astra-sim-reference', 'skew', ...p);
const cases: SkewCase[] = hasShared ? (JSON.parse(readFileSync(skew('cases.json'), 'utf8')) as { cases: SkewCase[] }).cases : [];

describeShared('ASTRA-sim reference cases with arrival skew (every rank)', () => {
  it('has the 12 cases', () => {
    expect(cases.length).toBe(12);
  });
  for (const c of cases) {
    it(c.name, async () => {
      const res = await replayFiles({
        trace: skew(c.workload), system: skew(c.system), network: skew(c.network), memory: c.memory ? skew(c.memory) : undefined,
      });
      const got = Object.fromEntries(res.ranks.map((r) => [String(r.rank), { finish_ns: r.finishNs, exposed_comm_ns: r.exposedCommNs }]));
      expect(got).toEqual(c.expected.ranks);
    });
  }
});

/**
 * Every case in ../shared/astra-sim-reference/cases.json (finish and exposed communication that
 * ASTRA-sim printed) must be reproduced to the nanosecond.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { replayFiles } from '../../src/engines/replay/index.js';
import { describeShared, hasShared, shared } from '../helpers/shared.js';

interface Case {
  name: string;
  workload: string;
  system: string;
  network: string;
  memory?: string;
  expected: { rank: number; finish_ns: number; exposed_comm_ns: number };
}

const cases: Case[] = hasShared
  ? (JSON.parse(readFileSync(shared('astra-sim-reference', 'cases.json'), 'utf8')) as { cases: Case[] }).cases
  : [];

describeShared('ASTRA-sim reference cases', () => {
  it('has cases to check', () => {
    expect(cases.length).toBeGreaterThan(0);
  });
  for (const c of cases) {
    it(c.name, async () => {
      const ref = (p: string) => shared('astra-sim-reference', p);
      const res = await replayFiles({
        trace: ref(c.workload),
        system: ref(c.system),
        network: ref(c.network),
        memory: c.memory ? ref(c.memory) : undefined,
      });
      const rank = res.ranks[c.expected.rank];
      expect({ finish: rank.finishNs, exposed: rank.astraExposedNs }).toEqual({
        finish: c.expected.finish_ns,
        exposed: c.expected.exposed_comm_ns,
      });
    });
  }
});

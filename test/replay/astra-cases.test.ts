/**
 * Every case in astra-sim-reference/cases.json (vendored from ../shared): the finish and exposed communication
 * that ASTRA-sim printed must be reproduced to the nanosecond.
 */
import { describe, expect, it } from 'vitest';
import { replayFiles } from '../../src/engines/replay/index.js';
import { astraRef, caseFiles, referenceCases as cases } from '../helpers/astra-reference.js';

describe('ASTRA-sim reference cases', () => {
  it('has cases to check', () => {
    expect(cases.length).toBeGreaterThan(0);
  });
  for (const c of cases) {
    it(c.name, async () => {
      const res = await replayFiles(caseFiles(astraRef(), c));
      const rank = res.ranks[c.expected.rank];
      expect({ finish: rank.finishNs, exposed: rank.astraExposedNs }).toEqual({
        finish: c.expected.finish_ns,
        exposed: c.expected.exposed_comm_ns,
      });
    });
  }
});

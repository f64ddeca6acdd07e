/**
 * ASTRA-sim's printed results: the real stdout in astra-sim-reference/skew (vendored from ../shared), and the ways a
 * log goes wrong.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FormatError, InputError } from '../../src/errors.js';
import { parseAstraSimLog, ranksOfLog } from '../../src/formats/astra/index.js';
import { astraRef, skewCases } from '../helpers/astra-reference.js';

describe('ASTRA-sim logs recorded in astra-sim-reference/skew/stdout', () => {
  it('has the 12 skew cases', () => expect(skewCases).toHaveLength(12));
  for (const c of skewCases) {
    it(`${c.name}: every rank's finish and exposed communication as cases.json lists them, with statistics`, () => {
      const file = astraRef('skew', 'stdout', `${c.name}.txt`);
      const log = parseAstraSimLog(file, readFileSync(file, 'utf8'));
      const ranks = ranksOfLog(log, Object.keys(c.expected.ranks).length);
      for (const r of ranks) {
        const want = c.expected.ranks[String(r.rank)];
        expect({ finish: r.finishNs, exposed: r.exposedCommNs }).toEqual({
          finish: want.finish_ns,
          exposed: want.exposed_comm_ns,
        });
        expect(r.stats).toBeDefined();
        expect(r.stats!.wallNs).toBe(r.finishNs);
        expect(r.stats!.gpuNs).toBe(r.finishNs - r.exposedCommNs!);
      }
      expect(log.trouble).toEqual([]);
    });
  }
});

describe('parseAstraSimLog', () => {
  const lines = [
    '$ AstraSim_Analytical_Congestion_Unaware --workload-configuration=x',
    '[2026-11-24 02:58:10.437] [workload] [info] sys[1] finished, 82840 cycles, exposed communication 47840 cycles.',
    '[2026-11-24 02:58:10.437] [statistics] [info] sys[1]. Post statistics processing start.',
    '[2026-11-24 02:58:10.437] [statistics] [info] sys[1], Wall time: 82840',
    '[2026-11-24 02:58:10.437] [statistics] [info] sys[1], GPU time: 35000',
    '[2026-11-24 02:58:10.437] [statistics] [info] sys[1], Comm time: 67840',
    '[2026-11-24 02:58:10.437] [statistics] [info] sys[1], Total compute-communication overlap: 20000',
    'sys[0] finished, 58000 cycles, exposed communication 23000 cycles.',
    'sys[0], Wall time: 58000',
    'sys[0], CPU time: 7',
    'sys[0], Remote mem time: 9',
    'sys[0], Compute bound percentage: 1.747%',
    '[system] [warning] Exiting',
  ];

  it(
    'reads finish, exposed communication and statistics with or without the spdlog prefix, in any order of ' + 'ranks',
    () => {
      const log = parseAstraSimLog('run.log', lines.join('\r\n'));
      const [r0, r1] = ranksOfLog(log, 2);
      expect(r1).toEqual({
        rank: 1,
        finishNs: 82840,
        exposedCommNs: 47840,
        line: 2,
        stats: { wallNs: 82840, gpuNs: 35000, cpuNs: 0, commNs: 67840, remoteMemNs: 0, overlapNs: 20000 },
      });
      expect(r0).toEqual({
        rank: 0,
        finishNs: 58000,
        exposedCommNs: 23000,
        line: 8,
        stats: { wallNs: 58000, gpuNs: 0, cpuNs: 7, commNs: 0, remoteMemNs: 9, overlapNs: 0 },
      });
    },
  );

  it('reads the older "sys[i] finished, T cycles" line without exposed communication or statistics', () => {
    const [r] = ranksOfLog(parseAstraSimLog('old.log', 'sys[0] finished, 43000 cycles\n'), 1);
    expect(r).toEqual({ rank: 0, finishNs: 43000, exposedCommNs: undefined, line: 1 });
  });

  it('refuses a malformed line, naming file and line', () => {
    expect(() => parseAstraSimLog('run.log', 'x\nsys[3] finished, 12')).toThrow(FormatError);
    expect(() => parseAstraSimLog('run.log', 'x\nsys[3] finished, 12')).toThrow(
      /run\.log: line 2: expected "sys\[i\] finished, T cycles, exposed communication E cycles\.", found "sys\[3\] finished, 12"/,
    );
    expect(() => parseAstraSimLog('run.log', 'sys[0], Comm time: lots')).toThrow(
      /run\.log: line 1: expected "sys\[i\], <kind> time: N"/,
    );
    expect(() => parseAstraSimLog('run.log', 'sys[0] finished, 5 cycles, exposed communication 6 cycles.')).toThrow(
      /line 1: exposed communication 6 is more than the finish time 5/,
    );
    expect(() => parseAstraSimLog('run.log', 'sys[0] finished, 99999999999999999999 cycles')).toThrow(
      /line 1: 99999999999999999999 does not fit an exact number of ns/,
    );
  });

  it('refuses a rank that finishes twice (two runs in one log)', () => {
    expect(() => parseAstraSimLog('two.log', 'sys[0] finished, 5 cycles\nsys[0] finished, 6 cycles')).toThrow(
      /two\.log: line 2: sys\[0\] finished a second time \(first on line 1\)/,
    );
  });

  it('names the missing ranks and what ASTRA-sim printed about them', () => {
    const stalled = [
      'sys[0] finished, 5 cycles, exposed communication 0 cycles.',
      '[2026-11-24] [workload] [critical] Attribute comm_size not found in node 55',
      '[2026-11-24] [workload] [warning] Hardware Resource sys.id=1 has unreleased nodes',
    ].join('\n');
    const log = parseAstraSimLog('stall.log', stalled);
    expect(() => ranksOfLog(log, 3)).toThrow(InputError);
    expect(() => ranksOfLog(log, 3)).toThrow(
      'stall.log: no "sys[i] finished" line for rank 1, 2 of the trace\'s 3 (ASTRA-sim did not finish them, or ' +
        'the log is cut short); ' +
        'ASTRA-sim printed: line 2: "[2026-11-24] [workload] [critical] Attribute comm_size not found in node 55"; ' +
        'line 3: "[2026-11-24] [workload] [warning] Hardware Resource sys.id=1 has unreleased nodes"',
    );
    expect(() => ranksOfLog(parseAstraSimLog('big.log', 'sys[4] finished, 5 cycles'), 4)).toThrow(
      /big\.log: line 1: sys\[4\] finished, but the trace has 4 rank\(s\)/,
    );
  });
});

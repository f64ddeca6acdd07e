/**
 * The chunk scheduler's stall: on a 3-D network a localBWAware all-reduce runs the reduce-scatter and the all-gather
 * of the middle dimension in one queue per rank, so ranks that reach it at different times can each hold that queue
 * with a different chunk while their peers wait for the other (ASTRA-sim stalls there too: collective.ts). The
 * scheduler takes each member's finishes in its own order (chunk-scheduler.ts); this checks it still finds the stall
 * and names what each member runs, and that equal arrivals do not stall.
 */
import { describe, expect, it } from 'vitest';
import { parseNetworkConfig, parseSystemConfig } from '../../src/formats/astra/index.js';
import { CollectiveModel } from '../../src/engines/replay/collective.js';
import { makeCluster } from '../../src/engines/replay/network.js';
import { BENCH_SYSTEM } from '../../scripts/replay-traces.mjs';

// The benchmark's system: ASTRA-sim's "example" (4 splits, 1 active chunk, localBWAware), ring on every dimension.
const system = parseSystemConfig('sys.json', JSON.stringify(BENCH_SYSTEM));
const network = parseNetworkConfig(
  'net.yml',
  'topology: [Ring, Ring, Ring]\nnpus_count: [2, 2, 2]\nbandwidth: [50, 50, 50]\nlatency: [500, 500, 500]\n',
);
const members = [0, 1, 2, 3, 4, 5, 6, 7];

function allReduce(issuedNs: number[]) {
  const model = new CollectiveModel(makeCluster(network), system, { equalArrivalShortcut: false });
  const plan = model.plan('ar', () => ({ kind: 'ALL_REDUCE', bytes: 1 << 20, members, commGroup: false }));
  const finishNs = new Float64Array(members.length);
  return { plan, stall: model.finishTimes(plan, issuedNs, finishNs), finishNs };
}

describe('chunk scheduler on a 3-D localBWAware all-reduce', () => {
  it('equal arrivals: every member finishes, all at the same ns', () => {
    const { stall, finishNs } = allReduce([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(stall).toBeNull();
    expect(new Set(finishNs).size).toBe(1);
    expect(finishNs[0]).toBeGreaterThan(0);
  });

  it('ranks 2, 3, 6, 7 100 µs late: each middle-dimension queue holds another chunk than its peer waits for', () => {
    const { plan, stall } = allReduce([0, 0, 100_000, 100_000, 0, 0, 100_000, 100_000]);
    expect(plan.phases.map((ph) => `${ph.kind}@${ph.queue}`)).toEqual([
      'REDUCE_SCATTER@0',
      'REDUCE_SCATTER@1',
      'ALL_REDUCE@2',
      'ALL_GATHER@1',
      'ALL_GATHER@0',
    ]);
    // The early ranks run chunk 1's reduce-scatter on dimension 1, the late ones chunk 0's all-gather there.
    expect(stall?.running).toEqual([
      { member: 0, chunk: 1, phase: 1 },
      { member: 1, chunk: 1, phase: 1 },
      { member: 2, chunk: 0, phase: 3 },
      { member: 3, chunk: 0, phase: 3 },
      { member: 4, chunk: 1, phase: 1 },
      { member: 5, chunk: 1, phase: 1 },
      { member: 6, chunk: 0, phase: 3 },
      { member: 7, chunk: 0, phase: 3 },
    ]);
  });
});

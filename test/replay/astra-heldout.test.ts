/**
 * Held-out agreement with ASTRA-sim when ranks reach collectives at different times: the cases of
 * scripts/skew-cases.mjs (every implementation, topology and collective; 2-D and 3-D plans; involved_dim groups;
 * comm groups; skewed generated LLM iterations), rebuilt here by tracewatt, against the per-rank times a real
 * ASTRA-sim run printed for the same files (test/fixtures/replay/astra-sim-skew-heldout.json; how it was made is in
 * its `produced_by` and test/fixtures/NOTICE.md), and the replay benchmark's 32 × 20,000-node chain with random
 * per-rank compute durations (scripts/replay-traces.mjs, seed 1), and the real 8-rank PyTorch DLRM trace of
 * ../shared (vendored; its ranks' own kernel durations) as ASTRA-sim needs it (scripts/repair-for-astra-sim.mjs).
 * Every rank's finish and exposed communication must be equal; where ASTRA-sim stalls, the replay must stop with the
 * deadlock named.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replay, type RankSource } from '../../src/engines/replay/index.js';
import {
  parseCommGroupConfig,
  parseNetworkConfig,
  parsePowerConfig,
  parseSystemConfig,
} from '../../src/formats/astra/index.js';
import * as chakra from '../../src/formats/chakra/index.js';
import { generateLlmTraces } from '../../src/engines/generate/index.js';
import { skewCases } from '../../scripts/skew-cases.mjs';
import { BENCH_NETWORK_32, BENCH_SYSTEM, chainSources } from '../../scripts/replay-traces.mjs';
import { repairForAstraSim } from '../../scripts/repair-for-astra-sim.mjs';
import { chakraConversion } from '../helpers/shared.js';

interface Recorded {
  cases: Record<string, { ranks?: [number, number][]; stalled?: true }>;
  chain: { ranks: [number, number][] };
  real: { cases: Record<string, { system: object; network: string; ranks: [number, number][] }> };
}
const recorded = JSON.parse(
  readFileSync(new URL('../fixtures/replay/astra-sim-skew-heldout.json', import.meta.url), 'utf8'),
) as Recorded;
const power = parsePowerConfig(
  'p.json',
  JSON.stringify({
    gpu: { activePowerW: 700, idlePowerW: 80 },
    memory: { energyPjPerBit: 5 },
    network: [{ energyPjPerBit: 2 }, { energyPjPerBit: 25 }, { energyPjPerBit: 25 }],
  }),
);

interface SkewCase {
  name: string;
  ranks: number;
  nodesOf(rank: number): chakra.ChakraNode[];
  system: object;
  network: string;
  commGroups?: Record<string, number[]>;
}
const cases = skewCases(chakra, generateLlmTraces) as SkewCase[];

function sources(c: SkewCase): RankSource[] {
  return Array.from({ length: c.ranks }, (_, rank) => {
    let done = false;
    return {
      rank,
      file: `${c.name}.${rank}.et`,
      nextBatch: async () => (done ? null : ((done = true), c.nodesOf(rank))),
    };
  });
}

describe('held-out skew cases against ASTRA-sim (every rank)', () => {
  it('the fixture has every case', () => {
    expect(cases.map((c) => c.name).sort()).toEqual(Object.keys(recorded.cases).sort());
  });
  for (const c of cases) {
    it(c.name, async () => {
      const network = parseNetworkConfig(`${c.name}/network.yml`, c.network);
      const run = replay(sources(c), {
        system: parseSystemConfig(`${c.name}/system.json`, JSON.stringify(c.system)),
        network,
        power,
        commGroups: c.commGroups
          ? parseCommGroupConfig(`${c.name}/groups.json`, JSON.stringify(c.commGroups), c.ranks)
          : undefined,
      });
      const want = recorded.cases[c.name];
      if (want.stalled) {
        await expect(run).rejects.toThrow(/deadlocks: the ranks reach it at different times/);
        return;
      }
      const res = await run;
      expect(res.ranks.map((r) => [r.finishNs, r.astraExposedNs])).toEqual(want.ranks);
    });
  }
});

describe('32 ranks × 20,000 nodes, random per-rank compute durations, against ASTRA-sim (every rank)', () => {
  it('all 10,000 all-reduces, each reached at different times, end on every rank as in ASTRA-sim', async () => {
    const res = await replay(chainSources(chakra, 32, 20000, 1), {
      system: parseSystemConfig('bench-sys.json', JSON.stringify(BENCH_SYSTEM)),
      network: parseNetworkConfig('bench-net.yml', BENCH_NETWORK_32),
      power,
      windowNodes: 4096,
    });
    expect(res.ranks.map((r) => [r.finishNs, r.astraExposedNs])).toEqual(recorded.chain.ranks);
  }, 600_000);
});

describe('the real 8-rank DLRM trace (PyTorch → Chakra, vendored) against ASTRA-sim (every rank)', () => {
  for (const [name, c] of Object.entries(recorded.real.cases)) {
    it(name, async () => {
      const rankSources: RankSource[] = Array.from({ length: 8 }, (_, rank) => {
        let done = false;
        return {
          rank,
          file: `dlrm.${rank}.et`,
          async nextBatch() {
            if (done) return null;
            done = true;
            const { nodes } = await chakra.readTraceFile(chakraConversion(`dlrm.${rank}.et.gz`));
            return repairForAstraSim(chakra, nodes);
          },
        };
      });
      const res = await replay(rankSources, {
        system: parseSystemConfig(`${name}/system.json`, JSON.stringify(c.system)),
        network: parseNetworkConfig(`${name}/network.yml`, c.network),
        power,
      });
      expect(res.ranks.map((r) => [r.finishNs, r.astraExposedNs])).toEqual(c.ranks);
    });
  }
});

/**
 * A study moved from `replay` to ASTRA-sim and back, the way a user does it: a trace tracewatt made (generate llm;
 * import pytorch), `export astra-sim`, ASTRA-sim's congestion-unaware binary on the folder (its stdout recorded in
 * test/fixtures/astra-sim/round-trip; test/fixtures/astra-sim/README.md says how), then `energy --astra-sim-log`:
 * every rank's times and the energy must be `replay`'s (the whole result, where ASTRA-sim printed its statistics).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { energyFromAstraSimLog, exportAstraSim } from '../../src/engines/astra-sim/index.js';
import { importPytorch } from '../../src/engines/import/index.js';
import { replayFiles, type ReplayResult } from '../../src/engines/replay/index.js';
import { cli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'astra-sim', 'round-trip');
/** The result without its label (which names the timing source). */
const unlabelled = (r: ReplayResult) => ({ ...r, label: '' });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-round-trip-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Exports the trace and compares energy from ASTRA-sim's recorded log with replay of the exported folder. */
async function roundTrip(trace: string, log: string, opts: { system?: string; network?: string; power: string }) {
  const r = await exportAstraSim({ trace, out: path.join(dir, path.basename(log, '.txt')), ...opts });
  expect(r.repairs).toEqual([]);
  const input = { trace: r.workload, system: r.files.system, network: r.files.network, memory: r.files.memory, power: r.files.power };
  const fromLog = await energyFromAstraSimLog({ ...input, astraSimLog: path.join(fixtures, log) });
  const replayed = await replayFiles(input);
  return { fromLog, replayed };
}

describe('generate llm → export astra-sim → ASTRA-sim → energy --astra-sim-log', () => {
  // LLaMA-2 7B, tp 2 × pp 2 × dp 2, sequence parallel: reduce-scatter/all-gather on dimension 0, pipeline
  // sends/receives on dimension 2, the data-parallel all-reduce on dimension 1; roofline-enabled system.
  it('LLaMA-2 7B on 8 ranks (3-D network, roofline): equals replay, every rank', async () => {
    const prefix = path.join(dir, 'llama');
    const gen = await cli(['generate', 'llm', '--model', 'llama2-7b', '--tp', '2', '--pp', '2', '--dp', '2', '--global-batch', '4',
      '--seq', '1024', '--sequence-parallel', '--out', prefix]);
    expect(gen.code).toBe(0);
    const { fromLog, replayed } = await roundTrip(prefix, 'llama2-7b_tp2_pp2_dp2_sp.unaware.txt', { power: 'h100-cluster' });
    expect(fromLog.ranks.map((x) => x.finishNs)).toEqual(replayed.ranks.map((x) => x.finishNs));
    expect(unlabelled(fromLog)).toEqual(unlabelled(replayed));
  }, 60_000);
});

describe('import pytorch → export astra-sim → ASTRA-sim → energy --astra-sim-log', () => {
  it('the real DLRM trace (8 ranks, shipped in traces/pytorch-real/dlrm): per-rank times and energy equal replay', async () => {
    // ASTRA-sim's output was recorded on the graph import pytorch wrote before it recorded the measured timeline
    // (issue 25 adds CUDA synchronisation dependencies and a node closing the iteration, which change the modelled
    // times): that graph is imported here. A recording of the default import needs ASTRA-sim run again on it.
    const prefix = path.join(dir, 'dlrm');
    await importPytorch({ dir: path.join(repoRoot, 'traces', 'pytorch-real', 'dlrm'), out: prefix, measured: false });
    const { fromLog, replayed } = await roundTrip(prefix, 'dlrm-imported__sys_ring_example__Ring_8npus.unaware.txt', {
      system: shipped('configs', 'sys_ring_example.json'),
      network: path.join(repoRoot, 'test', 'fixtures', 'astra-sim', 'pytorch-dlrm', 'Ring_8npus.yml'),
      power: 'v100-cluster',
    });
    expect(fromLog.ranks.map((x) => x.finishNs)).toEqual(replayed.ranks.map((x) => x.finishNs));
    expect(fromLog.ranks.map((x) => x.exposedCommNs)).toEqual(replayed.ranks.map((x) => x.exposedCommNs));
    expect(fromLog.energyJ).toEqual(replayed.energyJ);
  }, 60_000);
});

/**
 * A study moved from `replay` to ASTRA-sim and back, the way a user does it: a trace tracewatt made (generate llm;
 * import pytorch), `export astra-sim`, ASTRA-sim's congestion-unaware binary on the folder (its stdout recorded in
 * test/fixtures/astra-sim/round-trip; test/fixtures/astra-sim/README.md says how), then `energy --astra-sim-log`:
 * every rank's times and the energy must be `replay`'s (the whole result, where ASTRA-sim printed its statistics).
 * An annotated trace is exported with roofline-enabled 0, so that ASTRA-sim runs the annotated durations as replay
 * does.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { energyFromAstraSimLog, exportAstraSim } from '../../src/engines/astra-sim/index.js';
import { importPytorch } from '../../src/engines/import/index.js';
import { replayFiles, type ReplayResult } from '../../src/engines/replay/index.js';
import { cli, generateLlama } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'astra-sim', 'round-trip');
/** The result without its label (which names the timing source). */
// byName is the replay's alone: the ASTRA-sim log gives per-rank times, not each node's (issue 28, open).
const unlabelled = (r: ReplayResult) => ({ ...r, label: '', byName: undefined });

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
  const input = {
    trace: r.workload,
    system: r.files.system,
    network: r.files.network,
    memory: r.files.memory,
    power: r.files.power,
  };
  const fromLog = await energyFromAstraSimLog({ ...input, astraSimLog: path.join(fixtures, log) });
  const replayed = await replayFiles(input);
  return { fromLog, replayed };
}

describe('generate llm → export astra-sim → ASTRA-sim → energy --astra-sim-log', () => {
  // LLaMA-2 7B, tp 2 × pp 2 × dp 2, sequence parallel: reduce-scatter/all-gather on dimension 0, pipeline
  // sends/receives on dimension 2, the data-parallel all-reduce on dimension 1; roofline-enabled system.
  it('LLaMA-2 7B on 8 ranks (3-D network, roofline): equals replay, every rank', async () => {
    const prefix = path.join(dir, 'llama');
    const gen = await generateLlama(prefix, '--tp 2 --pp 2 --dp 2 --global-batch 4 --seq 1024 --sequence-parallel');
    expect(gen.code).toBe(0);
    const { fromLog, replayed } = await roundTrip(prefix, 'llama2-7b_tp2_pp2_dp2_sp.unaware.txt', {
      power: 'h100-cluster',
    });
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
    expect(fromLog.ranks.map((x) => x.astraExposedNs)).toEqual(replayed.ranks.map((x) => x.astraExposedNs));
    expect(fromLog.ranks.map((x) => x.exposedCommNs)).toEqual(replayed.ranks.map((x) => x.exposedCommNs));
    expect(fromLog.energyJ).toEqual(replayed.energyJ);
  }, 60_000);
});

describe(
  'generate llm → annotate at 810 MHz → export astra-sim: the system file ASTRA-sim gets runs the annotated ' + 'times',
  () => {
    it('writes roofline-enabled 0 (said in the notes), and the exported folder replays as the annotated trace ' +
      'does', async () => {
      const prefix = path.join(dir, 'l');
      const annotated = path.join(dir, 'l810');
      expect((await generateLlama(prefix, '--tp 2 --pp 2 --global-batch 4 --seq 1024')).code).toBe(0);
      expect(
        (
          await cli([
            'annotate',
            prefix,
            '--calibration',
            path.join(repoRoot, 'calibration', 'h100-datasheet.json'),
            '--frequency',
            '810',
            '--out',
            annotated,
          ])
        ).code,
      ).toBe(0);
      const given = JSON.parse(await readFile(`${prefix}.system.json`, 'utf8')) as Record<string, unknown>;
      expect(given['roofline-enabled']).toBe(1);
      const r = await exportAstraSim({
        trace: annotated,
        out: path.join(dir, 'l810-astra-sim'),
        system: `${prefix}.system.json`,
        network: `${prefix}.network.yml`,
      });
      expect(r.repairs).toEqual([]);
      expect(r.unchangedRanks).toBe(4);
      // The system file: the given one with roofline off and nothing else changed.
      const written = JSON.parse(await readFile(r.files.system, 'utf8')) as Record<string, unknown>;
      expect(written).toEqual({ ...given, 'roofline-enabled': 0 });
      expect(r.notes.join('\n')).toMatch(
        /GPU compute node\(s\) carry annotated durations \(frequency_mhz \/ energy_j\): system\.json is .* with roofline-enabled 0/,
      );
      // With roofline off, ASTRA-sim and replay both take duration_micros (the reference cases' "roofline disabled"
      // case
      // checks replay against ASTRA-sim there): the exported folder replays at the annotated times, as the annotated
      // trace does under the roofline-enabled system file it was generated with.
      const exported = await replayFiles({
        trace: r.workload,
        system: r.files.system,
        network: r.files.network,
        memory: r.files.memory,
        power: `${annotated}.power.json`,
      });
      const direct = await replayFiles({
        trace: annotated,
        system: `${prefix}.system.json`,
        network: `${prefix}.network.yml`,
        power: `${annotated}.power.json`,
      });
      expect(exported.durationSources).toEqual(direct.durationSources);
      expect(exported.durationSources.annotated).toBeGreaterThan(0);
      expect(exported.ranks.map((x) => [x.finishNs, x.gpuComputeNs, x.astraExposedNs])).toEqual(
        direct.ranks.map((x) => [x.finishNs, x.gpuComputeNs, x.astraExposedNs]),
      );
      expect(exported.energyJ).toEqual(direct.energyJ);
    }, 120_000);

    it('an unannotated trace keeps its system file byte for byte', async () => {
      const prefix = path.join(dir, 'plain');
      expect((await generateLlama(prefix, '--tp 2 --pp 2 --global-batch 4 --seq 1024')).code).toBe(0);
      const r = await exportAstraSim({ trace: prefix, out: path.join(dir, 'plain-astra-sim'), power: 'h100-cluster' });
      expect(await readFile(r.files.system, 'utf8')).toBe(await readFile(`${prefix}.system.json`, 'utf8'));
      expect(r.notes.join('\n')).not.toMatch(/roofline-enabled 0/);
    }, 60_000);
  },
);

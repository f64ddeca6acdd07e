/**
 * Energy by name (src/engines/replay/by-name.ts) on real traces: the rows add up to the result's energy, part by
 * part, and their node counts to the trace's nodes; simulating identical ranks once gives the same rows as
 * simulating every rank; the text output's top-10 table closes with a total row equal to the ledger.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Diagnostics } from '../../src/diagnostics.js';
import { llmSources } from '../../src/engines/studies/replay-point.js';
import {
  ByNameLedger,
  loadClusterConfigs,
  presetPath,
  rankSourcesFromFiles,
  replay,
  replayFiles,
  sumRows,
  topByName,
  ENERGY_PARTS,
  type ReplayResult,
} from '../../src/engines/replay/index.js';
import { cli } from '../helpers/cli.js';
import { allCases, astraRef, mlpModelParallel } from '../helpers/astra-reference.js';
import { hasShared } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-byname-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The rows add up to energyJ part by part and to the trace's nodes (metadata nodes aside). */
function checkRows(res: ReplayResult, what: string): void {
  const rows = res.byName!;
  expect(rows.length, what).toBeGreaterThan(0);
  const sum = sumRows(rows);
  for (const k of [...ENERGY_PARTS, 'total'] as const) {
    expect(
      Math.abs(sum[k] - res.energyJ[k]),
      `${what}: ${k}: rows ${sum[k]} J vs ledger ${res.energyJ[k]} J`,
    ).toBeLessThanOrEqual(1e-9 * Math.max(1e-9, res.energyJ.total));
  }
  for (let i = 1; i < rows.length; i++)
    expect(rows[i - 1]!.energyJ.total, what).toBeGreaterThanOrEqual(rows[i]!.energyJ.total);
  const nodeRows = rows.filter((r) => r.kind !== 'idle' && r.kind !== 'network-static');
  expect(
    nodeRows.reduce((a, r) => a + r.count, 0),
    `${what}: nodes`,
  ).toBeLessThanOrEqual(res.nodes);
  const kernelNs = rows.filter((r) => r.kind === 'kernel').reduce((a, r) => a + r.timeNs, 0);
  expect(kernelNs, `${what}: kernel time = GPU compute time`).toBeCloseTo(res.timeS.compute * 1e9, -1);
}

describe('energy by name adds up to the ledger on real traces', () => {
  it('shipped: all-reduce on Switch(8): one collective row, idle and network static', async () => {
    const res = await replayFiles({
      trace: shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce'),
      system: shipped('configs', 'sys_ring_example.json'),
      network: shipped('configs', 'Switch_8npus.yml'),
      power: 'h100-cluster',
    });
    checkRows(res, 'all_reduce 8npus');
    const coll = res.byName!.filter((r) => r.kind === 'collective');
    expect(coll).toHaveLength(1);
    expect(coll[0]!.name).toBe('ALL_REDUCE 1 MiB');
    expect(coll[0]!.count).toBe(8);
    expect(coll[0]!.energyJ.communication).toBeCloseTo(res.energyJ.communication, 12);
  });

  it('every reference and skew case of astra-sim-reference (vendored; remote memory included)', async () => {
    for (const { c, files } of allCases()) checkRows(await replayFiles(files), c.name);
  }, 120_000);

  it.runIf(hasShared)(
    '../shared: MLP model-parallel, 32 ranks: identical ranks simulated once give the same rows',
    async () => {
      const input = {
        trace: mlpModelParallel(),
        system: astraRef('configs', 'sys2d_ring_pure.json'),
        network: astraRef('configs', 'Switch8_Ring4.yml'),
      };
      const once = await replayFiles(input);
      checkRows(once, 'MLP_ModelParallel');
      const all = await replayFiles({ ...input, identicalRanksOnce: false });
      checkRows(all, 'MLP_ModelParallel, every rank');
      expect(once.byName!.map((r) => [r.name, r.count])).toEqual(all.byName!.map((r) => [r.name, r.count]));
      for (const [i, r] of once.byName!.entries())
        expect(r.energyJ.total).toBeCloseTo(all.byName![i]!.energyJ.total, 9);
    },
    60_000,
  );

  it('a real PyTorch run with a host power: CPU ops carry the host part', async () => {
    const prefix = path.join(dir, 'h200');
    expect(
      (await cli(['import', 'pytorch', '--dir', shipped('pytorch-real', 'h200-gpt-nostep'), '--out', prefix])).code,
    ).toBe(0);
    const net1 = path.join(dir, 'net1.yml');
    await writeFile(net1, 'topology: [Ring]\nnpus_count: [1]\nbandwidth: [50]\nlatency: [500]\n');
    const preset = JSON.parse(await readFile(presetPath('h100-cluster'), 'utf8')) as Record<string, unknown>;
    const power = path.join(dir, 'host.power.json');
    await writeFile(power, JSON.stringify({ ...preset, hostPowerWPerRank: 150 }));
    const res = await replayFiles({
      trace: prefix,
      system: shipped('configs', 'sys_ring_example.json'),
      network: net1,
      power,
    });
    checkRows(res, 'h200-gpt-nostep');
    expect(res.energyJ.host).toBeGreaterThan(0);
    expect(res.byName!.filter((r) => r.kind === 'kernel').length).toBeGreaterThan(10);
  }, 60_000);
});

/** A result without its rows by name, diagnostics aside (their order may follow the names met). */
function withoutRows(res: ReplayResult): object {
  const { byName: _rows, diagnostics: _diagnostics, ...rest } = res;
  return rest;
}

describe('byName: false (sweep and study points read totals only)', () => {
  it('every reference case, and a generated LLaMA-2-70B (TP 8 × PP 4): the same result, no rows', async () => {
    const cases = allCases().slice(0, 6);
    expect(cases.length).toBeGreaterThan(0);
    for (const { c, files } of cases) {
      const run = async (byName: boolean) => {
        const diagnostics = new Diagnostics();
        const sources = await rankSourcesFromFiles(files.trace, diagnostics);
        return replay(sources, { ...(await loadClusterConfigs(files, diagnostics)), diagnostics, byName });
      };
      const [kept, left] = [await run(true), await run(false)];
      expect(kept.byName!.length, c.name).toBeGreaterThan(0);
      expect(left.byName, c.name).toBeUndefined();
      expect(withoutRows(left), c.name).toEqual(withoutRows(kept));
    }
    const configs = await loadClusterConfigs({
      system: shipped('configs', 'sys2d_ring_pure.json'),
      network: shipped('configs', 'Switch8_Ring4.yml'),
      power: 'h100-cluster',
    });
    const llm = { model: 'llama2-70b', tp: 8, pp: 4, dp: 1, microBatch: 1, globalBatch: 4, seqLen: 1024 };
    const [kept, left] = [
      await replay(llmSources(llm), { ...configs, byName: true }),
      await replay(llmSources(llm), { ...configs, byName: false }),
    ];
    expect(kept.byName!.length).toBeGreaterThan(1000);
    expect(left.byName).toBeUndefined();
    expect(withoutRows(left)).toEqual(withoutRows(kept));
  }, 120_000);
});

describe('topByName', () => {
  it('keeps the first n rows and sums the others into one rest row', () => {
    const l = new ByNameLedger();
    for (let i = 1; i <= 5; i++) l.add('kernel', `k${i}`, i * 10, { compute: i, memory: 0.5 });
    l.add('kernel', 'k1', 10, { compute: 1 });
    const rows = l.rows({ energyJ: 3, timeNs: 7 }, 100, 2, 0.01);
    expect(rows.map((r) => r.name)).toEqual(['k5', 'k4', 'k3', '(idle)', 'k1', 'k2', '(network static)']);
    expect(rows.find((r) => r.name === 'k1')).toMatchObject({ count: 2, timeNs: 20 });
    const { top, rest } = topByName(rows, 3);
    expect(top).toHaveLength(3);
    expect(rest!.name).toBe('rest (4 names)');
    expect(sumRows([...top, rest!]).total).toBeCloseTo(sumRows(rows).total, 12);
    expect(sumRows(rows).total).toBeCloseTo(15 + 1 + 2.5 + 3 + 0.01 * 200 * 1e-9, 12);
  });
});

describe('ByNameLedger.rows order', () => {
  it('largest energy first; equal energies by name (many ties, in the order rows were made)', () => {
    const ledger = new ByNameLedger();
    const names = Array.from({ length: 400 }, (_, i) => `k${(i * 7919) % 400}`);
    names.forEach((name, i) => {
      ledger.add('kernel', name, 10, { compute: [1, 2, 2.5, 0][i % 4], memory: i % 3 === 0 ? 0.5 : 0 });
    });
    const rows = ledger.rows({ energyJ: 2.5, timeNs: 1 }, 100, 2, 0);
    expect(rows).toHaveLength(401);
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1], rows[i]];
      expect(
        a.energyJ.total > b.energyJ.total || (a.energyJ.total === b.energyJ.total && a.name.localeCompare(b.name) < 0),
      ).toBe(true);
    }
    expect(rows.map((r) => r.name)).toContain('(idle)');
  });
});

/**
 * `export astra-sim` carries the trace's power config to the energy breakdown: the <prefix>.power.json annotate
 * writes beside the trace (or --power) is copied into the folder and named in the energy command, so following the
 * printed commands gives the annotated GPU's idle and network energy, not the default preset's. Without one, the
 * output says which preset the energy command will use.
 */
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { energyFromAstraSimLog, exportAstraSim } from '../../src/engines/astra-sim/index.js';
import { presetPath } from '../../src/engines/replay/index.js';
import { cli } from '../helpers/cli.js';
import { recordedLog } from '../helpers/astra-reference.js';
import { shipped } from '../helpers/traces.js';

const system = shipped('configs', 'sys_ring_example.json');
const network = shipped('configs', 'Switch_8npus.yml');
const log = recordedLog('all_reduce_8npus_1MB__sys_ring_example__Switch_8npus.txt');
let dir: string;
let trace: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-export-power-'));
  // The shipped all_reduce example with a power.json beside it, as annotate leaves one (here the V100 preset's).
  trace = path.join(dir, 'ar');
  for (let r = 0; r < 8; r++)
    await copyFile(`${shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce')}.${r}.et`, `${trace}.${r}.et`);
  await copyFile(presetPath('v100-cluster'), `${trace}.power.json`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('export astra-sim: the power config', () => {
  it('copies <prefix>.power.json into the folder and names it in the energy command', async () => {
    const r = await exportAstraSim({ trace, out: path.join(dir, 'beside'), system, network });
    expect(r.files.power).toBe(path.join(dir, 'beside', 'power.json'));
    expect(await readFile(r.files.power!, 'utf8')).toBe(await readFile(`${trace}.power.json`, 'utf8'));
    expect(r.commands.energy).toContain(`--power ${r.files.power}`);
    expect(r.notes).toEqual([]);
    expect(await readFile(r.files.runScript, 'utf8')).toContain('--memory memory.json --power power.json');
    // What the printed command computes: the V100 preset's energies, not the default (H100) preset's.
    const exported = await energyFromAstraSimLog({
      astraSimLog: log,
      trace: r.workload,
      system: r.files.system,
      network: r.files.network,
      memory: r.files.memory,
      power: r.files.power,
    });
    const v100 = await energyFromAstraSimLog({ astraSimLog: log, trace, system, network, power: 'v100-cluster' });
    const h100 = await energyFromAstraSimLog({ astraSimLog: log, trace, system, network });
    expect(exported.energyJ).toEqual(v100.energyJ);
    expect(exported.energyJ.total).not.toBe(h100.energyJ.total);
  });

  it('--power (a preset) wins over the file beside the trace', async () => {
    const r = await exportAstraSim({ trace, out: path.join(dir, 'given'), system, network, power: 'a100-cluster' });
    expect(await readFile(r.files.power!, 'utf8')).toBe(await readFile(presetPath('a100-cluster'), 'utf8'));
  });

  it('without one, the CLI says which preset the energy command will use', async () => {
    const res = await cli([
      'export',
      'astra-sim',
      shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce'),
      '--system',
      system,
      '--network',
      network,
      '--out',
      path.join(dir, 'none'),
    ]);
    expect(res.code).toBe(0);
    expect(res.out).toMatch(
      /note: no power config given and none beside the trace \(.*all_reduce\.power\.json\): the energy command uses the h100-cluster preset/,
    );
    expect(res.out).not.toMatch(/tracewatt energy [^\n]*--power/);
  });
});

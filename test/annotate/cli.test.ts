import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { cliArgs as cli } from '../helpers/cli.js';
import { parsePowerConfig } from '../../src/formats/astra/index.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';

const cal = path.join(repoRoot, 'calibration', 'rtx8000.json');

describeShared('tracewatt annotate', () => {
  const profile = shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv');
  const trace = shared('astra-sim-reference', 'traces', 'comp_roof4', 'c');

  it('--json reports per-rank counts and energies, and one output set per clock', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-cli-'));
    const r = await cli(
      'annotate',
      trace,
      '--calibration',
      cal,
      '--profile',
      profile,
      '--frequencies',
      '705,1410',
      '--out',
      path.join(dir, 'c'),
      '--memory-pj-per-bit',
      '7',
      '--network-pj-per-bit',
      '3,30',
      '--idle-power',
      '55',
      '--json',
    );
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.ranks).toHaveLength(4);
    expect(j.outputs.map((o: { frequencyMHz: number }) => o.frequencyMHz)).toEqual([705, 1410]);
    for (const o of j.outputs) {
      const p = parsePowerConfig(o.powerFile, readFileSync(o.powerFile, 'utf8'));
      expect(p.memory.energyPjPerBit).toBe(7);
      expect(p.network.map((d) => d.energyPjPerBit)).toEqual([3, 30]);
      expect(p.gpu.idlePowerW).toBe(55);
      expect(o.computeEnergyJ).toBeGreaterThan(0);
    }
    // Lower clock, longer roofline time: the annotated durations sum grows.
    const ns = (i: number) =>
      j.ranks.reduce(
        (s: number, x: { perFrequency: { annotatedDurationNs: number }[] }) =>
          s + x.perFrequency[i].annotatedDurationNs,
        0,
      );
    expect(ns(0)).toBeGreaterThan(ns(1));
  });

  it('prints a summary table with the match rate and the files written', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-cli-'));
    const r = await cli(
      'annotate',
      trace,
      '--calibration',
      cal,
      '--profile',
      profile,
      '--frequency',
      '1110',
      '--out',
      path.join(dir, 'c'),
    );
    expect(r.code).toBe(0);
    // The default table fits 100 columns, so its headers wrap ("match" over "rate (%)"); --wide keeps them on one line.
    expect(r.out).toMatch(/match[\s\S]*rate/);
    expect(r.out).toContain(`${path.join(dir, 'c')}.power.json`);
    const wide = await cli(
      'annotate',
      trace,
      '--calibration',
      cal,
      '--profile',
      profile,
      '--frequency',
      '1110',
      '--out',
      path.join(dir, 'c'),
      '--wide',
    );
    expect(wide.out).toMatch(/match rate \(%\)/);
  });

  it(
    'annotates at the reference clock when no target is given (and says so); refuses a doubled or bad one, exit ' +
      'code 2',
    async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-cli-'));
      const base = ['annotate', trace, '--calibration', cal, '--profile', profile, '--out', path.join(dir, 'c')];
      const none = await cli(...base);
      expect(none.code).toBe(0);
      expect(none.err).toMatch(/note: target SM clock \d+ MHz: the reference clock \(no --frequency given\)/);
      expect((await cli(...base, '--frequency', '1410', '--frequencies', '705,1410')).code).toBe(2);
      expect((await cli(...base, '--frequency', 'fast')).code).toBe(2);
    },
  );

  it('an --out under a regular file, or under a folder of one: one line naming the path and the reason, exit 2', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-cli-'));
    const file = path.join(dir, 'a-file');
    await writeFile(file, 'not a folder');
    for (const out of [path.join(file, 'y'), path.join(file, 'sub', 'y')]) {
      const r = await cli(
        'annotate',
        trace,
        '--calibration',
        cal,
        '--profile',
        profile,
        '--frequency',
        '1410',
        '--out',
        out,
      );
      expect(r.code, out).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toContain(file);
      expect(r.err).toMatch(/: cannot (write|create its folder) \(ENOTDIR\)\n$/);
    }
  });
});

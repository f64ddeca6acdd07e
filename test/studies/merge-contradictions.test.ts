/**
 * Sweeps and accuracy never print null where a number belongs, and merge refuses what contradicts itself (issue 26),
 * each reproduced first: merge took a partial whose point's scale did not match its index, a negative energy, or the
 * wrong number of per-dimension entries (a merged record, exit 0); a partial claiming totalPoints 1e9 made V8 abort
 * (exit 133, 2.2 GB); `sweep gpu` on a trace with no nodes and `accuracy` on a profile whose every power reading was
 * ignored printed null figures with exit 0; accuracy's "no kernel … measured at the fit clocks" named no file.
 * Partials are real: two shards of `sweep network` on the shipped 8-NPU all-reduce.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyNode, NodeType, readTraceFile, writeTraceFile } from '../../src/formats/chakra/index.js';
import { cli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

let dir: string;
let parts: string[];
let whole: string;
const sweep = [
  'sweep',
  'network',
  shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce'),
  '--system',
  shipped('configs', 'sys_ring_example.json'),
  '--network',
  shipped('configs', 'Switch_8npus.yml'),
  '--power-config',
  'h100-cluster',
  '--dimension',
  '0',
  '--scale',
  '0.5:1.0:0.1',
];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-merge-contradictions-'));
  parts = [];
  for (const i of [1, 2]) {
    const file = path.join(dir, `part-${i}.json`);
    expect((await cli([...sweep, '--shard', `${i}/2`, '--out', file])).code).toBe(0);
    parts.push(file);
  }
  whole = (await cli([...sweep, '--json'])).out;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Partial 1 with `change` applied to its parsed JSON, as a file. */
async function changed(name: string, change: (p: Record<string, any>) => void): Promise<string> {
  const p = JSON.parse(await readFile(parts[0], 'utf8')) as Record<string, any>;
  change(p);
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(p));
  return file;
}

async function mergeError(file: string): Promise<string> {
  const r = await cli(['merge', file, parts[1]]);
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  expect(r.err.split('\n')).toHaveLength(2);
  return r.err.trimEnd().replace(file, '<partial>');
}

describe('merge refuses a partial that contradicts itself', () => {
  it('the unchanged partials merge into the unsharded record', async () => {
    expect((await cli(['merge', ...parts, '--json'])).out).toBe(whole);
  });

  it.each([
    [
      'a point whose scale is not the one its index stands for',
      (p: any) => (p.points[1].point.scale = 0.9),
      'tracewatt: error: <partial>: points[1].point.scale: is 0.9, but point 2 of the sweep is at 0.7 ' +
        '(identity.options)',
    ],
    [
      'a negative energy',
      (p: any) => (p.points[0].point.energyJ.idle = -1),
      'tracewatt: error: <partial>: points[0].point.energyJ.idle: must be ≥ 0 J, found -1',
    ],
    [
      'parts that do not add up to the total',
      (p: any) => (p.points[0].point.energyJ.total *= 2),
      /^tracewatt: error: <partial>: points\[0\]\.point\.energyJ: its parts add up to [\d.e-]+ J, not its total [\d.e-]+ J$/,
    ],
    [
      'per-dimension entries of different lengths',
      (p: any) => p.points[1].point.networkByDimensionJ.push(0),
      'tracewatt: error: <partial>: points[1].point.networkByDimensionJ: has 2 entries, points[0] has 1: one ' +
        'per network dimension in every point',
    ],
    [
      'no entry for the swept dimension',
      (p: any) => {
        p.identity.options.dimension = 1;
        for (const x of p.points) x.point.networkByDimensionJ = [x.point.networkByDimensionJ[0]];
      },
      'tracewatt: error: <partial>: points[0].point.networkByDimensionJ: has 1 entries, but the swept ' +
        'dimension is 1 (identity.options)',
    ],
    [
      'per-dimension energies above the network energy',
      (p: any) => (p.points[0].point.networkByDimensionJ = [1]),
      /^tracewatt: error: <partial>: points\[0\]\.point\.networkByDimensionJ: adds up to 1 J, more than the point's network energy [\d.e-]+ J$/,
    ],
    [
      'a bandwidth that is not the nominal one × its scale',
      (p: any) => (p.points[1].point.bandwidthGBps = 1e-7),
      /^tracewatt: error: <partial>: points\[1\]\.point\.bandwidthGBps: is 1e-7 GB\/s at scale 0\.7, but point 0's gives a nominal 50 GB\/s \(bandwidth = nominal × scale\)$/,
    ],
    [
      'a voltage ratio the default V–f curve does not give',
      (p: any) => (p.points[0].point.voltageRatio = 1e300),
      /^tracewatt: error: <partial>: points\[0\]\.point\.voltageRatio: is 1e\+300, but the default V–f curve gives 0\.\d+ at scale 0\.5$/,
    ],
    [
      'an energy per bit that is not the nominal one × the voltage ratio²',
      (p: any) => (p.points[2].point.energyPerBitPJ = 2),
      /^tracewatt: error: <partial>: points\[2\]\.point\.energyPerBitPJ: is 2 pJ\/bit at voltage ratio 0\.96/,
    ],
    [
      'a makespan that is not a whole number of ns',
      (p: any) => (p.points[0].point.makespanNs = 1e-300),
      'tracewatt: error: <partial>: points[0].point.makespanNs: expected an integer, found 1e-300',
    ],
    [
      'a bandwidth of 0',
      (p: any) => (p.points[0].point.bandwidthGBps = 0),
      'tracewatt: error: <partial>: points[0].point.bandwidthGBps: must be > 0 GB/s, found 0',
    ],
    [
      'a null energy',
      (p: any) => (p.points[0].point.energyJ.total = null),
      /^tracewatt: error: <partial>: points\[0\]\.point\.energyJ\.total: expected a number, found null$/,
    ],
    [
      'scales of another length than totalPoints',
      (p: any) => p.identity.options.scales.push(2),
      'tracewatt: error: <partial>: identity.options.scales: lists 7 points, but totalPoints is 6',
    ],
    [
      'totalPoints 1e9 (V8 aborted, exit 133)',
      (p: any) => (p.totalPoints = 1e9),
      'tracewatt: error: <partial>: totalPoints: must be ≥ 1 points and ≤ 1e4 points, found 1e9',
    ],
    [
      'a shard count of 1e9',
      (p: any) => (p.shard.count = 1e9),
      'tracewatt: error: <partial>: shard: expected {index, count} with 1 ≤ index ≤ count ≤ 10000, found ' +
        '{"index":1,"count":1000000000}',
    ],
  ])('%s', async (_label, change, message) => {
    const line = await mergeError(await changed(_label.replace(/\W+/g, '-'), change));
    if (typeof message === 'string') expect(line).toBe(message);
    else expect(line).toMatch(message);
  });

  it('thousands of point indices in one error are cut to a few, with the count', async () => {
    const line = await mergeError(
      await changed('many', (p) => {
        p.totalPoints = 10_000;
        delete p.identity.options.scales;
      }),
    );
    expect(line).toBe(
      'tracewatt: error: <partial>: points: shard 1/2 of 10000 points should hold points [0, 2, 4, 6, 8, 10, ' +
        '12, 14, … (5000 in all)], holds [0, 2, 4]',
    );
  });
});

describe('sweeps and accuracy: a clear error, never null figures', () => {
  it('sweep gpu on a trace with no nodes', async () => {
    const prefix = path.join(dir, 'empty', 't');
    const t = await readTraceFile(`${shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce')}.0.et`);
    for (let r = 0; r < 4; r++) await writeTraceFile(`${prefix}.${r}.et`, t.metadata, []);
    const r = await cli([
      'sweep',
      'gpu',
      prefix,
      '--calibration',
      path.join(repoRoot, 'calibration', 'h100-datasheet.json'),
      '--frequencies',
      '1110,1980',
      '--system',
      shipped('configs', 'sys_ring_pure.json'),
      '--network',
      shipped('configs', 'Ring_4npus.yml'),
      '--json',
      '--threads',
      '1',
    ]);
    expect(r.out).toBe('');
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `tracewatt: error: sweep gpu: ${prefix} has no nodes (4 rank file(s), all empty): there is nothing whose ` +
        `time or energy a clock changes\n`,
    );
  });

  it('accuracy on a profile whose every power reading is ignored (0 J)', async () => {
    const real = path.join(repoRoot, 'calibration', 'profiles', 'perseus-sosp24', 'bloom+a40_bf16.csv');
    const rows = (await readFile(real, 'utf8')).trimEnd().split('\n');
    const zero = path.join(dir, 'zero-energy.csv');
    await writeFile(zero, `${[rows[0], ...rows.slice(1).map((l) => l.replace(/,[^,]*$/, ',0'))].join('\n')}\n`);
    for (const mode of [
      ['--reference-frequency', '1740'],
      ['--fit-frequencies', '1200,1500,1740'],
    ]) {
      const r = await cli([
        'accuracy',
        '--calibration',
        path.join(repoRoot, 'calibration', 'a40.json'),
        '--profile',
        zero,
        ...mode,
        '--json',
      ]);
      expect(r.out).toBe('');
      expect(r.code).toBe(2);
      expect(r.err.trimEnd().split('\n').at(-1)).toBe(
        `tracewatt: error: ${zero}: no usable power reading in ${rows.length - 1} sample(s) (every power or ` +
          `energy is missing, 0 or negative): nothing to compare the modelled power and energy with`,
      );
    }
  });

  it('accuracy\'s "no kernel measured at the fit clocks" names the profile', async () => {
    const profile = path.join(repoRoot, 'calibration', 'profiles', 'perseus-sosp24', 'bloom+a40_bf16.csv');
    const r = await cli([
      'accuracy',
      '--calibration',
      path.join(repoRoot, 'calibration', 'a40.json'),
      '--profile',
      profile,
      '--fit-frequencies',
      '100,200,300',
    ]);
    expect(r.code).toBe(2);
    expect(r.err.trimEnd().split('\n').at(-1)).toBe(
      `tracewatt: error: ${profile}: no kernel in the profile was measured at the fit clocks 100, 200, 300 MHz`,
    );
  });

  it('a node type that takes no time keeps a sweep finite: nothing null but the definitions that are null', async () => {
    // An all-reduce trace with an extra INVALID_NODE: every figure finite, only marginal fields of the last point null.
    const prefix = path.join(dir, 'inv', 'ar');
    for (let r = 0; r < 8; r++) {
      const t = await readTraceFile(`${shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce')}.${r}.et`);
      await writeTraceFile(`${prefix}.${r}.et`, t.metadata, [...t.nodes, emptyNode(99n, 'x', NodeType.INVALID_NODE)]);
    }
    const r = await cli([...sweep.slice(0, 2), prefix, ...sweep.slice(3), '--json']);
    expect(r.code).toBe(0);
    const nulls = [...r.out.matchAll(/"(\w+)": null/g)].map((m) => m[1]);
    expect(new Set(nulls)).toEqual(new Set(['marginal']));
  });
});

/**
 * Sharded sweeps: `sweep … --shard i/N` on every shard, then `merge`, prints byte for byte the JSON of the unsharded
 * sweep (network sweep on a shipped trace; GPU clock sweep on a generated trace with the H100 datasheet calibration),
 * and merge refuses partials that are not all the shards of one sweep.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLlmTraces } from '../../src/engines/generate/index.js';
import { parseShard, shardIndices } from '../../src/engines/studies/index.js';
import { cli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-shard-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ok = async (argv: string[]) => {
  const r = await cli(argv);
  expect(r.err.replace(/^warning:.*\n/gm, '')).toBe('');
  expect(r.code).toBe(0);
  return r.out;
};

/** Runs every shard into <dir>/<name>-<i>.json; returns the files. */
async function shards(argv: string[], n: number, name: string): Promise<string[]> {
  const files: string[] = [];
  for (let i = 1; i <= n; i++) {
    const file = path.join(dir, `${name}-${i}.json`);
    expect(await ok([...argv, '--shard', `${i}/${n}`, '--out', file])).toMatch(
      new RegExp(`^wrote .*${name}-${i}\\.json: shard ${i}/${n}, \\d+ of \\d+ points\\n$`),
    );
    files.push(file);
  }
  return files;
}

describe('shards', () => {
  it('shard i of N takes every N-th point from point i', () => {
    expect(shardIndices(7, parseShard('1/3'))).toEqual([0, 3, 6]);
    expect(shardIndices(7, parseShard(' 3 / 3 '))).toEqual([2, 5]);
    expect(shardIndices(2, parseShard('3/4'))).toEqual([]);
    for (const bad of ['0/3', '4/3', '1/0', '1', 'a/b', '-1/2', '1.5/2'])
      expect(() => parseShard(bad)).toThrow(/--shard: expected i\/N with 1 ≤ i ≤ N/);
  });
});

describe('sweep network --shard, merge', () => {
  const trace = shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce');
  const argv = () => [
    'sweep',
    'network',
    trace,
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
    '--threads',
    '1',
  ];

  it(
    "merging 3 shards (given in any order) prints the unsharded sweep's JSON byte for byte, and --out writes the " +
      'same',
    async () => {
      const whole = await ok([...argv(), '--json', '--out', path.join(dir, 'net-whole.json')]);
      const parts = await shards(argv(), 3, 'net');
      const merged = await ok([
        'merge',
        parts[2],
        parts[0],
        parts[1],
        '--json',
        '--out',
        path.join(dir, 'net-merged.json'),
      ]);
      expect(merged).toBe(whole);
      expect(await readFile(path.join(dir, 'net-merged.json'), 'utf8')).toBe(
        await readFile(path.join(dir, 'net-whole.json'), 'utf8'),
      );
      expect(await ok(['merge', ...parts])).toBe(await ok(argv()));
    },
  );

  it('more shards than points: the empty shards still count', async () => {
    const parts = await shards([...argv(), '--scale', '0.5,1'], 3, 'net-small');
    expect(JSON.parse(await readFile(parts[2], 'utf8')).points).toEqual([]);
    expect(await ok(['merge', ...parts, '--json'])).toBe(await ok([...argv(), '--scale', '0.5,1', '--json']));
  });

  it('refuses missing and repeated shards, and shards of different sweeps, naming what differs', async () => {
    const parts = await shards(argv(), 3, 'net-err');
    const fail = async (files: string[]) => {
      const r = await cli(['merge', ...files]);
      expect(r.code).toBe(2);
      return r.err;
    };
    expect(await fail([parts[0], parts[2]])).toBe('tracewatt: error: merge: shard 2/3 missing (have 1/3, 3/3)\n');
    expect(await fail([parts[0], parts[1], parts[1], parts[2]])).toMatch(
      /merge: shard 2\/3 is given twice \(.*net-err-2\.json and .*net-err-2\.json\)/,
    );
    const otherScales = await shards([...argv(), '--scale', '0.5:1.0:0.25'], 3, 'net-other');
    expect(await fail([parts[0], parts[1], otherScales[2]])).toMatch(
      /shards of different sweeps \(option scales differ\)/,
    );
    // Same command line, different trace contents (a rank file changed).
    const copy = path.join(dir, 'copy');
    await cp(path.dirname(trace), copy, { recursive: true });
    await writeFile(path.join(copy, 'all_reduce.3.et'), await readFile(path.join(copy, 'all_reduce.4.et')));
    const edited = await shards(
      ['sweep', 'network', path.join(copy, 'all_reduce'), ...argv().slice(3)],
      3,
      'net-edited',
    );
    expect(await fail([parts[0], parts[1], edited[2]])).toMatch(/\(input trace, option label differ\)/);
    const tampered = JSON.parse(await readFile(parts[1], 'utf8'));
    tampered.points[0].index = 0;
    await writeFile(path.join(dir, 'tampered.json'), JSON.stringify(tampered));
    expect(await fail([parts[0], path.join(dir, 'tampered.json'), parts[2]])).toMatch(
      /tampered\.json: points: shard 2\/3 of 6 points should hold points \[1, 4\], holds \[0, 4\]/,
    );
    expect(await fail([path.join(dir, 'net-whole.json')])).toMatch(
      /net-whole\.json: kind: expected sweep-partial \(a partial sweep result/,
    );
    // A point without the figures merge reads is a FormatError naming the key, not an internal error.
    const cut = JSON.parse(await readFile(parts[1], 'utf8'));
    delete cut.points[1].point.energyJ;
    await writeFile(path.join(dir, 'cut.json'), JSON.stringify(cut));
    expect(await fail([parts[0], path.join(dir, 'cut.json'), parts[2]])).toMatch(
      /cut\.json: points\[1\]\.point\.energyJ: expected an object \{compute, memory, network, idle, total\} in J, found nothing/,
    );
    cut.points[1].point = { ...JSON.parse(await readFile(parts[1], 'utf8')).points[1].point, makespanNs: '92440' };
    await writeFile(path.join(dir, 'cut.json'), JSON.stringify(cut));
    expect(await fail([parts[0], path.join(dir, 'cut.json'), parts[2]])).toMatch(
      /points\[1\]\.point\.makespanNs: expected a number, found "92440"/,
    );
  });
});

describe('sweep gpu --shard, merge', () => {
  it("merging 2 shards prints the unsharded GPU clock sweep's JSON byte for byte", async () => {
    const w = await writeLlmTraces({
      model: 'llama2-7b',
      dp: 1,
      tp: 2,
      pp: 1,
      microBatch: 1,
      globalBatch: 1,
      seqLen: 256,
      outPrefix: path.join(dir, 'llm'),
    });
    const argv = [
      'sweep',
      'gpu',
      path.join(dir, 'llm'),
      '--calibration',
      path.join(repoRoot, 'calibration', 'h100-datasheet.json'),
      '--frequencies',
      '810,1395,1980',
      '--system',
      w.systemFile,
      '--network',
      w.networkFile,
      '--select',
      'max-slowdown:10',
      '--threads',
      '1',
    ];
    const whole = await ok([...argv, '--json']);
    const parts = await shards(argv, 2, 'gpu');
    expect(
      JSON.parse(await readFile(parts[0], 'utf8')).points.map((p: { point: { clockMHz: number } }) => p.point.clockMHz),
    ).toEqual([810, 1980]);
    expect(await ok(['merge', parts[1], parts[0], '--json'])).toBe(whole);
    const net = await shards(
      [
        'sweep',
        'network',
        shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce'),
        '--system',
        shipped('configs', 'sys_ring_example.json'),
        '--network',
        shipped('configs', 'Switch_8npus.yml'),
        '--dimension',
        '0',
        '--scale',
        '0.5,1',
        '--threads',
        '1',
      ],
      2,
      'mixed',
    );
    const r = await cli(['merge', parts[0], net[1]]);
    expect(r.err).toMatch(/mixed-2\.json is a network sweep, .*gpu-1\.json a gpu sweep/);
  }, 120_000);
});

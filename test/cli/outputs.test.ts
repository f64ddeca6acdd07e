/**
 * Command outputs end to end through runCli on the shipped traces and configs: `replay --json` feeds `report`,
 * `--csv` prints the table's rows, JSON is written by one convention, and output paths that cannot be written are
 * one line and exit code 2 with no partial file left behind.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliArgs as cli } from '../helpers/cli.js';
import { replayFiles } from '../../src/engines/replay/index.js';
import { parseResults } from '../../src/report/validate.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const trace = shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce');
const system = path.join(repoRoot, 'traces', 'configs', 'sys_ring_example.json');
const network = path.join(repoRoot, 'traces', 'configs', 'Switch_8npus.yml');
const cluster = ['--system', system, '--network', network];

/** Parses simple CSV (no quoted commas inside numbers) into header and rows. */
function csv(text: string): { header: string[]; rows: string[][] } {
  const lines = text
    .trimEnd()
    .split('\n')
    .map((l) =>
      l
        .match(/("([^"]|"")*"|[^,]*)(,|$)/g)!
        .filter((c) => c !== '')
        .map((c) => c.replace(/,$/, '')),
    );
  return { header: lines[0], rows: lines.slice(1) };
}

async function tmp(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'tracewatt-outputs-'));
}

/** A path whose parent is a regular file, so nothing can be written there (ENOTDIR), whoever runs the test. */
async function unwritable(dir: string, name: string): Promise<string> {
  const file = path.join(dir, 'a-file');
  await writeFile(file, 'not a folder');
  return path.join(file, name);
}

describe('replay --json → report', () => {
  it('the engine result on shipped traces is a valid report input and renders its ranks and energy', async () => {
    const dir = await tmp();
    const r = await cli('replay', trace, ...cluster, '--json', '--label', 'all-reduce 1 MB on Switch(8)');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    // The CLI prints the engine's result as it is: same numbers as replayFiles() on the same files.
    const direct = await replayFiles({ trace, system, network, label: 'all-reduce 1 MB on Switch(8)' });
    expect(json).toEqual(JSON.parse(JSON.stringify(direct)));
    expect(json).toMatchObject({ kind: 'replay', schemaVersion: 1, label: 'all-reduce 1 MB on Switch(8)' });
    expect(json.exposedCommNs).toBe(direct.ranks.reduce((a, x) => (x.finishNs > a.finishNs ? x : a)).exposedCommNs);
    expect(json.networkEnergyPerDimJ.reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(json.energyJ.network, 12);
    expect(parseResults(json, 'replay.json')).toHaveLength(1);

    const results = path.join(dir, 'replay.json');
    await writeFile(results, r.out);
    const html = path.join(dir, 'report.html');
    const rep = await cli('report', results, '--out', html);
    expect(rep.err).toBe('');
    expect(rep.code).toBe(0);
    const page = await readFile(html, 'utf8');
    expect(page).toContain('data-kind="replay"');
    expect(page).toContain('all-reduce 1 MB on Switch(8)');
    expect(page).toContain('Per-rank table (8 ranks)');
    expect(page).toContain(direct.dimensionNames[0]);
    expect(page).toContain('<svg');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('report --json prints the written file and its size as JSON', async () => {
    const dir = await tmp();
    const results = path.join(dir, 'replay.json');
    await writeFile(results, (await cli('replay', trace, ...cluster, '--json')).out);
    const html = path.join(dir, 'r.html');
    const r = await cli('report', results, '--out', html, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ out: html, results: 1, bytes: (await readFile(html)).length });
  });
});

describe('--csv', () => {
  it('replay prints one row per rank and a total row, the columns of the text table', async () => {
    const r = await cli('replay', trace, ...cluster, '--csv');
    expect(r.code).toBe(0);
    const { header, rows } = csv(r.out);
    expect(header.slice(0, 11)).toEqual([
      'rank',
      'finishNs',
      'gpuComputeNs',
      'exposedCommNs',
      'hostExposedNs',
      'remoteMemExposedNs',
      'waitNs',
      'commNs',
      'overlapNs',
      'astraExposedNs',
      'sentDim0Bytes',
    ]);
    expect(header).toContain('totalEnergyJ');
    expect(rows.map((x) => x[0])).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', 'total']);
    for (const row of rows) expect(row).toHaveLength(header.length);
    const json = JSON.parse((await cli('replay', trace, ...cluster, '--json')).out);
    // 12 significant digits: the record's figure without float noise.
    expect(Number(rows[8][header.indexOf('totalEnergyJ')])).toBe(Number(json.energyJ.total.toPrecision(12)));
    expect(Number(rows[3][1])).toBe(json.ranks[3].finishNs);
  });

  it('inspect prints the per-rank counts without thousands separators', async () => {
    const r = await cli('inspect', trace, '--csv');
    expect(r.code).toBe(0);
    const { header, rows } = csv(r.out);
    expect(header[0]).toBe('rank');
    expect(rows).toHaveLength(9);
    expect(rows[8][0]).toBe('total');
    expect(rows[8][header.indexOf('nodes')]).toBe('8');
  });
});

describe('option values', () => {
  it.each([
    [
      ['validate', trace, '--max-per-code', 'abc'],
      /^tracewatt: error: --max-per-code: expected a whole number ≥ 0, got "abc"\n$/,
    ],
    [
      ['replay', trace, ...cluster, '--window', '0'],
      /^tracewatt: error: --window: expected a whole number ≥ 1, got "0"\n$/,
    ],
    [['replay', trace, ...cluster, '--window', '1.5'], /--window: expected a whole number/],
    [['sweep', 'network', trace, ...cluster, '--dimension', 'x'], /--dimension: expected a whole number ≥ 0, got "x"/],
    [
      ['sweep', 'network', trace, ...cluster, '--dimension', '0', '--threads', '0'],
      /--threads: expected a whole number ≥ 1, got "0"/,
    ],
    [
      ['sweep', 'network', trace, ...cluster, '--dimension', '0', '--scale', '1:0.5:0.1'],
      /--scale "1:0.5:0.1": stop 0.5 is below start 1/,
    ],
    [
      ['generate', 'llm', '--model', 'llama2-7b', '--global-batch', '4', '--seq', '1k', '--out', 'x'],
      /--seq: expected a whole number ≥ 1, got "1k"/,
    ],
    [['case-study', 'llama2-70b', '--global-batch', 'many'], /--global-batch: expected a whole number ≥ 1, got "many"/],
  ])('%j is one line and exit code 2', async (argv, message) => {
    const r = await cli(...argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });
});

describe('unwritable output paths', () => {
  it(
    'convert, replay --timeline, report --out and generate --out: one line naming the path and the reason, exit ' + '2',
    async () => {
      const dir = await tmp();
      const results = path.join(dir, 'replay.json');
      await writeFile(results, (await cli('replay', trace, ...cluster, '--json')).out);
      const cases: [string, string[]][] = [];
      const target = async (name: string) => unwritable(await mkdtemp(path.join(dir, 'c-')), name);
      let p = await target('x.json');
      cases.push([p, ['convert', `${trace}.0.et`, p]]);
      p = await target('t.json');
      cases.push([p, ['replay', trace, ...cluster, '--timeline', p]]);
      p = await target('r.html');
      cases.push([p, ['report', results, '--out', p]]);
      p = await target('g');
      cases.push([p, ['generate', 'llm', '--model', 'llama2-7b', '--global-batch', '1', '--seq', '128', '--out', p]]);
      for (const [file, argv] of cases) {
        const r = await cli(...argv);
        expect(r.code, argv.join(' ')).toBe(2);
        expect(r.err.trim().split('\n')).toHaveLength(1);
        expect(r.err).toContain(file);
        expect(r.err).toMatch(/: cannot (write|create its folder) \((ENOTDIR|EEXIST)\)\n$/);
      }
    },
  );

  it('a replay that fails leaves neither the timeline nor its .tmp', async () => {
    const dir = await tmp();
    const tl = path.join(dir, 'sub', 't.json');
    // The 4-rank trace on an 8-NPU network is refused after the timeline file was opened.
    const r = await cli(
      'replay',
      shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce'),
      ...cluster,
      '--timeline',
      tl,
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/4 rank file\(s\) but .* describes 8 NPUs/);
    expect(existsSync(tl)).toBe(false);
    expect(existsSync(`${tl}.tmp`)).toBe(false);
  });

  it('a replay timeline is complete JSON with a track per rank and slot', async () => {
    const dir = await tmp();
    const tl = path.join(dir, 'tl.json');
    const r = await cli('replay', trace, ...cluster, '--timeline', tl, '--json');
    expect(r.code).toBe(0);
    const events = JSON.parse(await readFile(tl, 'utf8')).traceEvents as {
      ph: string;
      pid: number;
      ts: number;
      dur?: number;
    }[];
    const slices = events.filter((e) => e.ph === 'X');
    expect(new Set(slices.map((e) => e.pid))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7]));
    expect(Math.max(...slices.map((e) => e.ts + e.dur!))).toBeCloseTo(JSON.parse(r.out).makespanNs / 1000, 6);
    expect(existsSync(`${tl}.tmp`)).toBe(false);
  });
});

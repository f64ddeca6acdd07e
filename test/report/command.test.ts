import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportCommand } from '../../src/cli/commands/report.js';
import { FormatError, InputError } from '../../src/errors.js';
import { accuracyFixture, gpuSweepFixture, networkSweepFixture } from './fixtures.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), isTTY: false }, out, err };
}

describe('tracewatt report', () => {
  it('reads results files and writes one HTML page', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-report-cmd-'));
    const a = path.join(dir, 'gpu.json');
    const b = path.join(dir, 'rest.json');
    await writeFile(a, JSON.stringify(gpuSweepFixture()));
    await writeFile(b, JSON.stringify([networkSweepFixture(), accuracyFixture()]));
    const out = path.join(dir, 'sub', 'report.html');
    const t = io();
    expect(await reportCommand.run([a, b], { out }, t.io)).toBe(0);
    const html = await readFile(out, 'utf8');
    expect(html.match(/<section class="result"/g)).toHaveLength(3);
    expect(t.out.join('')).toMatch(/^wrote .*report\.html: 3 results/);
  });

  it('stops on a bad file with an error naming the file and field, writing nothing', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-report-cmd-'));
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ ...accuracyFixture(), kind: 'acuracy' }));
    const out = path.join(dir, 'report.html');
    const run = reportCommand.run([bad], { out }, io().io);
    await expect(run).rejects.toBeInstanceOf(FormatError);
    await expect(reportCommand.run([bad], { out }, io().io)).rejects.toThrow(`${bad}: kind: expected one of`);
    await expect(readFile(out)).rejects.toThrow(/ENOENT/);
  });

  it('asks for at least one file', async () => {
    await expect(reportCommand.run([], {}, io().io)).rejects.toBeInstanceOf(InputError);
  });
});

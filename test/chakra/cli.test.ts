import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { cliArgs as cli } from '../helpers/cli.js';
import { NodeType } from '../../src/formats/chakra/schema.js';
import { decodeTraceBuffer } from '../../src/formats/chakra/reader.js';
import { attrInt } from '../../src/formats/chakra/attrs.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

/** Temporary folders of these tests, removed at the end. */
const made: string[] = [];
afterAll(() => Promise.all(made.map((d) => rm(d, { recursive: true, force: true }))));

describe('tracewatt inspect', () => {
  it('--json gives per-rank and total counts that match an independent decode', async () => {
    const prefix = shipped('astra-sim-history', 'resnet_dp', 'Resnet50_DataParallel');
    const { code, out } = await cli('inspect', prefix, '--json');
    expect(code).toBe(0);
    const j = JSON.parse(out);
    expect(j.ranks).toHaveLength(64);
    expect(j.ranks.map((r: { rank: number }) => r.rank)).toEqual([...Array(64).keys()]);
    let totalNodes = 0;
    let totalOps = 0n;
    for (const r of j.ranks) {
      const t = decodeTraceBuffer(readFileSync(`${prefix}.${r.rank}.et`));
      const comp = t.nodes.filter((n) => n.type === NodeType.COMP_NODE);
      expect(r.nodeCount).toBe(t.nodes.length);
      expect(r.nodesByType.COMP_NODE ?? 0).toBe(comp.length);
      expect(BigInt(r.numOps)).toBe(comp.reduce((s, n) => s + (attrInt(n, 'num_ops') ?? 0n), 0n));
      expect(BigInt(r.durationMicros)).toBe(comp.reduce((s, n) => s + n.durationMicros, 0n));
      totalNodes += t.nodes.length;
      totalOps += BigInt(r.numOps);
    }
    expect(j.total.nodeCount).toBe(totalNodes);
    expect(BigInt(j.total.numOps)).toBe(totalOps);
    expect(j.total.nodesByType.COMM_COLL_NODE).toBeGreaterThan(0);
  });

  it('prints a table with units in the headers', async () => {
    const { code, out } = await cli('inspect', shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce'), '--wide');
    expect(code).toBe(0);
    expect(out).toMatch(/COMP duration \(µs\)/);
    expect(out).toMatch(/ALL_REDUCE\s+4\s+4,194,304/);
  });
});

describe('tracewatt validate', () => {
  it('exits 0 on a clean trace and 1 with named problems on the real PyTorch trace', async () => {
    expect((await cli('validate', shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce'))).code).toBe(0);
    const r = await cli('validate', shipped('chakra-tests', 'feeder_tests_chakra.0.et'), '--json');
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out);
    expect(j.valid).toBe(false);
    // The trace's documented facts: 1,277 ctrl deps to absent ids; c10d collectives on the CPU without comm_type.
    expect(j.counts['dangling-dependency']).toBe(1277);
    expect(j.counts['comm-marked-cpu']).toBeGreaterThan(0);
    expect(j.counts['collective-missing-comm-type']).toBeGreaterThan(0);
    expect(
      j.problems.every((p: { file: string; message: string }) => p.file.endsWith('.et') && p.message.length > 0),
    ).toBe(true);
    expect(j.problems.some((p: { nodeId: number | null }) => p.nodeId === 216)).toBe(true);
  });
});

describe('tracewatt convert and errors', () => {
  it('round-trips .et → .json → .et through the CLI', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-'));
    made.push(dir);
    const src = shipped('astra-sim', 'custom_collectives', 'custom_ring_allreduce_8npus_1MB', 'custom_allreduce.3.et');
    expect((await cli('convert', src, path.join(dir, 'a.json'))).code).toBe(0);
    expect((await cli('convert', path.join(dir, 'a.json'), path.join(dir, 'b.et'))).code).toBe(0);
    expect(readFileSync(path.join(dir, 'b.et')).equals(readFileSync(src))).toBe(true);
  });

  it(
    'converts .et ↔ .et.gz (help lists .et.gz as an output; it was refused as "both are .et"), and .json → ' +
      '.et.gz gzips',
    async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-'));
      made.push(dir);
      const src = shipped(
        'astra-sim',
        'custom_collectives',
        'custom_ring_allreduce_8npus_1MB',
        'custom_allreduce.3.et',
      );
      const gz = path.join(dir, 'a.et.gz');
      const r = await cli('convert', src, gz);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/nodes \(et → et\)/);
      expect(
        readFileSync(gz)
          .subarray(0, 2)
          .equals(Buffer.from([0x1f, 0x8b])),
      ).toBe(true);
      expect(gunzipSync(readFileSync(gz)).equals(readFileSync(src))).toBe(true);
      expect((await cli('convert', gz, path.join(dir, 'b.et'))).code).toBe(0);
      expect(readFileSync(path.join(dir, 'b.et')).equals(readFileSync(src))).toBe(true);
      expect((await cli('convert', src, path.join(dir, 'a.json'))).code).toBe(0);
      expect((await cli('convert', path.join(dir, 'a.json'), path.join(dir, 'c.et.gz'))).code).toBe(0);
      expect(gunzipSync(readFileSync(path.join(dir, 'c.et.gz'))).equals(readFileSync(src))).toBe(true);
      const same = await cli('convert', src, path.join(dir, 'd.et'));
      expect(same.code).toBe(2);
      expect(same.err).toMatch(/both are \.et;/);
      expect(existsSync(path.join(dir, 'd.et'))).toBe(false);
    },
  );

  it('bad input: one readable line, exit 2, no stack trace unless --verbose', async () => {
    const r = await cli('inspect', path.join(repoRoot, 'package.json'));
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^tracewatt: error: .*package\.json: frame 0 at byte \d+/);
    const v = await cli('inspect', path.join(repoRoot, 'package.json'), '--verbose');
    expect(v.err).toMatch(/ChakraDecodeError/);
    const missing = await cli('inspect', '/nonexistent/trace');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/no such file/);
  });

  it('the built bin runs as a real process', async () => {
    const bin = path.join(repoRoot, 'dist', 'cli', 'main.js');
    if (!existsSync(bin)) {
      console.warn('dist/ not built (npm ci runs the prepare build): skipping the process test');
      return;
    }
    const { stdout } = await promisify(execFile)(process.execPath, [bin, '--help']);
    expect(stdout).toMatch(/inspect/);
    const failed = await promisify(execFile)(process.execPath, [
      bin,
      'validate',
      shipped('chakra-tests', 'feeder_tests_chakra.0.et'),
    ]).catch((e) => e);
    expect(failed.code).toBe(1);
  });
});

describe('duplicate ids are all counted', () => {
  it('inspect and validate count every repeated id, not only the listed ones', async () => {
    const { writeTraceFile } = await import('../../src/formats/chakra/writer.js');
    const { emptyNode } = await import('../../src/formats/chakra/types.js');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-dup-'));
    made.push(dir);
    const file = path.join(dir, 'dup.0.et');
    // 30 nodes, ids 0..9 each three times: 20 repeats.
    await writeTraceFile(
      file,
      { version: '0.0.4', attrs: [] },
      [...Array(30).keys()].map((i) => emptyNode(BigInt(i % 10), `n${i}`, NodeType.COMP_NODE)),
    );
    const ins = JSON.parse((await cli('inspect', file, '--json')).out);
    expect(ins.total.duplicateIds).toBe(20);
    const val = await cli('validate', file, '--json', '--max-per-code', '3');
    const j = JSON.parse(val.out);
    expect(j.counts['duplicate-id']).toBe(20);
    expect(j.problems.filter((p: { code: string }) => p.code === 'duplicate-id')).toHaveLength(3);
    expect(val.code).toBe(1);
  });
});

describe('convert output safety', () => {
  it('an output whose folder cannot be made is one line and exit 2; a failed conversion leaves no file', async () => {
    const src = shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce.0.et');
    const r = await cli('convert', src, '/dev/null/sub/x.json');
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/cannot create its folder \(ENOTDIR\)/);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-conv-'));
    made.push(dir);
    const bad = path.join(dir, 'bad.et');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(bad, readFileSync(shipped('chakra-tests', 'feeder_tests_chakra.0.et')).subarray(0, 1_500_000));
    const out = path.join(dir, 'deep', 'bad.json');
    const failed = await cli('convert', bad, out);
    expect(failed.code).toBe(2);
    expect(failed.err).toMatch(/runs past end of file/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.tmp`)).toBe(false);
  });
});

import { mkdtemp, copyFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Diagnostics } from '../../src/diagnostics.js';
import { InputError } from '../../src/errors.js';
import { attrBool, attrBoolList, attrInt, attrNumber, attrString, makeAttr } from '../../src/formats/chakra/attrs.js';
import { resolveRankFiles } from '../../src/formats/chakra/paths.js';
import { readTraceFile } from '../../src/formats/chakra/reader.js';
import { emptyNode } from '../../src/formats/chakra/types.js';
import { shipped } from '../helpers/traces.js';

describe('attribute access', () => {
  it('reads comm_type / comm_size / is_cpu_op from real traces whatever their member', async () => {
    const { nodes } = await readTraceFile(shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce.0.et'));
    const coll = nodes.find((n) => n.type === 7)!;
    expect(attrInt(coll, 'comm_type')).toBe(0n);
    expect(attrInt(coll, 'comm_size')).toBe(1048576n);
    const feeder = await readTraceFile(shipped('chakra-tests', 'feeder_tests_chakra.0.et'));
    const cpuOps = feeder.nodes.filter((n) => attrBool(n, 'is_cpu_op') === true);
    expect(cpuOps.length).toBeGreaterThan(0);
  });

  it('accepts any integer member for integer attributes and bool or int for flags', () => {
    const n = emptyNode(1n, 'x', 7);
    n.attrs.push(
      makeAttr('comm_size', 'uint64_val', 4096n),
      makeAttr('is_cpu_op', 'int32_val', 1),
      makeAttr('comm_src', 'sint32_val', -2),
    );
    n.attrs.push(makeAttr('involved_dim', 'bool_list', [true, false]), makeAttr('pg_name', 'string_val', '3'));
    expect(attrInt(n, 'comm_size')).toBe(4096n);
    expect(attrNumber(n, 'comm_size')).toBe(4096);
    expect(attrBool(n, 'is_cpu_op')).toBe(true);
    expect(attrInt(n, 'comm_src')).toBe(-2n);
    expect(attrBoolList(n, 'involved_dim')).toEqual([true, false]);
    expect(attrString(n, 'pg_name')).toBe('3');
    expect(attrInt(n, 'missing')).toBeUndefined();
  });

  it('records a diagnostic for unexpected members instead of failing', () => {
    const d = new Diagnostics();
    const n = emptyNode(9n, 'x', 4);
    n.attrs.push(makeAttr('num_ops', 'string_val', 'lots'), makeAttr('tensor_size', 'uint64_val', 2n ** 60n));
    expect(attrInt(n, 'num_ops', d)).toBeUndefined();
    expect(attrNumber(n, 'tensor_size', d)).toBeUndefined();
    expect(d.count('unexpected-attribute-type')).toBe(1);
    expect(d.count('attribute-exceeds-2^53')).toBe(1);
    expect(d.summary()[1].samples[0].message).toContain('node 9');
  });
});

describe('multi-rank paths', () => {
  it('resolves a prefix, a directory and a single file, ranks sorted numerically', async () => {
    const dir = shipped('astra-sim', 'all_reduce', '16npus_1MB');
    const byPrefix = await resolveRankFiles(path.join(dir, 'all_reduce'));
    expect(byPrefix.map((r) => r.rank)).toEqual([...Array(16).keys()]);
    const byDir = await resolveRankFiles(dir);
    expect(byDir).toEqual(byPrefix);
    const one = await resolveRankFiles(path.join(dir, 'all_reduce.10.et'));
    expect(one).toEqual([{ rank: 10, file: path.join(dir, 'all_reduce.10.et') }]);
  });

  it('refuses ambiguous directories and missing prefixes with a clear error', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'tw-paths-'));
    await mkdir(path.join(tmp, 'mixed'));
    await copyFile(
      shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce.0.et'),
      path.join(tmp, 'mixed', 'a.0.et'),
    );
    await copyFile(
      shipped('astra-sim', 'all_gather', '4npus_1MB', 'all_gather.0.et'),
      path.join(tmp, 'mixed', 'b.0.et'),
    );
    await expect(resolveRankFiles(path.join(tmp, 'mixed'))).rejects.toThrow(/several prefixes/);
    await expect(resolveRankFiles(path.join(tmp, 'nothing'))).rejects.toBeInstanceOf(InputError);
  });
});

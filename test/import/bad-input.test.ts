/**
 * Bad and odd input to the streamed JSON readers (Kineto traces, PyTorch execution traces) and to `import pytorch`:
 * each is a typed error naming the file (and the byte where there is one), one line from the CLI, never an internal
 * error; odd stamps are read exactly.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { commInfo, importPytorch } from '../../src/engines/import/index.js';
import type { EtNode } from '../../src/formats/pytorch/et.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError, InputError } from '../../src/errors.js';
import { readHead } from '../../src/formats/file-chunks.js';
import { readKinetoTrace, type KinetoTrace } from '../../src/formats/kineto/trace.js';
import { newSample } from '../../src/vocab/kernel-sample.js';
import { alignPower } from '../../src/formats/profiles/kineto.js';
import type { PowerSeries } from '../../src/formats/profiles/power.js';
import type { TraceKernel } from '../../src/formats/profiles/power-join.js';
import { readExecutionTrace } from '../../src/formats/pytorch/et.js';
import { detectFormat } from '../../src/formats/profiles/index.js';
import { cli } from '../helpers/cli.js';
import { shipped } from '../helpers/traces.js';

const addEt = shipped('pytorch-real', 'simple_add', 'et.json.gz');
const addKineto = shipped('pytorch-real', 'simple_add', 'kineto.json.gz');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-import-bad-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const put = async (name: string, content: string | Buffer) => {
  const f = path.join(dir, name);
  await writeFile(f, content);
  return f;
};

const kinetoEvent = (ts: string) =>
  `{"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": ` +
  `${ts}, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 1}}]}`;

describe('streamed JSON readers: bad input', () => {
  it('a folder given as a trace is an InputError naming it (not an internal EISDIR)', async () => {
    const folder = path.join(dir, 'a-folder.json');
    await mkdir(folder);
    await expect(readKinetoTrace(folder)).rejects.toThrow(InputError);
    await expect(readKinetoTrace(folder)).rejects.toThrow(`${folder}: cannot read (EISDIR)`);
    await expect(readExecutionTrace(folder)).rejects.toThrow(InputError);
    await expect(detectFormat(folder)).rejects.toThrow(InputError);
  });

  it('binary data names the byte in hex, not as a raw control character', async () => {
    const bin = await put('binary.json', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01]));
    await expect(readKinetoTrace(bin)).rejects.toThrow(FormatError);
    await expect(readKinetoTrace(bin)).rejects.toThrow(`${bin}: byte 0: expected '{' (a JSON object), found byte 0x7f`);
    const badKey = await put('bad-key.json', Buffer.from([0x7b, 0x20, 0x01]));
    await expect(readKinetoTrace(badKey)).rejects.toThrow('byte 2: expected a key, found byte 0x01');
  });

  it('an empty event / node list is told from a file that has none', async () => {
    const noEvents = await readKinetoTrace(await put('empty-events.json', '{"schemaVersion": 1, "traceEvents": []}'));
    expect(noEvents.gpu).toEqual([]);
    await expect(readKinetoTrace(await put('no-events.json', '{"schemaVersion": 1}'))).rejects.toThrow(
      /no "traceEvents" array/,
    );
    const noNodes = await readExecutionTrace(await put('empty-nodes.json', '{"schema": "1.0.1", "nodes": []}'));
    expect(noNodes.nodes).toEqual([]);
    await expect(readExecutionTrace(await put('no-nodes.json', '{"schema": "1.0.1"}'))).rejects.toThrow(
      /no "nodes" array/,
    );
  });

  it('a stamp in exponent form or negative is read exactly; a "ts" the text does not hold is refused', async () => {
    // 1.6941282015451235e+15 µs = 1694128201545123 µs + 500 ns (exactly; a float holds it only to 0.25 µs).
    const expo = await readKinetoTrace(await put('expo.json', kinetoEvent('1.6941282015451235e+15')));
    expect(expo.baseUs).toBe(1694128201545123);
    expect(expo.gpu[0]!.tsNs).toBe(500);
    const negative = await readKinetoTrace(await put('neg.json', kinetoEvent('-5.25')));
    expect(negative.baseUs * 1000 + negative.gpu[0]!.tsNs).toBe(-5250);
    // A nested "ts" before the event's own would be taken by a text search: the parsed value tells it apart.
    const nested = await put(
      'nested.json',
      '{"traceEvents": [{"ph": "X", "cat": "kernel", "args": {"ts": 3}, "name": "k", "ts": 1694128201545123.5, ' +
        '"dur": 2}]}',
    );
    await expect(readKinetoTrace(nested)).rejects.toThrow(/cannot read "ts" exactly/);
  });

  it("readHead: a gzip file's first bytes decompressed, and whether it goes on", async () => {
    const whole = gunzipSync(await readFile(addKineto));
    const head = await readHead(addKineto, 100);
    expect(head.bytes).toEqual(whole.subarray(0, 100));
    expect(head.cut).toBe(true);
    const all = await readHead(addKineto, whole.length);
    expect(all.bytes).toEqual(whole);
    expect(all.cut).toBe(false);
  });
});

describe('import pytorch: numbers that are not whole where Chakra needs integers', () => {
  it(
    'a fractional ET pid is left out with a note; a distributedInfo.rank that is not a whole number is an error ' +
      'naming it',
    async () => {
      const kineto = JSON.parse(gunzipSync(await readFile(addKineto)).toString('utf8'));
      const et = JSON.parse(gunzipSync(await readFile(addEt)).toString('utf8'));
      et.pid = 563677.5;
      delete kineto.distributedInfo.rank;
      const r = await importPytorch({
        pairs: [
          {
            et: await put('odd-et.json', JSON.stringify(et)),
            kineto: await put('odd-kineto.json', JSON.stringify(kineto)),
          },
        ],
        out: path.join(dir, 'odd'),
      });
      expect(r.ranks[0]!.rank).toBe(0);
      expect(r.ranks[0]!.notes.join('\n')).toMatch(/has no distributedInfo\.rank: written as rank 0/);
    },
  );

  it('a collective whose tensor has a fractional element count has no comm_size (typed as compute, said)', () => {
    const node = (numel: number): EtNode => ({
      id: 1,
      name: 'nccl:all_reduce',
      parent: null,
      rfId: null,
      fwParent: null,
      seqId: null,
      scope: null,
      tid: null,
      fwTid: null,
      opSchema: '',
      inputs: { values: [[1, 2, 0, numel, 4, 'cuda:0']], shapes: [[numel]], types: ['Tensor(float)'] },
      outputs: { values: [], shapes: [], types: [] },
      attrs: {},
    });
    expect(commInfo('ncclKernel_AllReduce_RING_LL_Sum_float', node(1024), () => null).commSizeBytes).toBe(4096);
    expect(commInfo('ncclKernel_AllReduce_RING_LL_Sum_float', node(1.5), () => null).commSizeBytes).toBeNull();
  });
});

describe('import pytorch: bad input is one line and exit 2', () => {
  it('a folder, a truncated gzip, an empty file and binary data', async () => {
    const folder = path.join(dir, 'kineto-folder');
    await mkdir(folder);
    const cut = await put('cut.json.gz', (await readFile(addKineto)).subarray(0, 2000));
    const empty = await put('empty.json', '');
    const bin = await put('bin.json', Buffer.from([0x00, 0xff, 0x10]));
    const expected: [string, RegExp][] = [
      [folder, /cannot read \(EISDIR\)/],
      [cut, /gzip stream is corrupt or cut short/],
      [empty, /byte 0: empty file \(expected a JSON object\)/],
      [bin, /byte 0: expected '\{' \(a JSON object\), found byte 0x00/],
    ];
    for (const [kineto, message] of expected) {
      const r = await cli(['import', 'pytorch', '--et', addEt, '--kineto', kineto, '--out', path.join(dir, 'out')]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err).toContain(kineto);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('Kineto + power log: a long trace', () => {
  it('places 200,000 kernels on the power log by wall clock (no call-stack overflow)', () => {
    const baseUs = 1_694_128_201_545_000;
    const kernels: TraceKernel[] = Array.from({ length: 200_000 }, (_, i) => ({
      sample: newSample('k', { file: 't.json', row: i + 1, format: 'kineto' }, { durationNs: 1000 }),
      startNs: i * 2000,
    }));
    const series: PowerSeries = {
      timeNs: [0, 1e9],
      powerW: [100, 100],
      originEpochMs: baseUs / 1000 - 100,
      gpu: null,
      device: null,
      source: { file: 'p.csv', format: 'nvidia-smi' },
      notes: [],
    };
    const trace = { baseUs } as KinetoTrace;
    expect(alignPower(trace, series, kernels)?.offsetNs).toBe(100e6);
  });
});

/**
 * Bad input gets a typed error naming file, byte offset and frame — never a hang, a crash of
 * another kind, or silently fewer nodes. Includes a seeded mutation test over real traces.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ChakraDecodeError, InputError } from '../../src/errors.js';
import { decodeTraceBuffer, openTrace, openTraceSource, readTraceFile } from '../../src/formats/chakra/reader.js';
import { existsSync, readdirSync } from 'node:fs';
import { nodeToJson } from '../../src/formats/chakra/json.js';
import { rng } from '../helpers/rng.js';
import { shipped } from '../helpers/traces.js';

const tmp = await mkdtemp(path.join(os.tmpdir(), 'tw-bad-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));
const RESNET = shipped('astra-sim-history', 'resnet_dp', 'Resnet50_DataParallel.1.et');
const FEEDER = shipped('chakra-tests', 'feeder_tests_chakra.0.et');
const SMALL = shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce.1.et');

async function writeTmp(name: string, bytes: Uint8Array | string): Promise<string> {
  const f = path.join(tmp, name);
  await writeFile(f, bytes);
  return f;
}

async function decodeError(file: string): Promise<ChakraDecodeError> {
  const e = await readTraceFile(file).then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ChakraDecodeError);
  const err = e as ChakraDecodeError;
  expect(err.location.file).toBe(file);
  expect(err.message).toContain(file);
  expect(err.message).toMatch(/frame \d+ at byte \d+/);
  return err;
}

/** Start offsets of every frame of an uncompressed trace. */
function frameStarts(buf: Buffer): number[] {
  const starts: number[] = [];
  let p = 0;
  while (p < buf.length) {
    starts.push(p);
    let len = 0;
    let mul = 1;
    let b: number;
    do {
      b = buf[p++];
      len += (b & 0x7f) * mul;
      mul *= 128;
    } while (b >= 0x80);
    p += len;
  }
  return starts;
}

describe('bad input', () => {
  it('an empty file', async () => {
    const err = await decodeError(await writeTmp('empty.et', ''));
    expect(err.message).toMatch(/empty file/);
  });

  it('a file cut inside a frame names the frame and the bytes left', async () => {
    const buf = readFileSync(RESNET);
    const err = await decodeError(await writeTmp('cut.et', buf.subarray(0, buf.length - 7)));
    expect(err.message).toMatch(/runs past end of file/);
    expect(err.location.frameIndex).toBe(frameStarts(buf).length - 1);
  });

  it('a length prefix running past end of file', async () => {
    const err = await decodeError(await writeTmp('len.et', Buffer.from([0xff, 0xff, 0x03, 0x0a, 0x00])));
    expect(err.location.offset).toBe(0);
    expect(err.message).toMatch(/frame length 65535 runs past end of file/);
  });

  it('a corrupt varint inside a node', async () => {
    const node = Buffer.from([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    const err = await decodeError(await writeTmp('varint.et', Buffer.concat([Buffer.from([node.length]), node])));
    expect(err.message).toMatch(/varint longer than 10 bytes/);
    expect(err.location.offset).toBe(2);
  });

  it('garbage bytes and a non-trace file', async () => {
    await decodeError(await writeTmp('garbage.et', Buffer.from('\x07\xff\xfe\xfd\xfc\xfb\xfa\xf9', 'latin1')));
    const csv = await decodeError(await writeTmp('profile.et', 'kernel,time_ms,power_w\ngemm,1.5,250\n'));
    expect(csv.message).toMatch(/is this a Chakra \.et file\?/);
  });

  it('a gzip stream cut short', async () => {
    const gz = gzipSync(readFileSync(RESNET));
    const err = await decodeError(await writeTmp('cut.et.gz', gz.subarray(0, Math.floor(gz.length / 2))));
    expect(err.message).toMatch(/gzip stream cut short|runs past end of file/);
  });

  it('a proto2-era trace (Node.attribute = 11) is named as such', async () => {
    // id 1, name "n", type 4 (written as proto2 did), then field 11 (the old attribute list).
    const node = Buffer.from([0x08, 0x01, 0x12, 0x01, 0x6e, 0x18, 0x04, 0x5a, 0x02, 0x0a, 0x00]);
    const md = Buffer.from([0x0a, 0x05, ...Buffer.from('0.0.3')]);
    const file = await writeTmp(
      'proto2.et',
      Buffer.concat([Buffer.from([md.length]), md, Buffer.from([node.length]), node]),
    );
    const err = await decodeError(file);
    expect(err.message).toMatch(/proto2-era/);
    expect(err.location.frameIndex).toBe(1);
  });

  it('a missing file is an InputError, not a decode error', async () => {
    await expect(readTraceFile(path.join(tmp, 'nope.et'))).rejects.toBeInstanceOf(InputError);
  });

  it('reads a trace without GlobalMetadata (first frame is a Node) and says so', async () => {
    const buf = readFileSync(RESNET);
    const starts = frameStarts(buf);
    const full = decodeTraceBuffer(buf);
    const { metadata, nodes } = await readTraceFile(await writeTmp('nometa.et', buf.subarray(starts[1])));
    expect(metadata).toBeNull();
    expect(nodes.map((n) => n.id)).toEqual(full.nodes.map((n) => n.id));
  });
});

describe('mutated real traces', () => {
  const bases = [
    RESNET,
    FEEDER,
    SMALL,
    shipped('astra-sim', 'custom_collectives', 'custom_ring_allreduce_8npus_1MB', 'custom_allreduce.0.et'),
  ];
  const TIME_BOUND_MS = 5_000;

  function outcome(buf: Buffer, label: string): 'ok' | 'error' {
    const t0 = performance.now();
    try {
      // A clean parse must also materialise: attributes and IOInfo are checked at decode, built on first read.
      for (const n of decodeTraceBuffer(buf, label).nodes) nodeToJson(n);
      return 'ok';
    } catch (e) {
      if (!(e instanceof ChakraDecodeError)) throw new Error(`${label}: untyped failure ${(e as Error).stack}`);
      expect(e.location.offset).toBeGreaterThanOrEqual(0);
      expect(e.location.offset).toBeLessThanOrEqual(buf.length);
      return 'error';
    } finally {
      expect(performance.now() - t0, `${label} took too long`).toBeLessThan(TIME_BOUND_MS);
    }
  }

  it('truncations: a typed error, or a clean parse only when cut at a frame boundary', () => {
    const rand = rng(20261123);
    let cases = 0;
    for (const base of bases) {
      const buf = readFileSync(base);
      const boundaries = new Set(frameStarts(buf));
      const count = base === FEEDER ? 60 : 300;
      for (let i = 0; i < count; i++) {
        const cut = 1 + Math.floor(rand() * (buf.length - 1));
        const r = outcome(buf.subarray(0, cut), `${path.basename(base)} cut at ${cut}`);
        if (r === 'ok') expect(boundaries.has(cut), `clean parse of ${base} cut at ${cut}`).toBe(true);
        cases++;
      }
    }
    expect(cases).toBeGreaterThanOrEqual(960);
  });

  it('random byte flips: a clean parse or a typed error, never a hang or a crash', () => {
    const rand = rng(42);
    let cases = 0;
    const results = { ok: 0, error: 0 };
    for (const base of bases) {
      const orig = readFileSync(base);
      const count = base === FEEDER ? 40 : 350;
      for (let i = 0; i < count; i++) {
        const buf = Buffer.from(orig);
        const flips = 1 + Math.floor(rand() * 4);
        for (let k = 0; k < flips; k++) buf[Math.floor(rand() * buf.length)] ^= 1 + Math.floor(rand() * 255);
        results[outcome(buf, `${path.basename(base)} flip #${i}`)]++;
        cases++;
      }
    }
    expect(cases).toBeGreaterThanOrEqual(1090);
    expect(results.error).toBeGreaterThan(0);
  });
});

describe('resources', () => {
  const fdCount = () => readdirSync('/proc/self/fd').length;
  it.runIf(existsSync('/proc/self/fd'))(
    'closes the file after a decode error and when a consumer stops early',
    async () => {
      const before = fdCount();
      for (let i = 0; i < 50; i++)
        await openTrace(path.join(tmp, '..', path.basename(tmp), 'x')).catch(() => undefined);
      const notATrace = await writeTmp('text.et', 'not a trace at all, just some text\n');
      for (let i = 0; i < 50; i++) await openTrace(notATrace).catch(() => undefined);
      for (let i = 0; i < 50; i++) {
        const r = await openTrace(FEEDER);
        for await (const batch of r.batches()) if (batch.length) break;
      }
      await new Promise((r) => setTimeout(r, 100));
      expect(fdCount()).toBeLessThanOrEqual(before + 2);
    },
  );
});

describe('mutated real traces through the streaming reader', () => {
  it(
    'random chunk boundaries: the same outcome as the in-memory decoder, and every IOInfo materialises or the ' +
      'frame fails',
    async () => {
      const rand = rng(7);
      const orig = readFileSync(FEEDER).subarray(0, 400_000);
      let cases = 0;
      for (let i = 0; i < 60; i++) {
        const buf = Buffer.from(orig);
        buf[Math.floor(rand() * buf.length)] ^= 1 + Math.floor(rand() * 255);
        const cut = Math.floor(buf.length * (0.5 + rand() / 2));
        const input = buf.subarray(0, cut);
        let expected: string;
        try {
          const t = decodeTraceBuffer(input, 'm');
          expected = `ok ${t.nodes.length}`;
        } catch (e) {
          expect(e).toBeInstanceOf(ChakraDecodeError);
          expected = `error ${(e as ChakraDecodeError).location.offset}`;
        }
        async function* chunks() {
          let p = 0;
          while (p < input.length) {
            const n = 1 + Math.floor(rand() * 5000);
            yield input.subarray(p, p + n);
            p += n;
          }
        }
        let got: string;
        try {
          const r = await openTraceSource('m', chunks(), { knownSize: input.length });
          let n = 0;
          for await (const b of r.batches())
            for (const node of b) {
              JSON.parse(nodeToJson(node));
              n++;
            }
          got = `ok ${n}`;
        } catch (e) {
          expect(e).toBeInstanceOf(ChakraDecodeError);
          got = `error ${(e as ChakraDecodeError).location.offset}`;
        }
        expect(got, `case ${i}`).toBe(expected);
        cases++;
      }
      expect(cases).toBe(60);
    },
  );
});

describe('JSON traces with out-of-range integers', () => {
  const doc = (attr: object) =>
    JSON.stringify({ metadata: null, nodes: [{ id: '7', type: 'COMP_NODE', attr: [{ name: 'x', ...attr }] }] });
  it.each([
    [{ int64Val: '18446744073709551617' }, /int64 range/],
    [{ uint64Val: '-5' }, /uint64 range/],
    [{ int32Val: 5e9 }, /int32 range/],
    [{ uint32List: { values: [1, -1] } }, /uint32 range/],
  ])('%j is refused, naming the node and field', async (attr, re) => {
    const { traceFromJson } = await import('../../src/formats/chakra/json.js');
    expect(() => traceFromJson(doc(attr), 'bad.json')).toThrow(re);
    expect(() => traceFromJson(doc(attr), 'bad.json')).toThrow(
      /^bad\.json: nodes\[0\]\.attr\[0\]\.\w+(\.values\[1\])?: .* \(node id 7, attribute "x"\)$/,
    );
  });
});

describe('odd but usable encodings are counted', () => {
  it('over-long varints and a bool written as 2 decode, and are reported as non-canonical', async () => {
    const { Diagnostics } = await import('../../src/diagnostics.js');
    // Node: id 5 as a 2-byte varint (85 00), attr { name "b", bool_val = 2 }.
    const attr = Buffer.from([0x0a, 0x01, 0x62, 0xd8, 0x01, 0x02]);
    const node = Buffer.from([0x08, 0x85, 0x00, 0x52, attr.length, ...attr]);
    const d = new Diagnostics();
    const { nodes } = decodeTraceBuffer(Buffer.concat([Buffer.from([node.length]), node]), 'odd.et', {
      diagnostics: d,
    });
    expect(nodes[0].id).toBe(5n);
    expect(nodes[0].attrs[0].value).toBe(true);
    expect(d.count('non-canonical-varint')).toBe(1);
  });
});

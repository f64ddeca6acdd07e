import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeMetadataFrame, encodeNodeFrame, ByteSink } from '../../src/formats/chakra/encode.js';
import { decodeTraceBuffer, openTraceSource, readTraceFile } from '../../src/formats/chakra/reader.js';
import { nodeToJson } from '../../src/formats/chakra/json.js';
import { TraceWriter } from '../../src/formats/chakra/writer.js';
import { shipped } from '../helpers/traces.js';

const FEEDER = shipped('chakra-tests', 'feeder_tests_chakra.0.et');

describe('streaming', () => {
  it('reads ≥ 1 GB with bounded memory and never loses a node', async () => {
    // A block of real PyTorch-trace nodes, repeated; chunks are cut at odd offsets so frames straddle them.
    const real = decodeTraceBuffer(readFileSync(FEEDER));
    const sink = new ByteSink();
    for (const n of real.nodes) encodeNodeFrame(sink, n);
    const block = Buffer.from(sink.view());
    const head = new ByteSink();
    encodeMetadataFrame(head, real.metadata!);
    const repeats = Math.ceil((1 << 30) / block.length);
    const expectedNodes = repeats * real.nodes.length;
    async function* source() {
      yield Buffer.from(head.view());
      for (let i = 0; i < repeats; i++) {
        const cut = 1 + ((i * 7919) % (block.length - 1));
        yield block.subarray(0, cut);
        yield block.subarray(cut);
      }
    }
    const reader = await openTraceSource('<1 GiB generated>', source());
    expect(reader.metadata?.version).toBe(real.metadata!.version);
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    let nodes = 0;
    let lastId = -1n;
    let batches = 0;
    for await (const batch of reader.batches()) {
      nodes += batch.length;
      lastId = batch[batch.length - 1].id;
      if (++batches % 64 === 0) peak = Math.max(peak, process.memoryUsage().rss);
    }
    expect(reader.bytesRead).toBeGreaterThanOrEqual(1 << 30);
    expect(nodes).toBe(expectedNodes);
    expect(lastId).toBe(real.nodes[real.nodes.length - 1].id);
    // The window holds about two chunks; allow generous slack for GC timing, far below the 1 GiB input.
    expect(peak - baseline).toBeLessThan(256 * 1024 * 1024);
  });

  it('reads gzip-compressed traces (1f 8b) to the same nodes', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-gz-'));
    const plain = await readTraceFile(FEEDER);
    const gz = path.join(dir, 'feeder.0.et');
    await writeFile(gz, gzipSync(readFileSync(FEEDER)));
    const packed = await readTraceFile(gz);
    expect(packed.compressed).toBe(true);
    expect(packed.nodes.length).toBe(plain.nodes.length);
    expect(packed.nodes.map((n) => n.id)).toEqual(plain.nodes.map((n) => n.id));
  });

  it('the writer gzips .gz outputs, and the result reads back identically', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-gzw-'));
    const plain = await readTraceFile(FEEDER);
    const out = path.join(dir, 'copy.0.et.gz');
    const w = await TraceWriter.create(out, plain.metadata);
    await w.writeAll(plain.nodes);
    const r = await w.close();
    expect(r.nodes).toBe(plain.nodes.length);
    const bytes = await readFile(out);
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    const back = await readTraceFile(out);
    expect(back.nodes.length).toBe(plain.nodes.length);
    expect(back.nodes.map(nodeToJson)).toEqual(plain.nodes.map(nodeToJson));
  });

  it('64-bit ids above 2^53 survive exactly', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-big-'));
    const big = 2n ** 64n - 3n;
    const file = path.join(dir, 'big.0.et');
    const w = await TraceWriter.create(file, { version: '0.0.4', attrs: [] });
    await w.write({
      id: big,
      name: 'x',
      type: 4,
      ctrlDeps: [big - 1n],
      dataDeps: [2n ** 53n + 1n],
      startTimeMicros: 0n,
      durationMicros: 2n ** 60n,
      inputs: null,
      outputs: null,
      attrs: [{ name: 'num_ops', docString: '', kind: 'int64_val', value: -(2n ** 62n) }],
    });
    await w.close();
    const { nodes } = await readTraceFile(file);
    expect(nodes[0].id).toBe(big);
    expect(nodes[0].ctrlDeps[0]).toBe(big - 1n);
    expect(nodes[0].dataDeps[0]).toBe(2n ** 53n + 1n);
    expect(nodes[0].durationMicros).toBe(2n ** 60n);
    expect(nodes[0].attrs[0].value).toBe(-(2n ** 62n));
  });
});

describe('writer safety', () => {
  it('writes under <file>.tmp and renames on close; abort leaves nothing (plain and gzip)', async () => {
    const { existsSync } = await import('node:fs');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-wsafe-'));
    const plain = await readTraceFile(FEEDER);
    for (const name of ['a.0.et', 'b.0.et.gz']) {
      const file = path.join(dir, name);
      const w = await TraceWriter.create(file, plain.metadata);
      await w.writeAll(plain.nodes.slice(0, 2000));
      expect(existsSync(file)).toBe(false);
      await w.abort();
      expect(existsSync(file)).toBe(false);
      expect(existsSync(`${file}.tmp`)).toBe(false);
      const ok = await TraceWriter.create(file, plain.metadata);
      await ok.writeAll(plain.nodes.slice(0, 10));
      await ok.close();
      expect((await readTraceFile(file)).nodes).toHaveLength(10);
      expect(existsSync(`${file}.tmp`)).toBe(false);
    }
  });
});

describe('openTraceBytes with reused buffers', () => {
  it('yields the file bytes in order, each chunk valid until the next, and closes the file', async () => {
    const { openTraceBytes } = await import('../../src/formats/chakra/reader.js');
    const { readdirSync, existsSync } = await import('node:fs');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-reuse-'));
    // Larger than two chunks, so both buffers are reused.
    const bytes = Buffer.alloc(3 * (1 << 20) + 12345);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131) & 0xff;
    const file = path.join(dir, 'x.0.et');
    await writeFile(file, bytes);
    const fds = () => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : 0);
    const before = fds();
    const src = await openTraceBytes(file, { reuseBuffers: true });
    const copies: Buffer[] = [];
    let previous: Buffer | null = null;
    for await (const c of src.chunks) {
      // The previous chunk is still intact while this one is in use (the window copies its rest only now).
      if (previous) expect(previous.equals(copies[copies.length - 1])).toBe(true);
      copies.push(Buffer.from(c));
      previous = c;
    }
    expect(Buffer.concat(copies).equals(bytes)).toBe(true);
    expect(copies.length).toBe(4);
    expect(src.fileBytesRead()).toBe(bytes.length);
    // Read after close(): refused, not an empty file.
    const closed = await openTraceBytes(file, { reuseBuffers: true });
    closed.close();
    await expect(
      (async () => {
        for await (const _ of closed.chunks) void _;
      })(),
    ).rejects.toThrow(/read after close/);
    // Closed before any chunk was asked for: the file is released too.
    const early = await openTraceBytes(file, { reuseBuffers: true });
    early.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(fds()).toBeLessThanOrEqual(before);
    // With a pool: two buffers taken for the file, given back by close() (not before: the last chunks are valid till
    // then).
    const pool = {
      free: [] as Buffer[],
      taken: 0,
      take() {
        this.taken++;
        return this.free.pop() ?? Buffer.allocUnsafe(1 << 20);
      },
      give(b: Buffer) {
        this.free.push(b);
      },
    };
    for (let pass = 0; pass < 2; pass++) {
      const pooled = await openTraceBytes(file, { reuseBuffers: pool });
      const got: Buffer[] = [];
      for await (const c of pooled.chunks) got.push(Buffer.from(c));
      expect(pool.free).toHaveLength(0);
      pooled.close();
      expect(pool.free).toHaveLength(2);
      expect(Buffer.concat(got).equals(bytes)).toBe(true);
    }
    // The second file reused the first one's buffers.
    expect(pool.taken).toBe(4);
    // A pool of too-small buffers is refused, and the file is released all the same.
    const fdsBefore = fds();
    for (let k = 0; k < 3; k++) {
      const small = await openTraceBytes(file, { reuseBuffers: { take: () => Buffer.alloc(10), give: () => {} } });
      await expect(
        (async () => {
          for await (const _ of small.chunks) void _;
        })(),
      ).rejects.toThrow(/chunk buffers must hold/);
      small.close();
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(fds()).toBeLessThanOrEqual(fdsBefore);
    // A gzip file ignores the option and still decompresses.
    const gz = path.join(dir, 'x.1.et');
    await writeFile(gz, gzipSync(bytes.subarray(0, 1000)));
    const z = await openTraceBytes(gz, { reuseBuffers: true });
    const zc: Buffer[] = [];
    for await (const c of z.chunks) zc.push(Buffer.from(c));
    expect(z.compressed).toBe(true);
    expect(Buffer.concat(zc).equals(bytes.subarray(0, 1000))).toBe(true);
  });
});

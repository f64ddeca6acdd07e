/**
 * The annotate fast path at volume: ranks larger than a read chunk, whose annotated output fills several output
 * buffers within one chunk, with every splice case (duration kept, lengthened, shortened or absent; fields after
 * the attributes). Checked against the full decoder/encoder and against the input. Also: unmatched-name ordering
 * across the top-20 cut, and the compiled worker path (when dist/ is built) against the in-process one.
 */
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ProfileTable } from '../../src/vocab/kernel-sample.js';
import {
  annotateRankFile,
  annotateTrace,
  buildPlan,
  loadPowerBase,
  memoryPjPerBitOf,
  stripAnnotation,
  type AnnotateOptions,
  type AnnotateResult,
} from '../../src/engines/annotate/index.js';
import { ThreadCache } from '../../src/engines/annotate/thread-cache.js';
import { loadCalibration, type Calibration } from '../../src/engines/calibrate/index.js';
import {
  ByteSink,
  emptyNode,
  encodeMetadataFrame,
  encodeTrace,
  makeAttr,
  NodeType,
  readTraceFile,
  type ChakraNode,
} from '../../src/formats/chakra/index.js';
import { encodeNode } from '../../src/formats/chakra/encode.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';

const KERNELS = [
  'BlackScholesGPU',
  'matrixMulCUDA',
  'vectorAdd',
  'reduce2_float',
  'histogram256Kernel',
  'transposeCoalesced',
];
/** Original durations: absent, and one, two and three varint bytes long. */
const DURATIONS = [0n, 5n, 300n, 70_000n];

/**
 * One rank: profiled kernels, roofline and unprofiled kernels, host ops, all-reduces; some frames carry an unknown
 * field after the attributes.
 */
function rankBytes(rank: number, nodes: number): Buffer {
  const sink = new ByteSink();
  encodeMetadataFrame(sink, { version: '', attrs: [makeAttr('schema', 'string_val', '1.0.2-chakra.0.0.4')] });
  const msg = new ByteSink(256);
  for (let i = 0; i < nodes; i++) {
    const id = BigInt(rank * nodes + i);
    const k = i % 10;
    let n: ChakraNode;
    if (k === 9) {
      n = emptyNode(id, `allreduce_${i}`, NodeType.COMM_COLL_NODE);
      n.attrs = [makeAttr('comm_type', 'int64_val', 0), makeAttr('comm_size', 'int64_val', 1 << 20)];
    } else if (k === 8) {
      n = emptyNode(id, `aten::add_(${i})`, NodeType.COMP_NODE);
      n.attrs = [makeAttr('is_cpu_op', 'bool_val', true)];
    } else if (k >= 6) {
      n = emptyNode(id, `unprofiled_${k}`, NodeType.COMP_NODE);
      n.attrs = [
        makeAttr('is_cpu_op', 'bool_val', false),
        makeAttr('num_ops', 'int64_val', 1_000_000 * (1 + (i % 5))),
        makeAttr('tensor_size', 'uint64_val', 4096 * k),
      ];
    } else {
      n = emptyNode(id, KERNELS[(i + rank) % KERNELS.length], NodeType.COMP_NODE);
      n.attrs = [makeAttr('is_cpu_op', 'bool_val', false)];
    }
    n.durationMicros = DURATIONS[(i >> 1) % DURATIONS.length];
    if (i > 0) n.dataDeps = [id - 1n];
    msg.reset();
    encodeNode(msg, n);
    // Field 15 (unknown to the schema, kept by the codec after the attributes) on every seventh frame.
    if (i % 7 === 3) {
      msg.tag(15, 0);
      msg.varint(i);
    }
    sink.bytes(msg.view());
  }
  return Buffer.from(sink.view());
}

let cal: Calibration;
let profile: ProfileTable;
let dir: string;
const FREQS = [705, 1710];

describeShared('annotate: ranks larger than a chunk, output larger than a buffer', () => {
  let prefix: string;
  let fast: AnnotateResult;
  let opts: AnnotateOptions;

  beforeAll(async () => {
    cal = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    profile = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'));
    dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-paths-'));
    prefix = path.join(dir, 'big');
    for (const r of [0, 1]) writeFileSync(`${prefix}.${r}.et`, rankBytes(r, 24_000));
    opts = {
      trace: prefix,
      out: path.join(dir, 'fast', 'big'),
      calibration: cal,
      profiles: [profile],
      frequenciesMHz: FREQS,
    };
    fast = await annotateTrace(opts);
  });
  // Some 60 MB of traces and outputs: not left behind.
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads more than a chunk and writes more than an output buffer per rank', () => {
    expect(readFileSync(`${prefix}.0.et`).length).toBeGreaterThan(1 << 20);
    for (const pf of fast.ranks[0].perFrequency) expect(readFileSync(pf.file).length).toBeGreaterThan(5 << 20);
    expect(fast.total.slowPathNodes).toBe(0);
    expect(fast.total.roofline).toBeGreaterThan(0);
    expect(fast.total.matched.exact).toBeGreaterThan(0);
  });

  it('writes what the full decoder and encoder write', async () => {
    const slow = await annotateTrace({ ...opts, out: path.join(dir, 'slow', 'big'), fastPath: false });
    expect(slow.total.slowPathNodes).toBe(fast.total.gpuCompNodes - fast.total.untouched);
    for (const [r, rank] of fast.ranks.entries()) {
      for (const [i, pf] of rank.perFrequency.entries())
        expect(Buffer.compare(readFileSync(pf.file), readFileSync(slow.ranks[r].perFrequency[i].file))).toBe(0);
    }
    expect(slow.outputs.map((o) => o.computeEnergyJ)).toEqual(fast.outputs.map((o) => o.computeEnergyJ));
  });

  it('keeps every output buffer at its pooled size: flushes come within a chunk, not after it', async () => {
    const cache = new ThreadCache();
    // The plan annotateTrace made: roofline nodes take their DRAM part from the power preset's memory pJ/bit.
    const memoryPjPerBit = memoryPjPerBitOf(await loadPowerBase({}, cal.device.name), {});
    const plan = buildPlan(cal, [profile], { frequenciesMHz: FREQS, memoryPjPerBit });
    const outFiles = FREQS.map((f) => path.join(dir, 'pool', `big.${f}.0.et`));
    await annotateRankFile({ rank: 0, file: `${prefix}.0.et`, outFiles }, plan, undefined, cache);
    // One buffer per output, the input window's and the reader's two, all handed back at their size (a grown one
    // would be dropped).
    expect(cache.buffers.available).toBe(FREQS.length + 3);
    for (const [i, f] of outFiles.entries())
      expect(Buffer.compare(readFileSync(f), readFileSync(fast.ranks[0].perFrequency[i].file))).toBe(0);
  });

  it('keeps the pooled sizes on a real trace whose frames are mostly copied unchanged', async () => {
    const cache = new ThreadCache();
    const plan = buildPlan(cal, [profile], { frequenciesMHz: FREQS });
    const file = shared('traces', 'chakra-tests', 'feeder_tests_chakra.0.et');
    const outFiles = FREQS.map((f) => path.join(dir, 'pool', `feeder.${f}.0.et`));
    await annotateRankFile({ rank: 0, file, outFiles }, plan, undefined, cache);
    expect(cache.buffers.available).toBe(FREQS.length + 3);
    // Its GPU kernels (no profile, no num_ops) are estimated from their durations; the rest is copied unchanged.
    for (const f of outFiles) {
      const out = await readTraceFile(f);
      for (const n of out.nodes) stripAnnotation(n, cal.components);
      expect(Buffer.compare(encodeTrace(out.metadata, out.nodes), readFileSync(file))).toBe(0);
    }
  });

  it('changes nothing else: stripping the annotation gives back the input bytes', async () => {
    for (const [r, rank] of fast.ranks.entries()) {
      for (const pf of rank.perFrequency) {
        const out = await readTraceFile(pf.file);
        for (const n of out.nodes) stripAnnotation(n, cal.components);
        expect(Buffer.compare(encodeTrace(out.metadata, out.nodes), readFileSync(`${prefix}.${r}.et`))).toBe(0);
      }
    }
  });
});

describeShared('annotate: a first frame longer than a read chunk', () => {
  it('copies a 1.5 MiB metadata frame, or annotates a 1.5 MiB first node, as the full decoder does', async (ctx) => {
    const c = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    const p = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'));
    const d = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-first-'));
    ctx.onTestFinished(() => rm(d, { recursive: true, force: true }));
    const big = 'x'.repeat(1536 * 1024);
    const rest = Array.from({ length: 2000 }, (_, i) => {
      const n = emptyNode(BigInt(i + 1), KERNELS[i % KERNELS.length], NodeType.COMP_NODE);
      n.durationMicros = 7n;
      return n;
    });
    const first = emptyNode(0n, 'vectorAdd', NodeType.COMP_NODE);
    first.attrs = [makeAttr('note', 'string_val', big)];
    writeFileSync(
      path.join(d, 'm.0.et'),
      encodeTrace({ version: '', attrs: [makeAttr('note', 'string_val', big)] }, rest),
    );
    writeFileSync(path.join(d, 'n.0.et'), encodeTrace(null, [first, ...rest]));
    for (const t of ['m', 'n']) {
      const base = { trace: path.join(d, t), calibration: c, profiles: [p], frequenciesMHz: [1410] };
      const fastRes = await annotateTrace({ ...base, out: path.join(d, 'fast', t) });
      const slowRes = await annotateTrace({ ...base, out: path.join(d, 'slow', t), fastPath: false });
      expect(fastRes.total.gpuCompNodes).toBe(t === 'm' ? 2000 : 2001);
      expect(fastRes.total.matched.exact).toBe(fastRes.total.gpuCompNodes);
      expect(
        Buffer.compare(
          readFileSync(fastRes.ranks[0].perFrequency[0].file),
          readFileSync(slowRes.ranks[0].perFrequency[0].file),
        ),
      ).toBe(0);
      const out = await readTraceFile(fastRes.ranks[0].perFrequency[0].file);
      for (const n of out.nodes) stripAnnotation(n, c.components);
      expect(Buffer.compare(encodeTrace(out.metadata, out.nodes), readFileSync(path.join(d, `${t}.0.et`)))).toBe(0);
    }
  });
});

describeShared('annotate: unmatched names', () => {
  it('lists the 20 most frequent, ties in name order, also when ties straddle the cut', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-names-'));
    const nodes: ChakraNode[] = [];
    // 30 names: counts 3 (names a..e), 2 (f..x, straddling the 20th place), 1 (the rest), in scrambled order.
    const names = [...'abcdefghijklmnopqrstuvwxyz0123'].map((c) => `kernel_${c}`);
    const count = (i: number) => (i < 5 ? 3 : i < 24 ? 2 : 1);
    for (const [i, name] of names.entries())
      for (let k = 0; k < count(i); k++) nodes.push(emptyNode(0n, name, NodeType.COMP_NODE));
    nodes.reverse().forEach((n, i) => (n.id = BigInt(i)));
    writeFileSync(path.join(d, 'n.0.et'), encodeTrace(null, nodes));
    const c = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    const res = await annotateTrace({
      trace: path.join(d, 'n'),
      out: path.join(d, 'o'),
      calibration: c,
      profiles: [],
      frequenciesMHz: [1410],
    });
    const expected = names
      .map((name, i) => ({ name, count: count(i) }))
      .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))
      .slice(0, 20);
    expect(res.ranks[0].unmatchedNames).toEqual(expected);
    expect(res.total.unmatchedNames).toEqual(expected);
  });
});

describeShared('annotate: an output that fails', () => {
  it('closes every output file when one fails on its last write (a full disk), call after call', async (ctx) => {
    if (!existsSync('/dev/full') || !existsSync('/proc/self/fd')) ctx.skip();
    const d = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-full-'));
    ctx.onTestFinished(() => rm(d, { recursive: true, force: true }));
    writeFileSync(path.join(d, 'g.0.et'), rankBytes(0, 200));
    // The first of the two outputs is written to /dev/full (its temporary name leads there, again before each run:
    // a failed run removes it): its final flush fails with ENOSPC.
    const c = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    const p = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'));
    const fds = () => readdirSync('/proc/self/fd').length;
    const run = () => {
      symlinkSync('/dev/full', path.join(d, 'o.870MHz.0.et.tmp'));
      return annotateTrace({
        trace: path.join(d, 'g'),
        out: path.join(d, 'o'),
        calibration: c,
        profiles: [p],
        frequenciesMHz: [870, 1410],
        workers: 1,
      });
    };
    await expect(run()).rejects.toMatchObject({
      code: 'INPUT',
      message: expect.stringMatching(/cannot write \(ENOSPC\)$/),
    });
    const before = fds();
    for (let k = 0; k < 3; k++) await expect(run()).rejects.toMatchObject({ code: 'INPUT' });
    expect(fds()).toBe(before);
    expect(readdirSync(d)).toEqual(['g.0.et']);
  });
});

const builtIndex = path.join(repoRoot, 'dist', 'engines', 'annotate', 'index.js');

describeShared('annotate: the compiled worker path', () => {
  it('writes the same files and figures in worker threads as in-process', async (ctx) => {
    if (!existsSync(builtIndex)) {
      console.warn('dist/ not built (npm ci runs the prepare build): skipping the worker-thread comparison');
      ctx.skip();
    }
    const built = (await import(builtIndex)) as typeof import('../../src/engines/annotate/index.js');
    // npm run build bundles the worker; the pool loads that one file, so the comparison below runs it.
    expect(built.annotateWorkerFile()).toBe(path.join(path.dirname(builtIndex), 'worker.bundle.js'));
    const c = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    const p = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'));
    const d = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-workers-'));
    ctx.onTestFinished(() => rm(d, { recursive: true, force: true }));
    for (const r of [0, 1, 2]) writeFileSync(path.join(d, `g.${r}.et`), rankBytes(r, 3000));
    const traces = [
      path.join(d, 'g'),
      shared('traces', 'tutorials-micro2024', 'micro2024', 'astra-sim-demo', 'demo2', 'workload', 'MLP_ModelParallel'),
    ];
    for (const [t, trace] of traces.entries()) {
      const base = { trace, calibration: c, profiles: [p], frequenciesMHz: [870, 1410] };
      const threads = await built.annotateTrace({ ...base, out: path.join(d, `w${t}`, 'o'), workers: 3 });
      const here = await annotateTrace({ ...base, out: path.join(d, `i${t}`, 'o'), workers: 1 });
      expect(threads.parallelism).toEqual({ mode: 'workers', threads: 3 });
      expect(here.parallelism.mode).toBe('in-process');
      const strip = (x: AnnotateResult) => ({
        ...x,
        outputs: x.outputs.map((o) => o.computeEnergyJ),
        ranks: x.ranks.map((r) => ({ ...r, perFrequency: r.perFrequency.map((f) => f.computeEnergyJ) })),
        parallelism: null,
      });
      expect(strip(threads)).toEqual(strip(here));
      for (const [r, rank] of here.ranks.entries()) {
        for (const [i, pf] of rank.perFrequency.entries())
          expect(Buffer.compare(readFileSync(pf.file), readFileSync(threads.ranks[r].perFrequency[i].file))).toBe(0);
      }
    }
  });

  it('reports an --out under a regular file from a worker thread as an input error naming the path', async (ctx) => {
    if (!existsSync(builtIndex)) ctx.skip();
    const built = (await import(builtIndex)) as typeof import('../../src/engines/annotate/index.js');
    const d = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-workers-'));
    ctx.onTestFinished(() => rm(d, { recursive: true, force: true }));
    for (const r of [0, 1, 2, 3]) writeFileSync(path.join(d, `g.${r}.et`), rankBytes(r, 50));
    writeFileSync(path.join(d, 'a-file'), 'not a folder');
    const c = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    const run = built.annotateTrace({
      trace: path.join(d, 'g'),
      out: path.join(d, 'a-file', 'sub', 'o'),
      calibration: c,
      profiles: [],
      frequenciesMHz: [1410],
      workers: 2,
    });
    await expect(run).rejects.toMatchObject({
      code: 'INPUT',
      message: expect.stringMatching(/a-file.*: cannot (write|create its folder) \(ENOTDIR\)$/),
    });
  });

  it('loads worker.js instead of the bundle once a bundled module is newer (a tsc run since the bundle)', async (ctx) => {
    if (!existsSync(builtIndex)) ctx.skip();
    const built = (await import(builtIndex)) as typeof import('../../src/engines/annotate/index.js');
    const dir = path.dirname(builtIndex);
    const rankJs = path.join(dir, 'rank.js');
    const { atime, mtime } = statSync(rankJs);
    ctx.onTestFinished(() => utimesSync(rankJs, atime, mtime));
    const later = new Date(statSync(path.join(dir, 'worker.bundle.js')).mtimeMs + 60_000);
    utimesSync(rankJs, later, later);
    expect(built.annotateWorkerFile()).toBe(path.join(dir, 'worker.js'));
    utimesSync(rankJs, atime, mtime);
    expect(built.annotateWorkerFile()).toBe(path.join(dir, 'worker.bundle.js'));
  });
});

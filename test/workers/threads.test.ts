/**
 * Typed errors thrown in worker threads, on the built code (dist/, where the worker modules are compiled): a bad
 * rank file annotated in a worker, and a rank that replay refuses in `sweep gpu` and `sweep network` points run on
 * two threads, arrive as the same class with the same message as in-process; the CLI prints one line and exits 2.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyNode, encodeTrace, makeAttr, NodeType, type ChakraNode } from '../../src/formats/chakra/index.js';
import { writeLlmTraces } from '../../src/engines/generate/index.js';
import { repoRoot } from '../helpers/shared.js';

const dist = path.join(repoRoot, 'dist');
const built = existsSync(path.join(dist, 'engines', 'studies', 'point-worker.js'));
if (!built) console.warn('dist/ not built (npm run build): the worker-thread error tests are skipped');

type Errors = typeof import('../../src/errors.js');
type Annotate = typeof import('../../src/engines/annotate/index.js');
type Studies = typeof import('../../src/engines/studies/network-sweep.js') &
  typeof import('../../src/engines/studies/gpu-sweep.js');
type Replay = typeof import('../../src/engines/replay/index.js');

let dir: string;
let errors: Errors;
let annotate: Annotate;
let studies: Studies;
let replay: Replay;
let cluster: { system: string; network: string };
const calibration = path.join(repoRoot, 'calibration', 'h100-datasheet.json');

/**
 * One rank: compute nodes with num_ops / tensor_size (annotated by roofline), then an all-reduce, unless `broken`: a
 * collective without comm_type, which replay refuses.
 */
function rank(_r: number, broken: boolean): Buffer {
  const nodes: ChakraNode[] = [];
  for (let i = 0; i < 40; i++) {
    const n = emptyNode(BigInt(i), `gemm_${i}`, NodeType.COMP_NODE);
    n.attrs = [
      makeAttr('is_cpu_op', 'bool_val', false),
      makeAttr('num_ops', 'int64_val', 1_000_000_000),
      makeAttr('tensor_size', 'uint64_val', 1 << 20),
    ];
    n.durationMicros = 100n;
    if (i > 0) n.dataDeps = [BigInt(i - 1)];
    nodes.push(n);
  }
  const c = emptyNode(40n, 'allreduce', NodeType.COMM_COLL_NODE);
  c.attrs = [
    makeAttr('is_cpu_op', 'bool_val', false),
    makeAttr('comm_size', 'int64_val', 1 << 20),
    ...(broken ? [] : [makeAttr('comm_type', 'int64_val', 0)]),
  ];
  c.dataDeps = [39n];
  nodes.push(c);
  return encodeTrace({ version: '', attrs: [makeAttr('schema', 'string_val', '1.0.2-chakra.0.0.4')] }, nodes);
}

beforeAll(async () => {
  if (!built) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-worker-errors-'));
  errors = await import(path.join(dist, 'errors.js'));
  annotate = await import(path.join(dist, 'engines', 'annotate', 'index.js'));
  studies = {
    ...(await import(path.join(dist, 'engines', 'studies', 'network-sweep.js'))),
    ...(await import(path.join(dist, 'engines', 'studies', 'gpu-sweep.js'))),
  };
  replay = await import(path.join(dist, 'engines', 'replay', 'index.js'));
  // A 2-rank cluster (system.json, network.yml) from the generator; the ranks are ours.
  const w = await writeLlmTraces({
    model: 'llama2-7b',
    dp: 1,
    tp: 2,
    pp: 1,
    microBatch: 1,
    globalBatch: 1,
    seqLen: 128,
    outPrefix: path.join(dir, 'llm'),
  });
  cluster = { system: w.systemFile, network: w.networkFile };
  for (const r of [0, 1]) writeFileSync(path.join(dir, `ok.${r}.et`), rank(r, false));
  // Rank 1 refused by replay only (annotate copies collectives as they are).
  writeFileSync(path.join(dir, 'bad.0.et'), rank(0, false));
  writeFileSync(path.join(dir, 'bad.1.et'), rank(1, true));
  // Rank 1 cut inside its last frame: a decode error.
  writeFileSync(path.join(dir, 'cut.0.et'), rank(0, false));
  const whole = rank(1, false);
  writeFileSync(path.join(dir, 'cut.1.et'), whole.subarray(0, whole.length - 5));
}, 60_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The error `run` rejects with. */
async function thrown(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

/** `tracewatt …` on the built CLI, as a user runs it. */
function cli(args: string[]) {
  const r = spawnSync(process.execPath, [path.join(dist, 'cli', 'main.js'), ...args], { encoding: 'utf8' });
  return { code: r.status, err: r.stderr, out: r.stdout };
}

describe.skipIf(!built)('typed errors from worker threads (built code)', () => {
  it('annotate: a bad rank file annotated in a worker thread is the same ChakraDecodeError as in-process', async () => {
    const opts = { trace: path.join(dir, 'cut'), calibration, profiles: [], frequenciesMHz: [1410] };
    // Two ranks, two threads: rank 0 stays in this thread, rank 1 (the cut one) goes to the worker.
    const inWorker = await thrown(() =>
      annotate.annotateTrace({ ...opts, out: path.join(dir, 'aw', 'o'), workers: 2 }),
    );
    const here = await thrown(() => annotate.annotateTrace({ ...opts, out: path.join(dir, 'ah', 'o'), workers: 1 }));
    expect(here).toBeInstanceOf(errors.ChakraDecodeError);
    expect(inWorker).toBeInstanceOf(errors.ChakraDecodeError);
    expect(inWorker.constructor).toBe(errors.ChakraDecodeError);
    expect(inWorker.message).toBe(here.message);
    expect(inWorker.message).toMatch(/cut\.1\.et: frame \d+ at byte \d+: /);
    expect((inWorker as InstanceType<Errors['ChakraDecodeError']>).location).toEqual(
      (here as InstanceType<Errors['ChakraDecodeError']>).location,
    );
    // And it was the worker that threw it.
    expect(inWorker.stack).not.toBe(here.stack);

    const r = cli([
      'annotate',
      path.join(dir, 'cut'),
      '--calibration',
      calibration,
      '--frequency',
      '1410',
      '--out',
      path.join(dir, 'ac', 'o'),
      '--workers',
      '2',
    ]);
    expect(r.err).toBe(`tracewatt: error: ${here.message}\n`);
    expect(r.code).toBe(2);
  }, 60_000);

  it('sweep network and sweep gpu: a point refused in a worker thread (2 threads) is the same InputError as ' +
    'in-process', async () => {
    const configs = await replay.loadClusterConfigs({ ...cluster, power: 'h100-cluster' });
    const trace = path.join(dir, 'bad');
    const network = (threads: number) =>
      studies.networkSweepPoints({
        label: 'bad',
        trace: { kind: 'files', trace },
        ...configs,
        dimension: 0,
        scales: [0.5, 0.75, 1],
        threads,
      });
    // The annotated ranks (kept in a folder of ours) are what replay reads: each clock's rank 1 is refused, the
    // first to fail stops the sweep (which clock that is depends on the threads).
    const gpu = (threads: number) =>
      studies.gpuSweepPoints({
        label: 'bad',
        trace,
        calibration,
        profiles: [],
        frequenciesMHz: [810, 1395, 1980],
        ...configs,
        threads,
        workDir: path.join(dir, 'gpu'),
      });
    // With the collective intact, both sweeps give in worker threads what they give in-process.
    const ok = path.join(dir, 'ok');
    const goodNetwork = (threads: number) =>
      studies.networkSweepPoints({
        label: 'ok',
        trace: { kind: 'files', trace: ok },
        ...configs,
        dimension: 0,
        scales: [0.5, 1],
        threads,
      });
    const goodGpu = (threads: number) =>
      studies.gpuSweepPoints({
        label: 'ok',
        trace: ok,
        calibration,
        profiles: [],
        frequenciesMHz: [810, 1980],
        ...configs,
        threads,
      });
    for (const good of [goodNetwork, goodGpu]) {
      const [two, one] = [await good(2), await good(1)];
      expect(two.parallelism).toEqual({ mode: 'workers', threads: 2 });
      expect(one.parallelism.mode).toBe('in-process');
      expect(two.points).toEqual(one.points);
    }
    for (const sweep of [network, gpu]) {
      const inThreads = await thrown(() => sweep(2));
      const here = await thrown(() => sweep(1));
      expect(here).toBeInstanceOf(errors.InputError);
      expect(inThreads).toBeInstanceOf(errors.InputError);
      expect(inThreads.constructor).toBe(errors.InputError);
      const anyClock = (m: string) => m.replace(/\.\d+MHz\./, '.<F>MHz.');
      expect(anyClock(inThreads.message)).toBe(anyClock(here.message));
      expect((inThreads as InstanceType<Errors['InputError']>).code).toBe('INPUT');
      expect(inThreads.message).toMatch(/(bad|annotated\.\d+MHz)\.1\.et: node 40 .* has no comm_type attribute/);
    }
  }, 120_000);

  it("sweep gpu in a temporary folder: an error names the user's rank and the clock, not the deleted copy", async () => {
    const configs = await replay.loadClusterConfigs({ ...cluster, power: 'h100-cluster' });
    const trace = path.join(dir, 'bad');
    const e = await thrown(() =>
      studies.gpuSweepPoints({
        label: 'bad',
        trace,
        calibration,
        profiles: [],
        frequenciesMHz: [810, 1980],
        ...configs,
        threads: 1,
      }),
    );
    expect(e).toBeInstanceOf(errors.InputError);
    expect(e.message).toMatch(
      new RegExp(
        `rank 1 of ${trace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(annotated at \\d+ MHz\\): node 40 .* has ` +
          `no comm_type attribute`,
      ),
    );
    expect(e.message).not.toContain('tracewatt-sweep-gpu-');
  }, 120_000);

  it('sweep network and sweep gpu on 2 threads: the CLI prints the error in one line and exits 2', () => {
    const trace = path.join(dir, 'bad');
    const common = ['--system', cluster.system, '--network', cluster.network, '--threads', '2'];
    for (const args of [
      ['sweep', 'network', trace, ...common, '--dimension', '0', '--scale', '0.5,0.75,1'],
      [
        'sweep',
        'gpu',
        trace,
        ...common,
        '--calibration',
        calibration,
        '--frequencies',
        '810,1395,1980',
        '--keep',
        path.join(dir, 'kept'),
      ],
    ]) {
      const r = cli(args);
      // sweep gpu replays the annotated copy of rank 1 (kept where --keep says).
      expect(r.err, args[1]).toMatch(
        /^tracewatt: error: \S*(bad|kept\/annotated\.\d+MHz)\.1\.et: node 40 \("allreduce", COMM_COLL_NODE\) has no comm_type attribute\n$/,
      );
      expect(r.code, args[1]).toBe(2);
    }
  }, 120_000);
});

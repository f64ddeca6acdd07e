/**
 * `import kineto` on real Kineto traces: what it reads (collectives typed as the execution-trace path types them,
 * CUDA synchronisation from cuda_sync records, ROCm traces), what it writes (valid, annotatable, replayable modelled
 * and as measured), and bad input: a trace without a ProfilerStep, duplicated or shuffled events, correlation ids
 * above 2^53, rank files missing, given twice, from another run, corrupt or of another iteration — each a one-line
 * error naming the file or a counted note.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotateTrace } from '../../src/engines/annotate/index.js';
import { importPytorch } from '../../src/engines/import/index.js';
import { importKineto, type KinetoImportResult } from '../../src/engines/import/kineto.js';
import { replayAsMeasured } from '../../src/engines/replay/as-measured.js';
import { replayFiles, resolvePower } from '../../src/engines/replay/index.js';
import { validateTrace } from '../../src/engines/trace/validate.js';
import { InputError } from '../../src/errors.js';
import { attrInt, NodeType, readTraceFile } from '../../src/formats/chakra/index.js';
import { cli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const hta = (f: string) => path.join(repoRoot, 'test', 'fixtures', 'kineto-hta', `${f}.json.gz`);
const eventSync = hta('critical_path--cuda_event_sync__event_sync_trace');
const multiStream = hta('critical_path--cuda_event_sync_multi_stream__event_sync_trace');
const dlrmDir = shipped('pytorch-real', 'dlrm');
let dir: string;
let dlrmFiles: string[];
let dlrm: KinetoImportResult;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-kineto-'));
  dlrmFiles = (await readdir(dlrmDir))
    .filter((f) => f.startsWith('worker'))
    .sort()
    .map((f) => path.join(dlrmDir, f));
  dlrm = await importKineto({ dir: dlrmDir, out: path.join(dir, 'dlrm') });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Json = { traceEvents: Record<string, unknown>[]; [k: string]: unknown };
const load = async (f: string): Promise<Json> => JSON.parse(gunzipSync(await readFile(f)).toString('utf8')) as Json;
const put = async (name: string, text: string) => {
  const f = path.join(dir, name);
  await writeFile(f, text);
  return f;
};

describe('import kineto: DLRM, 8 ranks on V100, from its Kineto traces alone', () => {
  it("every rank: the ET path's collectives with the same types and sizes, every GPU op, valid", async () => {
    expect(dlrm.ranks.map((r) => r.rank)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(dlrm.worldSize).toBe(8);
    const et = await importPytorch({ dir: dlrmDir, out: path.join(dir, 'dlrm-et') });
    for (const r of dlrm.ranks) {
      expect(r.iteration?.label).toBe('ProfilerStep#10');
      expect(r.stats.collectives).toEqual({ all_to_all: 5, all_reduce: 3 });
      expect(r.stats.groupUnknown).toBe(8);
      expect(r.measured.clamped).toBe(0);
      expect(r.measured.hostWaitDeps).toBeGreaterThanOrEqual(10);
      // Ranks 1 and 3 run 64 kernels of the previous step whose launches the trace lacks: kept, said.
      expect(r.stats.carriedOver).toBe(r.rank === 1 || r.rank === 3 ? 64 : 0);
      const etRank = et.ranks.find((x) => x.rank === r.rank)!;
      expect(r.stats.gpuByKind.memcpy).toBe(etRank.convert.gpuByKind.memcpy);
      expect(r.stats.gpuByKind.kernel).toBe(etRank.convert.gpuByKind.kernel + r.stats.carriedOver);
      const sizes = async (file: string) =>
        (await readTraceFile(file)).nodes
          .filter((n) => n.type === NodeType.COMM_COLL_NODE)
          .sort((a, b) => Number(a.startTimeMicros - b.startTimeMicros))
          .map((n) => `${attrInt(n, 'comm_type')}:${attrInt(n, 'comm_size')}`);
      expect(await sizes(r.file)).toEqual(await sizes(etRank.file));
    }
    expect((await validateTrace(path.join(dir, 'dlrm'))).errors).toBe(0);
  });

  it('replays modelled on 8 NPUs, the measured iteration beside it; annotates from its own Kineto traces', async () => {
    const res = await replayFiles({
      trace: path.join(dir, 'dlrm'),
      system: shipped('configs', 'sys_ring_example.json'),
      network: shipped('configs', 'Switch_8npus.yml'),
      power: 'v100-cluster',
    });
    expect(res.ranks).toHaveLength(8);
    expect(res.makespanNs).toBeGreaterThan(0);
    const a = await annotateTrace({
      trace: path.join(dir, 'dlrm'),
      out: path.join(dir, 'dlrm-1380'),
      calibration: 'calibration/v100.json',
      profiles: dlrmFiles,
      frequenciesMHz: [1380],
      referenceClockMHz: 1380,
    });
    for (const r of a.ranks) expect(r.matchRate).toBe(1);
    // annotate keeps the measured timeline: the annotated trace replays as measured to the same iterations.
    const again = await replayAsMeasured({
      trace: path.join(dir, 'dlrm-1380'),
      power: await resolvePower('v100-cluster'),
    });
    expect(again.ranks.map((r) => r.finishNs)).toEqual(dlrm.ranks.map((r) => r.iteration!.ns));
  });

  it('the CLI prints one row per rank, what a Kineto trace cannot tell, and --json', async () => {
    const r = await cli(['import', 'kineto', ...dlrmFiles, '--out', path.join(dir, 'cli')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/measured\s+iteration/);
    expect(r.out).toMatch(/what a Kineto trace alone cannot tell/);
    expect(r.out).toMatch(/world size 8, measured iteration ProfilerStep#10/);
    const j = await cli(['import', 'kineto', '--dir', dlrmDir, '--out', path.join(dir, 'cli'), '--json']);
    expect((JSON.parse(j.out) as KinetoImportResult).ranks[1]!.iteration!.ns).toBe(19901000);
  });
});

describe('import kineto: what the trace records about synchronisation and devices', () => {
  it('cuda_sync records (newer Kineto) name the stream and the event: the waits are exact, not inferred', async () => {
    const r = (await importKineto({ traces: [eventSync], out: path.join(dir, 'es') })).ranks[0]!;
    expect(r.measured.syncs).toMatchObject({ streamSync: 1, eventSync: 1, deviceSync: 1 });
    expect(r.measured.syncsFromRecords).toBeGreaterThanOrEqual(2);
    // The stream sync waits for the copy; the event and device syncs for the spin kernel, which the node closing the
    // iteration (the first host node after the calls) already waits for as the last op of its stream.
    expect(r.measured.hostWaitDeps).toBe(1);
    expect(r.measured.inferredDeps).toBe(0);
    expect(r.measured.contradicted).toBe(0);
  });

  it('AMD MI250 (ROCm 6.2): hip* calls read, kernels and copies kept, what differs said', async () => {
    const r = (
      await importKineto({ traces: [hta('amd_trace--mi250_minitoy_train_ROCm6_2_kineto')], out: path.join(dir, 'amd') })
    ).ranks[0]!;
    expect(r.platform).toBe('rocm');
    expect(r.device).toBe('AMD Radeon Graphics');
    expect(r.stats.gpuByKind).toEqual({ kernel: 14, memcpy: 2, memset: 0 });
    expect(r.stats.copiesWithoutBytes).toBe(2);
    expect(r.measured.syncs.copySync).toBe(2); // hipMemcpyWithStream is synchronous
    expect(r.notes.join('\n')).toMatch(/ROCm \(HIP\) trace: hip\* runtime calls read as their CUDA counterparts/);
  });
});

describe('import kineto: bad input', () => {
  it(
    'no ProfilerStep: imported whole and said; replay --as-measured refuses with the --window hint; --window ' +
      'then works',
    async () => {
      const r = await importKineto({ traces: [multiStream], out: path.join(dir, 'nostep') });
      expect(r.ranks[0]!.iteration).toBeNull();
      expect(r.ranks[0]!.notes.join('\n')).toMatch(/has no ProfilerStep/);
      const refused = await cli(['replay', path.join(dir, 'nostep'), '--as-measured']);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/no measured iteration .*--window START:END/);
      expect(refused.err.trim().split('\n')).toHaveLength(1);
      const j = await load(multiStream);
      const ts = j.traceEvents.filter((e) => e.ph === 'X').map((e) => e.ts as number);
      const w = `${Math.min(...ts)}:${Math.max(...ts) + 100}`;
      const win = await importKineto({ traces: [multiStream], out: path.join(dir, 'win'), window: w });
      expect(win.ranks[0]!.iteration!.label).toBe(`window ${w}`);
      expect(win.ranks[0]!.measured.gpuWaitDeps).toBeGreaterThanOrEqual(1); // cudaStreamWaitEvent, from its record
      const replayed = await replayAsMeasured({ trace: path.join(dir, 'win'), power: await resolvePower() });
      expect(replayed.ranks[0]!.finishNs).toBe(win.ranks[0]!.iteration!.ns);
    },
  );

  it('events written twice or out of order give the same graph (duplicates counted)', async () => {
    const j = await load(eventSync);
    const base = (await importKineto({ traces: [eventSync], out: path.join(dir, 'once') })).ranks[0]!;
    const doubled = await put(
      'doubled.json',
      JSON.stringify({ ...j, traceEvents: [...j.traceEvents, ...j.traceEvents.filter((e) => e.ph === 'X')] }),
    );
    const d = (await importKineto({ traces: [doubled], out: path.join(dir, 'doubled') })).ranks[0]!;
    expect(d.notes.join('\n')).toMatch(/events repeat another exactly/);
    const shuffled = await put('shuffled.json', JSON.stringify({ ...j, traceEvents: [...j.traceEvents].reverse() }));
    const s = (await importKineto({ traces: [shuffled], out: path.join(dir, 'shuffled') })).ranks[0]!;
    for (const x of [d, s]) {
      expect(x.stats).toEqual(base.stats);
      expect(x.iteration).toEqual(base.iteration);
    }
    const nodes = async (p: string) =>
      (await readTraceFile(`${p}.0.et`)).nodes.map((n) => `${n.name}|${n.dataDeps}|${n.ctrlDeps}`);
    expect(await nodes(path.join(dir, 'doubled'))).toEqual(await nodes(path.join(dir, 'once')));
  });

  it('correlation ids above 2^53 are kept exact: kernels still find their launches', async () => {
    const text = gunzipSync(await readFile(eventSync))
      .toString('utf8')
      .replace(
        /"(correlation|wait_on_cuda_event_record_corr_id)": (\d+)/g,
        (_, k, c) => `"${k}": 90071992547409${String(c).padStart(5, '0')}`,
      );
    const big = await put('big-ids.json', text);
    const r = (await importKineto({ traces: [big], out: path.join(dir, 'big') })).ranks[0]!;
    const base = (await importKineto({ traces: [eventSync], out: path.join(dir, 'small') })).ranks[0]!;
    expect(r.stats).toEqual(base.stats);
    expect(r.measured.syncsFromRecords).toBe(base.measured.syncsFromRecords);
    const kernel = (await readTraceFile(path.join(dir, 'big.0.et'))).nodes.find((n) =>
      n.name.startsWith('void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor'),
    )!;
    expect(attrInt(kernel, 'correlation')).toBe(9007199254740901482n); // above 2^53, exactly
    expect(kernel.ctrlDeps).toHaveLength(1);
  });

  it('rank files: missing, given twice, of a rank the run lacks, from another run, corrupt, of another iteration', async () => {
    const w0 = await load(dlrmFiles[0]!);
    const expectOneLine = async (argv: string[], message: RegExp) => {
      const r = await cli(['import', 'kineto', ...argv, '--out', path.join(dir, 'bad')]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    };
    await expectOneLine(
      dlrmFiles.slice(0, 7),
      /the run has 8 ranks but no trace was given for rank 7 \(pass --partial/,
    );
    await expectOneLine([...dlrmFiles.slice(0, 7), dlrmFiles[0]!], /rank 0 given twice: .*worker0_.* and .*worker0_/);
    const r9 = await put(
      'rank9.json',
      JSON.stringify({ ...w0, distributedInfo: { backend: 'nccl', rank: 9, world_size: 8 } }),
    );
    await expectOneLine([...dlrmFiles.slice(0, 7), r9], /rank9\.json: rank 9 does not exist in a run of world size 8/);
    const day = JSON.stringify({ ...w0, distributedInfo: { backend: 'nccl', rank: 7, world_size: 8 } }).replace(
      /"ts":(\d+)/g,
      (_, t) => `"ts":${Number(t) + 86_400_000_000}`,
    );
    await expectOneLine(
      [...dlrmFiles.slice(0, 7), await put('next-day.json', day)],
      /next-day\.json is from another run: its ProfilerStep#10 starts 24\.0 h after rank 0's/,
    );
    const cut = await put('cut.json.gz', (await readFile(dlrmFiles[7]!)).subarray(0, 3000));
    await expectOneLine([...dlrmFiles.slice(0, 7), cut], /cut\.json\.gz.*(corrupt|cut short)/);
    // Rank 7 from rank 0's events: the same run and step, but its collectives are not rank 7's … they are the same
    // kinds in the same order, so the check that bites is the sizes-and-order one only when a collective is missing.
    const fewer = {
      ...w0,
      distributedInfo: { backend: 'nccl', rank: 7, world_size: 8 },
      traceEvents: w0.traceEvents.filter(
        (e) => !(e.cat === 'kernel' && String(e.name).startsWith('ncclKernel_AllReduce')),
      ),
    };
    await expectOneLine(
      [...dlrmFiles.slice(0, 7), await put('fewer.json', JSON.stringify(fewer))],
      /fewer\.json: rank 7 runs 5 collectives in all ranks \(no group recorded\), rank 0 .* runs 8/,
    );
    await expect(
      importKineto({ traces: dlrmFiles.slice(0, 7), out: path.join(dir, 'partial'), partial: true }),
    ).resolves.toMatchObject({ missingRanks: [7] });
    await expect(importKineto({ traces: [], out: path.join(dir, 'none') })).rejects.toThrow(InputError);
  });
});

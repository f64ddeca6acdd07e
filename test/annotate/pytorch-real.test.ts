/**
 * annotate on the real PyTorch runs shipped in traces/pytorch-real (issue 16, targets): `import pytorch` makes the
 * .et files, each rank's Kineto trace is its profile. Every GPU kernel, memcpy and memset node matched (100 %, per
 * rank), every GPU compute node > 0 J, and each rank's summed annotated duration within 1 % of the Kineto GPU
 * compute time of the linked iteration. The same on Chakra's own (2024-05) conversions (vendored). Kineto has no
 * counters here, so the nodes are annotated from their own duration and the calibration's assumed power.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotateTrace, buildPlan, type AnnotateResult } from '../../src/engines/annotate/index.js';
import { ANNOTATION_ATTRS, UTIL_PREFIX } from '../../src/vocab/attributes.js';
import { DURATION_SOURCE } from '../../src/engines/annotate/plan.js';
import { annotateWarnings } from '../../src/engines/annotate/warnings.js';
import { loadCalibration } from '../../src/engines/calibrate/index.js';
import { importPytorch, type ImportResult } from '../../src/engines/import/index.js';
import { attrBool, attrNumber, attrString, NodeType, readTraceFile } from '../../src/formats/chakra/index.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { assumedKernelPowerW } from '../../src/model/active-power.js';
import { cli } from '../helpers/cli.js';
import { chakraConversion } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const dlrmDir = shipped('pytorch-real', 'dlrm');
const dlrmKineto = readdirSync(dlrmDir)
  .filter((f) => f.startsWith('worker'))
  .sort()
  .map((f) => path.join(dlrmDir, f));
const addEt = shipped('pytorch-real', 'simple_add', 'et.json.gz');
const addKineto = shipped('pytorch-real', 'simple_add', 'kineto.json.gz');
const v100 = 'calibration/v100.json';
const a100 = 'calibration/a100-datasheet.json';
let dir: string;
let add: ImportResult;
let dlrm: ImportResult;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-pytorch-'));
  add = await importPytorch({ pairs: [{ et: addEt, kineto: addKineto }], out: path.join(dir, 'add') });
  dlrm = await importPytorch({ dir: dlrmDir, out: path.join(dir, 'dlrm') });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The issue's targets on one annotated run, against the Kineto GPU compute time of each rank's linked iteration. */
async function checkTargets(res: AnnotateResult, kinetoNsByRank: Map<number, number>, tolerance: number) {
  for (const r of res.ranks) {
    expect(r.matchRate).toBe(1);
    expect(r.unmatched).toBe(0);
    expect(r.untouched).toBe(0);
    expect(r.estimated).toBe(r.gpuCompNodes);
    const busy = r.perFrequency[0]!.annotatedDurationNs;
    const kineto = kinetoNsByRank.get(r.rank)!;
    expect(Math.abs(busy / kineto - 1)).toBeLessThanOrEqual(tolerance);
    const out = await readTraceFile(r.perFrequency[0]!.file);
    let gpu = 0;
    let memory = 0;
    for (const n of out.nodes) {
      if (n.type !== NodeType.COMP_NODE || attrBool(n, 'is_cpu_op') !== false) continue;
      gpu++;
      if (/^Mem(cpy|set)/.test(n.name)) memory++;
      expect(attrNumber(n, ANNOTATION_ATTRS.energyJ)).toBeGreaterThan(0);
      expect(attrString(n, ANNOTATION_ATTRS.estimatedFrom)).toBe(DURATION_SOURCE);
      expect(n.attrs.some((a) => a.name.startsWith(UTIL_PREFIX))).toBe(false);
    }
    expect(gpu).toBe(r.gpuCompNodes);
    expect(r.memcpy).toBe(memory);
  }
}

const kinetoNs = (r: ImportResult) => new Map(r.ranks.map((x) => [x.rank, x.convert.gpuComputeKinetoNs]));

/**
 * The Kineto GPU compute time of the linked iteration computed from the raw trace JSON, independently of the importer:
 * Σ dur of kernel / gpu_memcpy / gpu_memset events that are not NCCL kernels and whose launch (a cuda_runtime or
 * cuda_driver event of the same correlation id) is in the trace, in ns.
 */
function rawKinetoNs(file: string): number {
  type E = { cat?: string; name?: string; dur?: number; args?: { correlation?: number } };
  const events = (JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as { traceEvents: E[] }).traceEvents;
  const launched = new Set(
    events.filter((e) => e.cat === 'cuda_runtime' || e.cat === 'cuda_driver').map((e) => e.args?.correlation),
  );
  let us = 0;
  for (const e of events) {
    if (
      ['kernel', 'gpu_memcpy', 'gpu_memset'].includes(e.cat ?? '') &&
      !/^nccl/.test(e.name ?? '') &&
      launched.has(e.args?.correlation)
    )
      us += e.dur!;
  }
  return Math.round(us * 1000);
}

describe('annotate: real PyTorch runs, imported', () => {
  it('simple add (A100): 4/4 kernels, the reference clock is the one the Kineto reader assumed', async () => {
    const res = await annotateTrace({
      trace: path.join(dir, 'add'),
      out: path.join(dir, 'o', 'add'),
      calibration: a100,
      profiles: [addKineto],
      frequenciesMHz: [1410],
    });
    expect(res.referenceClockMHz).toBe(1410);
    expect(res.notes[0]).toMatch(
      /reference clock 1410 MHz: the maximum boost clock of the GPU the Kineto profile names/,
    );
    expect(res.warnings).toEqual([]);
    await checkTargets(res, kinetoNs(add), 0.01);
    await checkTargets(res, new Map([[0, rawKinetoNs(addKineto)]]), 0.01);
    const cal = await loadCalibration(a100);
    expect(res.outputs[0]!.computeEnergyJ).toBeCloseTo(
      (assumedKernelPowerW(cal, 1410).powerW * res.ranks[0]!.perFrequency[0]!.annotatedDurationNs) / 1e9,
      12,
    );
  });

  it('DLRM (8 × V100): each rank matched against its own Kineto trace, memcpy and memset included', async () => {
    const res = await annotateTrace({
      trace: path.join(dir, 'dlrm'),
      out: path.join(dir, 'o', 'dlrm'),
      calibration: v100,
      profiles: dlrmKineto,
      frequenciesMHz: [1380],
      referenceClockMHz: 1380,
    });
    expect(res.ranks).toHaveLength(8);
    await checkTargets(res, kinetoNs(dlrm), 0.01);
    // The same against the raw Kineto JSON, not the importer's own sum (each worker file holds its rank).
    await checkTargets(
      res,
      new Map(dlrmKineto.map((f) => [Number(/worker(\d+)_/.exec(path.basename(f))![1]), rawKinetoNs(f)])),
      0.01,
    );
    // Ranks 3 and 4 ran kernels (a radix sort, 6 memsets) that rank 0 did not: found in their own profiles.
    expect(res.ranks.map((r) => r.memcpy)).toEqual(
      dlrm.ranks.map((r) => r.convert.gpuByKind.memcpy + r.convert.gpuByKind.memset),
    );
    expect(res.ranks[3]!.memcpy).toBe(22);
  });

  it('DLRM: the fast path writes what the full decoder and encoder write, in workers as in-process', async () => {
    const opts = {
      trace: path.join(dir, 'dlrm'),
      calibration: v100,
      profiles: dlrmKineto,
      frequenciesMHz: [1380, 1005],
      referenceClockMHz: 1380,
    };
    const fast = await annotateTrace({ ...opts, out: path.join(dir, 'o', 'fast'), workers: 2 });
    const slow = await annotateTrace({ ...opts, out: path.join(dir, 'o', 'slow'), workers: 1, fastPath: false });
    expect(slow.total.slowPathNodes).toBe(slow.total.gpuCompNodes);
    for (const [r, rank] of fast.ranks.entries()) {
      for (const [i, pf] of rank.perFrequency.entries())
        expect(Buffer.compare(readFileSync(pf.file), readFileSync(slow.ranks[r]!.perFrequency[i]!.file))).toBe(0);
    }
    expect(fast.outputs.map((o) => o.computeEnergyJ)).toEqual(slow.outputs.map((o) => o.computeEnergyJ));
  });

  it("DLRM with rank 0's profile only: the other ranks match it and count what it lacks", async () => {
    const res = await annotateTrace({
      trace: path.join(dir, 'dlrm'),
      out: path.join(dir, 'o', 'dlrm0'),
      calibration: v100,
      profiles: [dlrmKineto[0]!],
      frequenciesMHz: [1380],
      referenceClockMHz: 1380,
    });
    expect(res.ranks[0]!.matchRate).toBe(1);
    expect(res.ranks[3]!.unmatched).toBe(12);
    expect(res.ranks[3]!.unmatchedNames.map((n) => n.name)).toContain('Memset (Device)');
  });

  it(
    'without --reference-frequency, plan and samples agree on the clock the reader assumed, and say when it is ' +
      'above the calibration',
    async () => {
      const cal = await loadCalibration(v100);
      const profile = await readProfile(dlrmKineto[0]!);
      const plan = buildPlan(cal, [profile], { frequenciesMHz: [1380] });
      expect(new Set(profile.samples.map((s) => s.smClockMHz))).toEqual(new Set([1530]));
      expect(plan.referenceClockMHz).toBe(1530);
      expect(plan.notes.join('\n')).toMatch(
        /reference clock 1530 MHz is above the calibration's highest clock \(1380 MHz, Tesla V100-PCIE\)/,
      );
      const res = await annotateTrace({
        trace: path.join(dir, 'dlrm.0.et'),
        out: path.join(dir, 'o', 'ref'),
        calibration: cal,
        profiles: [profile],
        frequenciesMHz: [1380],
      });
      const out = await readTraceFile(res.ranks[0]!.perFrequency[0]!.file);
      const gpu = out.nodes.filter((n) => n.type === NodeType.COMP_NODE && attrBool(n, 'is_cpu_op') === false);
      expect(gpu.every((n) => attrNumber(n, ANNOTATION_ATTRS.frequencyRefMHz) === 1530)).toBe(true);
      // At a lower clock than the reference, the time model lengthens them.
      expect(res.ranks[0]!.perFrequency[0]!.annotatedDurationNs).toBeGreaterThan(
        dlrm.ranks[0]!.convert.gpuComputeKinetoNs,
      );
    },
  );

  it(
    'CLI: per-rank counts in the table and --json; --power-log takes one profile; --bands writes nothing without ' +
      'a band model',
    async () => {
      const args = [
        'annotate',
        path.join(dir, 'add'),
        '--calibration',
        a100,
        '--profile',
        addKineto,
        '--frequency',
        '1410',
        '--out',
        path.join(dir, 'o', 'cli'),
      ];
      const text = await cli(args);
      expect(text.code).toBe(0);
      expect(text.out).toMatch(/memcpy\/set .* unmatched .* estimated/);
      expect(text.err).toMatch(
        /note: profiled kernels without counters or power \(4\) are annotated from each node's own duration/,
      );
      const json = JSON.parse((await cli([...args, '--json'])).out) as AnnotateResult;
      expect(json.ranks[0]).toMatchObject({ memcpy: 0, unmatched: 0, estimated: 4, untouched: 0 });
      expect(json.warnings).toEqual([]);
      const twoWithPower = await cli([...args, '--profile', addKineto, '--power-log', addKineto]);
      expect(twoWithPower.code).toBe(2);
      expect(twoWithPower.err).toMatch(/--power-log joins one profile with one power log; got 2 profiles/);
      const bands = await cli([...args.slice(0, -1), path.join(dir, 'o', 'cli-bands'), '--bands']);
      expect(bands.err).toMatch(
        /--bands: the calibration of NVIDIA A100 SXM4 80GB has no band model \(a datasheet calibration\): no band is written/,
      );
      expect(
        (await readTraceFile(path.join(dir, 'o', 'cli-bands.0.et'))).nodes.some((n) =>
          n.attrs.some((a) => a.name === ANNOTATION_ATTRS.energyJP10),
        ),
      ).toBe(false);
      const orphan = await cli([
        'annotate',
        path.join(dir, 'add'),
        '--calibration',
        a100,
        '--mapping',
        'x.yaml',
        '--frequency',
        '1410',
        '--out',
        path.join(dir, 'o', 'm'),
      ]);
      expect(orphan.code).toBe(2);
      expect(orphan.err).toMatch(/--mapping and --power-log apply to a profile/);
    },
  );
});

describe("annotate --mapping: a per-kernel CSV made from the Kineto trace (the issue's 0 % case)", () => {
  it(
    'matches 4/4 with --reference-frequency, and without one at the default reference clock (as Kineto samples ' +
      'are)',
    async () => {
      type E = { cat?: string; name?: string; dur?: number };
      const events = (JSON.parse(gunzipSync(readFileSync(addKineto)).toString('utf8')) as { traceEvents: E[] })
        .traceEvents;
      const q = (x: string) => `"${x.replace(/"/g, '""')}"`;
      const csv = path.join(dir, 'add-kernels.csv');
      writeFileSync(
        csv,
        ['kernel,dur (us)', ...events.filter((e) => e.cat === 'kernel').map((e) => `${q(e.name!)},${e.dur}`)].join(
          '\n',
        ) + `\n`,
      );
      const mapping = path.join(dir, 'add-kernels.yaml');
      writeFileSync(mapping, 'columns:\n  kernelName: kernel\n  durationNs: dur (us)\n');
      const args = [
        'annotate',
        path.join(dir, 'add'),
        '--calibration',
        a100,
        '--profile',
        csv,
        '--mapping',
        mapping,
        '--frequency',
        '1410',
        '--json',
      ];
      const given = await cli([...args, '--reference-frequency', '1410', '--out', path.join(dir, 'o', 'map')]);
      expect(given.code).toBe(0);
      expect(given.err).toContain(
        'note: 4 of 4 profile samples have no SM clock: taken to have run at the reference clock 1410 MHz ' +
          '(given: --reference-frequency)',
      );
      const res = JSON.parse(given.out) as AnnotateResult;
      expect(res.ranks[0]).toMatchObject({ matchRate: 1, unmatched: 0, untouched: 0, estimated: 4 });
      expect(res.warnings).toEqual([]);
      expect(res.ranks[0]!.perFrequency[0]!.annotatedDurationNs).toBe(rawKinetoNs(addKineto));
      const none = await cli([...args, '--out', path.join(dir, 'o', 'map-none')]);
      expect(none.code).toBe(0);
      // Without one, the CSV's samples are taken at the default reference clock, as a Kineto trace's are (A100: 1410
      // MHz).
      expect(none.err).toContain(
        'note: 4 of 4 profile samples have no SM clock: taken to have run at the reference clock 1410 MHz (the ' +
          'default reference clock',
      );
      expect((JSON.parse(none.out) as AnnotateResult).ranks[0]).toMatchObject({
        matchRate: 1,
        unmatched: 0,
        untouched: 0,
        estimated: 4,
      });
    },
  );
});

describe("annotate --power-log: a power log joined to the Kineto trace measures each kernel's power", () => {
  it(
    'DLRM rank 0 with real nvidia-smi samples: matched nodes take the measured power (estimated_from=profile), ' +
      'the caveats are printed',
    async () => {
      const out = path.join(dir, 'o', 'power');
      const r = await cli([
        'annotate',
        path.join(dir, 'dlrm.0.et'),
        '--calibration',
        v100,
        '--profile',
        dlrmKineto[0]!,
        '--power-log',
        path.join('test', 'fixtures', 'profiles', 'xypp3__gpu_glasses__nvidia_smi.csv'),
        '--power-offset-ns',
        '2e9',
        '--gpu-index',
        '0',
        '--reference-frequency',
        '1380',
        '--frequency',
        '1380',
        '--out',
        out,
        '--json',
      ]);
      expect(r.code).toBe(0);
      const res = JSON.parse(r.out) as AnnotateResult;
      expect(res.ranks[0]).toMatchObject({ matchRate: 1, estimated: 0, untouched: 0, memcpy: 16 });
      expect(r.err).toMatch(/note: .*power/i);
      const nodes = (await readTraceFile(`${out}.0.et`)).nodes.filter(
        (n) => n.type === NodeType.COMP_NODE && attrBool(n, 'is_cpu_op') === false,
      );
      expect(nodes.length).toBe(253);
      for (const n of nodes) {
        expect(attrString(n, ANNOTATION_ATTRS.estimatedFrom)).toBe('profile');
        expect(attrNumber(n, ANNOTATION_ATTRS.powerW)).toBeGreaterThan(70);
        expect(attrNumber(n, ANNOTATION_ATTRS.powerW)).toBeLessThan(80);
      }
    },
  );
});

describe('annotate without a profile: every GPU node from its own duration, and the note says what was assumed', () => {
  it(
    'DLRM rank 0 (imported): 253/253 GPU compute nodes > 0 J, estimated_from flagged, the assumed power in a ' + 'note',
    async () => {
      const r = await cli([
        'annotate',
        path.join(dir, 'dlrm.0.et'),
        '--calibration',
        v100,
        '--frequency',
        '1380',
        '--out',
        path.join(dir, 'o', 'noprof'),
        '--json',
      ]);
      expect(r.code).toBe(0);
      const res = JSON.parse(r.out) as AnnotateResult;
      // the 16 memcpy keep their measured time too
      expect(res.ranks[0]).toMatchObject({ gpuCompNodes: 253, estimated: 253, roofline: 0, untouched: 0 });
      expect(res.warnings).toEqual([]);
      expect(r.err).toMatch(
        /note: 253 GPU compute node\(s\) with no profile match are annotated from each node's own duration \(at 1380 MHz\) and an assumed power: 250 W at 1380 MHz.*estimated_from=node-duration,calibration-power/,
      );
      const nodes = (await readTraceFile(res.ranks[0]!.perFrequency[0]!.file)).nodes.filter(
        (n) => n.type === NodeType.COMP_NODE && attrBool(n, 'is_cpu_op') === false,
      );
      expect(nodes).toHaveLength(253);
      for (const n of nodes) {
        expect(attrNumber(n, ANNOTATION_ATTRS.energyJ)).toBeGreaterThan(0);
        expect(attrString(n, ANNOTATION_ATTRS.estimatedFrom)).toBe(DURATION_SOURCE);
      }
      expect(res.ranks[0]!.perFrequency[0]!.annotatedDurationNs).toBe(rawKinetoNs(dlrmKineto[0]!));
      // The full decoder and encoder write the same bytes.
      const slow = await annotateTrace({
        trace: path.join(dir, 'dlrm.0.et'),
        calibration: v100,
        profiles: [],
        frequenciesMHz: [1380],
        out: path.join(dir, 'o', 'noprof-slow'),
        fastPath: false,
      });
      expect(slow.total.slowPathNodes).toBe(253);
      expect(
        Buffer.compare(
          readFileSync(slow.ranks[0]!.perFrequency[0]!.file),
          readFileSync(res.ranks[0]!.perFrequency[0]!.file),
        ),
      ).toBe(0);
    },
  );
});

describe('annotate: a run that annotates nothing says so, and why', () => {
  const base = {
    nodes: 10,
    compNodes: 4,
    cpuOps: 4,
    gpuCompNodes: 0,
    matched: { exact: 0, normalized: 0, base: 0, op: 0 },
    memcpy: 0,
    unmatched: 0,
    byInvocation: 0,
    roofline: 0,
    estimated: 0,
    untouched: 0,
    matchRate: null,
    unmatchedNames: [],
    slowPathNodes: 0,
  };
  it('no GPU compute node', () => {
    expect(annotateWarnings(base, 3, 1)).toEqual([
      expect.stringMatching(/^NOTHING ANNOTATED: .*all 4 compute nodes are host-side ops/),
    ]);
  });
  it('nothing to match or estimate from', () => {
    const t = { ...base, gpuCompNodes: 2, unmatched: 2, untouched: 2, unmatchedNames: [{ name: 'k', count: 2 }] };
    expect(annotateWarnings(t, 0, 0)[0]).toMatch(/^NOTHING ANNOTATED: .*no --profile given/);
    expect(annotateWarnings(t, 5, 1)[0]).toMatch(
      /none of the 2 GPU compute node names matched the 5 profiled kernel\(s\).*"k"/,
    );
  });
  it('estimates only, though a profile was given', () => {
    const t = { ...base, gpuCompNodes: 2, unmatched: 2, estimated: 2, unmatchedNames: [{ name: 'k', count: 2 }] };
    expect(annotateWarnings(t, 5, 1)).toEqual([expect.stringMatching(/^NO NODE MATCHED THE PROFILE/)]);
    expect(annotateWarnings(t, 0, 0)).toEqual([]);
  });
});

describe("annotate: Chakra's own conversions of the same runs (vendored)", () => {
  it('DLRM: every GPU node matched; the busy time misses only the memsets Chakra left out (≤ 1 %)', async () => {
    const res = await annotateTrace({
      trace: chakraConversion('dlrm'),
      out: path.join(dir, 'o', 'chakra-dlrm'),
      calibration: v100,
      profiles: dlrmKineto,
      frequenciesMHz: [1380],
      referenceClockMHz: 1380,
    });
    await checkTargets(res, kinetoNs(dlrm), 0.01);
  });
  it('simple add', async () => {
    const res = await annotateTrace({
      trace: chakraConversion('simple_add.et'),
      out: path.join(dir, 'o', 'chakra-add'),
      calibration: a100,
      profiles: [addKineto],
      frequenciesMHz: [1410],
    });
    await checkTargets(res, kinetoNs(add), 0.01);
  });
});

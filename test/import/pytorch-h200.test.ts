/**
 * Held-out real runs of the newest PyTorch layout: a small GPT trained with DDP on an NVIDIA H200 under PyTorch 2.11
 * (execution-trace schema 1.1.1-chakra.0.0.4, Kineto ops with `Record function id`, a ProfilerStep, ts on a
 * monotonic clock with `baseTimeNanoseconds`), recorded by scripts/record-pytorch-run.py and shipped in
 * traces/pytorch-real/h200-gpt (1 rank, NCCL), h200-gpt-gloo (2 ranks, gloo) and h200-gpt-nostep (1 rank, one
 * iteration profiled without a schedule, so no ProfilerStep). What they caught: the gloo
 * all-reduce, an async record function on gloo's thread, nests later autograd ops inside it in the ET, which made the
 * inter-thread order a dependency cycle; collectives without an NCCL kernel vanished without a word; and the power
 * log could not be placed on the trace (new-style stamps), so kernels were given the idle power logged before the run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotateTrace } from '../../src/engines/annotate/index.js';
import { ANNOTATION_ATTRS } from '../../src/vocab/attributes.js';
import { importPytorch, type ImportResult } from '../../src/engines/import/index.js';
import { validateTrace } from '../../src/engines/trace/validate.js';
import { attrBool, attrNumber, NodeType, readTraceFile } from '../../src/formats/chakra/index.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { shipped } from '../helpers/traces.js';

const nccl = shipped('pytorch-real', 'h200-gpt');
const gloo = shipped('pytorch-real', 'h200-gpt-gloo');
const noStep = shipped('pytorch-real', 'h200-gpt-nostep');
const h100 = 'calibration/h100-datasheet.json';
let dir: string;
let one: ImportResult;
let two: ImportResult;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-import-h200-'));
  one = await importPytorch({ dir: nccl, out: path.join(dir, 'nccl') });
  two = await importPytorch({ dir: gloo, out: path.join(dir, 'gloo') });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const codes = (r: ImportResult['ranks'][number]) => r.diagnostics.map((d) => d.code);

describe('import pytorch: PyTorch 2.11 on an H200 (held-out layout)', () => {
  it('links every op by Record function id and writes every launched GPU event', () => {
    for (const r of [...one.ranks, ...two.ranks]) {
      expect(r.etSchema).toBe('1.1.1-chakra.0.0.4');
      expect(r.device).toBe('NVIDIA H200');
      expect(r.steps).toEqual(['ProfilerStep#2']);
      expect(r.link.linkedBySequence).toBe(0);
      expect(r.link.linkedByRfId).toBe(r.link.etOps - r.link.etUnlinked);
      expect(r.link.etUnlinked).toBeLessThanOrEqual(1); // the ET's thread root, which Kineto has no op for
      const g = r.link.gpu;
      expect(g.noLaunch).toBe(0);
      expect(r.convert.gpuNodes).toBe(g.events);
    }
    expect(two.ranks.map((r) => r.rank)).toEqual([0, 1]);
  });

  it('one iteration profiled without a schedule (no ProfilerStep): every op linked by id, valid', async () => {
    const r = (await importPytorch({ dir: noStep, out: path.join(dir, 'nostep') })).ranks[0]!;
    expect(r.steps).toEqual([]);
    expect(r.link.linkedBySequence).toBe(0);
    expect(r.link.linkedByRfId).toBe(r.link.etOps - r.link.etUnlinked);
    expect(r.link.gpu.noLaunch).toBe(0);
    expect(r.convert.gpuNodes).toBe(r.link.gpu.events);
    expect((await validateTrace(path.join(dir, 'nostep'))).errors).toBe(0);
  });

  it('a gloo all-reduce nesting later ops in the ET is no dependency cycle, and is said', async () => {
    for (const r of two.ranks) expect(codes(r)).toContain('inter-thread-order-inside-op');
    expect((await validateTrace(path.join(dir, 'gloo'))).errors).toBe(0);
    expect((await validateTrace(path.join(dir, 'nccl'))).errors).toBe(0);
  });

  it('collectives with no NCCL kernel (gloo; NCCL over one rank) are kept as host ops and named in a warning', () => {
    const msg = (r: ImportResult['ranks'][number]) =>
      r.diagnostics.find((d) => d.code === 'collective-without-gpu-kernel')!.samples[0]!.message;
    expect(msg(one.ranks[0]!)).toMatch(/nccl:all_reduce ×8/);
    for (const r of two.ranks) expect(msg(r)).toMatch(/gloo:all_reduce ×5/);
    for (const r of [...one.ranks, ...two.ranks]) expect(r.convert.collectives).toEqual({});
  });

  it("annotate with each rank's Kineto trace: 100 % matched, every GPU node > 0 J, busy time within 1 %", async () => {
    const profiles = [path.join(gloo, 'rank0.pt.trace.json.gz'), path.join(gloo, 'rank1.pt.trace.json.gz')];
    const res = await annotateTrace({
      trace: path.join(dir, 'gloo'),
      out: path.join(dir, 'gloo-1980'),
      calibration: h100,
      profiles,
      frequenciesMHz: [1980],
      referenceClockMHz: 1980,
    });
    for (const r of res.ranks) {
      expect(r.matchRate).toBe(1);
      expect(r.unmatched + r.untouched).toBe(0);
      const kineto = two.ranks.find((x) => x.rank === r.rank)!.convert.gpuComputeKinetoNs;
      expect(Math.abs(r.perFrequency[0]!.annotatedDurationNs / kineto - 1)).toBeLessThanOrEqual(0.01);
      const out = await readTraceFile(r.perFrequency[0]!.file);
      for (const n of out.nodes) {
        if (n.type === NodeType.COMP_NODE && attrBool(n, 'is_cpu_op') === false)
          expect(attrNumber(n, ANNOTATION_ATTRS.energyJ)).toBeGreaterThan(0);
      }
    }
  });

  it(
    'the nvidia-smi log is placed on the trace by its baseTimeNanoseconds, so kernels get the power logged ' +
      'during the step',
    async () => {
      const table = await readProfile(path.join(nccl, 'rank0.pt.trace.json.gz'), {
        referenceClockMHz: 1980,
        power: path.join(nccl, 'nvidia-smi.csv'),
      });
      expect(table.notes.join('\n')).toMatch(
        /trace placed on the power log by wall-clock stamps \(trace start 2026-11-27T09:31:30\.\d+Z/,
      );
      const withPower = table.samples.filter((s) => s.powerW !== null);
      expect(withPower.length).toBeGreaterThan(0);
      // The log reads 78–125 W before the run and 127–199 W while it trains; the profiled step falls in the latter.
      for (const s of withPower) expect(s.powerW!).toBeGreaterThan(125);
    },
  );
});

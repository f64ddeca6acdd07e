/**
 * One verdict: seeded mutations of real traces (truncations, byte flips, a length prefix longer than 5 bytes, an
 * attribute name that is not UTF-8 or a field running past its message, in compute and collective nodes; gzip
 * streams cut short, with a bad CRC, or holding a mutated trace) go through every command's read path: inspect,
 * validate, convert (.et → .json), replay's loader and the replay's own reader, annotate in-process and annotate in
 * worker threads (the built code in dist/). Every path accepts a file or rejects it with the same message, and no
 * command that rejects it
 * leaves a file (output, temporary file or lock) or a folder it made: convert and annotate write through
 * src/formats/output.ts.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotateTrace } from '../../src/engines/annotate/index.js';
import { rankSourcesFromFiles } from '../../src/engines/replay/load.js';
import { convertTrace } from '../../src/engines/trace/convert.js';
import { inspectTrace } from '../../src/engines/trace/inspect.js';
import { validateTrace } from '../../src/engines/trace/validate.js';
import { TracewattError } from '../../src/errors.js';
import { FrameScanner } from '../../src/formats/chakra/frames.js';
import { AttributeNames, NodeProbe } from '../../src/formats/chakra/probe.js';
import { NodeType } from '../../src/formats/chakra/schema.js';
import { rng } from '../helpers/rng.js';
import { astraRef } from '../helpers/astra-reference.js';
import { hasShared, repoRoot, shared } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const calibration = path.join(repoRoot, 'calibration', 'rtx8000.json');
const builtIndex = path.join(repoRoot, 'dist', 'engines', 'annotate', 'index.js');

/** What a read path made of a file: accepted, or the error's code and message. */
type Verdict = 'ok' | string;

async function verdictOf(run: () => Promise<unknown>): Promise<Verdict> {
  try {
    await run();
    return 'ok';
  } catch (e) {
    // A typed error (the built code in dist/ has TracewattError classes of its own: matched by shape); anything
    // else is a bug, not a verdict.
    if (
      e instanceof TracewattError ||
      (e instanceof Error && typeof (e as TracewattError).code === 'string' && e.name.endsWith('Error'))
    ) {
      return `${(e as TracewattError).code}: ${e.message}`;
    }
    throw e;
  }
}

interface Case {
  label: string;
  /** The file: <dir>/<name>.1.et(.gz); rank 0 beside it is a clean copy of the base, for the worker path. */
  file: string;
  prefix: string;
}

/** Node frames of a trace with what the probe saw: type, attribute entries (start, end). */
function nodeFrames(
  buf: Buffer,
): { frameStart: number; start: number; end: number; type: number; attrs: [number, number][] }[] {
  const frames = new FrameScanner('<base>', { knownSize: buf.length });
  frames.append(buf);
  frames.finish();
  const names = new AttributeNames([
    'is_cpu_op',
    'num_ops',
    'tensor_size',
    'comm_type',
    'comm_size',
    'comm_src',
    'pg_name',
    'rf_id',
    'op_schema',
  ]);
  const probe = new NodeProbe(names);
  const out = [];
  while (frames.next()) {
    if (frames.isMetadata) continue;
    probe.read(frames.cursor, frames.start, frames.end);
    const attrs = names.names
      .map((_, slot) => (probe.has(slot) ? probe.attributeRange(slot) : null))
      .filter((a): a is [number, number] => a !== null);
    out.push({ frameStart: frames.frameStart, start: frames.start, end: frames.end, type: probe.type, attrs });
  }
  return out;
}

/** The mutations of one base trace, seeded. */
function mutations(base: Buffer, seed: number): { label: string; bytes: Buffer; gzip: boolean }[] {
  const random = rng(seed);
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(random() * xs.length)];
  const frames = nodeFrames(base);
  const out: { label: string; bytes: Buffer; gzip: boolean }[] = [{ label: 'as it is', bytes: base, gzip: false }];
  const edit = (label: string, change: (b: Buffer) => void) => {
    const b = Buffer.from(base);
    change(b);
    out.push({ label, bytes: b, gzip: false });
  };
  for (let k = 0; k < 2; k++) {
    const at = 1 + Math.floor(random() * (base.length - 1));
    out.push({ label: `cut at byte ${at}`, bytes: base.subarray(0, at), gzip: false });
  }
  for (let k = 0; k < 4; k++) {
    const at = Math.floor(random() * base.length);
    const value = [0x00, 0x80, 0xff, base[at] ^ 0x80, (base[at] + 1) & 0xff][Math.floor(random() * 5)];
    edit(`byte ${at} set to ${value}`, (b) => (b[at] = value));
  }
  const f = pick(frames.slice(1));
  if (f) {
    // A length prefix of 6 bytes, and a frame length past the end of the file.
    edit(`6-byte length prefix at byte ${f.frameStart}`, (b) =>
      b.fill(0xff, f.frameStart, Math.min(b.length, f.frameStart + 6)),
    );
    edit(`frame length at byte ${f.frameStart} past the end`, (b) => (b[f.frameStart] = 0xff));
  }
  for (const [kind, types] of [
    ['compute', [NodeType.COMP_NODE]],
    ['communication', [NodeType.COMM_COLL_NODE, NodeType.COMM_SEND_NODE, NodeType.COMM_RECV_NODE]],
  ] as const) {
    const node = pick(frames.filter((x) => (types as readonly number[]).includes(x.type) && x.attrs.length > 0));
    const attr = node ? pick(node.attrs) : undefined;
    if (!attr) continue;
    // AttributeProto starts with its name (tag 0a, length, bytes): its first byte made invalid UTF-8; its length made
    // to run past the attribute.
    edit(`${kind} node attribute name at byte ${attr[0] + 2} not UTF-8`, (b) => (b[attr[0] + 2] = 0xff));
    edit(`${kind} node attribute name length at byte ${attr[0] + 1} past its message`, (b) => (b[attr[0] + 1] = 0x7f));
  }
  const gz = gzipSync(base);
  out.push({ label: 'gzip', bytes: gz, gzip: true });
  out.push({
    label: 'gzip cut short',
    bytes: gz.subarray(0, Math.floor(gz.length * (0.3 + 0.5 * random()))),
    gzip: true,
  });
  const badCrc = Buffer.from(gz);
  badCrc[badCrc.length - 8] ^= 0xff;
  out.push({ label: 'gzip with a bad CRC', bytes: badCrc, gzip: true });
  const mutated = out[1 + Math.floor(random() * 6)];
  out.push({ label: `gzip of "${mutated.label}"`, bytes: gzipSync(mutated.bytes), gzip: true });
  return out;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-verdict-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes every mutation of a base trace as rank 1 of its own prefix, with the clean base as rank 0. */
function writeCases(name: string, baseFile: string, seed: number): Case[] {
  const base = readFileSync(baseFile);
  return mutations(base, seed).map((m, i) => {
    const prefix = path.join(dir, `${name}-${i}`, 't');
    const ext = m.gzip ? '.et.gz' : '.et';
    const file = `${prefix}.1${ext}`;
    mkdirSync(path.dirname(prefix), { recursive: true });
    writeFileSync(`${prefix}.0${ext}`, m.gzip ? gzipSync(base) : base);
    writeFileSync(file, m.bytes);
    return { label: `${name}: ${m.label}`, file, prefix };
  });
}

/** Files annotate left behind when it rejected its input. */
const annotateLeftovers: string[] = [];

/** Every read path's verdict on one case; convert's output checked for leftovers when it rejects. */
async function verdicts(
  c: Case,
  built: typeof import('../../src/engines/annotate/index.js') | null,
): Promise<Record<string, Verdict>> {
  const out = path.join(path.dirname(c.prefix), 'out');
  const json = path.join(out, 'c.json');
  const v: Record<string, Verdict> = {
    inspect: await verdictOf(() => inspectTrace(c.file)),
    validate: await verdictOf(() => validateTrace(c.file)),
    convert: await verdictOf(() => convertTrace(c.file, json)),
    'replay loader': await verdictOf(async () => {
      for (const source of await rankSourcesFromFiles(c.file, undefined, { fullDecoder: true }))
        while (await source.nextBatch());
    }),
    'replay reader': await verdictOf(async () => {
      for (const source of await rankSourcesFromFiles(c.file)) while (await source.readNodes!(() => {}));
    }),
    'annotate in-process': await verdictOf(() =>
      annotateTrace({
        trace: c.file,
        out: path.join(out, 'a'),
        calibration,
        profiles: [],
        frequenciesMHz: [1410],
        workers: 1,
      }),
    ),
  };
  if (built) {
    // Two ranks, two threads: rank 1 (the case) goes to the worker thread, rank 0 (clean) stays in this one.
    v['annotate in a worker'] = await verdictOf(async () => {
      const r = await built.annotateTrace({
        trace: c.prefix,
        out: path.join(out, 'w'),
        calibration,
        profiles: [],
        frequenciesMHz: [1410],
        workers: 2,
      });
      expect(r.parallelism.mode).toBe('workers');
    });
  }
  // A run that fails removes the folder it made, so `out` is there only when some run succeeded.
  const left = existsSync(out) ? readdirSync(out) : [];
  if (v.convert !== 'ok')
    expect(
      left.filter((f) => f.startsWith('c.json')),
      `${c.label}: convert left a file`,
    ).toEqual([]);
  if (v.inspect !== 'ok')
    for (const f of left.filter((n) => /^[aw]\./.test(n))) annotateLeftovers.push(`${c.label}: ${f}`);
  // Every command that writes rejected the file: not even the output folder it made is left.
  const writers = Object.entries(v).filter(([k]) => k === 'convert' || k.startsWith('annotate'));
  if (writers.every(([, verdict]) => verdict !== 'ok'))
    expect(existsSync(out), `${c.label}: a failed run left ${out}`).toBe(false);
  return v;
}

async function checkCases(cases: Case[]): Promise<{ accepted: number; rejected: number }> {
  let built: typeof import('../../src/engines/annotate/index.js') | null = null;
  if (existsSync(builtIndex)) built = await import(builtIndex);
  else console.warn('dist/ not built (npm run build): the worker-thread path is left out of the verdict test');
  let accepted = 0;
  let rejected = 0;
  for (const c of cases) {
    const v = await verdicts(c, built);
    const expected = v.inspect;
    for (const [path_, verdict] of Object.entries(v)) expect(verdict, `${c.label}: ${path_}`).toBe(expected);
    if (expected === 'ok') accepted++;
    else rejected++;
  }
  return { accepted, rejected };
}

describe('one verdict on every read path', () => {
  it('shipped traces and their mutations', async () => {
    const cases = [
      ...writeCases('resnet', shipped('astra-sim-history', 'resnet_dp', 'Resnet50_DataParallel.1.et'), 1),
      ...writeCases('allreduce', shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce.1.et'), 2),
      ...writeCases(
        'custom',
        shipped('astra-sim', 'custom_collectives', 'custom_ring_allreduce_8npus_1MB', 'custom_allreduce.0.et'),
        3,
      ),
      ...writeCases('pytorch', shipped('chakra-tests', 'feeder_tests_chakra.0.et'), 4),
    ];
    const { accepted, rejected } = await checkCases(cases);
    expect(accepted).toBeGreaterThan(4);
    expect(rejected).toBeGreaterThan(30);
  });

  it('a vendored ASTRA-sim reference trace (roofline) and its mutations', async () => {
    const { accepted, rejected } = await checkCases(
      writeCases('roofline', astraRef('traces', 'comp_roof4', 'c.2.et'), 7),
    );
    // 2 accepted, 13 rejected.
    expect(accepted).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(10);
  });

  (hasShared ? it : it.skip)('../shared traces and their mutations', async () => {
    const cases = [
      ...writeCases('dlrm', shared('traces', 'pytorch-real', 'et', 'dlrm.3.et'), 5),
      ...writeCases(
        'mlp',
        shared(
          'traces',
          'tutorials-micro2024',
          'micro2024',
          'astra-sim-demo',
          'demo2',
          'workload',
          'MLP_ModelParallel.7.et',
        ),
        6,
      ),
    ];
    const { rejected } = await checkCases(cases);
    expect(rejected).toBeGreaterThan(20);
  });

  // Annotate commits its outputs through src/formats/output.ts (temporary names, renamed together when complete): a
  // rejected input, in this thread or in a worker, leaves no output, temporary file or lock.
  it('a rejecting annotate leaves no output file', () => {
    expect(annotateLeftovers).toEqual([]);
  });
});

/**
 * One verdict on the import surfaces (issue 26), the seeded mutation test of test/cli/surfaces-verdict.test.ts
 * extended to what `import pytorch` and `import kineto` read: Kineto JSON and execution-trace (ET) JSON, each
 * mutated alone from the real pairs in traces/pytorch-real (simple_add) and the HTA Kineto traces vendored in
 * test/fixtures/kineto-hta, and `--dir` folders of the real 2-rank gloo run (a file missing, corrupt, foreign, a rank
 * twice). Every case runs through the CLI in-process (runCli), and asserts:
 * - no crash (exit 0 or 2); a refusal is one short line, never "undefined";
 * - one verdict: a Kineto file the reader refuses is refused by import pytorch and import kineto with the reader's
 *   message; an ET the reader refuses is refused by import pytorch with its message;
 * - exit 0: every rank file written passes `validate` (no errors), the JSON output holds no null where a number
 *   belongs (NaN and Infinity cannot reach JSON: they would be null), and mutations that change nothing the import
 *   reads (events twice, reversed, older category names, correlation ids above 2^53 — 64-bit ids kept exact) give
 *   the base case's node count;
 * - no leftovers: no temporary file, lock or backup; a refused import writes nothing.
 * Counts per surface are printed (cases, clean rejects, accepted, the rest by kind).
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKinetoTrace } from '../../src/formats/kineto/trace.js';
import { readExecutionTrace } from '../../src/formats/pytorch/et.js';
import { cli } from '../helpers/cli.js';
import { badNulls } from '../helpers/json-nulls.js';
import { mutateJson, VALUE_POOL, type Mutation } from '../helpers/mutate.js';
import { rng } from '../helpers/rng.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const ADD_ET = shipped('pytorch-real', 'simple_add', 'et.json.gz');
const ADD_KINETO = shipped('pytorch-real', 'simple_add', 'kineto.json.gz');
const GLOO = shipped('pytorch-real', 'h200-gpt-gloo');
const HTA = [
  'critical_path--cuda_event_sync__event_sync_trace',
  'critical_path--cuda_event_sync_multi_stream__event_sync_trace',
  'amd_trace--mi250_minitoy_train_ROCm6_2_kineto',
].map((f) => path.join(repoRoot, 'test', 'fixtures', 'kineto-hta', `${f}.json.gz`));

let dir: string;
let caseNo = 0;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-import-verdict-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
const caseDir = () => {
  const d = path.join(dir, `c${++caseNo}`);
  mkdirSync(d, { recursive: true });
  return d;
};
const loadJson = (f: string) => JSON.parse(gunzipSync(readFileSync(f)).toString('utf8')) as Record<string, unknown>;

const tally = new Map<string, Record<string, number>>();
function count(surface: string, what: string): void {
  const t = tally.get(surface) ?? {};
  t[what] = (t[what] ?? 0) + 1;
  tally.set(surface, t);
}

/** Nulls in a JSON output where a number belongs (keys whose null means "none" aside). */
const NULL_OK = new Set([
  'iteration',
  'measured',
  'device',
  'worldSize',
  'commGroupsFile',
  'iterationNs',
  'startUnixNs',
  'label',
  'backend',
  'comm',
  'pgName',
  'step',
  'window',
]);

const leftovers = (d: string) =>
  existsSync(d)
    ? (readdirSync(d, { recursive: true }) as string[]).filter((f) => /\.tmp$|\.lock$|\.old-\d+$/.test(f))
    : [];

/**
 * Runs one import; checks the invariants every run keeps; returns 'ok' or the error line, and the ranks' node count.
 */
async function runImport(
  label: string,
  argv: string[],
  out: string,
): Promise<{ verdict: string; nodes: number | null }> {
  if (process.env.TW_TRACE_CASES) appendFileSync(process.env.TW_TRACE_CASES, `${label} ${argv.join(' ')}\n`);
  const r = await cli([...argv, '--out', path.join(out, 'x'), '--json']);
  const what = `${label}: ${argv.slice(0, 2).join(' ')}`;
  expect([0, 2], `${what}: exit ${r.code}\n${r.err}`).toContain(r.code);
  expect(leftovers(out), what).toEqual([]);
  if (r.code === 2) {
    const lines = r.err.trimEnd().split('\n');
    expect(lines, `${what}: ${r.err}`).toHaveLength(1);
    const line = lines[0]!;
    expect(line, what).toMatch(/^tracewatt: error: /);
    expect(line, what).not.toMatch(/\bundefined\b|\[object Object\]|\bNaN\b/);
    expect(line.split(dir).join('').split(repoRoot).join('').length, `${what}: ${line}`).toBeLessThan(700);
    expect(existsSync(out) ? readdirSync(out) : [], `${what}: a refused import wrote files`).toEqual([]);
    return { verdict: line.split(dir).join('<dir>'), nodes: null };
  }
  expect(badNulls(JSON.parse(r.out), NULL_OK), `${what}: null where a number belongs`).toEqual([]);
  // Every rank file validates (a --partial import's files one by one: the missing ranks are said, not there).
  const targets = argv.includes('--partial')
    ? readdirSync(out)
        .filter((f) => /^x\.\d+\.et$/.test(f))
        .map((f) => path.join(out, f))
    : [path.join(out, 'x')];
  let nodes = 0;
  for (const t of targets) {
    const v = await cli(['validate', t, '--json']);
    expect(v.code, `${what}: the import does not validate\n${v.out.slice(0, 2000)}`).toBe(0);
    nodes += (JSON.parse(v.out) as { nodes: number }).nodes;
  }
  return { verdict: 'ok', nodes };
}

/** A case's folder with the mutated file written as `name`, and the reader's verdict on it ('ok' or the CLI's line). */
async function mutatedFile(
  m: Mutation,
  name: string,
  read: (file: string) => Promise<unknown>,
): Promise<{ d: string; file: string; reader: string }> {
  const d = caseDir();
  const file = path.join(d, name);
  writeFileSync(file, m.text);
  try {
    await read(file);
    return { d, file, reader: 'ok' };
  } catch (e) {
    return { d, file, reader: `tracewatt: error: ${(e as Error).message}`.split(dir).join('<dir>') };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Kineto JSON mutations.

const READ_CATS = new Set([
  'kernel',
  'cpu_op',
  'user_annotation',
  'cuda_runtime',
  'cuda_driver',
  'gpu_memcpy',
  'gpu_memset',
  'cuda_sync',
]);
const EVENT_FIELDS = [
  'ts',
  'dur',
  'name',
  'cat',
  'ph',
  'pid',
  'tid',
  'args.correlation',
  'args.External id',
  'args.device',
  'args.stream',
  'args.bytes',
  'args',
];
const EXTRA_VALUES: unknown[] = [1e300, -5, 2 ** 53 + 2, 604_800_000_001, '0x0', 'ProfilerStep#1', 'Kernel', 'X', 'i'];

type Ev = Record<string, unknown> & { args?: Record<string, unknown> };
interface Kmut extends Mutation {
  /** The mutation changes nothing the import reads: same result as the base case. */
  same?: boolean;
}

function kinetoMutation(base: Record<string, unknown>, random: () => number): Kmut {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const j = structuredClone(base) as { traceEvents: Ev[]; distributedInfo?: Record<string, unknown> } & Record<
    string,
    unknown
  >;
  const events = j.traceEvents;
  const read = events.map((e, i) => [e, i] as const).filter(([e]) => e.ph === 'X' && READ_CATS.has(String(e.cat)));
  const text = () => JSON.stringify(j);
  const r = random();
  if (r < 0.4 && read.length) {
    const [e, i] = pick(read);
    const field = pick(EVENT_FIELDS);
    const value = structuredClone(pick(random() < 0.8 ? VALUE_POOL : EXTRA_VALUES));
    if (field.startsWith('args.')) e.args = { ...(e.args ?? {}), [field.slice(5)]: value };
    else e[field] = value;
    return { label: `event ${i} (${String(e.cat)}) .${field} = ${JSON.stringify(value)}`, text: text(), value };
  }
  if (r < 0.5 && read.length) {
    const [e, i] = pick(read);
    const field = pick(['ts', 'dur', 'name', 'cat', 'ph', 'args', 'args.correlation', 'args.External id']);
    if (field.startsWith('args.')) delete e.args?.[field.slice(5)];
    else delete e[field];
    return { label: `event ${i} (${String(e.cat)}) .${field} deleted`, text: text() };
  }
  if (r < 0.6) {
    const key = pick(['rank', 'world_size', 'backend', '(whole)']);
    const value = structuredClone(pick([...VALUE_POOL, 'zero', 2 ** 53 + 2]));
    if (key === '(whole)') j.distributedInfo = value as Record<string, unknown>;
    else j.distributedInfo = { ...(j.distributedInfo ?? {}), [key]: value };
    return {
      label: `distributedInfo${key === '(whole)' ? '' : `.${key}`} = ${JSON.stringify(value)}`,
      text: text(),
      value,
    };
  }
  if (r < 0.68) {
    const m = mutateJson({ ...j, traceEvents: events.slice(0, 3) }, random);
    // The first three events mutated (mutateJson cuts lists at three entries), the rest kept.
    const doc = (() => {
      try {
        return JSON.parse(m.text) as Record<string, unknown>;
      } catch {
        return null;
      }
    })();
    if (doc && Array.isArray(doc.traceEvents))
      return {
        label: `top level: ${m.label}`,
        text: JSON.stringify({ ...doc, traceEvents: [...doc.traceEvents, ...events.slice(3)] }),
      };
    return { label: `top level: ${m.label}`, text: doc ? JSON.stringify(doc) : m.text };
  }
  if (r < 0.84) {
    const kind = pick(['twice', 'reversed', 'shuffled', 'old categories', 'big ids', 'one event twice']);
    if (kind === 'twice') j.traceEvents = [...events, ...events.filter((e) => e.ph === 'X')];
    else if (kind === 'reversed') j.traceEvents = [...events].reverse();
    else if (kind === 'shuffled') {
      for (let i = events.length - 1; i > 0; i--) {
        const k = Math.floor(random() * (i + 1));
        [events[i], events[k]] = [events[k]!, events[i]!];
      }
    } else if (kind === 'one event twice' && read.length) events.push(structuredClone(pick(read)[0]));
    else if (kind === 'old categories') {
      const old: Record<string, string> = {
        kernel: 'Kernel',
        gpu_memcpy: 'Memcpy',
        gpu_memset: 'Memset',
        cuda_runtime: 'Runtime',
        cpu_op: 'Operator',
      };
      for (const e of events) if (old[String(e.cat)]) e.cat = old[String(e.cat)];
    } else if (kind === 'big ids') {
      return {
        label: 'correlation ids above 2^53',
        same: true,
        text: text().replace(
          /"correlation":(\d+)/g,
          (_, c) => `"correlation":${(2n ** 53n + 7n + BigInt(c)).toString()}`,
        ),
      };
    }
    return { label: `events ${kind}`, text: text(), same: kind !== 'one event twice' };
  }
  const t = text();
  if (r < 0.93) {
    const at = 1 + Math.floor(random() * (t.length - 1));
    return { label: `cut at character ${at}`, text: t.slice(0, at) };
  }
  const at = Math.floor(random() * t.length);
  const c = pick(['{', '}', '"', ',', ':', ']', '\u0000', 'x', '9']);
  return { label: `character ${at} replaced by ${JSON.stringify(c)}`, text: t.slice(0, at) + c + t.slice(at + 1) };
}

// ---------------------------------------------------------------------------------------------------------------
// Execution-trace JSON mutations.

function etMutation(base: Record<string, unknown>, random: () => number): Mutation {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const j = structuredClone(base) as { nodes: Record<string, unknown>[] } & Record<string, unknown>;
  const text = () => JSON.stringify(j);
  const r = random();
  if (r < 0.45) {
    const i = Math.floor(random() * j.nodes.length);
    const node = j.nodes[i]!;
    const field = pick([...Object.keys(node), 'ctrl_deps', 'attrs']);
    if (random() < 0.2) {
      delete node[field];
      return { label: `node ${i} .${field} deleted`, text: text() };
    }
    const value = structuredClone(pick([...VALUE_POOL, 2 ** 53 + 2, 'kernel', [[1, 2]]]));
    node[field] = value;
    return { label: `node ${i} .${field} = ${JSON.stringify(value)}`, text: text(), value };
  }
  if (r < 0.6) {
    const key = pick(['schema', 'pid', 'time', 'start_ts', 'finish_ts', 'nodes']);
    const value = structuredClone(pick([...VALUE_POOL, '99.0.0', '0.0.1', '1.0.3-chakra.0.0.4']));
    if (random() < 0.25) {
      delete j[key];
      return { label: `.${key} deleted`, text: text() };
    }
    j[key] = value;
    return { label: `.${key} = ${JSON.stringify(value)}`, text: text(), value };
  }
  if (r < 0.75) {
    const kind = pick(['a node twice', 'a node removed', 'nodes reversed', 'a GPU node added (as in an ET+)']);
    if (kind === 'a node twice') j.nodes.push(structuredClone(pick(j.nodes)));
    else if (kind === 'a node removed') j.nodes.splice(Math.floor(random() * j.nodes.length), 1);
    else if (kind === 'nodes reversed') j.nodes.reverse();
    else
      j.nodes.push({
        id: 10_000,
        name: 'kernel',
        cat: 'kernel',
        ph: 'X',
        ts: 1,
        inclusive_dur: 2,
        exclusive_dur: 2,
        parent: 2,
      });
    return { label: kind, text: text() };
  }
  if (r < 0.85) {
    const m = mutateJson({ ...j, nodes: j.nodes.slice(0, 3) }, random);
    let doc: Record<string, unknown> | null = null;
    try {
      doc = JSON.parse(m.text) as Record<string, unknown>;
    } catch {
      // not JSON any more: taken as it is
    }
    if (doc && Array.isArray(doc.nodes))
      return {
        label: `top level: ${m.label}`,
        text: JSON.stringify({ ...doc, nodes: [...doc.nodes, ...j.nodes.slice(3)] }),
      };
    return { label: `top level: ${m.label}`, text: doc ? JSON.stringify(doc) : m.text };
  }
  const t = text();
  const at = 1 + Math.floor(random() * (t.length - 1));
  return { label: `cut at character ${at}`, text: t.slice(0, at) };
}

describe('one verdict on the import surfaces (seeded mutations)', () => {
  const base: Record<string, number> = {};
  beforeAll(async () => {
    for (const [name, argv] of [
      ['pytorch', ['import', 'pytorch', '--et', ADD_ET, '--kineto', ADD_KINETO]],
      ['kineto', ['import', 'kineto', ADD_KINETO]],
      ...HTA.map((f) => [f, ['import', 'kineto', f]] as const),
    ] as const) {
      const r = await runImport(`base ${name}`, [...argv], caseDir());
      expect(r.verdict).toBe('ok');
      base[name] = r.nodes!;
    }
  });

  it('Kineto JSON of a real pair (simple_add): import pytorch and import kineto', async () => {
    const random = rng(2661);
    const j = loadJson(ADD_KINETO);
    for (let k = 0; k < 170; k++) {
      const m = kinetoMutation(j, random);
      const label = `kineto ${k}: ${m.label}`;
      const { d, file, reader } = await mutatedFile(m, 'kineto.json', (f) => readKinetoTrace(f));
      const pt = await runImport(label, ['import', 'pytorch', '--et', ADD_ET, '--kineto', file], path.join(d, 'pt'));
      const kt = await runImport(label, ['import', 'kineto', file], path.join(d, 'kt'));
      if (reader !== 'ok') {
        expect(pt.verdict, `${label}: import pytorch vs the Kineto reader`).toBe(reader);
        expect(kt.verdict, `${label}: import kineto vs the Kineto reader`).toBe(reader);
        count('Kineto JSON (pair)', 'clean rejects (by the reader, both imports alike)');
        continue;
      }
      if (m.same) {
        expect(pt, `${label}: import pytorch`).toEqual({ verdict: 'ok', nodes: base.pytorch });
        expect(kt, `${label}: import kineto`).toEqual({ verdict: 'ok', nodes: base.kineto });
      }
      if (pt.verdict === 'ok' && kt.verdict === 'ok') count('Kineto JSON (pair)', 'accepted (both imports)');
      else if (pt.verdict !== 'ok' && kt.verdict !== 'ok')
        count('Kineto JSON (pair)', 'clean rejects (both imports, each for what it needs of the trace)');
      else
        count(
          'Kineto JSON (pair)',
          `read by both; refused by ` +
            (pt.verdict !== 'ok' ? 'import pytorch (linking to the ET)' : 'import kineto (what it needs alone)') +
            ` only`,
        );
    }
  }, 600_000);

  it("Kineto JSON of HTA's real traces: import kineto", async () => {
    const random = rng(2662);
    for (const [n, f] of HTA.entries()) {
      const j = loadJson(f);
      for (let k = 0; k < 35; k++) {
        const m = kinetoMutation(j, random);
        const label = `${path.basename(f)} ${k}: ${m.label}`;
        const { d, file, reader } = await mutatedFile(m, 'kineto.json', (x) => readKinetoTrace(x));
        const kt = await runImport(label, ['import', 'kineto', file], path.join(d, 'kt'));
        if (reader !== 'ok') expect(kt.verdict, `${label}: import kineto vs the Kineto reader`).toBe(reader);
        if (m.same) expect(kt, label).toEqual({ verdict: 'ok', nodes: base[f] });
        count(
          'Kineto JSON (HTA)',
          kt.verdict === 'ok'
            ? 'accepted'
            : reader !== 'ok'
              ? 'clean rejects (by the reader)'
              : 'clean rejects (by import kineto)',
        );
      }
      expect(n).toBeLessThan(HTA.length);
    }
  }, 600_000);

  it('execution-trace JSON of a real pair (simple_add): import pytorch', async () => {
    const random = rng(2663);
    const j = loadJson(ADD_ET);
    for (let k = 0; k < 140; k++) {
      const m = etMutation(j, random);
      const label = `ET ${k}: ${m.label}`;
      const { d, file, reader } = await mutatedFile(m, 'et.json', (f) => readExecutionTrace(f));
      const pt = await runImport(
        label,
        ['import', 'pytorch', '--et', file, '--kineto', ADD_KINETO],
        path.join(d, 'pt'),
      );
      if (reader !== 'ok') expect(pt.verdict, `${label}: import pytorch vs the ET reader`).toBe(reader);
      count(
        'ET JSON (pair)',
        pt.verdict === 'ok'
          ? 'accepted'
          : reader !== 'ok'
            ? 'clean rejects (by the reader)'
            : 'clean rejects (by import pytorch)',
      );
    }
  }, 600_000);

  it('--dir folders of the real 2-rank gloo run: missing, corrupt, foreign, duplicated', async () => {
    const random = rng(2664);
    const files = ['rank0.et.json.gz', 'rank0.pt.trace.json.gz', 'rank1.et.json.gz', 'rank1.pt.trace.json.gz'];
    const gz = (f: string) => readFileSync(path.join(GLOO, f));
    const kinds = ['missing', 'corrupt', 'cut', 'foreign', 'duplicated rank', 'ET+ alone', 'partial'] as const;
    for (let k = 0; k < 28; k++) {
      const kind = kinds[k % kinds.length]!;
      const victim = files[Math.floor(random() * files.length)]!;
      const d = caseDir();
      const folder = path.join(d, 'in');
      mkdirSync(folder);
      for (const f of files)
        if (!(['missing', 'partial'].includes(kind) && f === victim))
          copyFileSync(path.join(GLOO, f), path.join(folder, f));
      if (kind === 'corrupt')
        writeFileSync(
          path.join(folder, victim),
          Buffer.from(Array.from({ length: 64 }, () => Math.floor(random() * 256))),
        );
      if (kind === 'cut')
        writeFileSync(
          path.join(folder, victim),
          gz(victim).subarray(0, 1 + Math.floor(random() * (gz(victim).length - 1))),
        );
      if (kind === 'foreign')
        writeFileSync(path.join(folder, pick(random, ['notes.json', 'config.json.gz', 'power.csv'])), '{"a": 1}');
      if (kind === 'duplicated rank')
        copyFileSync(path.join(GLOO, victim), path.join(folder, `copy-9.${victim.replace(/^rank\d\./, '')}`));
      if (kind === 'ET+ alone')
        writeFileSync(
          path.join(folder, 'linked-5.json'),
          JSON.stringify({ ...loadJson(ADD_ET), pid: 5 }).replace(
            '"nodes":[',
            '"nodes":[{"id":99999,"name":"k","cat":"kernel","ph":"X","inclusive_dur":1},',
          ),
        );
      const label = `dir ${k}: ${kind} ${victim}`;
      const r = await runImport(
        label,
        ['import', 'pytorch', '--dir', folder, ...(kind === 'partial' ? ['--partial'] : [])],
        path.join(d, 'out'),
      );
      if (kind === 'foreign') expect(r.verdict, label).toBe('ok');
      else if (kind === 'partial') {
        // Without the victim's partner nothing pairs one way or the other: an ET alone is an error, a Kineto trace
        // alone is said.
        if (victim.includes('.et.')) expect(r.verdict, label).toBe('ok');
        else expect(r.verdict, label).toMatch(/no Kineto trace/);
      } else if (kind !== 'cut' || r.verdict !== 'ok')
        expect(r.verdict, `${label}: a rank dropped without a word`).not.toBe('ok');
      // A refusal names a file of the folder it is about: the one changed, its partner, or the one added.
      const partner = victim.includes('.et.')
        ? victim.replace('.et.', '.pt.trace.')
        : victim.replace('.pt.trace.', '.et.');
      if (r.verdict !== 'ok')
        expect(
          [victim, partner, 'copy-9', 'linked-5'].some((f) => r.verdict.includes(f)),
          `${label}: ${r.verdict}`,
        ).toBe(true);
      count(
        '--dir folders',
        r.verdict === 'ok'
          ? `accepted (${kind === 'foreign' ? 'the foreign file named in a note' : 'partial: the missing rank said'})`
          : 'clean rejects (naming the file)',
      );
    }
  }, 600_000);

  it('covers at least 330 cases, which with the 1,168 of surfaces-verdict makes at least 1,500', () => {
    const cases = [...tally.values()].flatMap((t) => Object.values(t)).reduce((a, b) => a + b, 0);
    expect(cases).toBeGreaterThanOrEqual(332);
  });

  afterAll(() => {
    let cases = 0;
    const lines: string[] = [];
    for (const [surface, t] of tally) {
      const n = Object.values(t).reduce((a, b) => a + b, 0);
      cases += n;
      lines.push(
        `  ${surface}: ${n} cases — ${Object.entries(t)
          .map(([k, v]) => `${v} ${k}`)
          .join(', ')}`,
      );
    }
    console.log(`[import verdict] ${cases} cases\n${lines.join('\n')}`);
  });
});

function pick<T>(random: () => number, xs: readonly T[]): T {
  return xs[Math.floor(random() * xs.length)]!;
}

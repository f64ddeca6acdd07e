/**
 * `import pytorch` keeps the input contract (issue 26): nothing dropped without a word in a `--dir` folder (a rank's
 * execution trace missing or corrupt is an error naming the file, or with --partial a counted note; other files are
 * named; a linked "ET+" is read as the execution trace it was made from), and the Kineto and ET readers' odd input
 * (events written twice or out of order, a 1e300 µs kernel, a rank that is not a whole number, an unknown ET schema,
 * older Kineto's capitalised categories, correlation ids above 2^53) — each either read to the same result as the
 * clean file (said) or refused in one line naming the file and the value. Built from the real pairs in
 * traces/pytorch-real.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importKineto, importPytorch } from '../../src/engines/import/index.js';
import { FormatError, TracewattError } from '../../src/errors.js';
import { MAX_EVENT_DURATION_US } from '../../src/formats/kineto/trace.js';
import { KNOWN_ET_SCHEMAS } from '../../src/formats/pytorch/et.js';
import { cli } from '../helpers/cli.js';
import { vendored } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const addEt = shipped('pytorch-real', 'simple_add', 'et.json.gz');
const addKineto = shipped('pytorch-real', 'simple_add', 'kineto.json.gz');
const gloo = shipped('pytorch-real', 'h200-gpt-gloo');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-import-contract-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type Json = Record<string, unknown> & { traceEvents?: Record<string, unknown>[] };
const text = async (f: string) => gunzipSync(await readFile(f)).toString('utf8');
const load = async (f: string) => JSON.parse(await text(f)) as Json;
let n = 0;
const put = async (name: string, content: string | Buffer) => {
  const f = path.join(dir, `${n++}-${name}`);
  await writeFile(f, content);
  return f;
};
/** A folder holding copies of `files` (renamed by `rename` when given). */
async function folder(name: string, files: string[], extra: Record<string, string | Buffer> = {}): Promise<string> {
  const d = path.join(dir, name);
  await mkdir(d, { recursive: true });
  for (const f of files) await copyFile(f, path.join(d, path.basename(f)));
  for (const [k, v] of Object.entries(extra)) await writeFile(path.join(d, k), v);
  return d;
}
const glooFiles = ['rank0.et.json.gz', 'rank0.pt.trace.json.gz', 'rank1.et.json.gz', 'rank1.pt.trace.json.gz'].map(
  (f) => path.join(gloo, f),
);
const bytes = (prefix: string, rank = 0) => readFile(`${prefix}.${rank}.et`);

/** The CLI's verdict: exit 2 with one line naming `names`. */
async function refused(argv: string[], ...names: (string | RegExp)[]): Promise<string> {
  const r = await cli(argv);
  expect(r.code, r.err + r.out).toBe(2);
  const lines = r.err.trim().split('\n');
  expect(lines).toHaveLength(1);
  for (const x of names)
    expect(lines[0]).toMatch(typeof x === 'string' ? new RegExp(x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : x);
  return lines[0]!;
}

describe('import pytorch --dir: nothing dropped without a word', () => {
  it(
    'a rank whose execution trace is missing is an error naming its Kineto trace; --partial imports the rest, ' +
      'said and counted',
    async () => {
      const d = await folder(
        'no-et-1',
        glooFiles.filter((f) => !f.endsWith('rank1.et.json.gz')),
      );
      await refused(
        ['import', 'pytorch', '--dir', d, '--out', path.join(dir, 'o-no-et')],
        'rank1.pt.trace.json.gz',
        /no execution trace .* pairs with this Kineto trace.*--partial/,
      );
      const r = await importPytorch({ dir: d, out: path.join(dir, 'o-no-et'), partial: true });
      expect(r.ranks.map((x) => x.rank)).toEqual([0]);
      expect(r.missingRanks).toEqual([1]);
      expect(r.notes.join('\n')).toMatch(
        /1 Kineto trace\(s\) without an execution trace left out: rank1\.pt\.trace\.json\.gz/,
      );
      expect(r.notes.join('\n')).toMatch(/partial run: 1 of 2 ranks imported; no trace for ranks 1/);
    },
  );

  it(
    'a corrupt execution trace: not a trace at all is named beside the unpaired Kineto trace; a cut one is ' +
      'refused naming it',
    async () => {
      const garbage = await folder(
        'garbage-et',
        glooFiles.filter((f) => !f.endsWith('rank1.et.json.gz')),
        { 'rank1.et.json.gz': Buffer.from('not a trace\n') },
      );
      await refused(
        ['import', 'pytorch', '--dir', garbage, '--out', path.join(dir, 'o-garbage')],
        'rank1.pt.trace.json.gz',
        'not recognised as a trace: rank1.et.json.gz',
      );
      const cut = await folder(
        'cut-et',
        glooFiles.filter((f) => !f.endsWith('rank1.et.json.gz')),
        { 'rank1.et.json.gz': (await readFile(path.join(gloo, 'rank1.et.json.gz'))).subarray(0, 20_000) },
      );
      await refused(
        ['import', 'pytorch', '--dir', cut, '--out', path.join(dir, 'o-cut')],
        path.join(cut, 'rank1.et.json.gz'),
        /corrupt or cut short/,
      );
      await expect(importPytorch({ dir: cut, out: path.join(dir, 'o-cut') })).rejects.toThrow(FormatError);
    },
  );

  it('a missing Kineto trace, a rank given twice and a rank from another world size are errors naming the file', async () => {
    const noKineto = await folder(
      'no-kineto',
      glooFiles.filter((f) => !f.endsWith('rank1.pt.trace.json.gz')),
    );
    await refused(
      ['import', 'pytorch', '--dir', noKineto, '--out', path.join(dir, 'o-nk')],
      'rank1.et.json.gz',
      /no Kineto trace/,
    );
    // Rank 1's pair copied in as a third pair (another process id and number): rank 1 twice.
    const twice = await folder('twice', glooFiles);
    const k1 = (await text(path.join(gloo, 'rank1.pt.trace.json.gz'))).replace(
      /"pid": (\d+)/g,
      (_, p) => `"pid": ${Number(p) + 1}`,
    );
    const e1 = (await text(path.join(gloo, 'rank1.et.json.gz'))).replace(
      /"pid": (\d+)/,
      (_, p) => `"pid": ${Number(p) + 1}`,
    );
    await writeFile(path.join(twice, 'rank7.pt.trace.json'), k1);
    await writeFile(path.join(twice, 'rank7.et.json'), e1);
    await refused(
      ['import', 'pytorch', '--dir', twice, '--out', path.join(dir, 'o-twice')],
      /rank 1 given twice/,
      'rank7.pt.trace.json',
    );
  });

  it('files that pair with nothing are named in a note', async () => {
    const d = await folder('foreign', glooFiles, {
      'config.json': '{"lr": 0.1}',
      'nvidia-smi.csv': 'timestamp, power.draw [W]\n',
    });
    const r = await cli(['import', 'pytorch', '--dir', d, '--out', path.join(dir, 'o-foreign')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /note: .*2 file\(s\) neither an execution trace nor a Kineto trace, not read: config\.json, nvidia-smi\.csv/,
    );
  });

  it(
    'import kineto --dir names the .json files that are neither trace (the execution traces are import ' + "pytorch's)",
    async () => {
      const d = await folder('foreign-k', glooFiles, {
        'config.json': '{"lr": 0.1}',
        'rank2.pt.trace.json.gz': Buffer.from('garbage'),
      });
      const r = await importKineto({ dir: d, out: path.join(dir, 'o-foreign-k') });
      expect(r.ranks.map((x) => x.rank)).toEqual([0, 1]);
      expect(r.notes).toContain(
        `${d}: 2 .json file(s) neither a Kineto trace nor an execution trace, not read: config.json, ` +
          `rank2.pt.trace.json.gz`,
      );
    },
  );

  it(
    'a linked "ET+" (chakra_trace_link) is read as the execution trace it was made from, or left out beside it ' +
      '(said)',
    async () => {
      const linked = vendored('traces', 'pytorch-real', 'linked', 'simple_add.linked.json.gz');
      const plain = await importPytorch({
        pairs: [{ et: addEt, kineto: addKineto }],
        out: path.join(dir, 'plus-plain'),
      });
      const plus = await importPytorch({ pairs: [{ et: linked, kineto: addKineto }], out: path.join(dir, 'plus') });
      expect(await bytes(path.join(dir, 'plus'))).toEqual(await bytes(path.join(dir, 'plus-plain')));
      expect(plus.ranks[0]!.link).toEqual(plain.ranks[0]!.link);
      expect(plus.ranks[0]!.notes.join('\n')).toMatch(
        /linked "ET\+" \(chakra_trace_link output\): read as the execution trace it was made from, its 4 GPU node\(s\)/,
      );
      const d = await folder('with-plus', [addEt, addKineto, linked]);
      const both = await importPytorch({ dir: d, out: path.join(dir, 'with-plus') });
      expect(both.ranks).toHaveLength(1);
      expect(both.ranks[0]!.et).toBe(path.join(d, 'et.json.gz'));
      expect(both.notes.join('\n')).toMatch(
        /simple_add\.linked\.json\.gz is a linked "ET\+" .* of the same process as an execution trace in the folder: left out/,
      );
    },
  );
});

describe('Kineto and execution-trace readers: odd input read to the same result, or refused naming the value', () => {
  let base: Awaited<ReturnType<typeof importPytorch>>;
  let j: Json;
  beforeAll(async () => {
    base = await importPytorch({ pairs: [{ et: addEt, kineto: addKineto }], out: path.join(dir, 'base') });
    j = await load(addKineto);
  });
  const same = async (kineto: string, name: string) => {
    const r = await importPytorch({ pairs: [{ et: addEt, kineto }], out: path.join(dir, name) });
    expect(await bytes(path.join(dir, name))).toEqual(await bytes(path.join(dir, 'base')));
    expect(r.ranks[0]!.link).toEqual(base.ranks[0]!.link);
    expect(r.ranks[0]!.convert).toEqual(base.ranks[0]!.convert);
    return r.ranks[0]!;
  };

  it(
    'every event written twice: the duplicates dropped with a counted note, the result equal to the clean ' + 'import',
    async () => {
      const xs = j.traceEvents!.filter((e) => e.ph === 'X');
      const r = await same(
        await put('twice.json', JSON.stringify({ ...j, traceEvents: [...j.traceEvents!, ...xs] })),
        'twice',
      );
      const read = xs.filter((e) =>
        ['cpu_op', 'user_annotation', 'kernel', 'gpu_memcpy', 'gpu_memset', 'cuda_runtime', 'cuda_driver'].includes(
          String(e.cat),
        ),
      ).length;
      expect(r.notes.join('\n')).toContain(`${read} events repeat another exactly`);
    },
  );

  it('events out of order (reversed): the same result', async () => {
    await same(
      await put('reversed.json', JSON.stringify({ ...j, traceEvents: [...j.traceEvents!].reverse() })),
      'reversed',
    );
  });

  it(
    'older Kineto categories (Kernel, Memcpy, Memset, Runtime, Operator; "external id") read as their current ' +
      'names',
    async () => {
      const old: Record<string, string> = {
        kernel: 'Kernel',
        gpu_memcpy: 'Memcpy',
        gpu_memset: 'Memset',
        cuda_runtime: 'Runtime',
        cpu_op: 'Operator',
      };
      const events = j.traceEvents!.map((e) => {
        const cat = old[String(e.cat)];
        if (!cat) return e;
        const args = { ...(e.args as Record<string, unknown>) };
        if (cat !== 'Operator' && 'External id' in args) {
          args['external id'] = args['External id'];
          delete args['External id'];
        }
        return { ...e, cat, args };
      });
      const r = await same(await put('old-cats.json', JSON.stringify({ ...j, traceEvents: events })), 'old-cats');
      expect(r.notes.join('\n')).toMatch(
        /older Kineto event categories read as their current names: .*"Kernel" as kernel/,
      );
    },
  );

  it('correlation ids above 2^53 keep every kernel linked (import pytorch as import kineto)', async () => {
    const big = (await text(addKineto)).replace(
      /"correlation": (\d+)/g,
      (_, c) => `"correlation": ${(2n ** 53n + 1000n + BigInt(c)).toString()}`,
    );
    expect(big).toMatch(/"correlation": 90071992547\d{5}/);
    await same(await put('big-ids.json', big), 'big-ids');
  });

  it('a kernel of 1e300 µs is refused where it is read: one line with the limit and its unit', async () => {
    const events = j.traceEvents!.map((e) => (e.cat === 'kernel' ? { ...e, dur: 1e300 } : e));
    const f = await put('huge-kernel.json', JSON.stringify({ ...j, traceEvents: events }));
    const line = await refused(
      ['import', 'pytorch', '--et', addEt, '--kineto', f, '--out', path.join(dir, 'o-huge')],
      f,
      /dur 1e\+?300 µs is out of range \(must be ≤ 6\.048e\+?11 µs, a week\)/,
    );
    expect(line).not.toMatch(/\d{20}/);
    expect(MAX_EVENT_DURATION_US).toBe(604_800_000_000);
    await refused(['import', 'kineto', f, '--out', path.join(dir, 'o-huge-k')], f, /dur 1e\+?300 µs is out of range/);
  });

  it(
    'a distributedInfo.rank of "zero", −1, 1.5 or 2^53 + 1 is an error naming the file and the value, in both ' +
      'imports',
    async () => {
      const raw = await text(addKineto);
      for (const [value, shown] of [
        ['"zero"', '"zero"'],
        ['-1', '-1'],
        ['1.5', '1.5'],
        ['9007199254740993', '9007199254740992 (at or beyond 2^53: not exact)'],
      ] as const) {
        const f = await put(
          'rank.json',
          raw.replace('"distributedInfo": {"rank": 0}', `"distributedInfo": {"rank": ${value}}`),
        );
        const message = `distributedInfo.rank: expected a whole number from 0 to 2^53 − 1, found ${shown}`;
        await refused(
          ['import', 'pytorch', '--et', addEt, '--kineto', f, '--out', path.join(dir, 'o-rank')],
          f,
          message,
        );
        await refused(['import', 'kineto', f, '--out', path.join(dir, 'o-rank-k')], f, message);
      }
      const ws = await put(
        'world.json',
        raw.replace('"distributedInfo": {"rank": 0}', '"distributedInfo": {"rank": 0, "world_size": 0}'),
      );
      await expect(importKineto({ traces: [ws], out: path.join(dir, 'o-ws') })).rejects.toThrow(
        'distributedInfo.world_size: expected a whole number from 1 to 1048576 ranks (the most tracewatt ' +
          'replays), found 0',
      );
    },
  );

  it(
    'an execution-trace schema tracewatt does not know, or none, is read with a note naming it and the known ' + 'ones',
    async () => {
      const et = await text(addEt);
      for (const schema of ['99.0.0', '0.0.1', null]) {
        const f = await put(
          'schema.json',
          schema === null
            ? et.replace(/"schema": "[^"]*",\s*/, '')
            : et.replace(/"schema": "[^"]*"/, `"schema": "${schema}"`),
        );
        const r = await cli([
          'import',
          'pytorch',
          '--et',
          f,
          '--kineto',
          addKineto,
          '--out',
          path.join(dir, 'o-schema'),
        ]);
        expect(r.code, r.err).toBe(0);
        const said =
          schema === null
            ? 'the execution trace has no "schema" key'
            : `execution-trace schema ${schema} is not one of`;
        expect(r.out).toContain(`note: ${said}`);
        expect(r.out).toContain(KNOWN_ET_SCHEMAS.join(', '));
      }
    },
  );

  it('a typed error, never an internal one', async () => {
    const f = await put(
      'rank-obj.json',
      (await text(addKineto)).replace('"distributedInfo": {"rank": 0}', '"distributedInfo": {"rank": {"a": 1}}'),
    );
    await expect(importPytorch({ pairs: [{ et: addEt, kineto: f }], out: path.join(dir, 'o-obj') })).rejects.toThrow(
      TracewattError,
    );
  });
});

/**
 * The output discipline (src/formats/output.ts) under every command that writes: a run that fails while writing
 * (a real ENOSPC, from a temporary file that leads to /dev/full) exits 2 with one line naming the file, and leaves the
 * folder exactly as the previous successful run left it (same names, same bytes, same inodes: nothing replaced,
 * nothing half-written, no temporary file or lock). Before the discipline, annotate, generate and calibrate left
 * truncated or empty files under their final names.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCalibration, saveCalibration } from '../../src/engines/calibrate/index.js';
import { discardPendingOutputs, OutputSet, writeFileAtomic } from '../../src/formats/output.js';
import { cli, generateLlama } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const trace = shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce');
const cluster = [
  '--system',
  path.join(repoRoot, 'traces', 'configs', 'sys_ring_example.json'),
  '--network',
  path.join(repoRoot, 'traces', 'configs', 'Switch_8npus.yml'),
];
const calibration = path.join(repoRoot, 'calibration', 'rtx8000.json');
const simpleAdd = path.join(repoRoot, 'traces', 'pytorch-real', 'simple_add');
const hasDevFull = existsSync('/dev/full');

/** Every file under `dir`: relative path → size, inode and content hash. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else
        out[path.relative(dir, p)] = `${st.size} ${st.ino} ${createHash('sha1').update(readFileSync(p)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}

/** Makes the temporary file of `file` lead to /dev/full, so that writing it fails with a real ENOSPC. */
function fillDisk(file: string): void {
  symlinkSync('/dev/full', `${file}.tmp`);
}

async function tmp(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'tw-discipline-'));
}

interface WriteCase {
  name: string;
  argv: (dir: string) => string[];
  /** The output file whose write fails (relative to the folder). */
  fails: string;
  /** Inputs the command reads, made in the folder first. */
  setup?: (dir: string) => Promise<void>;
}

/** Commands that write several files, each case failing at another of them. */
const generateArgv = (d: string) => [
  ...['generate', 'llm', '--model', 'llama2-7b', '--tp', '2', '--global-batch', '1', '--seq', '128'],
  ...['--out', path.join(d, 'g')],
];
const annotateArgv = (d: string) => [
  ...['annotate', trace, '--calibration', calibration, '--frequencies', '705,1410'],
  ...['--out', path.join(d, 'a')],
];

const CASES: WriteCase[] = [
  { name: 'convert', argv: (d) => ['convert', `${trace}.0.et`, path.join(d, 'c.json')], fails: 'c.json' },
  {
    name: 'convert to .et',
    argv: (d) => ['convert', path.join(d, 'in.json'), path.join(d, 'c.et')],
    fails: 'c.et',
    setup: async (d) => void expect((await cli(['convert', `${trace}.0.et`, path.join(d, 'in.json')])).code).toBe(0),
  },
  {
    name: 'replay --timeline',
    argv: (d) => ['replay', trace, ...cluster, '--timeline', path.join(d, 't.json')],
    fails: 't.json',
  },
  {
    name: 'report',
    argv: (d) => ['report', path.join(d, 'replay.json'), '--out', path.join(d, 'r.html')],
    fails: 'r.html',
    setup: async (d) =>
      writeFileSync(path.join(d, 'replay.json'), (await cli(['replay', trace, ...cluster, '--json'])).out),
  },
  {
    name: 'sweep network --out',
    argv: (d) => [
      'sweep',
      'network',
      trace,
      ...cluster,
      '--dimension',
      '0',
      '--scale',
      '0.5,1',
      '--threads',
      '1',
      '--out',
      path.join(d, 'n.json'),
    ],
    fails: 'n.json',
  },
  {
    name: 'generate (first rank)',
    argv: generateArgv,
    fails: 'g.0.et',
  },
  {
    name: 'generate (its last file)',
    argv: generateArgv,
    fails: 'g.system.json',
  },
  {
    name: 'annotate (a rank file)',
    argv: annotateArgv,
    fails: 'a.1410MHz.5.et',
  },
  {
    name: 'annotate (power.json)',
    argv: annotateArgv,
    fails: 'a.1410MHz.power.json',
  },
  {
    name: 'import pytorch',
    fails: 's.0.et',
    argv: (d) => [
      'import',
      'pytorch',
      '--et',
      path.join(simpleAdd, 'et.json.gz'),
      '--kineto',
      path.join(simpleAdd, 'kineto.json.gz'),
      '--out',
      path.join(d, 's'),
    ],
  },
  {
    name: 'export astra-sim (a rank)',
    argv: (d) => ['export', 'astra-sim', trace, ...cluster, '--out', path.join(d, 'e')],
    fails: path.join('e', 'workload', 'all_reduce.6.et'),
  },
  {
    name: 'export astra-sim (run.sh)',
    argv: (d) => ['export', 'astra-sim', trace, ...cluster, '--out', path.join(d, 'e')],
    fails: path.join('e', 'run.sh'),
  },
  {
    name: 'plan --out',
    fails: path.join('p', 'frontier.csv'),
    argv: (d) => [
      'plan',
      '--profile',
      path.join(repoRoot, 'calibration', 'profiles', 'perseus-sosp24', 'gpt3-175b+a40_bf16.csv'),
      '--stages',
      '8',
      '--micro-batches',
      '12',
      '--blocking-power',
      '70.38',
      '--points',
      '20',
      '--out',
      path.join(d, 'p'),
    ],
  },
];

describe.runIf(hasDevFull)(
  'a full disk while writing: exit 2, one line naming the file, the previous outputs untouched',
  () => {
    it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const dir = await tmp();
      await c.setup?.(dir);
      const first = await cli(c.argv(dir));
      expect(first.err.includes('error'), first.err).toBe(false);
      expect(first.code).toBe(0);
      const before = snapshot(dir);
      expect(Object.keys(before).filter((f) => /\.(tmp|lock)$/.test(f))).toEqual([]);
      const failing = path.join(dir, c.fails);
      expect(existsSync(failing), `${c.fails} is written by a successful run`).toBe(true);

      fillDisk(failing);
      const r = await cli(c.argv(dir));
      expect(r.code).toBe(2);
      // One error line, last (plan prints its profile's notes before it).
      expect(r.err.endsWith(`tracewatt: error: ${failing}: cannot write (ENOSPC)\n`), r.err).toBe(true);
      expect(r.err.split('\n').filter((l) => l.startsWith('tracewatt:'))).toHaveLength(1);
      expect(snapshot(dir)).toEqual(before);
    });

    it('saveCalibration (what calibrate writes) leaves the previous calibration as it was', async () => {
      const dir = await tmp();
      const file = path.join(dir, 'cal.json');
      const cal = await loadCalibration(calibration);
      await saveCalibration(file, cal);
      const before = snapshot(dir);
      fillDisk(file);
      await expect(saveCalibration(file, cal)).rejects.toThrow(`${file}: cannot write (ENOSPC)`);
      expect(snapshot(dir)).toEqual(before);
    });

    it('a failed first run leaves no file and removes the folders it made', async () => {
      const dir = await tmp();
      const out = path.join(dir, 'new', 'deeper', 'g');
      const made = await generateLlama(out, '--global-batch 1 --seq 128');
      expect(made.code).toBe(0);
      const dir2 = await tmp();
      const out2 = path.join(dir2, 'g');
      fillDisk(`${out2}.network.yml`);
      const r = await generateLlama(out2, '--global-batch 1 --seq 128');
      expect(r.code).toBe(2);
      expect(readdirSync(dir2)).toEqual([]);
    });
  },
);

describe('output sets', () => {
  it('files appear together at commit; a discarded set leaves the previous ones and no temporary file or lock', async () => {
    const dir = await tmp();
    const prefix = path.join(dir, 'x');
    await OutputSet.write(prefix, async (set) => {
      await set.put(`${prefix}.0.et`, 'old 0');
      await set.put(`${prefix}.1.et`, 'old 1');
      expect(existsSync(`${prefix}.0.et`)).toBe(false);
      expect(readFileSync(`${prefix}.lock`, 'utf8').trim()).toBe(String(process.pid));
    });
    expect(readdirSync(dir).sort()).toEqual(['x.0.et', 'x.1.et']);
    await expect(
      OutputSet.write(prefix, async (set) => {
        await set.put(`${prefix}.0.et`, 'new 0');
        throw new Error('the input was cut short');
      }),
    ).rejects.toThrow('cut short');
    expect(readdirSync(dir).sort()).toEqual(['x.0.et', 'x.1.et']);
    expect(readFileSync(`${prefix}.0.et`, 'utf8')).toBe('old 0');
  });

  it('a rename that fails at commit puts back the files already renamed', async () => {
    const dir = await tmp();
    const a = path.join(dir, 'a.txt');
    const b = path.join(dir, 'b');
    await writeFileAtomic(a, 'old a');
    const set = OutputSet.open(path.join(dir, 'set'));
    await set.put(a, 'new a');
    await set.put(b, 'new b');
    // b's final name becomes a non-empty folder: renaming the file onto it fails after a.txt was renamed.
    mkdirSync(path.join(b, 'inside'), { recursive: true });
    expect(() => set.commit()).toThrow(`${b}: cannot write (EISDIR)`);
    expect(readFileSync(a, 'utf8')).toBe('old a');
    expect(readdirSync(dir).filter((f) => /\.(tmp|lock)$|\.old-/.test(f))).toEqual([]);
  });

  it(
    "a second run on the same outputs is refused in one line while the first holds the lock; a dead holder's " +
      'lock is taken over',
    async () => {
      const dir = await tmp();
      const prefix = path.join(dir, 'g');
      const first = OutputSet.open(prefix);
      const r = await generateLlama(prefix, '--global-batch 1 --seq 128');
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        `tracewatt: error: ${prefix}: this process is writing these outputs; wait for it to finish, or choose ` +
          `another output (lock ${prefix}.lock)\n`,
      );
      first.discard();
      expect(readdirSync(dir)).toEqual([]);

      // A pid that is not running: a run killed with SIGKILL left its lock.
      writeFileSync(`${prefix}.lock`, '999999999\n');
      expect((await generateLlama(prefix, '--global-batch 1 --seq 128')).code).toBe(0);
      expect(existsSync(`${prefix}.lock`)).toBe(false);
    },
  );

  it('a new result replaces the whole earlier one: no rank file of a run with more ranks stays beside it', async () => {
    const dir = await tmp();
    const prefix = path.join(dir, 'g');
    const gen = (tp: string) =>
      cli([
        'generate',
        'llm',
        '--model',
        'llama2-7b',
        '--tp',
        tp,
        '--global-batch',
        '1',
        '--seq',
        '128',
        '--out',
        prefix,
      ]);
    expect((await gen('4')).code).toBe(0);
    writeFileSync(path.join(dir, 'g.x.et'), 'not a rank file of g');
    writeFileSync(path.join(dir, 'other.2.et'), 'a rank file of another prefix');
    expect((await gen('2')).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([
      'g.0.et',
      'g.1.et',
      'g.network.yml',
      'g.system.json',
      'g.x.et',
      'other.2.et',
    ]);
    const annotated = path.join(dir, 'a');
    const annotate = (t: string) =>
      cli(['annotate', t, '--calibration', calibration, '--frequency', '1410', '--out', annotated]);
    expect((await annotate(trace)).code).toBe(0);
    expect((await annotate(prefix)).code).toBe(0);
    expect(
      readdirSync(dir)
        .filter((f) => f.startsWith('a.'))
        .sort(),
    ).toEqual(['a.0.et', 'a.1.et', 'a.power.json']);
  });

  it('a commit that fails puts back the earlier files it was replacing', async () => {
    const dir = await tmp();
    const prefix = path.join(dir, 'x');
    for (const r of [0, 1, 2]) writeFileSync(`${prefix}.${r}.et`, `old ${r}`);
    const set = OutputSet.open(prefix);
    set.supersede(dir, (n) => /^x\.\d+\.et$/.test(n));
    await set.put(`${prefix}.0.et`, 'new 0');
    await set.put(path.join(dir, 'blocked'), 'new');
    mkdirSync(path.join(dir, 'blocked', 'inside'), { recursive: true });
    expect(() => set.commit()).toThrow('cannot write (EISDIR)');
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'x.0.et', 'x.1.et', 'x.2.et']);
    expect([0, 1, 2].map((r) => readFileSync(`${prefix}.${r}.et`, 'utf8'))).toEqual(['old 0', 'old 1', 'old 2']);
  });

  it('discardPendingOutputs (what an interrupt runs) removes every pending temporary file, lock and made folder', async () => {
    const dir = await tmp();
    const set = OutputSet.open(path.join(dir, 'sub', 'x'));
    await set.put(path.join(dir, 'sub', 'x.0.et'), 'partial');
    expect(statSync(path.join(dir, 'sub')).isDirectory()).toBe(true);
    expect(discardPendingOutputs().discarded).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });
});

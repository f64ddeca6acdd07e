/**
 * The built `tracewatt` as a real process, cut short the ways users cut it: Ctrl-C (SIGINT) or SIGTERM mid-write,
 * a second run on the same outputs, a reader that stops reading (EPIPE). Each interrupted run prints one line, exits
 * 128 + the signal (130 for SIGINT, 143 for SIGTERM), and leaves the previous outputs as they were: no partial file,
 * temporary file, lock, or
 * temporary folder. Before, generate and annotate left truncated rank files under their final names, replay an empty
 * `.tmp`, sweep gpu its folder in the OS temp directory, and `--help | head` a 25-line EPIPE stack.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/shared.js';

const bin = path.join(repoRoot, 'dist', 'cli', 'main.js');
const built = existsSync(bin);
if (!built)
  console.warn('dist/ not built (npm run build): the process tests of interrupts, locks and EPIPE are skipped');
const calibration = path.join(repoRoot, 'calibration', 'rtx8000.json');

interface Run {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>;
}

function start(args: string[], env: NodeJS.ProcessEnv = process.env): Run {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const done = new Promise<Awaited<Run['done']>>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, out, err })),
  );
  return { child, done };
}

/** Polls `ready` until it holds; fails if the run ends first (it would have finished before it could be cut short). */
async function waitFor(run: Run, what: string, ready: () => boolean): Promise<void> {
  let ended = false;
  void run.done.then(() => (ended = true));
  for (;;) {
    if (ready()) return;
    if (ended) throw new Error(`the run ended before ${what}: ${(await run.done).err}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function listing(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of listing(dir)) {
    const p = path.join(dir, name);
    const st = lstatSync(p);
    if (st.isFile()) out[name] = `${st.size} ${st.ino} ${createHash('sha1').update(readFileSync(p)).digest('hex')}`;
  }
  return out;
}

const pending = (dir: string) => listing(dir).some((f) => f.endsWith('.tmp'));
const generate = (prefix: string, globalBatch: number) => [
  'generate',
  'llm',
  '--model',
  'llama2-70b',
  '--dp',
  '2',
  '--tp',
  '8',
  '--pp',
  '4',
  '--global-batch',
  String(globalBatch),
  '--seq',
  '4096',
  '--out',
  prefix,
];

describe.runIf(built)('interrupts, locks and closed pipes (built CLI, child processes)', () => {
  let dir: string;
  let trace: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tw-interrupts-'));
    trace = path.join(dir, 'g', 'llm');
    const r = await start(generate(trace, 32)).done;
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });

  it(
    'generate: a second run on the same --out is refused while the first runs; Ctrl-C leaves the previous traces ' +
      'as they were',
    async () => {
      const folder = path.dirname(trace);
      const before = snapshot(folder);
      expect(Object.keys(before)).toHaveLength(64 + 2);
      const first = start(generate(trace, 64));
      await waitFor(first, 'writing rank files', () => pending(folder));
      // Held still while the second run tries, so that it cannot finish first.
      first.child.kill('SIGSTOP');
      expect(existsSync(`${trace}.lock`)).toBe(true);
      const second = await start(generate(trace, 64)).done;
      expect(second.code).toBe(2);
      expect(second.err).toBe(
        `tracewatt: error: ${trace}: another tracewatt run (pid ${first.child.pid}) is writing these outputs; ` +
          `wait for it to finish, or choose another output (lock ${trace}.lock)\n`,
      );
      first.child.kill('SIGINT');
      first.child.kill('SIGCONT');
      const r = await first.done;
      expect(r.err).toBe('tracewatt: interrupted: nothing written\n');
      expect(r.code).toBe(130);
      expect(snapshot(folder)).toEqual(before);
    },
  );

  it('annotate at several clocks: Ctrl-C mid-write leaves no file and no folder', async () => {
    const out = path.join(dir, 'annotated');
    const run = start([
      'annotate',
      trace,
      '--calibration',
      calibration,
      '--frequencies',
      '705,1110,1410',
      '--out',
      path.join(out, 'x'),
    ]);
    await waitFor(run, 'writing rank files', () => pending(out));
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.err).toBe('tracewatt: interrupted: nothing written\n');
    expect(r.code).toBe(130);
    expect(existsSync(out)).toBe(false);
  });

  it('replay --timeline: SIGTERM mid-write leaves neither the timeline nor its temporary file', async () => {
    const timeline = path.join(dir, 'timeline.json');
    const run = start([
      'replay',
      trace,
      '--system',
      `${trace}.system.json`,
      '--network',
      `${trace}.network.yml`,
      '--timeline',
      timeline,
    ]);
    await waitFor(run, 'writing the timeline', () => existsSync(`${timeline}.tmp`));
    run.child.kill('SIGTERM');
    const r = await run.done;
    expect(r.err).toBe('tracewatt: interrupted: nothing written\n');
    // 128 + 15, as a shell reports a process SIGTERM ended.
    expect(r.code).toBe(143);
    expect(listing(dir).filter((f) => f.startsWith('timeline'))).toEqual([]);
  });

  it('sweep gpu: Ctrl-C removes its temporary folder from the OS temp directory', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'tw-sweep-tmp-'));
    const run = start(
      [
        'sweep',
        'gpu',
        trace,
        '--calibration',
        calibration,
        '--frequencies',
        '705,1110,1410',
        '--system',
        `${trace}.system.json`,
        '--network',
        `${trace}.network.yml`,
      ],
      { ...process.env, TMPDIR: tmp },
    );
    const work = () =>
      listing(tmp)
        .filter((f) => f.startsWith('tracewatt-sweep-gpu-'))
        .map((f) => path.join(tmp, f));
    await waitFor(run, 'annotating into its temporary folder', () => work().some((d) => pending(d)));
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.err).toBe('tracewatt: interrupted: nothing written\n');
    expect(r.code).toBe(130);
    expect(listing(tmp)).toEqual([]);
  });

  it('annotate in worker threads on a full disk: one line naming the final file, exit 2, nothing left', async () => {
    const out = path.join(dir, 'full');
    mkdirSync(out);
    // Rank 6's output goes to /dev/full (ENOSPC): written by a worker thread or this one, whichever takes it.
    symlinkSync('/dev/full', path.join(out, 'x.6.et.tmp'));
    const allReduce = path.join(repoRoot, 'traces', 'astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce');
    const r = await start([
      'annotate',
      allReduce,
      '--calibration',
      calibration,
      '--frequency',
      '1410',
      '--workers',
      '4',
      '--out',
      path.join(out, 'x'),
    ]).done;
    expect(r.err).toBe(`tracewatt: error: ${path.join(out, 'x.6.et')}: cannot write (ENOSPC)\n`);
    expect(r.code).toBe(2);
    expect(listing(out)).toEqual([]);
  });

  it.each([
    [['replay', '--help']],
    [['sweep', 'gpu', '--help']],
    [['inspect', path.join(repoRoot, 'traces', 'astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce')]],
  ])('%j into a reader that has gone (EPIPE): quiet, exit 0', async (args) => {
    const run = start(args);
    // What `| head -0` or `| grep -q` does: the reading end closes before the output is written.
    run.child.stdout!.destroy();
    const r = await run.done;
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });
});

/**
 * The one output discipline of every command that writes files.
 *
 * An {@link OutputSet} is the result of one run: each of its files is written under a temporary name in its target
 * folder (`<file>.tmp`), and commit() renames them all into place together, only once every one is complete. A run
 * that fails (bad input, a full disk, an interrupt) removes its temporary files and the folders it made, and leaves
 * the previous outputs as they were. A lock next to the outputs (`<prefix>.lock`, or `.tracewatt.lock` in an output
 * folder) keeps two runs from writing the same outputs at once; a lock whose process is gone is taken over.
 *
 * Every temporary file is created when the set hands out its name ({@link OutputSet.file}), synchronously, and the
 * writers open it with {@link TEMP_OPEN_FLAGS} ('r+': never creating it): an interrupt that removes the temporary
 * files while an asynchronous open is still on its way cannot see the file made again after it (before, SIGINT
 * near the end of an export could leave `<prefix>.N.et.tmp` while printing "nothing written").
 *
 * File-system errors become InputErrors naming the final file (`<file>: cannot write (ENOSPC)`), never the
 * temporary one. Temporary folders made with {@link withTempDir} are removed on every exit path. The CLI calls
 * {@link discardPendingOutputs} when interrupted, so a signal leaves nothing half-written either.
 */
import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InputError, TracewattError } from '../errors.js';

/**
 * How writers open a temporary file the set handed out: it exists already, and must not be created again (by an
 * open still pending when an interrupt removed it).
 */
export const TEMP_OPEN_FLAGS = 'r+';

/** Output sets not yet committed or discarded, and temporary folders not yet removed, in this thread. */
const pendingSets = new Set<OutputSet>();
const tempDirs = new Set<string>();
/** Output sets committed in this thread (what an interrupt can no longer take back). */
let committedSets = 0;

/** `<file>: cannot write (ENOENT)` for file-system errors; other errors are returned as they are. */
export function outputError(file: string, e: unknown): unknown {
  if (e instanceof TracewattError) return e;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code && /^E[A-Z]+$/.test(code) ? new InputError(`${file}: cannot write (${code})`) : e;
}

/** `<file>: cannot create its folder (ENOTDIR)`. */
function folderError(file: string, e: unknown): InputError {
  return new InputError(`${file}: cannot create its folder (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
}

/**
 * A file-system error on `out` (a path starting with it, e.g. a `<prefix>.<rank>.et`) or on one of its folders
 * becomes `<out>: cannot write (CODE)`; other errors (reading inputs) are returned as they are.
 */
export function outputErrorUnder(out: string, e: unknown): unknown {
  const at = (e as NodeJS.ErrnoException | undefined)?.path;
  if (typeof at !== 'string') return e;
  const target = path.resolve(out);
  const hit = path.resolve(at);
  const related = hit.startsWith(target) || target.startsWith(hit + path.sep) || hit === path.dirname(target);
  return related ? outputError(out, e) : e;
}

/** Creates `dir` and its missing parents one level at a time; returns the folders it made, outermost first. */
function makeDirs(dir: string): string[] {
  const missing: string[] = [];
  let at = path.resolve(dir);
  let st = statOrNull(at);
  while (!st) {
    missing.push(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
    st = statOrNull(at);
  }
  if (st && !st.isDirectory()) throw Object.assign(new Error(`${at} is not a folder`), { code: 'ENOTDIR', path: at });
  const made: string[] = [];
  for (const d of missing.reverse()) {
    try {
      // Not mkdir({ recursive }): it can spin forever under /proc; this fails at once with the first level.
      mkdirSync(d);
      made.push(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        removeEmptyDirs(made);
        throw e;
      }
    }
  }
  return made;
}

function statOrNull(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/** Removes the folders (innermost last in `dirs`) that are still empty; others stay. */
function removeEmptyDirs(dirs: string[]): void {
  for (const d of [...dirs].reverse()) {
    try {
      rmdirSync(d);
    } catch {
      // not empty (something else was put there) or already gone
    }
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

/** Whether process `pid` is running (EPERM: running under another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock file's holder gets this long to write its pid before an empty lock counts as stale. */
const EMPTY_LOCK_GRACE_MS = 10_000;

/**
 * Creates `lock` exclusively with this process's pid. A lock whose pid is no longer running (or an empty one older
 * than a few seconds) is stale and taken over; a live one is an InputError naming the outputs and the holder.
 */
function takeLock(lock: string, what: string): void {
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(lock, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw e;
      let text = '';
      try {
        text = readFileSync(lock, 'utf8').trim();
      } catch {
        continue; // removed meanwhile: try again
      }
      const pid = /^\d+$/.test(text) ? Number(text) : null;
      const stale =
        pid === null
          ? Date.now() - (statOrNull(lock)?.mtimeMs ?? 0) > EMPTY_LOCK_GRACE_MS
          : pid !== process.pid && !alive(pid);
      if (!stale) {
        const holder =
          pid === null ? 'another run' : pid === process.pid ? 'this process' : `another tracewatt run (pid ${pid})`;
        throw new InputError(
          `${what}: ${holder} is writing these outputs; wait for it to finish, or choose another output (lock ${lock})`,
          'OUTPUT_LOCKED',
        );
      }
      unlinkQuietly(lock);
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
    } catch (e) {
      // A full disk takes the (empty) lock file but not the pid: an empty lock left behind would refuse the next run.
      closeSync(fd);
      unlinkQuietly(lock);
      throw e;
    }
    closeSync(fd);
    return;
  }
}

/** One run's outputs: written under temporary names, renamed into place together. */
export class OutputSet {
  /** Final path → temporary path, in the order the files were added. */
  private readonly temps = new Map<string, string>();
  private readonly madeDirs: string[] = [];
  /** Earlier outputs of the same kind that the new result replaces (e.g. rank files of a run with more ranks). */
  private readonly superseded: { dir: string; test: (name: string) => boolean }[] = [];
  private lock: string | null = null;
  private state: 'open' | 'committed' | 'discarded' = 'open';

  private constructor(readonly target: string) {}

  /**
   * Starts a set of outputs named by `target`: a prefix (`<prefix>.<rank>.et`, …; locked by `<prefix>.lock`), a
   * single file (`<file>.lock`), or with `folder` an output folder (`<folder>/.tracewatt.lock`). Creates the folder
   * the lock goes in; an unwritable place is an InputError naming `target`.
   */
  static open(target: string, o: { folder?: boolean } = {}): OutputSet {
    const set = new OutputSet(target);
    const lockDir = o.folder ? path.resolve(target) : path.dirname(path.resolve(target));
    try {
      set.madeDirs.push(...makeDirs(lockDir));
    } catch (e) {
      throw folderError(target, e);
    }
    const lock = o.folder ? path.join(target, '.tracewatt.lock') : `${target}.lock`;
    try {
      takeLock(lock, target);
    } catch (e) {
      removeEmptyDirs(set.madeDirs);
      throw outputError(target, e);
    }
    set.lock = lock;
    pendingSets.add(set);
    return set;
  }

  /** Runs `fn` with a new set and commits it when `fn` resolves; discards it (and maps the error) when it throws. */
  static async write<T>(target: string, fn: (set: OutputSet) => Promise<T>, o: { folder?: boolean } = {}): Promise<T> {
    const set = OutputSet.open(target, o);
    try {
      const result = await fn(set);
      set.commit();
      return result;
    } catch (e) {
      set.discard();
      throw set.explain(e);
    }
  }

  /**
   * The temporary path to write `file` to, created empty here (its folder made); commit() renames it to `file`.
   * Open it with {@link TEMP_OPEN_FLAGS}.
   */
  file(file: string): string {
    if (this.state !== 'open') throw new Error(`output set ${this.target} is already ${this.state}`);
    const known = this.temps.get(file);
    if (known) return known;
    try {
      this.madeDirs.push(...makeDirs(path.dirname(path.resolve(file))));
    } catch (e) {
      throw folderError(file, e);
    }
    const tmp = `${file}.tmp`;
    this.temps.set(file, tmp);
    try {
      closeSync(openSync(tmp, 'w'));
    } catch (e) {
      throw outputError(file, e);
    }
    return tmp;
  }

  /**
   * Declares that the result replaces every file in `dir` whose name passes `test` (its own files aside): commit()
   * removes those, together with renaming the new ones into place, so that a result never mixes with the rest of an
   * earlier one (a 4-rank trace rewritten with 2 ranks keeps no rank 2 and 3 from before).
   */
  supersede(dir: string, test: (name: string) => boolean): void {
    this.superseded.push({ dir: path.resolve(dir), test });
  }

  /** The files of the set, final names, in the order they were added. */
  get files(): string[] {
    return [...this.temps.keys()];
  }

  /** Writes a whole file of the set. */
  async put(file: string, data: string | Uint8Array): Promise<void> {
    const tmp = this.file(file);
    try {
      const fh = await open(tmp, TEMP_OPEN_FLAGS);
      try {
        // Written again: nothing of the earlier content stays (a device file, say /dev/full, cannot be truncated).
        if ((await fh.stat()).isFile()) await fh.truncate(0);
        await fh.writeFile(data);
      } finally {
        await fh.close();
      }
    } catch (e) {
      throw outputError(file, e);
    }
  }

  /**
   * Renames every temporary file onto its final name, synchronously (no signal handler can run in between). When a
   * rename fails, those already made are undone (the previous files put back) and the error names the file.
   */
  commit(): void {
    if (this.state !== 'open') throw new Error(`output set ${this.target} is already ${this.state}`);
    /** What was done, to undo it: a file placed (and the previous one's backup), or an earlier file moved aside. */
    const done: { file: string; backup: string | null; placed: boolean }[] = [];
    const backupOf = (file: string) => `${file}.old-${process.pid}`;
    try {
      for (const file of this.staleFiles()) {
        renameSync(file, backupOf(file));
        done.push({ file, backup: backupOf(file), placed: false });
      }
      for (const [file, tmp] of this.temps) {
        if (!existsSync(tmp)) throw Object.assign(new Error(`${tmp} was not written`), { code: 'ENOENT', path: file });
        let backup: string | null = null;
        if (existsSync(file)) {
          backup = backupOf(file);
          try {
            unlinkQuietly(backup);
            linkSync(file, backup);
          } catch {
            backup = null; // no hard links here: a failure further on cannot put this one back
          }
        }
        renameSync(tmp, file);
        done.push({ file, backup, placed: true });
      }
    } catch (e) {
      for (const { file, backup, placed } of done.reverse()) {
        try {
          if (backup) renameSync(backup, file);
          else if (placed) unlinkQuietly(file);
        } catch {
          // leave it: the error below is what the user needs to know
        }
      }
      const at = (e as NodeJS.ErrnoException).path;
      const failed = [...this.temps].find(([f, t]) => at === f || at === t)?.[0] ?? this.target;
      this.discard();
      throw outputError(failed, e);
    }
    for (const { backup } of done) if (backup) unlinkQuietly(backup);
    this.state = 'committed';
    // Outputs inside a temporary folder go when it goes: they are not what a user finds afterwards.
    const at = path.resolve(this.target);
    if (![...tempDirs].some((d) => at.startsWith(d + path.sep))) committedSets++;
    this.release();
  }

  /** Earlier files that {@link supersede} declared replaced and that the new result does not write again. */
  private staleFiles(): string[] {
    const mine = new Set([...this.temps.keys()].map((f) => path.resolve(f)));
    const stale: string[] = [];
    for (const { dir, test } of this.superseded) {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue; // no folder: nothing earlier
      }
      for (const n of names) {
        const f = path.join(dir, n);
        if (test(n) && !mine.has(f)) stale.push(f);
      }
    }
    return stale;
  }

  /** Removes every temporary file and the folders the set made (when empty); the previous outputs stay. */
  discard(): void {
    if (this.state !== 'open') return;
    for (const tmp of this.temps.values()) unlinkQuietly(tmp);
    this.state = 'discarded';
    this.release();
    removeEmptyDirs(this.madeDirs);
  }

  private release(): void {
    if (this.lock) unlinkQuietly(this.lock);
    this.lock = null;
    pendingSets.delete(this);
  }

  /**
   * The error to report for a failed run: a file-system error on a temporary file names its final file; a typed
   * error's message that mentions a temporary path (e.g. from a worker thread) mentions the final one instead.
   */
  explain(e: unknown): unknown {
    const err = e as NodeJS.ErrnoException | undefined;
    const finalOf = (p: string) => {
      const abs = path.resolve(p);
      for (const [file, tmp] of this.temps) if (path.resolve(tmp) === abs || path.resolve(file) === abs) return file;
      return null;
    };
    if (!(e instanceof TracewattError) && typeof err?.path === 'string') {
      const file = finalOf(err.path);
      if (file) return outputError(file, e);
      return outputErrorUnder(this.target, e);
    }
    // Write errors without a path (a stream's ENOSPC from a worker, say) are the outputs' too.
    if (!(e instanceof TracewattError) && typeof err?.code === 'string' && err.path === undefined)
      return outputError(this.target, e);
    if (e instanceof Error) {
      for (const [file, tmp] of this.temps) if (e.message.includes(tmp)) e.message = e.message.split(tmp).join(file);
    }
    return e;
  }
}

/** Writes one whole file by the output discipline (`<file>.tmp`, then renamed; locked while written). */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await OutputSet.write(file, (set) => set.put(file, data));
}

/** Runs `fn` with a new folder in the OS temporary folder, removed afterwards whatever happens (interrupts too). */
export async function withTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = path.resolve(await mkdtemp(path.join(os.tmpdir(), prefix)));
  tempDirs.add(dir);
  try {
    return await fn(dir);
  } finally {
    tempDirs.delete(dir);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Discards every output set still being written and removes every temporary folder, synchronously: for the CLI's
 * signal handlers and exit. Returns how many output sets were discarded, and how many had been committed before.
 */
export function discardPendingOutputs(): { discarded: number; committed: number } {
  const n = pendingSets.size;
  for (const set of [...pendingSets]) set.discard();
  for (const dir of tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // nothing more can be done on the way out
    }
  }
  tempDirs.clear();
  return { discarded: n, committed: committedSets };
}

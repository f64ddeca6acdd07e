/**
 * Output files written atomically: the data goes to `<file>.tmp`, which is renamed to `file` only when complete, so
 * a failure (bad input, full disk, a crash) never leaves a partial file under the real name. A path that cannot be
 * written becomes an InputError naming it (the CLI prints one line and exits 2).
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors.js';
import { ensureDir } from './chakra/writer.js';

/** `<file>: cannot write (ENOENT)` for file-system errors; other errors are returned as they are. */
export function outputError(file: string, e: unknown): unknown {
  if (e instanceof InputError) return e;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code && /^E[A-Z]+$/.test(code) ? new InputError(`${file}: cannot write (${code})`) : e;
}

/**
 * For writers that do not use the helpers here: a file-system error on `out` (a path starting with it, e.g. a
 * `<prefix>.<rank>.et`) or on one of its folders becomes `<out>: cannot write (CODE)`; other errors (reading inputs)
 * are returned as they are.
 */
export function outputErrorUnder(out: string, e: unknown): unknown {
  const at = (e as NodeJS.ErrnoException | undefined)?.path;
  if (typeof at !== 'string') return e;
  const target = path.resolve(out);
  const hit = path.resolve(at);
  const related = hit.startsWith(target) || target.startsWith(hit + path.sep) || hit === path.dirname(target);
  return related ? outputError(out, e) : e;
}

/** Creates the folder of `file` (and missing parents); returns the temporary path to write to. */
export async function prepareOutput(file: string): Promise<string> {
  try {
    await ensureDir(path.dirname(path.resolve(file)));
  } catch (e) {
    throw new InputError(`${file}: cannot create its folder (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  return `${file}.tmp`;
}

/** Renames the finished temporary file onto `file`. */
export async function commitOutput(tmp: string, file: string): Promise<void> {
  try {
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw outputError(file, e);
  }
}

/** Writes a whole file atomically (`<file>.tmp`, then rename). */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = await prepareOutput(file);
  try {
    await writeFile(tmp, data);
  } catch (e) {
    await rm(tmp, { force: true });
    throw outputError(file, e);
  }
  await commitOutput(tmp, file);
}

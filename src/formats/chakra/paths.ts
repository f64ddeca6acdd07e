/**
 * Multi-rank trace paths: a single `.et` file, a `<prefix>` whose rank files are
 * `<prefix>.<rank>.et`, or a directory holding such files. Ranks are sorted numerically.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../errors.js';

export interface RankFile {
  rank: number;
  file: string;
}

const RANK_FILE = /^(.*)\.(\d+)\.et(\.gz)?$/;

/** Whether `name` (a file name in the prefix's folder) is a rank file of `prefix`: `<prefix>.<rank>.et[.gz]`. */
export function isRankFileOf(prefix: string, name: string): boolean {
  return RANK_FILE.exec(name)?.[1] === path.basename(prefix);
}

function sortRanks(files: RankFile[]): RankFile[] {
  return files.sort((a, b) => a.rank - b.rank);
}

export async function resolveRankFiles(target: string): Promise<RankFile[]> {
  const st = await stat(target).catch(() => null);
  if (st?.isFile()) {
    const m = RANK_FILE.exec(path.basename(target));
    return [{ rank: m ? Number(m[2]) : 0, file: target }];
  }
  if (st?.isDirectory()) {
    const names = (await readdir(target)).filter((n) => RANK_FILE.test(n));
    if (names.length === 0) throw new InputError(`${target}: directory holds no <prefix>.<rank>.et files`);
    const prefixes = new Set(names.map((n) => RANK_FILE.exec(n)![1]));
    if (prefixes.size > 1) {
      throw new InputError(
        `${target}: directory holds traces of several prefixes (${[...prefixes].join(', ')}); pass ` +
          `<dir>/<prefix> instead`,
      );
    }
    return checkRanks(
      target,
      sortRanks(names.map((n) => ({ rank: Number(RANK_FILE.exec(n)![2]), file: path.join(target, n) }))),
    );
  }
  const dir = path.dirname(target);
  const base = path.basename(target);
  const names = await readdir(dir).catch(() => {
    throw new InputError(`${target}: no such file, directory or trace prefix`);
  });
  const files: RankFile[] = [];
  for (const n of names) {
    const m = RANK_FILE.exec(n);
    if (m && m[1] === base) files.push({ rank: Number(m[2]), file: path.join(dir, n) });
  }
  if (files.length === 0) throw new InputError(`${target}: no such file, and no ${base}.<rank>.et files in ${dir}`);
  return checkRanks(target, sortRanks(files));
}

function checkRanks(target: string, files: RankFile[]): RankFile[] {
  for (let i = 1; i < files.length; i++) {
    if (files[i].rank === files[i - 1].rank) {
      throw new InputError(
        `${target}: rank ${files[i].rank} appears twice (${files[i - 1].file} and ${files[i].file})`,
      );
    }
  }
  return files;
}

/**
 * The first rank missing from rank files that must be numbered 0..N−1 (a multi-rank trace: replay, export and
 * validate all need every rank), as the message every command gives; null when none is missing. A single file
 * named on its own is a trace of one rank, whatever its number.
 */
export function missingRankProblem(target: string, files: readonly RankFile[]): string | null {
  if (files.length === 1 && files[0]!.file === target) return null;
  for (let i = 0; i < files.length; i++) {
    if (files[i]!.rank !== i)
      return (
        `rank files must be numbered 0..${files.length - 1}; rank ${i} is missing (found ${files[i]!.file} as ` +
        `rank ${files[i]!.rank})`
      );
  }
  return null;
}

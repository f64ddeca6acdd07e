/**
 * SHA-256 of input files, for telling runs apart: a sharded sweep's identity (which partials belong together) and the
 * fingerprint `export astra-sim` writes into run.sh, so that `energy --astra-sim-log` knows the log belongs to the
 * trace and configs it is given. A trace's digest is that of its rank files' digests in rank order.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { fileReadError } from './file-chunks.js';
import type { RankFile } from './chakra/paths.js';

/** SHA-256 (hex) of a file's bytes; an unreadable file is an InputError naming it. */
export async function fileDigest(file: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  } catch (e) {
    throw fileReadError(file, e);
  }
  return hash.digest('hex');
}

/** SHA-256 (hex) of the rank files' digests in rank order ("<rank>:<digest>\n" each). */
export async function rankFilesDigest(
  files: readonly RankFile[],
  digestOf: (f: RankFile) => Promise<string> = (f) => fileDigest(f.file),
): Promise<string> {
  const whole = createHash('sha256');
  for (const r of files) whole.update(`${r.rank}:${await digestOf(r)}\n`);
  return whole.digest('hex');
}

/** SHA-256 (hex) of a text as UTF-8, the bytes a file written with it holds. */
export function textDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { FormatError } from '../../src/errors.js';
import { repoRoot } from '../helpers/shared.js';

/** Path of a vendored fixture (test/fixtures/profiles, see test/fixtures/NOTICE.md). */
export function fixture(name: string): string {
  return path.join(repoRoot, 'test', 'fixtures', 'profiles', name);
}

let dir: string | null = null;
/** Writes a small input written by the test itself (bad-input cases, synthetic traces). */
export function tmpFile(name: string, text: string): string {
  dir ??= mkdtempSync(path.join(tmpdir(), 'tracewatt-profiles-'));
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** Asserts a FormatError that names the file and, when given, the row and column. */
export async function expectFormatError(
  p: Promise<unknown>,
  file: string,
  parts: { row?: number; column?: string; problem?: RegExp },
): Promise<FormatError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FormatError);
  const e = err as FormatError;
  expect(e.file).toBe(file);
  expect(e.message).toContain(file);
  if (parts.row !== undefined) expect(e.message).toContain(`row ${parts.row}`);
  if (parts.column !== undefined) expect(e.message).toContain(`column '${parts.column}'`);
  if (parts.problem) expect(e.message).toMatch(parts.problem);
  return e;
}

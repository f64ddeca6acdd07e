/**
 * vitest globalSetup: the whole run's temporary files go under one folder of the OS temp directory (TMPDIR, which
 * os.tmpdir() and every child process read), removed when the run ends, so `npm test` leaves the temp directory as
 * it found it even when a test forgets to clean up after itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const before = process.env.TMPDIR;
  const root = mkdtempSync(path.join(os.tmpdir(), 'tracewatt-test-run-'));
  process.env.TMPDIR = root;
  return () => {
    rmSync(root, { recursive: true, force: true });
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  };
}

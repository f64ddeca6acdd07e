/**
 * vitest setupFiles: each test file gets a temporary directory of its own (TMPDIR, under the run's folder from
 * temp-root.ts), removed after the file's tests, so a test can check that what it ran left nothing in it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const dir = mkdtempSync(path.join(os.tmpdir(), 'file-'));
process.env.TMPDIR = dir;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A disk so full that the lock file is created (an inode, no data) but its pid cannot be written: before, the empty
 * `<file>.lock` stayed behind after the one-line ENOSPC error (found on a 600 KiB tmpfs filled up: `calibrate --out`
 * left `cal.json.lock`, and a run within the next 10 s was refused as "another run is writing these outputs").
 * The write error is injected through a stub of node:fs's writeSync, the call that writes the pid.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const full = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const writeSync = ((...args: Parameters<typeof fs.writeSync>) => {
    if (full.on)
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        errno: -28,
        syscall: 'write',
      });
    return (fs.writeSync as (...a: unknown[]) => number)(...args);
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

const { writeFileAtomic } = await import('../../src/formats/output.js');

afterEach(() => {
  full.on = false;
});

describe('a full disk while taking the lock', () => {
  it('is one error naming the output, leaves no lock and no folder, and the next run is not refused', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-lock-full-'));
    const file = path.join(dir, 'new', 'cal.json');
    full.on = true;
    await expect(writeFileAtomic(file, '{}\n')).rejects.toThrow(`${file}: cannot write (ENOSPC)`);
    expect(existsSync(path.join(dir, 'new'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    full.on = false;
    await writeFileAtomic(file, '{}\n');
    expect(readdirSync(path.join(dir, 'new'))).toEqual(['cal.json']);
  });
});

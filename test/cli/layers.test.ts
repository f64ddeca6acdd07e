import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/shared.js';

const script = path.join(repoRoot, 'scripts', 'check-layers.mjs');
const check = (...args: string[]) =>
  promisify(execFile)(process.execPath, [script, ...args]).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string }),
  );

describe('layers', () => {
  it('every import in src/ points down: errors/diagnostics → vocab → formats → model → engines → report → cli', async () => {
    const r = await check();
    expect(r.stdout).toMatch(/layers ok/);
    expect(r.code).toBe(0);
  });

  it('fails on an import up a floor (vocab importing formats) and on a folder in no floor', async () => {
    const src = await mkdtemp(path.join(tmpdir(), 'tracewatt-layers-'));
    try {
      await mkdir(path.join(src, 'vocab'));
      await mkdir(path.join(src, 'formats'));
      await mkdir(path.join(src, 'misc'));
      await writeFile(path.join(src, 'formats', 'a.ts'), "import { b } from '../vocab/b.js';\nexport const a = b;\n");
      await writeFile(path.join(src, 'vocab', 'b.ts'), "import { a } from '../formats/a.js';\nexport const b = a;\n");
      await writeFile(path.join(src, 'misc', 'c.ts'), 'export const c = 1;\n');
      const r = await check(src);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        `${path.join('vocab', 'b.ts')} imports ${path.join('formats', 'a.js')} (a floor above it)`,
      );
      expect(r.stdout).toContain(`${path.join('misc', 'c.ts')} is in no floor`);
      expect(r.stdout).not.toContain(`${path.join('formats', 'a.ts')} imports`);
    } finally {
      await rm(src, { recursive: true, force: true });
    }
  });
});

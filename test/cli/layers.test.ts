import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/shared.js';

describe('layers', () => {
  it('every import in src/ points down: errors/diagnostics → formats → core → model → engines → report → cli', async () => {
    const r = await promisify(execFile)(process.execPath, [path.join(repoRoot, 'scripts', 'check-layers.mjs')]).catch(
      (e) => e,
    );
    expect(r.stdout).toMatch(/layers ok/);
  });
});

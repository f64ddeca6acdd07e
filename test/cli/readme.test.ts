import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { REFERENCE_END, REFERENCE_START, renderReference } from '../../src/cli/reference.js';
import { repoRoot } from '../helpers/shared.js';

describe('README', () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

  it('links docs/reference.md, which carries the command reference generated from the command table (run scripts/readme-reference.mjs)', () => {
    const reference = readFileSync(path.join(repoRoot, 'docs', 'reference.md'), 'utf8');
    const a = reference.indexOf(REFERENCE_START);
    const b = reference.indexOf(REFERENCE_END);
    expect(a).toBeGreaterThan(0);
    expect(reference.slice(a, b + REFERENCE_END.length)).toBe(renderReference(COMMANDS));
    expect(readme).toContain('](docs/reference.md)');
  });

  it('shows the install and test commands that .ci/run runs', () => {
    const ci = readFileSync(path.join(repoRoot, '.ci', 'run'), 'utf8');
    for (const cmd of ['npm ci', 'npm test']) {
      expect(readme).toContain(cmd);
      expect(ci).toMatch(new RegExp(`^${cmd}$`, 'm'));
    }
  });

  it('documents every command with an example', () => {
    for (const c of COMMANDS) expect(readme).toContain(`tracewatt ${c.name}`);
  });
});

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { REFERENCE_END, REFERENCE_START, renderReference } from '../../src/cli/reference.js';
import { repoRoot } from '../helpers/shared.js';
import { EXAMPLE_BLOCK, exampleDocuments } from '../../scripts/lib/doc-examples.mjs';

describe('README', () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

  it(
    'links docs/reference.md, which carries the command reference generated from the command table (run ' +
      'scripts/readme-reference.mjs)',
    () => {
      const reference = readFileSync(path.join(repoRoot, 'docs', 'reference.md'), 'utf8');
      const a = reference.indexOf(REFERENCE_START);
      const b = reference.indexOf(REFERENCE_END);
      expect(a).toBeGreaterThan(0);
      expect(reference.slice(a, b + REFERENCE_END.length)).toBe(renderReference(COMMANDS));
      expect(readme).toContain('](docs/reference.md)');
    },
  );

  it('shows the install and test commands that .ci/run runs', () => {
    const ci = readFileSync(path.join(repoRoot, '.ci', 'run'), 'utf8');
    for (const cmd of ['npm ci', 'npm test']) {
      expect(readme).toContain(cmd);
      expect(ci).toMatch(new RegExp(`^${cmd}$`, 'm'));
    }
  });

  it('names every command, and every command has a run example in README.md or docs/', () => {
    const blocks = exampleDocuments(repoRoot).flatMap((doc: string) =>
      [...readFileSync(path.join(repoRoot, doc), 'utf8').matchAll(EXAMPLE_BLOCK)].map((m) => m[2]!),
    );
    for (const c of COMMANDS) {
      expect(readme).toContain(`tracewatt ${c.name}`);
      expect(
        blocks.some((args: string) => args.startsWith(`${c.name} `)),
        `no example block runs tracewatt ${c.name}`,
      ).toBe(true);
    }
  });

  it('stays a page a newcomer finishes: at most 450 lines, set-up and the test command in the first 40', () => {
    const lines = readme.split('\n');
    expect(lines.length).toBeLessThanOrEqual(450);
    const head = lines.slice(0, 40).join('\n');
    for (const cmd of ['npm ci', 'npm start', 'npm test']) expect(head).toContain(cmd);
  });

  it(
    'shows no console command that is not run: every `$ npx tracewatt` line of README.md and docs/ is an example ' +
      'block (or reads ../shared)',
    () => {
      for (const doc of exampleDocuments(repoRoot)) {
        const text = readFileSync(path.join(repoRoot, doc), 'utf8').replace(EXAMPLE_BLOCK, '');
        for (const line of text.split('\n').filter((l) => l.startsWith('$ npx tracewatt '))) {
          expect(line.includes('../shared/'), `${doc}: "${line}" is not in an example block, so no test runs it`).toBe(
            true,
          );
        }
      }
    },
  );
  it('links only files and headings that exist (README.md and docs/)', () => {
    // GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens.
    const slug = (h: string) =>
      h
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-');
    const anchors = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => /^#{1,6} /.test(l))
        .map((l) => slug(l.replace(/^#+ /, '').replace(/`/g, '')));
    for (const doc of exampleDocuments(repoRoot)) {
      const text = readFileSync(path.join(repoRoot, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/.test(link)) continue;
        const [file, anchor] = link.split('#');
        const target = file ? path.join(repoRoot, path.dirname(doc), file) : path.join(repoRoot, doc);
        expect(existsSync(target), `${doc}: link ${link}: no such file`).toBe(true);
        if (anchor && target.endsWith('.md'))
          expect(anchors(target), `${doc}: link ${link}: no such heading`).toContain(anchor);
      }
    }
  });
});

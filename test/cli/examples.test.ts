/**
 * Every example the CLI and the README show runs as written. The CLI's examples are read from each command's `--help`
 * (what a user sees), checked against the generated command reference, and run with the built CLI (dist/, as
 * `npx tracewatt` runs it) in a fresh folder that holds only the shipped inputs (traces/, calibration/, test/fixtures/
 * linked from the repository): each must exit 0, reading nothing outside them and writing only under out/.
 * The examples of README.md and docs/*.md (`<!-- example: ARGS -->` blocks, scripts/readme-examples.mjs; which
 * documents and in what order: scripts/lib/doc-examples.mjs) run in that order in one folder that holds the
 * repository's files but not ../shared: each must exit as its block shows (0 unless it ends with "(exit code N)")
 * and print what the block shows (cut as scripts/readme-examples.mjs cuts it), but for what depends on the machine
 * and the README says so: the thread count (one per core) and run times in seconds.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { renderReference } from '../../src/cli/reference.js';
import { cutLines, EXAMPLE_BLOCK, exampleDocuments } from '../../scripts/lib/doc-examples.mjs';
import { cli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/shared.js';

const main = path.join(repoRoot, 'dist', 'cli', 'main.js');
const SHIPPED = ['traces', 'calibration', path.join('test', 'fixtures')];

/** The `$ …` lines under "Example" in a command's --help. */
async function helpExamples(name: string): Promise<string[]> {
  const r = await cli([...name.split(' '), '--help']);
  expect(r.code).toBe(0);
  const at = r.out.indexOf('\nExample');
  expect(at, `${name} --help shows an example`).toBeGreaterThan(0);
  return r.out
    .slice(at)
    .split('\n')
    .filter((l) => l.startsWith('  $ '))
    .map((l) => l.slice(4));
}

/** A folder with these entries of the repository linked in (default: the shipped inputs), as a fresh clone has them. */
function sandbox(entries: string[] = SHIPPED): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tracewatt-examples-'));
  for (const p of entries) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    symlinkSync(path.join(repoRoot, p), path.join(dir, p));
  }
  return dir;
}

/**
 * The examples of README.md and docs/*.md, in the order they run: the document, the arguments of each
 * `<!-- example: … -->` block, the exit code it shows, the output it shows (without the `$ …` line and the exit code)
 * and its max-lines (40 by default).
 */
function docExamples(): { doc: string; args: string; exit: number; shown: string; maxLines: number }[] {
  return exampleDocuments(repoRoot).flatMap((doc: string) => {
    const text = readFileSync(path.join(repoRoot, doc), 'utf8');
    return [...text.matchAll(EXAMPLE_BLOCK)]
      .filter((m) => m[1] === 'example')
      .map((m) => {
        const body = m[4]!.replace(/^```console\n\$ [^\n]*\n/, '').replace(/\n```\n$/, '');
        const exit = /\n\(exit code (\d+)\)$/.exec(body);
        return {
          doc,
          args: m[2]!,
          exit: Number(exit?.[1] ?? 0),
          shown: exit ? body.slice(0, exit.index) : body,
          maxLines: Number(m[3] ?? 40),
        };
      });
  });
}

/**
 * What a block shows for this output: stdout then stderr, cut after `maxLines` lines as scripts/readme-examples.mjs
 * cuts it.
 */
function shownOutput(stdout: string, stderr: string, maxLines: number): string {
  return cutLines(stdout + stderr, maxLines).join('\n');
}

/** Masks what differs between machines (the README says so): threads (one per core) and run times in seconds. */
function machineIndependent(text: string): string {
  return text
    .replace(/\b\d+ threads? \(this one and \d+ workers?\)/g, 'N threads (this one and N-1 workers)')
    .replace(/\bin \d+(\.\d+)? s\b/g, 'in T s');
}

/** Runs the lines in `cwd` with sh, `npx tracewatt` being the built CLI; stops at the first failing line. */
function runLines(lines: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const script = ['set -e', 'npx() { "$@"; }', 'tracewatt() { node "$TRACEWATT_MAIN" "$@"; }', ...lines].join('\n');
  const r = spawnSync('sh', ['-c', script], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, TRACEWATT_MAIN: main },
    timeout: 280_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The rule lines (`-----  ---`) of the text tables in an output: each is as wide as its table. */
function tableRules(text: string): string[] {
  return text.split('\n').filter((l) => l.length >= 3 && /^-+( +-+)*$/.test(l));
}

/** Path-like words of a command line (they contain a slash), quotes removed. */
function paths(line: string): string[] {
  return (line.match(/"[^"]*"|\S+/g) ?? [])
    .map((w) => w.replace(/^"|"$/g, ''))
    .filter((w) => w.includes('/') && !/^\d+\/\d+$/.test(w));
}

describe('examples in --help and the command reference', () => {
  it('every command shows its example in --help, as the reference gives it, on shipped files only', async () => {
    const reference = renderReference(COMMANDS);
    for (const c of COMMANDS) {
      const lines = await helpExamples(c.name);
      expect(lines.length, c.name).toBeGreaterThan(0);
      expect(lines.at(-1), c.name).toMatch(new RegExp(`^npx tracewatt ${c.name} `));
      expect(reference, c.name).toContain(['```sh', ...lines, '```'].join('\n'));
      for (const line of lines) {
        expect(line, c.name).toMatch(/^npx tracewatt /);
        for (const p of paths(line)) {
          const shipped = [...SHIPPED, 'out'].some((dir) => p.startsWith(`${dir}/`));
          expect(shipped, `${c.name}: ${p} is not under ${[...SHIPPED, 'out'].join(', ')}`).toBe(true);
          if (!p.startsWith('out/') && !/[<>*]/.test(p)) {
            const exists =
              existsSync(path.join(repoRoot, p)) ||
              readdirSync(path.join(repoRoot, path.dirname(p))).some((f) => f.startsWith(`${path.basename(p)}.`));
            expect(exists, `${c.name}: ${p} does not exist`).toBe(true);
          }
        }
      }
    }
  });

  const built = existsSync(main);
  if (!built) console.warn('dist/ not built (npm ci runs the prepare build): the examples are not run');
  it.runIf(built).each(COMMANDS.map((c) => c.name))(
    '%s: its example runs as written and exits 0; its tables fit 100 columns and --csv prints them',
    async (name) => {
      const lines = await helpExamples(name);
      const dir = sandbox();
      if (lines.length > 1) {
        const setup = runLines(lines.slice(0, -1), dir);
        expect(setup.status, `${name}\n${setup.stderr}`).toBe(0);
      }
      const r = runLines(lines.slice(-1), dir);
      expect(r.stderr, name).not.toMatch(/internal error/);
      expect(r.status, `${name}\n${r.stderr}`).toBe(0);
      expect(r.stdout.length, name).toBeGreaterThan(0);
      // One rule for tables: a command that prints one fits it to 100 columns by default and takes --csv.
      const rules = tableRules(r.stdout);
      const csvOption = COMMANDS.find((c) => c.name === name)!.options.some((o) => o.name === 'csv');
      if (rules.length) expect(csvOption, `${name} prints a table but has no --csv`).toBe(true);
      for (const rule of rules)
        expect([...rule].length, `${name}: a table ${[...rule].length} columns wide`).toBeLessThanOrEqual(100);
      if (csvOption) {
        const c = runLines([`${lines.at(-1)} --csv`], dir);
        expect(c.status, `${name} --csv\n${c.stderr}`).toBe(0);
        expect(tableRules(c.stdout), `${name} --csv prints a text table`).toEqual([]);
        const records = parse(c.stdout, { relax_column_count: false }) as string[][];
        // A header at least (validate finding no problem prints only its header).
        expect(records.length, `${name} --csv`).toBeGreaterThanOrEqual(1);
        expect(
          records[0]!.every((h) => /^[a-z][A-Za-z0-9]*$/.test(h)),
          `${name} --csv header ${records[0]!.join(',')}`,
        ).toBe(true);
        // Numbers without float noise (12 significant digits at most: no 15.999999999999998).
        for (const cell of records.slice(1).flat())
          if (/^-?\d+\.\d+$/.test(cell))
            expect(cell.replace(/^-?0\.0*|[-.]/g, '').length, `${name} --csv: ${cell}`).toBeLessThanOrEqual(12);
      }
      // Nothing written beside the shipped inputs but out/.
      expect(readdirSync(dir).sort(), name).toEqual(
        ['calibration', 'out', 'test', 'traces'].filter((f) => f !== 'out' || existsSync(path.join(dir, 'out'))),
      );
    },
    300_000,
  );
});

describe('examples in the README and docs/', () => {
  const examples = docExamples();
  const built = existsSync(main);
  // Everything a clone has (git's top-level entries), but not ../shared, node_modules or earlier outputs.
  const entries = readdirSync(repoRoot).filter(
    (f) => !['node_modules', 'dist', 'out', 'case-study', '.git'].includes(f) && !f.startsWith('.tmp'),
  );
  let dir = '';
  it('run from README.md and every docs page', () => {
    expect(examples.filter((e) => e.doc === 'README.md').length).toBeGreaterThan(0);
    expect(new Set(examples.map((e) => e.doc)).size).toBeGreaterThan(1);
  });
  it('name only files a clone has', () => {
    for (const e of examples) {
      for (const p of paths(e.args))
        expect(
          p.startsWith('../') || path.isAbsolute(p),
          `${e.doc} example "tracewatt ${e.args}" reads ${p}, outside the repository`,
        ).toBe(false);
    }
  });
  it.runIf(built).each(examples.map((e, i) => [i + 1, e.doc, e.args, e.exit, i] as const))(
    '%i: %s: tracewatt %s (exit %i) prints what the block shows',
    (_i, doc, args, exit, i) => {
      if (!dir) dir = sandbox(entries);
      const r = runLines([`set +e; tracewatt ${args}; echo "exit=$?" >&2`], dir);
      const status = Number(/exit=(\d+)\n$/.exec(r.stderr)?.[1]);
      expect(r.stderr, args).not.toMatch(/internal error/);
      expect(status, `tracewatt ${args}\n${r.stderr}`).toBe(exit);
      const { shown, maxLines } = examples[i]!;
      const printed = shownOutput(r.stdout, r.stderr.replace(/exit=\d+\n$/, ''), maxLines);
      expect(
        machineIndependent(printed),
        `${doc} example "tracewatt ${args}" printed otherwise: refresh it with node scripts/readme-examples.mjs`,
      ).toBe(machineIndependent(shown));
    },
    300_000,
  );
});

describe('comparing README output', () => {
  it('masks only the thread count and times in seconds', () => {
    expect(machineIndependent('2 threads (this one and 1 worker); 46 replays in 14.7 s; 8 ranks in 3 stages')).toBe(
      'N threads (this one and N-1 workers); 46 replays in T s; 8 ranks in 3 stages',
    );
    expect(shownOutput('a\nb\nc\n', 'd\n', 2)).toBe('a\nb\n… (2 more lines)');
    expect(shownOutput('a\n', '', 2)).toBe('a');
  });
});

/**
 * The executable's one-file build (src/cli/bundle.ts, scripts/bundle-cli.mjs): `npm run build` makes it, the
 * executable uses it only while it is current, and commands print the same through it as through the modules tsc
 * wrote — among them ones that find files relative to their module (package.json, calibration presets) and ones
 * that load a package at the point of use (yaml, bundled but run at its first use; csv-parse, from node_modules).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleIsCurrent } from '../../src/engines/workers/bundle.js';
import { repoRoot } from '../helpers/shared.js';

const cliDir = path.join(repoRoot, 'dist', 'cli');
const built = existsSync(path.join(cliDir, 'run.js'));
if (!built) console.warn('dist/ not built (npm run build): the bundle-versus-modules tests are skipped');

describe('bundleIsCurrent', () => {
  it(
    'holds while no module listed is newer than the bundle, and fails when one is, or is gone, or nothing is ' +
      'listed',
    (ctx) => {
      const d = mkdtempSync(path.join(os.tmpdir(), 'tw-bundle-'));
      ctx.onTestFinished(() => rmSync(d, { recursive: true, force: true }));
      const bundle = path.join(d, 'x.bundle.cjs');
      const at = (file: string, s: number) => utimesSync(file, new Date(s * 1000), new Date(s * 1000));
      writeFileSync(path.join(d, 'a.js'), '');
      writeFileSync(bundle, '');
      writeFileSync(path.join(d, 'x.bundle.json'), JSON.stringify({ modules: ['a.js'] }));
      at(path.join(d, 'a.js'), 1_000);
      at(bundle, 2_000);
      expect(bundleIsCurrent(bundle)).toBe(true);
      at(path.join(d, 'a.js'), 3_000);
      expect(bundleIsCurrent(bundle)).toBe(false);
      rmSync(path.join(d, 'a.js'));
      expect(bundleIsCurrent(bundle)).toBe(false);
      writeFileSync(path.join(d, 'x.bundle.json'), JSON.stringify({ modules: [] }));
      expect(bundleIsCurrent(bundle)).toBe(false);
      expect(bundleIsCurrent(path.join(d, 'none.bundle.cjs'))).toBe(false);
    },
  );
});

describe.skipIf(!built)('the built executable: bundle and modules', () => {
  /** Runs argv through dist/cli/main.js (the bundle) or through run.js and its modules (what main.js falls back to). */
  const run = (argv: string[], via: 'bundle' | 'modules') => {
    const args =
      via === 'bundle'
        ? [path.join(cliDir, 'main.js'), ...argv]
        : [
            '--input-type=module',
            '-e',
            'const { main } = await import(process.argv[1]); process.exitCode = await main(process.argv.slice(2));',
            path.join(cliDir, 'run.js'),
            ...argv,
          ];
    const r = spawnSync(process.execPath, args, {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, COLUMNS: '120' },
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  it('npm run build made a current bundle, its module list and its code cache', async () => {
    const { CLI_BUNDLE, loadCliBundle } = (await import(
      path.join(cliDir, 'bundle.js')
    )) as typeof import('../../src/cli/bundle.js');
    expect(existsSync(CLI_BUNDLE.cache)).toBe(true);
    expect(bundleIsCurrent(CLI_BUNDLE.file)).toBe(true);
    expect(typeof loadCliBundle()?.main).toBe('function');
  });

  const trace = 'traces/astra-sim/all_reduce/8npus_1MB/all_reduce';
  const network = ['--system', 'traces/configs/sys_ring_example.json', '--network', 'traces/configs/Switch_8npus.yml'];
  const profile = 'calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv';
  it.each([
    [['--version']],
    [['--help']],
    [['inspect', trace, '--json']],
    [['replay', trace, ...network, '--power', 'h100-cluster', '--json']],
    [
      [
        'predict',
        '--calibration',
        'calibration/a40.json',
        '--profile',
        profile,
        '--reference-frequency',
        '1740',
        '--frequencies',
        '1200,1500',
        '--json',
      ],
    ],
    [['inspect', 'no/such/trace']],
  ])('tracewatt %j prints the same either way', (argv) => {
    const bundled = run(argv, 'bundle');
    expect(bundled).toEqual(run(argv, 'modules'));
    if (argv[0] === '--version') expect(bundled.out).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

#!/usr/bin/env node
// Bundles the CLI (dist/cli/run.js and every module it imports, commander included) into one CommonJS file,
// dist/cli/tracewatt.bundle.cjs, with its module list (tracewatt.bundle.json) and V8's code cache of its start-up
// (tracewatt.bundle.cache); dist/cli/bundle.js says how the executable loads them and why. Run by `npm run build`
// after tsc. Best effort, like bundle-worker.mjs: without the bundler (its native binding missing, an older Node 20),
// or when the bundle does not answer `--help`, it warns, leaves no bundle, and the executable loads run.js and its
// modules one by one.
//
// Two rewrites keep the bundle's behaviour that of the modules in dist/ (in tsc's output, before bundling):
// - `import.meta.url` of a module becomes that module's own file URL in dist/ (relative to the bundle), so files found
//   relative to a module (package.json, calibration/, worker modules) are the same ones;
// - `import('package')` (packages loaded at the point of use: vega, csv-parse, cli-progress) calls the import
//   function the loader passes in, so they stay outside the bundle and load from node_modules as before.
// One package is taken into the bundle but still run at its first use: `createRequire(import.meta.url)('yaml')`
// becomes `require('yaml')`, which the bundler wraps in a function called then. Every command that reads a
// network.yml or a column mapping loads it, and from node_modules it was some 60 files to resolve and read: replay
// of the 8-rank all-reduce in traces/ takes 0.87× the time (median of 20 in turn), and start-up (`--version`) is
// unchanged (1.02×).
import { rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const dir = path.join(dist, 'cli');
const out = path.join(dir, 'tracewatt.bundle.cjs');
const manifest = path.join(dir, 'tracewatt.bundle.json');
const cache = path.join(dir, 'tracewatt.bundle.cache');
const { CLI_BUNDLE, IMPORT_FUNCTION, runBundle } = await import(pathToFileURL(path.join(dir, 'bundle.js')).href);

/** The package bundled but run at its first use (above). */
const BUNDLED_AT_FIRST_USE = 'yaml';

/** The rewrites above, for the modules tsc wrote (not node_modules). */
const keepModuleBehaviour = {
  name: 'tracewatt-module-urls',
  transform(code, id) {
    if (!id.startsWith(dist + path.sep)) return null;
    const own = path.relative(dir, id).split(path.sep).join('/');
    const url = `new URL(${JSON.stringify(own)}, require('node:url').pathToFileURL(__filename)).href`;
    return code
      .replaceAll(`createRequire(import.meta.url)('${BUNDLED_AT_FIRST_USE}')`, `require('${BUNDLED_AT_FIRST_USE}')`)
      .replaceAll('import.meta.url', url)
      .replace(/\bimport\((['"])([^'"./][^'"]*)\1\)/g, (_, q, specifier) => `${IMPORT_FUNCTION}(${q}${specifier}${q})`);
  },
};

/** Throws unless the bundle runs `--help` and `--version`; returns the code cache of what they ran. */
async function warmCodeCache() {
  let text = '';
  const io = { out: (t) => void (text += t), err: (t) => void (text += t), isTTY: false };
  const { entry, script } = runBundle(CLI_BUNDLE.file);
  for (const argv of [['--help'], ['--version'], ['inspect', '--help']]) {
    const code = await entry.runCli(argv, io);
    if (code !== 0)
      throw new Error(`the bundle's \`tracewatt ${argv.join(' ')}\` exited ${code}: ${text.split('\n')[0]}`);
  }
  if (!text.includes('Usage: tracewatt')) throw new Error('the bundle printed no usage for --help');
  return script.createCachedData();
}

// The cache goes first: one left beside a new bundle would belong to the old one.
await rm(cache, { force: true });
try {
  const { rolldown } = await import('rolldown');
  const bundle = await rolldown({
    input: path.join(dir, 'run.js'),
    platform: 'node',
    logLevel: 'warn',
    plugins: [keepModuleBehaviour],
  });
  const { output } = await bundle.write({ file: out, format: 'cjs', strict: true, codeSplitting: false });
  await bundle.close();
  const [chunk] = output;
  if (chunk.dynamicImports.length)
    throw new Error(`dynamic imports left in the bundle: ${chunk.dynamicImports.join(', ')}`);
  const modules = chunk.moduleIds.filter((m) => !m.startsWith('\0')).map((m) => path.relative(dir, m));
  await writeFile(manifest, `${JSON.stringify({ modules }, null, 1)}\n`);
  await writeFile(cache, await warmCodeCache());
  const kib = async (f) => ((await stat(f)).size / 1024).toFixed(0);
  console.log(
    `bundled the CLI: ${path.relative(process.cwd(), out)} (${modules.length} modules, ${await kib(out)} KiB; code cache ${await kib(cache)} KiB)`,
  );
} catch (e) {
  for (const f of [out, manifest, cache]) await rm(f, { force: true });
  console.warn(
    `CLI not bundled (${e.message.split('\n')[0]}): the tracewatt executable will load its modules one by one`,
  );
}

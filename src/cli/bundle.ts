/**
 * The CLI's one-file build: run.ts and every module it imports (commander included) in tracewatt.bundle.cjs beside
 * this module, made by scripts/bundle-cli.mjs after tsc. Node 20 has no compile cache for ES modules
 * (module.enableCompileCache came in Node 22.1), so the bundle is CommonJS and runs through vm.Script, which takes
 * V8's code cache: tracewatt.bundle.cache, written by the build after running `--help` once, holds the compiled
 * code of start-up. Together they halve the start-up of every command (no module resolution, almost no compiling).
 *
 * Packages loaded at the point of use (vega, csv-parse, cli-progress: `import('…')` in the modules) stay outside the
 * bundle: the build rewrites those calls to the `importModule` given here, which imports them as any module of
 * dist/ would. `import.meta.url` of a bundled module is rewritten to that module's own file in dist/, so files
 * found relative to it (package.json, calibration/, worker modules) are the same as without the bundle.
 *
 * A bundle that is missing, or older than a module it holds (a tsc run since the build), is not used: main.ts then
 * loads run.js and its modules one by one. A code cache V8 rejects (another Node) only costs the compile.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { bundleIsCurrent } from '../engines/workers/bundle.js';

/** What the bundle exports: run.ts. */
export type CliEntry = typeof import('./run.js');

/** The bundle's file, its module list (tracewatt.bundle.json) and its code cache, beside this module. */
export const CLI_BUNDLE = {
  file: fileURLToPath(new URL('./tracewatt.bundle.cjs', import.meta.url)),
  cache: fileURLToPath(new URL('./tracewatt.bundle.cache', import.meta.url)),
};

/** The parameters the bundle's code is wrapped in (CommonJS's, plus the import function of dynamic imports). */
const WRAPPER = ['exports', 'require', 'module', '__filename', '__dirname', '__tracewattImport'] as const;

/**
 * The import function the bundle's dynamic imports call (scripts/bundle-cli.mjs rewrites `import(` to it).
 * @public (read by scripts/bundle-cli.mjs through a dynamic import)
 */
export const IMPORT_FUNCTION = WRAPPER[5];

const importModule = (specifier: string): Promise<unknown> => import(specifier);

/**
 * Compiles and runs the bundle (with the code cache when there is one); returns its exports and the script (the
 * build asks it for a fresh code cache once warmed up).
 */
export function runBundle(file: string, cache?: Buffer): { entry: CliEntry; script: Script } {
  const source = `(function (${WRAPPER.join(', ')}) {${readFileSync(file, 'utf8')}\n})`;
  const script = new Script(source, { filename: file, cachedData: cache });
  const module = { exports: {} as CliEntry };
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    module.exports,
    module.exports,
    createRequire(file),
    module,
    file,
    path.dirname(file),
    importModule,
  );
  return { entry: module.exports, script };
}

/** The bundle's entry when there is a current bundle, else null (main.ts then imports run.js). */
export function loadCliBundle(): CliEntry | null {
  const { file, cache } = CLI_BUNDLE;
  if (!bundleIsCurrent(file)) return null;
  return runBundle(file, codeCacheOf(file, cache)).entry;
}

/**
 * The code cache when it was written after the bundle (the build removes it before writing a bundle, so an older
 * one belongs to another bundle: V8 checks only the source's length, not its text), else undefined.
 */
function codeCacheOf(file: string, cache: string): Buffer | undefined {
  try {
    return statSync(cache).mtimeMs >= statSync(file).mtimeMs ? readFileSync(cache) : undefined;
  } catch {
    return undefined; // no cache (the build could not make one): V8 compiles what runs
  }
}

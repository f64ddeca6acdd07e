#!/usr/bin/env node
// Bundles the annotate worker (dist/engines/annotate/worker.js and the modules it imports) into one file,
// worker.bundle.js beside it: a worker thread then loads one module, not about 35, and starts annotating sooner
// (about 40 ms on a 2-core machine, measured from `new Worker` to ready). Node built-ins stay imports. Beside it,
// worker.bundle.json lists the modules bundled: annotateTrace uses the bundle only while none of them is newer (an
// incremental or watch tsc run since would otherwise leave worker threads on old code). Run by `npm run build`
// after tsc. Best effort: without the bundler (its native binding missing, an older Node 20) it warns and the
// engine loads worker.js and its modules as before.
import { rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'engines', 'annotate');
const out = path.join(dir, 'worker.bundle.js');
const manifest = path.join(dir, 'worker.bundle.json');
try {
  const { rolldown } = await import('rolldown');
  const bundle = await rolldown({ input: path.join(dir, 'worker.js'), platform: 'node', logLevel: 'warn' });
  const { output } = await bundle.write({ file: out, format: 'esm' });
  await bundle.close();
  // Files only: the bundler's own virtual modules (ids starting with \0, e.g. its runtime) have no file to compare.
  const modules = output[0].moduleIds.filter((m) => !m.startsWith('\0')).map((m) => path.relative(dir, m));
  await writeFile(manifest, `${JSON.stringify({ modules }, null, 1)}\n`);
  console.log(
    `bundled the annotate worker: ${path.relative(process.cwd(), out)} (${modules.length} modules, ${((await stat(out)).size / 1024).toFixed(0)} KiB)`,
  );
} catch (e) {
  await rm(out, { force: true });
  await rm(manifest, { force: true });
  console.warn(
    `annotate worker not bundled (${e.message.split('\n')[0]}): worker threads will load its modules one by one`,
  );
}

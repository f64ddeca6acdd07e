// Checks the layering rule: a module imports only from its own floor or the floors below it. From the ground up:
//   errors.ts, diagnostics.ts  the base: typed errors and the diagnostics counter
//   vocab/    the shared words: kernel sample, annotation attribute names, device facts and the roofline, units and
//             the µs rounding rule, collective names
//   formats/  readers and writers of files        model/   calibration, power and time models
//   engines/  workflows (annotate, replay, generate, plan, studies, …)
//   report/   rendering (html, text, plots)       cli/     parse options → call one library function → print
// A top-level folder or file of src/ that is in no floor is an error too (a new one must be given its floor here).
// Prints offenders; exits 1 if any. `node scripts/check-layers.mjs [SRC]` checks another tree (the tests use it).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src'));
const ORDER = ['errors', 'vocab', 'formats', 'model', 'engines', 'report', 'cli'];
/** Floor of a path relative to src/ ("engines/replay/x.ts"), or -1 when it is in none. */
const layerOf = (rel) => {
  const top = rel.split(path.sep)[0].replace(/\.(ts|js)$/, '');
  if (top === 'diagnostics') return 0; // a base utility, like errors.ts
  return top === 'index' ? ORDER.length : ORDER.indexOf(top);
};

const offenders = [];
for (const rel of readdirSync(root, { recursive: true })) {
  if (!rel.endsWith('.ts')) continue;
  if (layerOf(rel) < 0) {
    offenders.push(`${rel} is in no floor (scripts/check-layers.mjs ORDER)`);
    continue;
  }
  const text = readFileSync(path.join(root, rel), 'utf8');
  // Static imports and re-exports (`from '…'` / `from "…"`) and dynamic `import('…')`.
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)(['"])(\.[^'"]+)\1/g)) {
    const target = path.relative(root, path.resolve(root, path.dirname(rel), m[2]));
    if (target.startsWith('..')) continue;
    if (layerOf(target) > layerOf(rel)) offenders.push(`${rel} imports ${target} (a floor above it)`);
  }
}
for (const o of offenders) console.log(o);
console.log(offenders.length ? `${offenders.length} offender(s)` : 'layers ok: every import points down');
process.exitCode = offenders.length ? 1 : 0;

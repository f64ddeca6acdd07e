// Checks the layering rule: a module imports only from its own layer or the layers below it
// (errors → formats → core → model → engines → report → cli). Prints offenders; exits 1 if any.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
const ORDER = ['errors', 'formats', 'core', 'model', 'engines', 'report', 'cli'];
const layerOf = (rel) => {
  const top = rel.split(path.sep)[0].replace(/\.(ts|js)$/, '');
  if (top === 'diagnostics') return 0; // a base utility, like errors.ts
  return top === 'index' ? ORDER.length : ORDER.indexOf(top);
};

const offenders = [];
for (const rel of readdirSync(root, { recursive: true })) {
  if (!rel.endsWith('.ts')) continue;
  const text = readFileSync(path.join(root, rel), 'utf8');
  // Static imports and re-exports (`from '…'` / `from "…"`) and dynamic `import('…')`.
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)(['"])(\.[^'"]+)\1/g)) {
    const target = path.relative(root, path.resolve(root, path.dirname(rel), m[2]));
    if (target.startsWith('..')) continue;
    if (layerOf(target) > layerOf(rel)) offenders.push(`${rel} imports ${target} (a layer above it)`);
  }
}
for (const o of offenders) console.log(o);
console.log(offenders.length ? `${offenders.length} upward import(s)` : 'layers ok: every import points down');
process.exitCode = offenders.length ? 1 : 0;

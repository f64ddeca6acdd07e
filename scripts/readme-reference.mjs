// Regenerates docs/reference.md, the command reference, from the command table (run after `npm run build`);
// with --print, prints the reference instead.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../dist/cli/commands/index.js';
import { renderReference, replaceReference } from '../dist/cli/reference.js';

if (process.argv.includes('--print')) {
  process.stdout.write(`${renderReference(COMMANDS)}\n`);
} else {
  const reference = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'reference.md');
  writeFileSync(reference, replaceReference(readFileSync(reference, 'utf8'), renderReference(COMMANDS)));
  console.log('docs/reference.md updated');
}

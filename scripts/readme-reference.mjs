// Regenerates the README's command reference from the command table (run after `npm run build`);
// with --print, prints the reference instead (e.g. for a docs/ page).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../dist/cli/commands/index.js';
import { renderReference, replaceReference } from '../dist/cli/reference.js';

if (process.argv.includes('--print')) {
  process.stdout.write(renderReference(COMMANDS) + '\n');
} else {
  const readme = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
  writeFileSync(readme, replaceReference(readFileSync(readme, 'utf8'), renderReference(COMMANDS)));
  console.log('README command reference updated');
}

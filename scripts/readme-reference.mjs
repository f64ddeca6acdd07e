// Regenerates docs/reference.md, the command reference, from the command table (run after `npm run build`).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../dist/cli/commands/index.js';
import { renderReference, replaceReference } from '../dist/cli/reference.js';

const readme = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'reference.md');
writeFileSync(readme, replaceReference(readFileSync(readme, 'utf8'), renderReference(COMMANDS)));
console.log('docs/reference.md updated');

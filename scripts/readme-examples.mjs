// Re-runs every example in README.md and docs/*.md and writes its real output below it (run after `npm run build`).
// An example is a block opened by `<!-- example: ARGS [max-lines=N] -->` and closed by `<!-- /example -->`
// (`<!-- shared-example: … -->`: one that reads ../shared, which a user's clone does not have; refreshed here,
// not run by test/cli/examples.test.ts); scripts/lib/doc-examples.mjs says which documents and in what order.
// ARGS is run as `node dist/cli/main.js ARGS` from the repository root, README.md first, then the docs pages in
// name order, each in document order, so later examples can use files written by earlier ones (under out/, which
// git ignores).
// `node scripts/readme-examples.mjs TEXT…` refreshes only the examples whose arguments contain one of the TEXTs
// (their inputs under out/ must exist already), leaving every other block as it is.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cutLines, EXAMPLE_BLOCK, exampleDocuments } from './lib/doc-examples.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

function splitArgs(s) {
  return [...s.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

const only = process.argv.slice(2);
let count = 0;
for (const doc of exampleDocuments(root)) {
  const file = path.join(root, doc);
  const text = readFileSync(file, 'utf8');
  const out = text.replace(EXAMPLE_BLOCK, (all, kind, args, maxLines) => {
    if (only.length && !only.some((t) => args.includes(t))) return all;
    const r = spawnSync(process.execPath, [path.join(root, 'dist', 'cli', 'main.js'), ...splitArgs(args)], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, COLUMNS: '120' },
      maxBuffer: 1 << 26,
    });
    const lines = cutLines(r.stdout + r.stderr, Number(maxLines ?? 40));
    const exit = r.status === 0 ? '' : `\n(exit code ${r.status})`;
    count++;
    console.log(`${r.status === 0 ? 'ok  ' : `exit ${r.status}`} ${doc}: npx tracewatt ${args}`);
    return `<!-- ${kind}: ${args}${maxLines ? ` max-lines=${maxLines}` : ''} -->\n\`\`\`console\n$ npx tracewatt ${args}\n${lines.join('\n')}${exit}\n\`\`\`\n<!-- /example -->`;
  });
  if (out !== text) writeFileSync(file, out);
}
console.log(`${count} examples refreshed (README.md and docs/*.md)`);

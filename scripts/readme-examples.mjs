// Re-runs every example in README.md and writes its real output below it (run after `npm run build`).
// An example is a block opened by `<!-- example: ARGS [max-lines=N] -->` and closed by `<!-- /example -->`
// (`<!-- shared-example: … -->`: one that reads ../shared, which a user's clone does not have; refreshed here,
// not run by test/cli/examples.test.ts);
// ARGS is run as `node dist/cli/main.js ARGS` from the repository root, in document order, so later
// examples can use files written by earlier ones (under out/, which git ignores).
// `node scripts/readme-examples.mjs TEXT…` refreshes only the examples whose arguments contain one of the TEXTs
// (their inputs under out/ must exist already), leaving every other block as it is.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const readmePath = path.join(root, 'README.md');
const text = readFileSync(readmePath, 'utf8');
const block = /<!-- (example|shared-example): (.+?)(?: max-lines=(\d+))? -->\n[\s\S]*?<!-- \/example -->/g;

function splitArgs(s) {
  return [...s.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

const only = process.argv.slice(2);
let count = 0;
const out = text.replace(block, (all, kind, args, maxLines) => {
  if (only.length && !only.some((t) => args.includes(t))) return all;
  const r = spawnSync(process.execPath, [path.join(root, 'dist', 'cli', 'main.js'), ...splitArgs(args)], {
    cwd: root, encoding: 'utf8', env: { ...process.env, COLUMNS: '120' }, maxBuffer: 1 << 26,
  });
  let lines = (r.stdout + r.stderr).replace(/\s+$/, '').split('\n');
  const limit = Number(maxLines ?? 40);
  if (lines.length > limit) lines = [...lines.slice(0, limit), `… (${lines.length - limit} more lines)`];
  const exit = r.status === 0 ? '' : `\n(exit code ${r.status})`;
  count++;
  console.log(`${r.status === 0 ? 'ok  ' : `exit ${r.status}`} npx tracewatt ${args}`);
  return `<!-- ${kind}: ${args}${maxLines ? ` max-lines=${maxLines}` : ''} -->\n\`\`\`console\n$ npx tracewatt ${args}\n${lines.join('\n')}${exit}\n\`\`\`\n<!-- /example -->`;
});
writeFileSync(readmePath, out);
console.log(`${count} README examples refreshed`);

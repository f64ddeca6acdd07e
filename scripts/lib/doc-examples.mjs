// The documents whose example blocks scripts/readme-examples.mjs refreshes and test/cli/examples.test.ts runs, and
// how a block is written. README.md comes first, then every docs/*.md page in name order: all of them run in that
// order in one folder, so a page's examples may use what README.md's examples wrote under out/ (and what earlier
// examples of the same page wrote), never what another docs page wrote.
// A block: `<!-- example: ARGS [max-lines=N] -->`, a console fence with `$ npx tracewatt ARGS` and its output (cut
// after N lines, 40 by default), `<!-- /example -->`; `shared-example` for one that reads ../shared (refreshed by the
// script, not run by the test: a user's clone has no ../shared).
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Paths (relative to the repository root) of the documents with example blocks, in the order they run. */
export function exampleDocuments(root) {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

/** One example block: kind (`example` or `shared-example`), ARGS, max-lines (or undefined), then the block's body. */
export const EXAMPLE_BLOCK =
  /<!-- (example|shared-example): (.+?)(?: max-lines=(\d+))? -->\n([\s\S]*?)<!-- \/example -->/g;

/** Output lines cut after `maxLines`, as a block shows them. */
export function cutLines(text, maxLines) {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.length > maxLines ? [...lines.slice(0, maxLines), `… (${lines.length - maxLines} more lines)`] : lines;
}

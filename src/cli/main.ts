#!/usr/bin/env node
// The `tracewatt` executable. It runs run.ts from the one-file build when `npm run build` made one and it is current
// (bundle.ts: one file and a compile cache, no module resolution, about half the start-up), else from run.js and
// the modules it imports; the command line behaves the same either way.
import { loadCliBundle } from './bundle.js';

const entry = loadCliBundle() ?? (await import('./run.js'));
process.exitCode = await entry.main(process.argv.slice(2));

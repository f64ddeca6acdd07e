#!/usr/bin/env node
// The `tracewatt` executable: everything else lives in program.ts so tests can run it in-process. The process guards
// (signals, EPIPE) go in first, before the commands load.
import { installProcessGuards } from './process-guards.js';

installProcessGuards();
const { runCli } = await import('./program.js');
process.exitCode = await runCli(process.argv.slice(2));

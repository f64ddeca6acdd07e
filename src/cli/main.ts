#!/usr/bin/env node
// The `tracewatt` executable: everything else lives in program.ts so tests can run it in-process.
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2));

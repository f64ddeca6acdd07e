/**
 * What the `tracewatt` executable runs, kept apart from main.ts so that it can be loaded either from the one-file
 * build (dist/cli/tracewatt.bundle.cjs, see bundle.ts) or, without one, as this module and its imports.
 */
import { installProcessGuards } from './process-guards.js';
import { runCli } from './program.js';

export { runCli };

/** Runs the command line `argv` in this process, with its guards (signals, EPIPE); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  installProcessGuards();
  return runCli(argv);
}

/**
 * One table of commands and options drives commander (help, parsing) and the README's command
 * reference (scripts/readme-reference.mjs), so the three cannot drift apart.
 */

export interface OptionSpec {
  /** Long flag without dashes, e.g. "calibration". Becomes opts.calibration (camelCased). */
  name: string;
  /** Value placeholder, e.g. "file"; omit for a boolean flag. */
  value?: string;
  description: string;
  default?: string | number | boolean;
  /** Repeatable option collected into an array. */
  repeatable?: boolean;
  required?: boolean;
}

export interface ArgSpec {
  name: string;
  description: string;
  variadic?: boolean;
  optional?: boolean;
}

/** Where a command writes; tests pass buffers, the CLI passes process streams. */
export interface CommandIO {
  out: (text: string) => void;
  err: (text: string) => void;
  isTTY: boolean;
}

export interface CommandSpec {
  /** Space-separated for sub-commands, e.g. "sweep network". */
  name: string;
  summary: string;
  args: ArgSpec[];
  options: OptionSpec[];
  /**
   * A real example invocation shown in --help and the command reference, written `tracewatt …` (shown as
   * `npx tracewatt …`). It runs as written from the repository root on shipped files only (traces/, calibration/,
   * test/fixtures/) and writes under out/; test/cli/examples.test.ts runs every one.
   */
  example: string;
  /** Commands that make the example's inputs under out/, run before it in this order (shown with it). */
  exampleSetup?: string[];
  /** Returns the process exit code (0 = success). Throw TracewattError for bad input. */
  run(args: string[], opts: Record<string, unknown>, io: CommandIO): Promise<number>;
}

/** The example as a user types it in the repository root: setup commands first, `tracewatt` run through npx. */
export function exampleLines(spec: Pick<CommandSpec, 'example' | 'exampleSetup'>): string[] {
  return [...(spec.exampleSetup ?? []), spec.example].map((line) => line.replace(/^tracewatt /, 'npx tracewatt '));
}

/** Options every command accepts. */
export const COMMON_OPTIONS: OptionSpec[] = [
  { name: 'json', description: 'print machine-readable JSON instead of a table' },
  { name: 'verbose', description: 'print stack traces and extra diagnostics on error' },
];

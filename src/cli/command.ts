/**
 * One table of commands and options drives commander (help, parsing) and the README's command
 * reference (scripts/readme-reference.mjs), so the three cannot drift apart.
 */
import { printSaid } from './io.js';
import { parseOptions, type OptionValues, type TypedOption } from './options.js';

/** One row of a command's option table. */
export type OptionSpec = TypedOption;

export interface ArgSpec {
  name: string;
  description: string;
  variadic?: boolean;
  optional?: boolean;
}

/** The argument of the commands that read a multi-rank Chakra trace. */
export const TRACE_ARG: ArgSpec = {
  name: 'trace',
  description: '<prefix> of <prefix>.<rank>.et files, a directory, or one .et file',
};

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
  options: readonly OptionSpec[];
  /**
   * A real example invocation shown in --help and the command reference, written `tracewatt …` (shown as
   * `npx tracewatt …`). It runs as written from the repository root on shipped files only (traces/, calibration/,
   * test/fixtures/) and writes under out/; test/cli/examples.test.ts runs every one.
   */
  example: string;
  /** Commands that make the example's inputs under out/, run before it in this order (shown with it). */
  exampleSetup?: string[];
  /**
   * Returns the process exit code (0 = success). Throw TracewattError for bad input. `opts` holds the options given
   * on the command line by camelCased name, as commander gives them; defineCommand parses and types them.
   */
  run(args: string[], opts: Record<string, unknown>, io: CommandIO): Promise<number>;
}

/** What {@link defineCommand} takes: a command whose `run` receives its options parsed and typed from its table. */
export interface TypedCommandSpec<T extends readonly TypedOption[]> extends Omit<CommandSpec, 'options' | 'run'> {
  options: T;
  run(args: string[], opts: OptionValues<T> & OptionValues<typeof COMMON_OPTIONS>, io: CommandIO): Promise<number>;
}

/**
 * A command whose options type themselves: `opts` is derived from the `options` table (`opts.calibration: string`
 * for a required text option, `opts.frequency: number[]` for a list), so a misspelt option does not compile. Options
 * are parsed (and defaults, deprecated names and `requires` applied) before `run`, whether commander or a test calls
 * it.
 */
export function defineCommand<const T extends readonly TypedOption[]>(spec: TypedCommandSpec<T>): CommandSpec {
  return {
    ...spec,
    run: async (args, raw, io) =>
      spec.run(
        args,
        parseOptions([...spec.options, ...COMMON_OPTIONS], raw, (line) =>
          printSaid(io, { notes: [line] }),
        ) as OptionValues<T> & OptionValues<typeof COMMON_OPTIONS>,
        io,
      ),
  };
}

/** The value placeholder of an option, e.g. "file"; none for a flag. */
export function placeholder(o: OptionSpec): string | undefined {
  if (o.type === 'boolean') return undefined;
  return o.value ?? (o.type === 'choice' ? o.choices.join('|') : 'value');
}

/** The help line of an option: its description, what it needs, and for a typed option its type. */
export function optionHelp(o: OptionSpec): string {
  return `${o.required ? '(required) ' : ''}${o.description}${o.requires ? ` (needs --${o.requires})` : ''}`;
}

/** The example as a user types it in the repository root: setup commands first, `tracewatt` run through npx. */
export function exampleLines(spec: Pick<CommandSpec, 'example' | 'exampleSetup'>): string[] {
  return [...(spec.exampleSetup ?? []), spec.example].map((line) => line.replace(/^tracewatt /, 'npx tracewatt '));
}

/** Options every command accepts. */
export const COMMON_OPTIONS = [
  { name: 'json', type: 'boolean', description: 'print machine-readable JSON instead of a table' },
  { name: 'verbose', type: 'boolean', description: 'print stack traces and extra diagnostics on error' },
] as const satisfies readonly TypedOption[];

/**
 * The tracewatt command line: builds commander from the command table in commands/index.ts,
 * runs one library call per command, and turns typed errors into one readable line and an exit code.
 */
import { Command, Option } from 'commander';
import { TracewattError } from '../errors.js';
import { tracewattVersion } from '../report/version.js';
import {
  COMMON_OPTIONS,
  exampleLines,
  optionHelp,
  placeholder,
  type CommandIO,
  type CommandSpec,
  type OptionSpec,
} from './command.js';
import { COMMANDS } from './commands/index.js';

/** Exit codes: 0 ok, 1 the input has problems (e.g. validate found errors), 2 bad input or usage, 3 internal error. */
export const EXIT = { OK: 0, PROBLEMS: 1, BAD_INPUT: 2, INTERNAL: 3 } as const;

function optionFlags(o: OptionSpec, name = o.name): string {
  const value = placeholder(o);
  if (!value) return `--${name}`;
  return o.repeatable ? `--${name} <${value}...>` : `--${name} <${value}>`;
}

/** Commander options for one row of the table: the option, and each deprecated name hidden from help. */
function commanderOptions(o: OptionSpec): Option[] {
  const opt = new Option(optionFlags(o), optionHelp(o));
  if (o.default !== undefined) opt.default(o.default);
  // Choices are shown in help; the option parser checks them (one line, exit 2).
  if (o.type === 'choice') opt.argChoices = [...o.choices];
  const old = (o.deprecatedNames ?? []).map((n) =>
    new Option(optionFlags(o, n), `deprecated: use --${o.name}`).hideHelp(),
  );
  return [opt, ...old];
}

/**
 * The options given on the command line, by camelCased name. Defaults are left out: the option parser applies
 * them, and so tells a given value from a default.
 */
function givenOptions(cmd: Command, table: readonly OptionSpec[]): Record<string, unknown> {
  const typed = new Set(table.map((o) => new Option(optionFlags(o)).attributeName()));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(cmd.opts()))
    if (!(typed.has(key) && cmd.getOptionValueSource(key) === 'default')) out[key] = value;
  return out;
}

function addCommand(parent: Command, spec: CommandSpec, io: CommandIO, leaf: string, result: { code: number }): void {
  const cmd = parent.command(leaf).description(spec.summary);
  for (const a of spec.args) {
    const n = a.variadic ? `${a.name}...` : a.name;
    cmd.argument(a.optional ? `[${n}]` : `<${n}>`, a.description);
  }
  // The common options (--json, --verbose) are added here, after the command's own, so every command has them once.
  const clash = spec.options.find((o) => COMMON_OPTIONS.some((c) => c.name === o.name));
  if (clash)
    throw new Error(`command "${spec.name}" declares --${clash.name}, which every command gets from COMMON_OPTIONS`);
  const table: readonly OptionSpec[] = [...spec.options, ...COMMON_OPTIONS];
  for (const o of table) for (const opt of commanderOptions(o)) cmd.addOption(opt);
  cmd.addHelpText(
    'after',
    `\nExample (in the repository root):\n${exampleLines(spec)
      .map((l) => `  $ ${l}\n`)
      .join('')}`,
  );
  cmd.action(async (...received: unknown[]) => {
    const opts = givenOptions(cmd, table);
    const args = received
      .slice(0, spec.args.length)
      .flatMap((a) => (Array.isArray(a) ? a : a === undefined ? [] : [String(a)]));
    result.code = await spec.run(args, opts, io);
  });
}

export function buildProgram(io: CommandIO, result: { code: number } = { code: 0 }): Command {
  const program = new Command('tracewatt')
    .description(
      'Energy of distributed ML training from Chakra traces and GPU profiles (modelled figures are estimates)',
    )
    .version(tracewattVersion())
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.out(t), writeErr: (t) => io.err(t) });
  const groups = new Map<string, Command>();
  for (const spec of COMMANDS) {
    const words = spec.name.split(' ');
    if (words.length === 1) {
      addCommand(program, spec, io, words[0], result);
      continue;
    }
    let group = groups.get(words[0]);
    if (!group) {
      group = program.command(words[0]).description(`${words[0]} sub-commands`);
      groups.set(words[0], group);
    }
    addCommand(group, spec, io, words[1], result);
  }
  return program;
}

export const processIO: CommandIO = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  isTTY: Boolean(process.stdout.isTTY),
};

/** Runs one command line; returns the exit code. Never throws. */
export async function runCli(argv: string[], io: CommandIO = processIO): Promise<number> {
  const verbose = argv.includes('--verbose');
  const result = { code: 0 };
  try {
    const program = buildProgram(io, result);
    await program.parseAsync(argv, { from: 'user' });
    return result.code;
  } catch (e) {
    const err = e as Error & { code?: string; exitCode?: number };
    if (err.code?.startsWith('commander.')) {
      // commander has already printed its message (or the help / version text).
      return err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version'
        ? 0
        : EXIT.BAD_INPUT;
    }
    if (e instanceof TracewattError) {
      io.err(`tracewatt: error: ${err.message}\n`);
      if (verbose && err.stack) io.err(`${err.stack}\n`);
      return EXIT.BAD_INPUT;
    }
    io.err(`tracewatt: internal error: ${err?.message ?? String(e)}\n`);
    io.err(verbose && err?.stack ? `${err.stack}\n` : '(run again with --verbose for the stack trace)\n');
    return EXIT.INTERNAL;
  }
}

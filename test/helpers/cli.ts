/** Runs one tracewatt command line in-process (runCli), collecting what it prints. */
import { runCli } from '../../src/cli/program.js';

export async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t), isTTY: false });
  return { code, out, err };
}

/** cli() with the words as arguments: `cliArgs('replay', trace, '--json')`. */
export function cliArgs(...argv: string[]): ReturnType<typeof cli> {
  return cli(argv);
}

/** `generate llm --model llama2-7b <options, space-separated> --out <prefix>`: the small LLM traces tests write. */
export function generateLlama(prefix: string, options: string): ReturnType<typeof cli> {
  return cli(['generate', 'llm', '--model', 'llama2-7b', ...options.split(' '), '--out', prefix]);
}

/** Runs one tracewatt command line in-process with captured output. */
import { runCli } from '../../src/cli/program.js';

export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t), isTTY: false });
  return { code, out, err };
}

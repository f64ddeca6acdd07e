/**
 * The progress bar of long commands on a terminal (cli-progress, drawn on stderr). cli-progress is loaded here, when a
 * bar is wanted, not when the command table loads: most runs (pipes, --json, every other command) never draw one.
 */
import type { SingleBar } from 'cli-progress';

/** A bar in tracewatt's one style; `format` is cli-progress's format string (e.g. 'annotate [{bar}] {percentage}%'). */
export async function progressBar(format: string): Promise<SingleBar> {
  const { default: cliProgress } = await import('cli-progress');
  return new cliProgress.SingleBar(
    { stream: process.stderr, format, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
}

/**
 * The progress bar of long commands on a terminal (cli-progress, drawn on stderr): the one helper every command
 * draws its progress with. cli-progress is loaded here, when a bar is wanted, not when the command table loads: most
 * runs (pipes, --json, --csv, every other command) never draw one.
 */
import type { SingleBar } from 'cli-progress';
import type { CommandIO } from './command.js';

/** A bar in tracewatt's one style; `format` is cli-progress's format string (e.g. 'annotate [{bar}] {percentage}%'). */
export async function progressBar(format: string): Promise<SingleBar> {
  const { default: cliProgress } = await import('cli-progress');
  return new cliProgress.SingleBar(
    { stream: process.stderr, format, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
}

/** Progress of one long step: drawn from the first update on, removed by `stop` (which is safe to call always). */
export interface Progress {
  update(done: number, total: number, payload?: Record<string, unknown>): void;
  stop(): void;
}

/**
 * A progress bar when output goes to a terminal and is not --json or --csv; otherwise null (nothing is drawn).
 * The bar starts at the first update, so a step that fails before any progress leaves no bar behind.
 */
export async function progressFor(
  io: CommandIO,
  opts: { readonly json?: boolean; readonly csv?: boolean },
  format: string,
): Promise<Progress | null> {
  if (!io.isTTY || opts.json || opts.csv) return null;
  const bar = await progressBar(format);
  let started = false;
  return {
    update(done, total, payload) {
      if (!started) {
        started = true;
        bar.start(total, done, payload);
        return;
      }
      if (bar.getTotal() !== total) bar.setTotal(total);
      bar.update(done, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/**
 * What the `tracewatt` executable does when the process is cut short, so that a run is never half-visible:
 * - SIGINT, SIGTERM, SIGHUP: every output still being written is discarded (temporary files, locks, the folders the
 *   run made, temporary folders), one line goes to stderr and the process exits 128 + the signal's number, as shells
 *   report a process the signal ended: 130 for SIGINT (Ctrl-C), 143 for SIGTERM, 129 for SIGHUP. Outputs are renamed
 *   into place synchronously (src/formats/output.ts), so a signal handled here comes either before a result appears or
 *   after it is complete.
 * - EPIPE on stdout (`tracewatt replay --help | head -3`): the rest of the output is dropped quietly and the command
 *   finishes with its own exit code (0 for help and listings); EPIPE on stderr is ignored the same way.
 * - Any exit: whatever is still pending is discarded.
 */
import { discardPendingOutputs } from '../formats/output.js';

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

function muteOnEpipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    // The reader has gone: what is left to print has nobody to read it.
    stream.write = (() => true) as typeof stream.write;
  });
}

export function installProcessGuards(): void {
  for (const [name, exitCode] of Object.entries(SIGNAL_EXIT_CODES)) {
    process.on(name, () => {
      const { committed } = discardPendingOutputs();
      process.stderr.write(
        committed === 0
          ? 'tracewatt: interrupted: nothing written\n'
          : `tracewatt: interrupted: only the ${committed} output(s) already complete were written\n`,
      );
      process.exit(exitCode);
    });
  }
  process.on('exit', () => {
    discardPendingOutputs();
  });
  muteOnEpipe(process.stdout);
  muteOnEpipe(process.stderr);
}

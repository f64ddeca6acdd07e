/**
 * The one worker pool of the library (annotate's ranks, the sweeps' points): worker threads from piscina, each task
 * answered by a worker module whose default export is workerTask(…) (task.ts); an error thrown there is rethrown
 * here as the same typed error. runLanes (lanes.ts) feeds it tasks and stops at the first failure.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import { bundleIsCurrent } from './bundle.js';
import { rebuildError } from './errors.js';
import type { TaskEnvelope, TaskReply } from './task.js';

/**
 * The compiled worker module at `url` (a .js file beside the caller), or null when running from TypeScript sources
 * (no such file). Prefers <name>.bundle.js (one module, made by scripts/bundle-worker.mjs) while it is current
 * (bundle.ts: none of the modules it bundled is newer than it).
 */
export function compiledWorker(url: URL): string | null {
  const file = fileURLToPath(url);
  if (!file.endsWith('.js') || !existsSync(file)) return null;
  const bundle = file.replace(/\.js$/, '.bundle.js');
  return bundleIsCurrent(bundle) ? bundle : file;
}

export class WorkerPool<T, R> {
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly piscina: Piscina,
    readonly threads: number,
  ) {}

  /** Starts `threads` worker threads loading `file` (they load while the caller goes on). */
  static start<T, R>(file: string, threads: number): WorkerPool<T, R> {
    // piscina is loaded by the first pool (synchronously, as start is), not when the command table loads.
    const { Piscina: Pool } = createRequire(import.meta.url)('piscina') as typeof import('piscina');
    return new WorkerPool<T, R>(new Pool({ filename: file, minThreads: threads, maxThreads: threads }), threads);
  }

  /** Runs one task in a worker; `onMessage` receives what the task posts. Rejects with the task's own error. */
  async run(task: T, onMessage?: (message: unknown) => void): Promise<R> {
    let reply: TaskReply<R>;
    if (onMessage) {
      const { port1, port2 } = new MessageChannel();
      port1.on('message', onMessage);
      try {
        reply = await this.piscina.run({ task, port: port2 } satisfies TaskEnvelope<T>, { transferList: [port2] });
      } finally {
        port1.close();
      }
    } else {
      reply = await this.piscina.run({ task } satisfies TaskEnvelope<T>);
    }
    if ('error' in reply) throw rebuildError(reply.error);
    return reply.ok;
  }

  /**
   * Stops the threads (once; later calls return the same promise). The promise is marked handled, so a caller may
   * start closing early and await it later, where a failure surfaces.
   */
  close(): Promise<void> {
    if (!this.closing) {
      this.closing = this.piscina.destroy();
      this.closing.catch(() => {});
    }
    return this.closing;
  }
}

/**
 * The worker-thread side of the pool: wraps a task function as a worker module's default export. What the
 * function returns goes back as { ok }; what it throws goes back as { error } (serialized: class, message, fields),
 * so that WorkerPool.run rethrows the same typed error in the calling thread. A task may post messages (progress)
 * to the caller while it runs.
 */
import type { MessagePort } from 'node:worker_threads';
import { serializeError, type SerializedError } from './errors.js';

/** What crosses to the worker: the task and, when the caller listens, the port its messages go to. */
export interface TaskEnvelope<T> {
  task: T;
  port?: MessagePort;
}

export type TaskReply<R> = { ok: R } | { error: SerializedError };

export function workerTask<T, R>(run: (task: T, post: (message: unknown) => void) => Promise<R> | R) {
  return async ({ task, port }: TaskEnvelope<T>): Promise<TaskReply<R>> => {
    try {
      return { ok: await run(task, port ? (m) => port.postMessage(m) : () => {}) };
    } catch (e) {
      return { error: serializeError(e) };
    } finally {
      port?.close();
    }
  };
}

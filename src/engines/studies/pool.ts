/**
 * Runs sweep points in worker threads (the library's worker pool, src/engines/workers), results in task order, each
 * reported as it finishes; the first failing point stops the sweep with its own typed error. Falls back to running
 * them one after another in this thread for threads = 1, or when the worker module is not compiled JavaScript
 * (tests running the TypeScript sources).
 */
import os from 'node:os';
import type { ReplayResult } from '../replay/index.js';
import { compiledWorker, runLanes, WorkerPool, type Lane } from '../workers/index.js';
import { runPoint, type PointTask } from './replay-point.js';

export interface PoolOptions {
  /** Worker threads; default: available parallelism, at most the number of tasks. */
  threads?: number;
  /** Called as each point finishes (in completion order). */
  onDone?: (index: number, result: ReplayResult) => void;
}

export interface PoolRun {
  results: ReplayResult[];
  parallelism: { mode: 'workers' | 'in-process'; threads: number; reason?: string };
}

export async function runPoints(tasks: readonly PointTask[], opts: PoolOptions = {}): Promise<PoolRun> {
  const threads = Math.max(1, Math.min(opts.threads ?? os.availableParallelism(), tasks.length));
  const file = compiledWorker(new URL('./point-worker.js', import.meta.url));
  if (threads === 1 || !file) {
    const results = await runLanes(tasks, [runPoint], { onDone: opts.onDone });
    return {
      results,
      parallelism: { mode: 'in-process', threads: 1, reason: file ? undefined : 'running from TypeScript sources' },
    };
  }
  const pool = WorkerPool.start<PointTask, ReplayResult>(file, threads);
  try {
    const inWorker: Lane<PointTask, ReplayResult> = (t) => pool.run(t);
    const results = await runLanes(
      tasks,
      Array.from({ length: threads }, () => inWorker),
      { onDone: opts.onDone },
    );
    return { results, parallelism: { mode: 'workers', threads } };
  } finally {
    await pool.close();
  }
}

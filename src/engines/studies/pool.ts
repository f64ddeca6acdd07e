/**
 * Runs sweep points in worker threads (piscina), results in task order, each reported as it finishes. Falls back to
 * running them one after another in this thread for threads = 1, or when the worker module is not compiled
 * JavaScript (tests running the TypeScript sources).
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ReplayResult } from '../replay/index.js';
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
  const workerUrl = new URL('./point-worker.js', import.meta.url);
  const compiled = import.meta.url.endsWith('.js');
  if (threads === 1 || !compiled) {
    const results: ReplayResult[] = [];
    for (let i = 0; i < tasks.length; i++) {
      const r = await runPoint(tasks[i]);
      results.push(r);
      opts.onDone?.(i, r);
    }
    return { results, parallelism: { mode: 'in-process', threads: 1, reason: compiled ? undefined : 'running from TypeScript sources' } };
  }
  const pool = new Piscina<PointTask, ReplayResult>({ filename: fileURLToPath(workerUrl), minThreads: threads, maxThreads: threads });
  try {
    const results = await Promise.all(tasks.map(async (t, i) => {
      const r = await pool.run(t);
      opts.onDone?.(i, r);
      return r;
    }));
    return { results, parallelism: { mode: 'workers', threads } };
  } finally {
    await pool.destroy();
  }
}

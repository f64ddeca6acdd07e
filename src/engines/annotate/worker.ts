/**
 * Piscina worker: annotates one rank per task. The plan comes with each task (in shared memory, deserialized once
 * per plan), so the pool can start (and load this module) while the caller is still reading the calibration and
 * profiles. Errors come back as data (code and message) so the caller can rethrow them as the typed errors the CLI
 * understands.
 */
import type { MessagePort } from 'node:worker_threads';
import { TracewattError } from '../../errors.js';
import { annotateRankFile, type RankOutcome, type RankTask } from './rank.js';
import { PlanReceiver, type SharedPlan } from './shared-plan.js';
import { ThreadCache } from './thread-cache.js';

/** Kept across the ranks this thread annotates. */
const cache = new ThreadCache();
const plans = new PlanReceiver();

export type WorkerReply = { ok: RankOutcome } | { error: { code: string | null; message: string; stack?: string } };

export default async function annotateRankTask(task: RankTask & { plan: SharedPlan; port?: MessagePort }): Promise<WorkerReply> {
  const { port, plan: shared, ...rankTask } = task;
  try {
    const plan = plans.plan(shared);
    return { ok: await annotateRankFile(rankTask, plan, port ? (bytes) => port.postMessage(bytes) : undefined, cache) };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    // File-system failures (an unwritable --out) cross the thread boundary as input errors naming the path.
    if (!(e instanceof TracewattError) && err?.code && /^E[A-Z]+$/.test(err.code) && err.path) {
      return { error: { code: 'INPUT', message: `${err.path}: cannot write (${err.code})`, stack: err.stack } };
    }
    return { error: { code: e instanceof TracewattError ? e.code : null, message: err?.message ?? String(e), stack: err?.stack } };
  } finally {
    port?.close();
  }
}

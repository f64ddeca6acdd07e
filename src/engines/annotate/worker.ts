/**
 * Piscina worker: annotates one rank per task. The plan comes with each task (in shared memory, deserialized once
 * per plan), so the pool can start (and load this module) while the caller is still reading the calibration and
 * profiles. Errors come back as data (code and message) so the caller can rethrow them as the typed errors the CLI
 * understands.
 */
import type { MessagePort } from 'node:worker_threads';
import { TracewattError } from '../../errors.js';
import { annotateRankFile, rankFailure, type RankOutcome, type RankTask } from './rank.js';
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
  } catch (thrown) {
    const e = rankFailure(thrown);
    const err = e as Error;
    return { error: { code: e instanceof TracewattError ? e.code : null, message: err?.message ?? String(e), stack: err?.stack } };
  } finally {
    port?.close();
  }
}

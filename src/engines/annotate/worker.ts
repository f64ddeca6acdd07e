/**
 * Worker-thread entry (the worker pool, src/engines/workers): annotates one rank per task. The plan comes with each
 * task (in shared memory, deserialized once per plan), so the pool can start (and load this module) while the
 * caller is still reading the calibration and profiles. Progress (bytes read) is posted to the caller; an error
 * goes back with its class and fields (workerTask), so the caller rethrows the typed error the CLI understands.
 */
import { workerTask } from '../workers/task.js';
import { annotateRankFile, rankFailure, type RankTask } from './rank.js';
import { PlanReceiver, type SharedPlan } from './shared-plan.js';
import { ThreadCache } from './thread-cache.js';

/** Kept across the ranks this thread annotates. */
const cache = new ThreadCache();
const plans = new PlanReceiver();

export type WorkerTask = RankTask & { plan: SharedPlan };

export default workerTask(async ({ plan: shared, ...rankTask }: WorkerTask, post) => {
  try {
    return await annotateRankFile(rankTask, plans.plan(shared), post, cache);
  } catch (e) {
    throw rankFailure(e);
  }
});

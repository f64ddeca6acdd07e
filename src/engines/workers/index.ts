/** The worker-pool helper: threads that keep error types (pool.ts, task.ts, errors.ts), fed by runLanes. */
export { compiledWorker, WorkerPool } from './pool.js';
export { runLanes, type Lane } from './lanes.js';
export { rebuildError, serializeError } from './errors.js';

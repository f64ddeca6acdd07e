/** The worker-pool helper: threads that keep error types (pool.ts, task.ts, errors.ts), fed by runLanes. */
export { compiledWorker, WorkerPool } from './pool.js';
export { runLanes, type Lane, type LaneOptions } from './lanes.js';
export { workerTask, type TaskEnvelope, type TaskReply } from './task.js';
export { rebuildError, serializeError, type SerializedError } from './errors.js';

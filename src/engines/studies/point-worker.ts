/** Worker-thread entry (the worker pool, src/engines/workers): one sweep point per task; errors keep their class. */
import { workerTask } from '../workers/task.js';
import { runPoint } from './replay-point.js';

export default workerTask(runPoint);

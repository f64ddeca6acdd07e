/** Worker-thread entry (piscina): one sweep point per task. */
import { runPoint, type PointTask } from './replay-point.js';

export default function run(task: PointTask) {
  return runPoint(task);
}

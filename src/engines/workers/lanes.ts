/**
 * Runs tasks on lanes (a worker of the pool, or the calling thread): each lane takes the next task as soon as it is
 * free. After the first failure (or once `signal` aborts) no lane takes another task, and the first error is thrown
 * once every lane has stopped, so that no task is still running (or writing) when runLanes rejects.
 */
export type Lane<T, R> = (task: T, index: number) => Promise<R>;

export interface LaneOptions<R> {
  /** Called as each task finishes (in completion order). */
  onDone?: (index: number, result: R) => void;
  /** Stops handing out tasks; runLanes then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Results in task order. */
export async function runLanes<T, R>(
  tasks: readonly T[],
  lanes: readonly Lane<T, R>[],
  opts: LaneOptions<R> = {},
): Promise<R[]> {
  const results: R[] = new Array(tasks.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const run = async (lane: Lane<T, R>) => {
    while (!failure && !opts.signal?.aborted && next < tasks.length) {
      const i = next++;
      try {
        results[i] = await lane(tasks[i], i);
        opts.onDone?.(i, results[i]);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(lanes.map(run));
  if (failure) throw failure.error;
  if (opts.signal?.aborted && next < tasks.length) throw opts.signal.reason;
  return results;
}

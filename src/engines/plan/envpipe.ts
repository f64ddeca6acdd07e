/**
 * An EnvPipe-style baseline (Choi et al., ATC'23, as Perseus' evaluation runs it): the pipeline's outer envelope —
 * every computation of the last stage, each stage's first forward and last backward — runs at the highest clock;
 * every other computation starts at its slowest useful option; then, until a critical path runs along the envelope
 * only, the computations at the lowest clock on one critical path are raised one clock step. It keeps the
 * all-max-clock iteration time (or close to it) and lowers clocks only off the envelope.
 */
import type { ClockOption } from './curve.js';
import type { PipelineGraph } from './pipeline.js';

export interface EnvPipeResult {
  /** Clock option per op (from the curve's byClock list). */
  options: ClockOption[];
  iterations: number;
  reachedEnvelope: boolean;
}

export function envPipe(g: PipelineGraph, maxIterations = 10_000): EnvPipeResult {
  const { dag, ops, stages, microBatches } = g;
  const n = dag.size;
  const onEnvelope = (i: number) => {
    const op = ops[i];
    if (!op) return true; // a message delay: fixed, like EnvPipe's dummy edges
    return (
      op.stage === stages - 1 ||
      (op.microBatch === 0 && op.pass === 'forward') ||
      (op.microBatch === microBatches - 1 && op.pass === 'backward')
    );
  };
  // Position in byClock of each op's clock.
  const at = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = dag.curveOf[i]!;
    const start = onEnvelope(i) ? c.maxClock : c.options[c.options.length - 1]!;
    at[i] = c.byClock.indexOf(start);
  }
  const d = new Float64Array(n);
  const finish = new Float64Array(n);
  let iterations = 0;
  let reachedEnvelope = false;
  for (; iterations < maxIterations; iterations++) {
    for (let i = 0; i < n; i++) d[i] = dag.curveOf[i]!.byClock[at[i]!]!.timeS;
    const path = criticalPath(g, d, finish);
    if (path.every(onEnvelope)) {
      reachedEnvelope = true;
      break;
    }
    const computations = path.filter((i) => !dag.curveOf[i]!.lag);
    let lowest = Infinity;
    for (const i of computations) lowest = Math.min(lowest, dag.curveOf[i]!.byClock[at[i]!]!.clockMHz);
    let raised = false;
    for (const i of computations) {
      const c = dag.curveOf[i]!;
      if (c.byClock[at[i]!]!.clockMHz === lowest && at[i]! + 1 < c.byClock.length) {
        at[i] = at[i]! + 1;
        raised = true;
      }
    }
    if (!raised) break;
  }
  // The envelope runs at the highest clock in the end, whatever the loop did.
  const options = Array.from({ length: n }, (_, i) =>
    onEnvelope(i) ? dag.curveOf[i]!.maxClock : dag.curveOf[i]!.byClock[at[i]!]!,
  );
  return { options, iterations, reachedEnvelope };
}

/** One longest path, from its first op to its last (ties: the lowest op index). */
function criticalPath(g: PipelineGraph, d: Float64Array, finish: Float64Array): number[] {
  const { dag } = g;
  const makespan = dag.earliestFinish(d, finish);
  let cur = -1;
  for (let i = 0; i < dag.size; i++)
    if (finish[i] === makespan) {
      cur = i;
      break;
    }
  const path: number[] = [];
  while (cur >= 0) {
    path.push(cur);
    const start = finish[cur]! - d[cur]!;
    let next = -1;
    for (let k = dag.predStart[cur]!; k < dag.predStart[cur + 1]!; k++) {
      const p = dag.predList[k]!;
      if (Math.abs(finish[p]! - start) <= 1e-12 * makespan && (next < 0 || p < next)) next = p;
    }
    cur = next;
  }
  return path.reverse();
}

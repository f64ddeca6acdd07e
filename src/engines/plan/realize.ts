/**
 * From the relaxation's durations to clocks: every computation takes the slowest option that fits in its relaxed
 * duration (so no path grows and the iteration time stays within the deadline), then the time this rounding freed
 * is handed out again: passes over the graph, latest first and then earliest first, slow each computation down to
 * the slowest option that still fits between its predecessors' finish and its successors' latest start. Every pass
 * keeps the iteration within the deadline; the lower bound says how much better any plan could be.
 */
import { slowestWithin } from './curve.js';
import type { Dag } from './dag.js';

export interface Realized {
  /** Option index of each op in its curve. */
  choice: Int32Array;
  /** Iteration time of the plan, s. */
  timeS: number;
  /** Σ effective energy, J. */
  costJ: number;
}

/** Scratch arrays reused across calls (one per dag size). */
export class Realizer {
  private readonly duration: Float64Array;
  private readonly finish: Float64Array;
  private readonly latest: Float64Array;

  constructor(private readonly dag: Dag) {
    this.duration = new Float64Array(dag.size);
    this.finish = new Float64Array(dag.size);
    this.latest = new Float64Array(dag.size);
  }

  realize(relaxedS: Float64Array, deadlineS: number, passes = 2): Realized {
    const { dag, duration } = this;
    const n = dag.size;
    const choice = new Int32Array(n);
    const tol = deadlineS * 1e-12;
    for (let i = 0; i < n; i++) {
      const c = dag.curveOf[i]!;
      choice[i] = slowestWithin(c, relaxedS[i]! + tol);
      duration[i] = c.timeS[choice[i]!]!;
    }
    for (let p = 0; p < passes; p++) {
      if (p % 2 === 0) this.fillFromEnd(choice, deadlineS, tol);
      else this.fillFromStart(choice, deadlineS, tol);
    }
    let costJ = 0;
    for (let i = 0; i < n; i++) costJ += dag.curveOf[i]!.costJ[choice[i]!]!;
    return { choice, timeS: dag.earliestFinish(duration, this.finish), costJ };
  }

  /** Reverse topological order: each op may end as late as its successors' (already final) latest starts allow. */
  private fillFromEnd(choice: Int32Array, deadlineS: number, tol: number): void {
    const { dag, duration, finish, latest } = this;
    dag.earliestFinish(duration, finish);
    for (let k = dag.size - 1; k >= 0; k--) {
      const i = dag.order[k]!;
      let end = deadlineS;
      for (let s = dag.succStart[i]!; s < dag.succStart[i + 1]!; s++) end = Math.min(end, latest[dag.succList[s]!]!);
      const start = finish[i]! - duration[i]!;
      const c = dag.curveOf[i]!;
      const best = slowestWithin(c, end - start + tol);
      if (best > choice[i]!) {
        choice[i] = best;
        duration[i] = c.timeS[best]!;
      }
      latest[i] = end - duration[i]!;
    }
  }

  /** Topological order: each op may start as early as its predecessors (already final) finish. */
  private fillFromStart(choice: Int32Array, deadlineS: number, tol: number): void {
    const { dag, duration, finish, latest } = this;
    dag.tails(duration, latest); // latest[i] = longest path from op i's start to the end
    for (let k = 0; k < dag.size; k++) {
      const i = dag.order[k]!;
      let start = 0;
      for (let p = dag.predStart[i]!; p < dag.predStart[i + 1]!; p++) start = Math.max(start, finish[dag.predList[p]!]!);
      // Latest end of op i given its successors' current durations: deadline − longest path after it.
      const after = latest[i]! - duration[i]!;
      const c = dag.curveOf[i]!;
      const best = slowestWithin(c, deadlineS - after - start + tol);
      if (best > choice[i]!) {
        choice[i] = best;
        duration[i] = c.timeS[best]!;
      }
      finish[i] = start + duration[i]!;
    }
  }
}

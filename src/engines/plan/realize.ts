/**
 * From the relaxation's durations to clocks: every computation takes the slowest option that fits in its relaxed
 * duration (so no path grows and the iteration time stays within the deadline), then the time this rounding freed
 * is handed out again: passes over the graph, latest first and then earliest first, slow each computation down to
 * the slowest option that still fits between its predecessors' finish and its successors' latest start. Every pass
 * keeps the iteration within the deadline; the lower bound says how much better any plan could be.
 *
 * Rounding each computation on its own loses most where a curve's hull skips a run of clocks (measured options
 * well above the chord between two clocks): the relaxation runs such computations between the two, and every
 * clock in between costs more. `mix` instead gives each computation one of the two hull clocks, alternating along
 * the relaxation's timeline so each kind of computation takes the slow clock in the relaxation's share of cases;
 * where that overruns the deadline, the critical computation whose next faster clock costs least per second saved
 * is sped up, until the deadline is met; then the same filling passes. The frontier keeps whichever is cheaper.
 */
import { slowestWithin, splitAt } from './curve.js';
import type { Dag } from './dag.js';

/** Each repair pass speeds up the cheapest 1/REPAIR_SHARE of the critical candidates. */
const REPAIR_SHARE = 16;

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

  /**
   * Each op at one of the two hull vertices around its relaxed duration, the slower one in the relaxed share of
   * cases per curve (error diffusion in the order the relaxed schedule starts them), then repaired to the deadline
   * and filled. Returns null when the repair cannot meet the deadline.
   */
  mix(relaxedS: Float64Array, deadlineS: number, passes = 2): Realized | null {
    const { dag, duration, finish } = this;
    const n = dag.size;
    const choice = new Int32Array(n);
    const tol = deadlineS * 1e-12;
    dag.earliestFinish(relaxedS, finish);
    const byStart = Array.from({ length: n }, (_, i) => i).sort(
      (a, b) => finish[a]! - relaxedS[a]! - (finish[b]! - relaxedS[b]!) || a - b,
    );
    const carry = new Map<object, number>();
    for (const i of byStart) {
      const c = dag.curveOf[i]!;
      const s = splitAt(c, relaxedS[i]!);
      let pick = s.first;
      if (s.second !== s.first) {
        const acc = (carry.get(c) ?? 0) + (1 - s.share);
        if (acc >= 0.5) {
          pick = s.second;
          carry.set(c, acc - 1);
        } else carry.set(c, acc);
      }
      choice[i] = pick;
      duration[i] = c.timeS[pick]!;
    }
    if (!this.repair(choice, deadlineS, tol)) return null;
    for (let p = 0; p < passes; p++) {
      if (p % 2 === 0) this.fillFromEnd(choice, deadlineS, tol);
      else this.fillFromStart(choice, deadlineS, tol);
    }
    let costJ = 0;
    for (let i = 0; i < n; i++) costJ += dag.curveOf[i]!.costJ[choice[i]!]!;
    return { choice, timeS: dag.earliestFinish(duration, finish), costJ };
  }

  /**
   * Speeds up critical ops, cheapest second saved first, until the plan meets the deadline: a few per longest-path
   * pass (the cheapest sixteenth of the candidates), since a pass over the graph is the expensive part.
   */
  private repair(choice: Int32Array, deadlineS: number, tol: number): boolean {
    const { dag, duration, finish, latest } = this;
    const candidates: { i: number; rate: number }[] = [];
    for (let guard = 0; guard < 100 * dag.size; guard++) {
      const makespan = dag.earliestFinish(duration, finish);
      if (makespan <= deadlineS + tol) return true;
      dag.tails(duration, latest);
      candidates.length = 0;
      for (let i = 0; i < dag.size; i++) {
        if (finish[i]! - duration[i]! + latest[i]! < makespan - tol || choice[i] === 0) continue;
        const c = dag.curveOf[i]!;
        const k = choice[i]!;
        candidates.push({ i, rate: (c.costJ[k - 1]! - c.costJ[k]!) / (c.timeS[k]! - c.timeS[k - 1]!) });
      }
      if (candidates.length === 0) return false;
      candidates.sort((a, b) => a.rate - b.rate || a.i - b.i);
      const take = Math.max(1, Math.floor(candidates.length / REPAIR_SHARE));
      for (let k = 0; k < take; k++) {
        const i = candidates[k]!.i;
        choice[i] = choice[i]! - 1;
        duration[i] = dag.curveOf[i]!.timeS[choice[i]!]!;
      }
    }
    return false;
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
      for (let p = dag.predStart[i]!; p < dag.predStart[i + 1]!; p++)
        start = Math.max(start, finish[dag.predList[p]!]!);
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

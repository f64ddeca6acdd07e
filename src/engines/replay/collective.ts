/**
 * When each member of a collective finishes it, given when each member issued it, as ASTRA-sim 2.x
 * (astra-sim 518bd51) runs it: no barrier; every member starts its own streams (one per chunk) when it issues the
 * collective; on each member, a stream waits in the queue of its phase's dimension, which runs at most
 * active-chunks-per-dimension streams at once, first come first served (ties: lower chunk first); a phase of a
 * chunk in one group runs as the algorithm's step program (collective-phases.ts) from each member's own start;
 * when a member finishes a phase it moves that stream to its next queue and starts the next stream waiting in
 * the queue it left. A member finishes the collective with its last stream.
 *
 * Every member's finish depends on every member's start (each ring, butterfly or direct exchange reaches all
 * members), so a group's phase is timed once its last member has started it, and the collective once its last
 * member has issued it. The plans are cached; with equal arrivals the finishes are the cached offsets of an
 * equal-arrival run (the schedule is shift-invariant), so a symmetric trace costs one lookup per collective.
 */
import type { SystemConfig } from '../../formats/astra/index.js';
import { PlanBuilder, type CollectivePlan, type PlanRequest } from './collective-plan.js';
import { PhaseTimer } from './collective-phases.js';
import { TimeQueue } from './heap.js';
import type { Cluster } from './network.js';

export type { CollectivePlan, PlanRequest } from './collective-plan.js';

export interface CollectiveModelOptions {
  /** Reuse equal-arrival results for equal arrivals (default true); false times every collective in full. */
  equalArrivalShortcut?: boolean;
}

export class CollectiveModel {
  private readonly plans = new Map<string, CollectivePlan>();
  private readonly equalArrivalOffsets = new Map<CollectivePlan, Float64Array>();
  private readonly builder: PlanBuilder;
  private readonly scheduler: ChunkScheduler;
  private readonly shortcut: boolean;

  constructor(cluster: Cluster, sys: SystemConfig, options: CollectiveModelOptions = {}) {
    this.builder = new PlanBuilder(cluster, sys);
    this.scheduler = new ChunkScheduler(sys.activeChunksPerDimension);
    this.shortcut = options.equalArrivalShortcut ?? true;
  }

  /** The plan for `req`, built once per key (the key must name everything the plan depends on). */
  plan(key: string, req: () => PlanRequest): CollectivePlan {
    let plan = this.plans.get(key);
    if (!plan) {
      plan = this.builder.build(req());
      this.plans.set(key, plan);
    }
    return plan;
  }

  /**
   * finishNs[m] for every member m, from issuedNs[m] (by member index); null, or the stall when the members' queues
   * wait on each other (ASTRA-sim stalls there too).
   */
  finishTimes(plan: CollectivePlan, issuedNs: ArrayLike<number>, finishNs: Float64Array): CollectiveStall | null {
    const members = issuedNs.length;
    if (plan.phases.length === 0) {
      // Nothing to send (one member, or no involved dimension with more than one NPU): done at the last arrival.
      let last = -Infinity;
      for (let m = 0; m < members; m++) last = Math.max(last, issuedNs[m]);
      finishNs.fill(last, 0, members);
      return null;
    }
    if (this.shortcut && allEqual(issuedNs)) {
      let offsets = this.equalArrivalOffsets.get(plan);
      if (!offsets) {
        offsets = new Float64Array(members);
        const stall = this.scheduler.run(plan, new Float64Array(members), offsets);
        if (stall) return stall;
        this.equalArrivalOffsets.set(plan, offsets);
      }
      const t = issuedNs[0];
      for (let m = 0; m < members; m++) finishNs[m] = t + offsets[m];
      return null;
    }
    return this.scheduler.run(plan, issuedNs, finishNs);
  }
}

/**
 * Members whose queues wait on each other: each runs a phase of a chunk whose group cannot start it because another
 * member's queue of that dimension is busy with a different chunk (possible when one queue holds two phases, as
 * the reduce-scatter and all-gather of a middle dimension in a 3-D localBWAware all-reduce, and ranks reach it
 * at different times).
 */
export interface CollectiveStall {
  /** Member index, and the chunk and phase index it runs but cannot finish. */
  running: { member: number; chunk: number; phase: number }[];
}

function allEqual(a: ArrayLike<number>): boolean {
  for (let i = 1; i < a.length; i++) if (a[i] !== a[0]) return false;
  return true;
}

/** The per-member queues and streams of one collective, simulated as events over its members. */
class ChunkScheduler {
  private readonly timer = new PhaseTimer();
  /** Phase finishes: a = chunk · members + member, also the tie (same ns: lower chunk first). */
  private readonly heap = new TimeQueue<null>();
  private groupStart = new Float64Array(0);
  private groupFinish = new Float64Array(0);

  constructor(private readonly active: number) {}

  run(plan: CollectivePlan, issuedNs: ArrayLike<number>, finishNs: Float64Array): CollectiveStall | null {
    const P = issuedNs.length;
    const C = plan.chunks;
    const phases = plan.phases;
    const J = phases.length;
    // Queues by dense index.
    const queueIds: number[] = [];
    const queueOf = phases.map((ph) => {
      let q = queueIds.indexOf(ph.queue);
      if (q < 0) q = queueIds.push(ph.queue) - 1;
      return q;
    });
    const Q = queueIds.length;
    const running = new Int32Array(P * Q);
    // Waiting chunks per (member, queue): a FIFO of chunk indices in a ring buffer of C slots.
    const fifo = new Int32Array(P * Q * C);
    const head = new Int32Array(P * Q);
    const length = new Int32Array(P * Q);
    const phaseOf = new Int32Array(P * C);
    // 1 while a member runs a chunk's current phase (started, not finished).
    const inPhase = new Uint8Array(P * C);
    const chunksDone = new Int32Array(P);
    const groupBase: number[] = [];
    let groups = 0;
    for (const ph of phases) {
      groupBase.push(groups);
      groups += ph.groups.length;
    }
    const started = new Int32Array(C * groups);
    const startNs = new Float64Array(C * J * P);
    const maxGroup = phases.reduce((a, ph) => Math.max(a, ph.groupSize), 0);
    if (this.groupStart.length < maxGroup) {
      this.groupStart = new Float64Array(maxGroup);
      this.groupFinish = new Float64Array(maxGroup);
    }
    const { groupStart, groupFinish, heap, timer, active } = this;

    const start = (m: number, c: number, t: number) => {
      const j = phaseOf[m * C + c];
      const ph = phases[j];
      inPhase[m * C + c] = 1;
      startNs[(c * J + j) * P + m] = t;
      const g = ph.groupOf[m];
      if (++started[c * groups + groupBase[j] + g] < ph.groupSize) return;
      const members = ph.groups[g];
      const row = (c * J + j) * P;
      for (let x = 0; x < members.length; x++) groupStart[x] = startNs[row + members[x]];
      timer.run(ph, g, groupStart, groupFinish);
      for (let x = 0; x < members.length; x++)
        heap.push(groupFinish[x], c * P + members[x], c * P + members[x], 0, null);
    };
    const fill = (m: number, q: number, t: number) => {
      const slot = m * Q + q;
      while (running[slot] < active && length[slot] > 0) {
        const c = fifo[slot * C + head[slot]];
        head[slot] = (head[slot] + 1) % C;
        length[slot]--;
        running[slot]++;
        start(m, c, t);
      }
    };
    const enqueue = (m: number, q: number, c: number) => {
      const slot = m * Q + q;
      fifo[slot * C + ((head[slot] + length[slot]) % C)] = c;
      length[slot]++;
    };

    for (let m = 0; m < P; m++) {
      for (let c = 0; c < C; c++) enqueue(m, queueOf[0], c);
      fill(m, queueOf[0], issuedNs[m]);
    }
    while (heap.size > 0) {
      const t = heap.topTime();
      heap.pop();
      const key = heap.a;
      const c = Math.floor(key / P);
      const m = key - c * P;
      const j = phaseOf[m * C + c];
      const q = queueOf[j];
      running[m * Q + q]--;
      inPhase[m * C + c] = 0;
      if (j + 1 < J) {
        phaseOf[m * C + c] = j + 1;
        enqueue(m, queueOf[j + 1], c);
      } else if (++chunksDone[m] === C) {
        finishNs[m] = t;
      }
      fill(m, q, t);
      if (j + 1 < J) fill(m, queueOf[j + 1], t);
    }
    let stall: CollectiveStall | null = null;
    for (let m = 0; m < P; m++) {
      if (chunksDone[m] === C) continue;
      stall ??= { running: [] };
      for (let c = 0; c < C; c++) {
        if (inPhase[m * C + c]) stall.running.push({ member: m, chunk: c, phase: phaseOf[m * C + c] });
      }
    }
    return stall;
  }
}

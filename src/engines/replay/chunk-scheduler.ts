/**
 * The per-member queues and streams of one collective (collective.ts says the rules): when each member finishes,
 * from when each issued it.
 *
 * A member's state (its queues, its streams' phases) changes only at its own phase finishes, and a phase's finishes
 * are known once the last member of its group has started it (collective-phases.ts times the group then). So the
 * members need no common clock: each takes its own finishes in time order (same ns: lower chunk first), and only
 * while none of its running phases is still untimed, since an untimed one might finish first. Timing a group makes
 * its members' finishes known and lets those with nothing else untimed go on. When every member with a known
 * finish still waits on an untimed phase, the earliest known finish of all is taken: every untimed phase finishes
 * after it (a phase finishes after its group's last start, at least the endpoint delay of ≥ 1 ns later, and every
 * start still to come is at a finish yet to be taken, or later). The result is the one a single time-ordered event
 * queue over all members gives, with no
 * queue: each member holds at most (queues × active chunks) running phases.
 *
 * With one active chunk per queue and a fixed order on every queue (inOrderPlan), no member needs to take its
 * finishes one by one: each queue runs its chunks in an order known before the run, so a phase of a chunk starts
 * when both its previous phase and its predecessor in the queue have finished, and the phases are timed in one
 * pass (runInOrder). It gives the same finishes as the general run (test/replay/chunk-scheduler.test.ts compares
 * them over the equal-arrival matrix's plans with random issue times).
 */
import type { CollectivePlan } from './collective-plan.js';
import { PhaseTimer } from './collective-phases.js';

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

/** What a plan's schedule needs besides its phases: found once per plan. */
interface QueueLayout {
  /** Dense queue index of each phase. */
  queueOf: Int32Array;
  queues: number;
  /** Index of each phase's first group among all phases' groups. */
  groupBase: Int32Array;
  groups: number;
  maxGroupSize: number;
  /**
   * Per phase, the (chunk 0) phase whose last chunk goes before chunk 0 of this phase in its queue (-1: none), when
   * every queue's order is fixed (inOrderPlan); null otherwise.
   */
  inOrderAfter: Int32Array | null;
}

function queueLayout(phases: CollectivePlan['phases']): QueueLayout {
  const queueIds: number[] = [];
  const queueOf = new Int32Array(phases.length);
  const groupBase = new Int32Array(phases.length);
  let groups = 0;
  let maxGroupSize = 0;
  phases.forEach((ph, j) => {
    let q = queueIds.indexOf(ph.queue);
    if (q < 0) q = queueIds.push(ph.queue) - 1;
    queueOf[j] = q;
    groupBase[j] = groups;
    groups += ph.groups.length;
    maxGroupSize = Math.max(maxGroupSize, ph.groupSize);
  });
  return { queueOf, queues: queueIds.length, groupBase, groups, maxGroupSize, inOrderAfter: inOrderPlan(queueOf) };
}

/**
 * With one active chunk per queue, the order of every queue when it is fixed before the run: a queue of one phase
 * takes the chunks in chunk order (its previous phase, one chunk at a time, finishes them in that order; same ns:
 * lower chunk first); a queue of phase 0 and one later phase takes every chunk's phase 0 first (all are queued when
 * the member issues the collective, before any finish), then the later phase in chunk order. Two later phases in
 * one queue interleave as the finishes fall (and may stall): null, the general run.
 */
function inOrderPlan(queueOf: Int32Array): Int32Array | null {
  const after = new Int32Array(queueOf.length).fill(-1);
  for (let j = 1; j < queueOf.length; j++) {
    for (let i = 0; i < j; i++) {
      if (queueOf[i] !== queueOf[j]) continue;
      if (i !== 0 || after[j] !== -1) return null;
      after[j] = 0;
    }
  }
  return after;
}

const grow = <A extends Int32Array | Float64Array | Uint8Array>(a: A, n: number, make: (n: number) => A): A =>
  a.length < n ? make(n) : a;

/** Simulates one collective's streams on all its members; keeps its arrays (and each plan's layout) between runs. */
export class ChunkScheduler {
  private readonly timer = new PhaseTimer();
  private readonly layouts = new WeakMap<CollectivePlan, QueueLayout>();
  private groupStart = new Float64Array(0);
  private groupFinish = new Float64Array(0);
  /** Streams running, per (member, queue). */
  private running = new Int32Array(0);
  /** Waiting chunks per (member, queue): a FIFO of chunk indices in a ring buffer of `chunks` slots. */
  private fifo = new Int32Array(0);
  private head = new Int32Array(0);
  private waiting = new Int32Array(0);
  /** Current phase of each (member, chunk), and 1 while the member runs it (started, not finished). */
  private phaseOf = new Int32Array(0);
  private inPhase = new Uint8Array(0);
  private chunksDone = new Int32Array(0);
  /** Members that have started each (chunk, group). */
  private started = new Int32Array(0);
  /** When each member started each (chunk, phase). */
  private startNs = new Float64Array(0);
  /** Per member: running phases not timed yet; timed finishes not taken yet (time and chunk, `perMember` slots). */
  private untimed = new Int32Array(0);
  private known = new Int32Array(0);
  private knownNs = new Float64Array(0);
  private knownChunk = new Int32Array(0);
  /** Members free to take their next finish, and whether each is listed. */
  private ready = new Int32Array(0);
  private readyCount = 0;
  private listed = new Uint8Array(0);
  // The run in progress.
  private plan: CollectivePlan | null = null;
  private layout: QueueLayout | null = null;
  private members = 0;
  private chunks = 0;
  private perMember = 0;
  private finishNs: Float64Array = new Float64Array(0);

  /** Each (chunk, phase, member)'s finish, in runInOrder. */
  private doneNs = new Float64Array(0);

  /** `inOrder` false: always the general run (tests compare the two). */
  constructor(
    private readonly active: number,
    private readonly inOrder = true,
  ) {}

  run(plan: CollectivePlan, issuedNs: ArrayLike<number>, finishNs: Float64Array): CollectiveStall | null {
    let layout = this.layouts.get(plan);
    if (!layout) this.layouts.set(plan, (layout = queueLayout(plan.phases)));
    if (this.inOrder && this.active === 1 && layout.inOrderAfter !== null) {
      this.runInOrder(plan, layout, issuedNs, finishNs);
      return null;
    }
    const P = issuedNs.length;
    const C = plan.chunks;
    const Q = layout.queues;
    this.prepare(P, C, plan.phases.length, layout);
    this.plan = plan;
    this.layout = layout;
    this.finishNs = finishNs;
    const { fifo, waiting, known } = this;
    const q0 = layout.queueOf[0];
    for (let m = 0; m < P; m++) {
      const slot = m * Q + q0;
      for (let c = 0; c < C; c++) fifo[slot * C + c] = c;
      waiting[slot] = C;
      this.fill(m, q0, issuedNs[m]);
    }
    for (;;) {
      while (this.readyCount > 0) {
        const m = this.ready[--this.readyCount];
        this.listed[m] = 0;
        while (this.untimed[m] === 0 && known[m] > 0) this.takeEarliest(m);
      }
      // Every member with a known finish waits on an untimed phase: the earliest known finish of all goes first
      // (same ns: lower chunk, then lower member, the order of one event queue over all members).
      let first = -1;
      let firstNs = Infinity;
      let firstChunk = 0;
      for (let m = 0; m < P; m++) {
        if (known[m] === 0) continue;
        const k = m * this.perMember + this.earliest(m);
        const t = this.knownNs[k];
        if (t < firstNs || (t === firstNs && this.knownChunk[k] < firstChunk)) {
          firstNs = t;
          firstChunk = this.knownChunk[k];
          first = m;
        }
      }
      if (first < 0) break;
      this.takeEarliest(first);
    }
    this.plan = null;
    this.layout = null;
    return this.stall();
  }

  /**
   * The run of a plan whose queues take their streams in a fixed order (inOrderPlan) with one active chunk: member m
   * starts phase j of chunk c when it has finished phase j − 1 of chunk c (or issued the collective) and the stream
   * before it in that queue; the phases in order (j, then c) each have every start they need. Nothing stalls: each
   * start waits only on phases earlier in that order.
   */
  private runInOrder(plan: CollectivePlan, layout: QueueLayout, issuedNs: ArrayLike<number>, finishNs: Float64Array) {
    const after = layout.inOrderAfter!;
    const P = issuedNs.length;
    const C = plan.chunks;
    const J = plan.phases.length;
    const done = (this.doneNs = grow(this.doneNs, C * J * P, (n) => new Float64Array(n)));
    const size = layout.maxGroupSize;
    const groupStart = (this.groupStart = grow(this.groupStart, size, (n) => new Float64Array(n)));
    const groupFinish = (this.groupFinish = grow(this.groupFinish, size, (n) => new Float64Array(n)));
    for (let j = 0; j < J; j++) {
      const ph = plan.phases[j];
      for (let c = 0; c < C; c++) {
        const row = (c * J + j) * P;
        // The phase before (-1: the issue) and the stream before in the queue (-1: none), as row offsets.
        const before = j > 0 ? row - P : -1;
        const queued = c > 0 ? row - J * P : after[j] >= 0 ? ((C - 1) * J + after[j]) * P : -1;
        for (let g = 0; g < ph.groups.length; g++) {
          const members = ph.groups[g];
          for (let x = 0; x < members.length; x++) {
            const m = members[x];
            let t = before >= 0 ? done[before + m] : issuedNs[m];
            if (queued >= 0 && done[queued + m] > t) t = done[queued + m];
            groupStart[x] = t;
          }
          this.timer.run(ph, g, groupStart, groupFinish);
          for (let x = 0; x < members.length; x++) done[row + members[x]] = groupFinish[x];
        }
      }
    }
    // The last phase takes the chunks in order: a member is done with its last chunk's.
    const last = ((C - 1) * J + J - 1) * P;
    for (let m = 0; m < P; m++) finishNs[m] = done[last + m];
  }

  /** Sizes the per-run arrays and clears the counters. */
  private prepare(P: number, C: number, J: number, layout: QueueLayout): void {
    const Q = layout.queues;
    const K = Q * this.active;
    this.members = P;
    this.chunks = C;
    this.perMember = K;
    this.running = grow(this.running, P * Q, (n) => new Int32Array(n));
    this.head = grow(this.head, P * Q, (n) => new Int32Array(n));
    this.waiting = grow(this.waiting, P * Q, (n) => new Int32Array(n));
    this.fifo = grow(this.fifo, P * Q * C, (n) => new Int32Array(n));
    this.phaseOf = grow(this.phaseOf, P * C, (n) => new Int32Array(n));
    this.inPhase = grow(this.inPhase, P * C, (n) => new Uint8Array(n));
    this.chunksDone = grow(this.chunksDone, P, (n) => new Int32Array(n));
    this.started = grow(this.started, C * layout.groups, (n) => new Int32Array(n));
    this.startNs = grow(this.startNs, C * J * P, (n) => new Float64Array(n));
    this.groupStart = grow(this.groupStart, layout.maxGroupSize, (n) => new Float64Array(n));
    this.groupFinish = grow(this.groupFinish, layout.maxGroupSize, (n) => new Float64Array(n));
    this.untimed = grow(this.untimed, P, (n) => new Int32Array(n));
    this.known = grow(this.known, P, (n) => new Int32Array(n));
    this.knownNs = grow(this.knownNs, P * K, (n) => new Float64Array(n));
    this.knownChunk = grow(this.knownChunk, P * K, (n) => new Int32Array(n));
    this.ready = grow(this.ready, P, (n) => new Int32Array(n));
    this.listed = grow(this.listed, P, (n) => new Uint8Array(n));
    this.running.fill(0, 0, P * Q);
    this.head.fill(0, 0, P * Q);
    this.waiting.fill(0, 0, P * Q);
    this.phaseOf.fill(0, 0, P * C);
    this.inPhase.fill(0, 0, P * C);
    this.chunksDone.fill(0, 0, P);
    this.started.fill(0, 0, C * layout.groups);
    this.untimed.fill(0, 0, P);
    this.known.fill(0, 0, P);
    this.listed.fill(0, 0, P);
    this.readyCount = 0;
  }

  /** Index (among member m's known finishes) of its earliest: least time, then least chunk. */
  private earliest(m: number): number {
    const base = m * this.perMember;
    const { knownNs, knownChunk } = this;
    let best = 0;
    for (let i = 1; i < this.known[m]; i++) {
      const t = knownNs[base + i];
      const b = knownNs[base + best];
      if (t < b || (t === b && knownChunk[base + i] < knownChunk[base + best])) best = i;
    }
    return best;
  }

  /**
   * Member m finishes its earliest known phase: the stream moves to its next queue; both queues start what they can.
   */
  private takeEarliest(m: number): void {
    const K = this.perMember;
    const base = m * K;
    const i = this.earliest(m);
    const t = this.knownNs[base + i];
    const c = this.knownChunk[base + i];
    const last = --this.known[m];
    this.knownNs[base + i] = this.knownNs[base + last];
    this.knownChunk[base + i] = this.knownChunk[base + last];
    const layout = this.layout!;
    const { queueOf } = layout;
    const Q = layout.queues;
    const C = this.chunks;
    const mc = m * C + c;
    const j = this.phaseOf[mc];
    const q = queueOf[j];
    this.running[m * Q + q]--;
    this.inPhase[mc] = 0;
    if (j + 1 < queueOf.length) {
      this.phaseOf[mc] = j + 1;
      const next = queueOf[j + 1];
      const slot = m * Q + next;
      let tail = this.head[slot] + this.waiting[slot]++;
      if (tail >= C) tail -= C;
      this.fifo[slot * C + tail] = c;
      this.fill(m, q, t);
      this.fill(m, next, t);
    } else {
      if (++this.chunksDone[m] === C) this.finishNs[m] = t;
      this.fill(m, q, t);
    }
  }

  /**
   * Starts the streams waiting in member m's queue q while it has room, at t; a (chunk, phase, group) whose last
   * member starts it is timed, and its members' finishes become known.
   */
  private fill(m: number, q: number, t: number): void {
    const plan = this.plan!;
    const layout = this.layout!;
    const { running, fifo, head, waiting, phaseOf, inPhase, started, startNs, active } = this;
    const P = this.members;
    const C = this.chunks;
    const J = plan.phases.length;
    const slot = m * layout.queues + q;
    while (running[slot] < active && waiting[slot] > 0) {
      const c = fifo[slot * C + head[slot]];
      head[slot] = head[slot] + 1 === C ? 0 : head[slot] + 1;
      waiting[slot]--;
      running[slot]++;
      const j = phaseOf[m * C + c];
      const ph = plan.phases[j];
      inPhase[m * C + c] = 1;
      this.untimed[m]++;
      const row = (c * J + j) * P;
      startNs[row + m] = t;
      const g = ph.groupOf[m];
      if (++started[c * layout.groups + layout.groupBase[j] + g] < ph.groupSize) continue;
      const members = ph.groups[g];
      const { groupStart, groupFinish } = this;
      for (let x = 0; x < members.length; x++) groupStart[x] = startNs[row + members[x]];
      this.timer.run(ph, g, groupStart, groupFinish);
      for (let x = 0; x < members.length; x++) this.timed(members[x], groupFinish[x], c);
    }
  }

  /** Member x's running phase of chunk c is timed: it finishes at t. */
  private timed(x: number, t: number, c: number): void {
    const k = x * this.perMember + this.known[x]++;
    this.knownNs[k] = t;
    this.knownChunk[k] = c;
    if (--this.untimed[x] === 0 && this.listed[x] === 0) {
      this.listed[x] = 1;
      this.ready[this.readyCount++] = x;
    }
  }

  /** The members that never finished, with the phases they run, or null. */
  private stall(): CollectiveStall | null {
    const { members: P, chunks: C, chunksDone, inPhase, phaseOf } = this;
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

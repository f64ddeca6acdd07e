/**
 * Per-rank timing of one phase of one chunk in one group, as ASTRA-sim's native algorithms run it: each member
 * starts the phase when its own queue lets it (no barrier), sends its first message one memory-bus delay later,
 * posts the matching receive as it sends, and a receive completes at max(message arrival, the time it was
 * posted) (CommonNetworkApi sim_recv / process_chunk_arrival). Between a receive and the next send lies the step
 * program's delay (bus delay, plus the reduction where the packet is processed).
 *
 * Ring and halving-doubling send one message at a time:
 *   send₁(x) = start(x) + bus;  recv_k(x) = max(send_k(from_k(x)) + link_k(x), send_k(x));
 *   send_{k+1}(x) = recv_k(x) + delay_k;  finish(x) = recv_K(x) + delay_K.
 * Direct (ASTRA-sim's AllToAll) sends to every peer at once; its all-reduce sends the gather round from the bus
 * events that follow the last reduce-round receive (see directAllReduce).
 */
import type { DirectProgram, PhaseSpec } from './collective-plan.js';

export class PhaseTimer {
  private send = new Float64Array(0);
  private recv = new Float64Array(0);
  private arrivals = new Float64Array(0);

  /** finish[x] for every position x of group g, from start[x] (both by ring position). */
  run(phase: PhaseSpec, g: number, start: Float64Array, finish: Float64Array): void {
    const p = phase.groupSize;
    if (this.send.length < p) {
      this.send = new Float64Array(p);
      this.recv = new Float64Array(p);
      this.arrivals = new Float64Array(p);
    }
    const program = phase.program;
    switch (program.impl) {
      case 'ring':
        this.ring(phase, g, start, finish);
        return;
      case 'halvingDoubling':
        this.halvingDoubling(phase, g, start, finish);
        return;
      case 'direct':
        if (program.rounds === 2) directAllReduce(phase, program, g, start, finish);
        else this.directOneRound(phase, program, g, start, finish);
        return;
      default: {
        const unknown: never = program;
        throw new Error(`no timing for collective algorithm ${(unknown as { impl: string }).impl}`);
      }
    }
  }

  private ring(phase: PhaseSpec, g: number, start: Float64Array, finish: Float64Array): void {
    const p = phase.groupSize;
    const send = this.send;
    const link = phase.linkNs[g][0];
    const delays = (phase.program as { delayAfterNs: Float64Array }).delayAfterNs;
    const last = p - 1;
    for (let x = 0; x < p; x++) send[x] = start[x] + phase.busNs;
    // Each step in place: position x's receive needs its neighbour's previous send, so the positions are taken
    // against the direction of travel and the one whose neighbour wraps round goes last, from the saved send.
    for (let k = 0; k < delays.length; k++) {
      const delay = delays[k];
      if (phase.clockwise) {
        const wrapped = send[last] + link[0];
        for (let x = last; x > 0; x--) {
          const arrival = send[x - 1] + link[x];
          const posted = send[x];
          send[x] = (arrival > posted ? arrival : posted) + delay;
        }
        send[0] = (wrapped > send[0] ? wrapped : send[0]) + delay;
      } else {
        const wrapped = send[0] + link[last];
        for (let x = 0; x < last; x++) {
          const arrival = send[x + 1] + link[x];
          const posted = send[x];
          send[x] = (arrival > posted ? arrival : posted) + delay;
        }
        send[last] = (wrapped > send[last] ? wrapped : send[last]) + delay;
      }
    }
    for (let x = 0; x < p; x++) finish[x] = send[x];
  }

  private halvingDoubling(phase: PhaseSpec, g: number, start: Float64Array, finish: Float64Array): void {
    const p = phase.groupSize;
    const { send, recv } = this;
    const program = phase.program as { offsets: Int32Array; delayAfterNs: Float64Array };
    for (let x = 0; x < p; x++) send[x] = start[x] + phase.busNs;
    for (let k = 0; k < program.offsets.length; k++) {
      const offset = program.offsets[k];
      const link = phase.linkNs[g][k];
      for (let x = 0; x < p; x++) {
        const arrival = send[x ^ offset] + link[x];
        recv[x] = arrival > send[x] ? arrival : send[x];
      }
      const delay = program.delayAfterNs[k];
      for (let x = 0; x < p; x++) send[x] = recv[x] + delay;
    }
    for (let x = 0; x < p; x++) finish[x] = send[x];
  }

  /** Reduce-scatter, all-gather, all-to-all: one message to every peer; done at the bus event of the last receive. */
  private directOneRound(
    phase: PhaseSpec,
    program: DirectProgram,
    g: number,
    start: Float64Array,
    finish: Float64Array,
  ): void {
    const p = phase.groupSize;
    const { send, arrivals } = this;
    for (let x = 0; x < p; x++) send[x] = start[x] + phase.busNs;
    for (let x = 0; x < p; x++) {
      for (let offset = 1; offset < p; offset++) {
        const from = peer(x, offset, p, !phase.clockwise);
        const arrival = send[from] + phase.linkNs[g][offset - 1][x];
        arrivals[offset - 1] = arrival > send[x] ? arrival : send[x];
      }
      finish[x] = lastBusEvent(arrivals, p - 1, program.delayAfterNs, 0);
    }
  }
}

/** Position `offset` ahead of x (clockwise), or behind it. */
function peer(x: number, offset: number, p: number, ahead: boolean): number {
  return ahead ? (x + offset) % p : (x - offset + p) % p;
}

/** The latest bus event of `count` receives taken in time order, the k-th followed by delays[first + k]. */
function lastBusEvent(arrivals: Float64Array, count: number, delays: Float64Array, first: number): number {
  const sorted = arrivals.subarray(0, count).sort();
  let last = -Infinity;
  for (let k = 0; k < count; k++) last = Math.max(last, sorted[k] + delays[first + k]);
  return last;
}

/**
 * ASTRA-sim's direct all-reduce (AllToAll::run with ALL_REDUCE): every member sends its p − 1 reduce-round
 * messages at start + bus. Each receive's bus event frees one packet slot; the gather round may only send once
 * all p − 1 reduce-round messages have arrived (a bus event at the same ns as the last arrival counts it as
 * arrived), and then sends as many gather messages as there are free slots, to the peers 1, 2 … ahead in that
 * order. Every later bus event, including those of gather-round receives, frees one more slot. A member finishes
 * at its last bus event. Simulated as events over the group.
 */
function directAllReduce(
  phase: PhaseSpec,
  program: DirectProgram,
  g: number,
  start: Float64Array,
  finish: Float64Array,
): void {
  const p = phase.groupSize;
  const n = p - 1;
  const bus = phase.busNs;
  const links = phase.linkNs[g];
  const ahead = phase.clockwise;
  const allReceived = new Float64Array(p);
  const events: { t: number; x: number }[] = [];
  const firstSend = Float64Array.from({ length: p }, (_, x) => start[x] + bus);
  for (let x = 0; x < p; x++) {
    const arrivals = new Float64Array(n);
    for (let offset = 1; offset <= n; offset++) {
      const arrival = firstSend[peer(x, offset, p, !ahead)] + links[offset - 1][x];
      arrivals[offset - 1] = Math.max(arrival, firstSend[x]);
    }
    arrivals.sort();
    allReceived[x] = arrivals[n - 1];
    for (let k = 0; k < n; k++) events.push({ t: arrivals[k] + program.delayAfterNs[k], x });
  }
  const gatherDelay = program.delayAfterNs[n];
  // gatherSend[x * p + m]: when x sent its gather message m (to the peer m ahead); NaN until then.
  const gatherSend = new Float64Array(p * p).fill(NaN);
  const free = new Int32Array(p);
  const nextMessage = new Int32Array(p).fill(1);
  const heap = new EventHeap(events);
  while (heap.size > 0) {
    const { t, x } = heap.pop();
    finish[x] = t;
    free[x]++;
    if (t < allReceived[x]) continue;
    while (free[x] > 0 && nextMessage[x] <= n) {
      const m = nextMessage[x]++;
      free[x]--;
      gatherSend[x * p + m] = t;
      // x's message m goes to the peer m ahead, whose receive is posted when it sends its own message m; x's own
      // receive of message m (from the peer m behind) is posted now.
      const to = peer(x, m, p, ahead);
      const from = peer(x, m, p, !ahead);
      const toPosted = gatherSend[to * p + m];
      if (!Number.isNaN(toPosted)) heap.push({ t: Math.max(t + links[m - 1][to], toPosted) + gatherDelay, x: to });
      const fromSent = gatherSend[from * p + m];
      if (!Number.isNaN(fromSent)) heap.push({ t: Math.max(fromSent + links[m - 1][x], t) + gatherDelay, x });
    }
  }
}

/** A small binary heap of bus events ordered by time. */
class EventHeap {
  private readonly items: { t: number; x: number }[] = [];
  constructor(initial: { t: number; x: number }[]) {
    for (const e of initial) this.push(e);
  }
  get size(): number {
    return this.items.length;
  }
  push(e: { t: number; x: number }): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent].t <= e.t) break;
      a[i] = a[parent];
      i = parent;
    }
    a[i] = e;
  }
  pop(): { t: number; x: number } {
    const a = this.items;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const c = l + 1 < a.length && a[l + 1].t < a[l].t ? l + 1 : l;
        if (a[c].t >= last.t) break;
        a[i] = a[c];
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

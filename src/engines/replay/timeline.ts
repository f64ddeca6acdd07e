/**
 * Turns replay slices into trace-event tracks: one process per rank, one thread per slot, and an
 * estimated power counter per rank. Slices on a track never overlap: a slot whose slices can overlap
 * (receives waiting side by side, markers) spreads them over extra lanes ("receives / markers 2", …).
 */
import type { TraceEventWriter } from '../../formats/trace-event/index.js';
import type { ReplaySlice, Slot } from './types.js';

const SLOT_TID: Record<Slot, number> = { gpu: 1, cpu: 2, comm: 3, none: 4 };
/** Extra lanes of a slot get thread ids from here on: slot tid × LANE_STRIDE + lane. */
const LANE_STRIDE = 100;
const SLOT_NAME: Record<Slot, string> = { gpu: 'GPU compute', cpu: 'CPU', comm: 'communication', none: 'receives / markers' };

export class TimelineRecorder {
  private readonly named = new Set<number>();
  /** Per rank: power change points (ns → ΔW), flushed as counters at the end. */
  private readonly power = new Map<number, Map<number, number>>();
  /** Per rank × slot: the end (ns) of the last slice in each lane. */
  private readonly lanes = new Map<string, number[]>();

  constructor(private readonly writer: TraceEventWriter, private readonly idlePowerW: number) {}

  slice = (s: ReplaySlice): void => {
    if (!this.named.has(s.rank)) {
      this.named.add(s.rank);
      this.writer.processName(s.rank, `rank ${s.rank}`);
      for (const slot of Object.keys(SLOT_TID) as Slot[]) this.writer.threadName(s.rank, SLOT_TID[slot], SLOT_NAME[slot]);
    }
    this.writer.complete({
      name: s.name || `node ${s.nodeId}`, pid: s.rank, tid: this.lane(s), cat: s.slot,
      startNs: s.startNs, endNs: s.endNs, args: { nodeId: s.nodeId.toString(), estimatedPowerW: round(s.powerW) },
    });
    if (s.powerW > 0 && s.endNs > s.startNs) {
      let m = this.power.get(s.rank);
      if (!m) this.power.set(s.rank, (m = new Map()));
      // GPU compute replaces idle power (energy model: active × busy + idle × the rest).
      const w = s.slot === 'gpu' ? s.powerW - this.idlePowerW : s.powerW;
      m.set(s.startNs, (m.get(s.startNs) ?? 0) + w);
      m.set(s.endNs, (m.get(s.endNs) ?? 0) - w);
    }
  };

  /**
   * The track of a slice: the first lane of its slot whose slices all end by its start (slices arrive in the
   * order they finish, so a lane's last end is its latest), else a new lane, named when first used.
   */
  private lane(s: ReplaySlice): number {
    const key = `${s.rank}/${s.slot}`;
    let ends = this.lanes.get(key);
    if (!ends) this.lanes.set(key, (ends = []));
    const start = Math.round(s.startNs);
    let i = ends.findIndex((end) => end <= start);
    if (i < 0) {
      i = ends.length;
      ends.push(0);
      if (i > 0) this.writer.threadName(s.rank, SLOT_TID[s.slot] * LANE_STRIDE + i, `${SLOT_NAME[s.slot]} ${i + 1}`);
    }
    ends[i] = Math.max(ends[i]!, Math.round(s.endNs));
    return i === 0 ? SLOT_TID[s.slot] : SLOT_TID[s.slot] * LANE_STRIDE + i;
  }

  /** The writer's back-pressure: a promise to await before more slices, or undefined. */
  pending = (): Promise<void> | undefined => this.writer.pending();

  /** Writes the power counters (estimated: the slot's modelled power plus idle power), waiting for the file between ranks. */
  async finish(ranks: number): Promise<void> {
    for (let r = 0; r < ranks; r++) {
      const wait = this.writer.pending();
      if (wait) await wait;
      const m = this.power.get(r) ?? new Map<number, number>();
      const times = [...m.keys()].sort((a, b) => a - b);
      let level = 0;
      this.writer.counter({ name: 'estimated power (W)', pid: r, tsNs: 0, values: { W: round(this.idlePowerW) } });
      for (const t of times) {
        level += m.get(t)!;
        this.writer.counter({ name: 'estimated power (W)', pid: r, tsNs: t, values: { W: round(this.idlePowerW + Math.max(0, level)) } });
      }
    }
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Turns replay slices into trace-event tracks: one process per rank, one thread per slot, and the energy ledger's
 * modelled power per rank as a counter (ledger.ts PowerTrack: GPU node power, communication power or idle, plus
 * network and remote-memory energy spread over their slices, network static and host power), written at full
 * precision so that its integral over the makespan is the rank's energy total. Slices on a track never overlap: a
 * slot whose slices can overlap (receives waiting side by side, markers) spreads them over extra lanes
 * ("receives / markers 2", …).
 */
import type { PowerConfig } from '../../formats/astra/index.js';
import type { TraceEventWriter } from '../../formats/trace-event/index.js';
import { PowerTrack } from './ledger.js';
import type { ReplaySlice, Slot } from './types.js';

const SLOT_TID: Record<Slot, number> = { gpu: 1, cpu: 2, comm: 3, none: 4 };
/** Extra lanes of a slot get thread ids from here on: slot tid × LANE_STRIDE + lane. */
const LANE_STRIDE = 100;
const SLOT_NAME: Record<Slot, string> = {
  gpu: 'GPU compute',
  cpu: 'CPU',
  comm: 'communication',
  none: 'receives / markers',
};

export class TimelineRecorder {
  private readonly named = new Set<number>();
  /** Per rank: its modelled power, flushed as counters at the end. */
  private readonly power = new Map<number, PowerTrack>();
  /** Per rank × slot: the end (ns) of the last slice in each lane. */
  private readonly lanes = new Map<string, number[]>();

  constructor(
    private readonly writer: TraceEventWriter,
    private readonly powerConfig: PowerConfig,
  ) {}

  slice = (s: ReplaySlice): void => {
    if (!this.named.has(s.rank)) {
      this.named.add(s.rank);
      this.writer.processName(s.rank, `rank ${s.rank}`);
      for (const slot of Object.keys(SLOT_TID) as Slot[])
        this.writer.threadName(s.rank, SLOT_TID[slot], SLOT_NAME[slot]);
    }
    this.writer.complete({
      name: s.name || `node ${s.nodeId}`,
      pid: s.rank,
      tid: this.lane(s),
      cat: s.slot,
      startNs: s.startNs,
      endNs: s.endNs,
      args: { nodeId: s.nodeId.toString(), estimatedPowerW: round(s.powerW) },
    });
    this.track(s.rank).add(s.kind, s.startNs, s.endNs, s.powerW);
  };

  private track(rank: number): PowerTrack {
    let t = this.power.get(rank);
    if (!t) this.power.set(rank, (t = new PowerTrack(this.powerConfig)));
    return t;
  }

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

  /**
   * Writes each rank's modelled power counter from 0 to the makespan (estimated; ∫ = the rank's energy total),
   * waiting for the file between ranks.
   */
  async finish(ranks: number, makespanNs: number): Promise<void> {
    for (let r = 0; r < ranks; r++) {
      const wait = this.writer.pending();
      if (wait) await wait;
      for (const step of this.track(r).steps(makespanNs)) {
        this.writer.counter({ name: POWER_COUNTER, pid: r, tsNs: step.tNs, values: { W: step.powerW } });
      }
    }
  }
}

/** Name of the modelled power counter track of every rank. */
export const POWER_COUNTER = 'modelled power (W, est.)';

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

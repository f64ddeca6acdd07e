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
import { ChunkScheduler, type CollectiveStall } from './chunk-scheduler.js';
import type { Cluster } from './network.js';

export type { CollectiveStall } from './chunk-scheduler.js';
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

function allEqual(a: ArrayLike<number>): boolean {
  for (let i = 1; i < a.length; i++) if (a[i] !== a[0]) return false;
  return true;
}

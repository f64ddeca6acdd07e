/**
 * The plan as it crosses to worker threads: serialized once into shared memory, so that each rank's task carries
 * a reference rather than a fresh structured copy, and each worker deserializes it once (per plan id), not once
 * per rank.
 */
import { deserialize, serialize } from 'node:v8';
import type { AnnotatePlan } from './plan.js';

export interface SharedPlan {
  id: string;
  bytes: SharedArrayBuffer;
}

export function sharePlan(plan: AnnotatePlan): SharedPlan {
  const b = serialize(plan);
  const bytes = new SharedArrayBuffer(b.length);
  new Uint8Array(bytes).set(b);
  return { id: plan.id, bytes };
}

/**
 * Deserializes shared plans, keeping the last one (a worker serves one annotateTrace call at a time). The plan's
 * Uint8Arrays (the encoded attribute blocks) come back as views on the shared memory, which every worker reads:
 * they are read-only (tails copies them).
 */
export class PlanReceiver {
  private last: AnnotatePlan | null = null;

  plan(shared: SharedPlan): AnnotatePlan {
    if (this.last?.id !== shared.id) this.last = deserialize(new Uint8Array(shared.bytes)) as AnnotatePlan;
    return this.last;
  }
}

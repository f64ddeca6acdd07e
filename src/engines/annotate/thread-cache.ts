/**
 * What one thread keeps from one rank to the next: the pooled buffers, the encoded annotations (the plan's, and
 * the roofline ones already predicted: ranks of one job mostly repeat the same num_ops / tensor_size pairs), and
 * the node names already matched. Keyed by plan id: each annotateTrace call builds a plan of its own.
 */
import { BufferPool } from './buffers.js';
import { NameTable } from './name-table.js';
import { PairMemo } from './pair-memo.js';
import type { AnnotatePlan } from './plan.js';
import type { Tails } from './tails.js';

/** Output flush threshold. */
export const FLUSH_BYTES = 1 << 20;
/** Longest run of unchanged frames copied in one go. */
export const RUN_BYTES = 1 << 16;
/**
 * Size of pooled buffers: a flush's worth plus room for what crosses it, a run or an annotated frame (a larger
 * frame grows its own buffer). The input window gets one too: a chunk (1 MiB) and the frame it cut; and the
 * reader reads its 1 MiB chunks into two.
 */
export const POOL_BUFFER_BYTES = FLUSH_BYTES + 2 * RUN_BYTES;
/** Roofline annotations kept before the memo starts over. */
const ROOFLINE_MEMO = 50_000;

export class ThreadCache {
  readonly buffers = new BufferPool(POOL_BUFFER_BYTES);
  private planId: string | null = null;
  private entries: Tails[][] | null = null;
  private readonly roofline = new PairMemo<Tails[]>(ROOFLINE_MEMO);
  /** Per key set of the plan (a rank's own, or -1: the shared keys), its name table. */
  private names = new Map<number, NameTable>();

  private use(planId: string): void {
    if (planId === this.planId) return;
    this.planId = planId;
    this.entries = null;
    this.roofline.clear();
    this.names = new Map();
  }

  /** The node names this thread has matched under `plan`, for trace rank `rank` (its own keys, or the shared ones). */
  namesOf(plan: AnnotatePlan, rank = 0): NameTable {
    this.use(plan.id);
    const own = plan.rankKeys?.[rank];
    const id = own ? rank : -1;
    let t = this.names.get(id);
    if (!t) {
      t = new NameTable(own ?? plan.keys);
      this.names.set(id, t);
    }
    return t;
  }

  /** The tails of every plan entry, made by `make` the first time for this plan. */
  entryTailsOf(plan: AnnotatePlan, make: () => Tails[][]): Tails[][] {
    this.use(plan.id);
    return (this.entries ??= make());
  }

  /** The roofline annotation of (flops, bytes) under `plan`, made by `make` the first time. */
  rooflineOf(plan: AnnotatePlan, flops: number, bytes: number, make: () => Tails[]): Tails[] {
    this.use(plan.id);
    let v = this.roofline.get(flops, bytes);
    if (v === undefined) {
      v = make();
      this.roofline.set(flops, bytes, v);
    }
    return v;
  }
}

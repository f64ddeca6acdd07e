/**
 * Which nodes of different ranks are one collective, and when each member finishes it. Members are all ranks, the
 * ranks along a collective's involved_dim (without pg_name), or a pg_name comm group; the k-th collective a rank
 * issues on a group meets the k-th of every other member. Once the last member has issued it, the collective
 * model (collective.ts) gives every member's finish.
 */
import { InputError } from '../../errors.js';
import { EMPTY_ALL_GATHER } from '../../formats/chakra/node-values.js';
import type { CommGroupConfig } from '../../formats/astra/index.js';
import type { CollSpec } from './classify.js';
import type { CollectiveModel, CollectivePlan, CollectiveStall } from './collective.js';
import { collectiveDiffers } from './collective-sequence.js';
import { coordinates, type Cluster } from './network.js';

/** The members of a collective and how it is planned. */
export interface CollGroup {
  /** Matches the k-th collective of each member on this group. */
  key: string;
  /** Member ranks by member index (ring order for a comm group). */
  members: number[];
  indexOf(rank: number): number;
  /** Names everything the plan depends on besides kind and size. */
  planKey: string;
  involvedDims?: boolean[];
  commGroup: boolean;
}

/** One member's node: the rank and its NodeTable slot. */
export interface MemberNode {
  rank: number;
  slot: number;
}

/** How error messages name a member's node: its file, id and (when kept) name. */
export type DescribeNode = (node: MemberNode) => { file: string; nodeId: bigint; name?: string };

export interface CollInstance {
  ordinal: number;
  group: CollGroup;
  spec: CollSpec;
  bytes: number;
  issuedNs: number[];
  /** The member's NodeTable slot, by member index; -1 until it arrives. */
  slots: number[];
  arrived: number;
  first: MemberNode;
}

export interface CompletedCollective {
  inst: CollInstance;
  plan: CollectivePlan;
  /** Finish of each member (by member index); valid until the next completion. */
  finishNs: Float64Array;
  /** All members finish at the same ns. */
  together: boolean;
}

export class CollectiveMatcher {
  /** Per group, the collectives some members have issued: ordinal → instance. */
  private readonly waiting = new Map<CollGroup, Map<number, CollInstance>>();
  private readonly groups = new Map<string, CollGroup>();
  /** Per spec, each rank's group (found once). */
  private readonly groupOfRank = new Map<CollSpec, (CollGroup | undefined)[]>();
  /** Per rank, the collectives it has issued on each group. */
  private readonly ordinals: Map<CollGroup, number>[];
  private finishScratch = new Float64Array(0);

  constructor(
    private readonly cluster: Cluster,
    private readonly commGroups: CommGroupConfig | undefined,
    private readonly model: CollectiveModel,
    private readonly describe: DescribeNode,
  ) {
    this.ordinals = Array.from({ length: cluster.totalNpus }, () => new Map());
  }

  /** Registers `node` issuing a collective at `now`; returns the collective once its last member has issued it. */
  arrive(rank: number, slot: number, spec: CollSpec, bytes: number, now: number): CompletedCollective | null {
    const group = this.groupFor(rank, spec);
    const ordinals = this.ordinals[rank];
    const ordinal = ordinals.get(group) ?? 0;
    ordinals.set(group, ordinal + 1);
    const index = group.indexOf(rank);
    if (bytes === 0 && spec.coll === 'ALL_GATHER') {
      const d = this.describe({ rank, slot });
      throw new InputError(`${d.file}: node ${d.nodeId}${d.name ? ` ("${d.name}")` : ''}: ${EMPTY_ALL_GATHER}`);
    }
    if (index < 0) {
      const d = this.describe({ rank, slot });
      throw new InputError(
        `${d.file}: node ${d.nodeId}${d.name ? ` ("${d.name}")` : ''} is a collective of group "${spec.group}" ` +
          `but rank ${rank} is not a member of it`,
      );
    }
    const n = group.members.length;
    let waiting = this.waiting.get(group);
    if (!waiting) this.waiting.set(group, (waiting = new Map()));
    let inst = waiting.get(ordinal);
    if (!inst) {
      inst = {
        ordinal,
        group,
        spec,
        bytes,
        issuedNs: new Array<number>(n).fill(0),
        slots: new Array<number>(n).fill(-1),
        arrived: 0,
        first: { rank, slot },
      };
      waiting.set(ordinal, inst);
    }
    if (inst.spec.coll !== spec.coll || inst.bytes !== bytes) {
      const f = inst.first;
      throw new InputError(
        collectiveDiffers(
          group.key,
          ordinal,
          { rank: f.rank, nodeId: this.describe(f).nodeId, coll: inst.spec.coll, bytes: inst.bytes },
          { rank, nodeId: this.describe({ rank, slot }).nodeId, coll: spec.coll, bytes },
        ),
      );
    }
    inst.issuedNs[index] = now;
    inst.slots[index] = slot;
    if (++inst.arrived < n) return null;
    waiting.delete(ordinal);
    // Every member's finish depends on every member's start, so all are known once the last member is here.
    const plan = this.planFor(group, spec, bytes);
    if (this.finishScratch.length < n) this.finishScratch = new Float64Array(n);
    const finishNs = this.finishScratch.subarray(0, n);
    const stall = this.model.finishTimes(plan, inst.issuedNs, finishNs);
    if (stall) throw stallError(inst, plan, stall, this.describe(inst.first).nodeId);
    let together = true;
    for (let m = 1; m < n; m++) if (finishNs[m] !== finishNs[0]) together = false;
    return { inst, plan, finishNs, together };
  }

  /** The group a collective of `rank` with `spec` runs in. */
  groupFor(rank: number, spec: CollSpec): CollGroup {
    let byRank = this.groupOfRank.get(spec);
    if (!byRank) this.groupOfRank.set(spec, (byRank = []));
    return byRank[rank] ?? (byRank[rank] = this.groupOf(rank, spec));
  }

  planFor(group: CollGroup, spec: CollSpec, bytes: number): CollectivePlan {
    return this.model.plan(`${group.planKey}|${spec.coll}|${bytes}`, () => ({
      kind: spec.coll,
      bytes,
      involvedDims: group.commGroup ? undefined : group.involvedDims,
      members: group.members,
      commGroup: group.commGroup,
    }));
  }

  /**
   * Whether every member of `group` finishes a collective they all issue at once at the same ns and sends the same
   * bytes per dimension (true on dimensions; not always on a comm group's ring).
   */
  symmetric(group: CollGroup, spec: CollSpec, bytes: number): boolean {
    const plan = this.planFor(group, spec, bytes);
    const n = group.members.length;
    const finishNs = new Float64Array(n);
    if (this.model.finishTimes(plan, new Array<number>(n).fill(0), finishNs)) return false;
    const row = plan.bytesSentPerDim[0].join(',');
    for (let m = 1; m < n; m++)
      if (finishNs[m] !== finishNs[0] || plan.bytesSentPerDim[m].join(',') !== row) return false;
    return true;
  }

  /**
   * A collective issued at `now` by a rank standing for all its members (they issue it at the same ns, so the rank
   * need not wait for them): when it finishes, and the bytes it sends per dimension.
   */
  issuedByAll(
    rank: number,
    spec: CollSpec,
    bytes: number,
    now: number,
  ): { finishNs: number; bytesSentPerDim: number[] } {
    const group = this.groupFor(rank, spec);
    const plan = this.planFor(group, spec, bytes);
    const n = group.members.length;
    if (this.finishScratch.length < n) this.finishScratch = new Float64Array(n);
    const finishNs = this.finishScratch.subarray(0, n);
    this.model.finishTimes(plan, new Array<number>(n).fill(now), finishNs);
    const index = group.indexOf(rank);
    return { finishNs: finishNs[index], bytesSentPerDim: plan.bytesSentPerDim[index] };
  }

  /** Collectives some member has issued and others have not. */
  unfinished(): CollInstance[] {
    return [...this.waiting.values()].flatMap((byOrdinal) => [...byOrdinal.values()]);
  }

  /**
   * Who takes part in a collective of `rank`: the comm group named by pg_name; without one, all ranks, or (with
   * involved_dim) the ranks sharing `rank`'s coordinates in every dimension not involved, as in ASTRA-sim.
   */
  private groupOf(rank: number, spec: CollSpec): CollGroup {
    const c = this.cluster;
    if (spec.group) {
      let g = this.groups.get(`pg:${spec.group}`);
      if (!g) {
        const members = this.commGroups!.groups.get(spec.group)!;
        const position = new Map(members.map((r, i) => [r, i]));
        // A comm group of the whole cluster uses every dimension (ASTRA-sim ignores involved_dim for it).
        const commGroup = members.length < c.totalNpus;
        g = { key: spec.group, members, indexOf: (r) => position.get(r) ?? -1, planKey: `pg:${spec.group}`, commGroup };
        this.groups.set(`pg:${spec.group}`, g);
      }
      return g;
    }
    const involved = spec.involved && spec.involved.some((x) => !x) ? spec.involved : undefined;
    if (!involved) {
      const key = '';
      let g = this.groups.get(key);
      if (!g) {
        const members = Array.from({ length: c.totalNpus }, (_, r) => r);
        g = {
          key,
          members,
          indexOf: (r) => r,
          planKey: `dims:${spec.involved?.join(',') ?? '*'}`,
          involvedDims: spec.involved,
          commGroup: false,
        };
        this.groups.set(key, g);
      }
      return g;
    }
    const mine = coordinates(c, rank);
    const key = `@dims[${mine.map((x, i) => (involved[i] ? '*' : String(x))).join(',')}]`;
    let g = this.groups.get(key);
    if (!g) {
      const members: number[] = [];
      for (let q = 0; q < c.totalNpus; q++) {
        const xs = coordinates(c, q);
        if (xs.every((x, i) => involved[i] || x === mine[i])) members.push(q);
      }
      // Members ascend by rank, so a member's index counts along the involved dimensions only.
      const indexOf = (r: number) => {
        const xs = coordinates(c, r);
        let index = 0;
        let scale = 1;
        for (let i = 0; i < xs.length; i++) {
          if (!involved[i]) {
            if (xs[i] !== mine[i]) return -1;
            continue;
          }
          index += xs[i] * scale;
          scale *= c.dims[i].npus;
        }
        return index;
      };
      g = { key, members, indexOf, planKey: `dims:${involved.join(',')}`, involvedDims: involved, commGroup: false };
      this.groups.set(key, g);
    }
    return g;
  }
}

function stallError(inst: CollInstance, plan: CollectivePlan, stall: CollectiveStall, firstNodeId: bigint): InputError {
  const { first, group } = inst;
  const phaseName = (j: number) => {
    const ph = plan.phases[j];
    return (
      `${ph.kind.toLowerCase().replace('_', '-')} on ` +
      (group.commGroup ? `comm group "${group.key}"` : `dimension ${ph.queue}`)
    );
  };
  const shown = stall.running
    .slice(0, 4)
    .map((w) => `rank ${group.members[w.member]} runs chunk ${w.chunk}'s ${phaseName(w.phase)}`);
  return new InputError(
    `collective ${inst.spec.coll} #${inst.ordinal} of ${group.key ? `group "${group.key}"` : 'all ranks'} ` +
      `(rank ${first.rank} node ${firstNodeId}) ` +
      `deadlocks: the ranks reach it at different times and their queues run its ${plan.chunks} chunks' phases ` +
      `in different orders ` +
      `(${shown.join('; ')}${stall.running.length > 4 ? ' …' : ''}), each waiting for a peer busy with another ` +
      `chunk. ` +
      'ASTRA-sim stalls here as well ("Hardware Resource … has unreleased nodes"); use ' +
      'preferred-dataset-splits 1, more active-chunks-per-dimension, or collective-optimization baseline',
  );
}

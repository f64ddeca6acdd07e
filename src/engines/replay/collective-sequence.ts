/**
 * The rules replay matches communication across ranks by, in one place. Collectives: the k-th collective a rank issues
 * on a group
 * meets the k-th of every other member, and they must be the same kind and size (collective-matching.ts refuses
 * the trace with {@link collectiveDiffers}' words otherwise, and stalls when a member never issues it). `validate`
 * checks what it can of that rule without the configs ({@link unmatchedCollectives}), so it refuses what replay
 * refuses: one verdict per input. Sends and receives: a receive on rank r from s with tag t takes the next message
 * s sends r with tag t; one that no send matches waits for ever ({@link messageNeverSent}, {@link unsentMessages}).
 */

import { commTypeName } from '../../formats/chakra/index.js';

/** One collective as a rank issues it. */
export interface IssuedCollective {
  rank: number;
  nodeId: bigint;
  /** ALL_REDUCE, ALL_GATHER, … */
  coll: string;
  bytes: number | bigint;
}

/** Replay's refusal when the `ordinal`-th collective of a group differs between two of its members. */
export function collectiveDiffers(groupKey: string, ordinal: number, a: IssuedCollective, b: IssuedCollective): string {
  return (
    `collective #${ordinal} of group "${groupKey || 'all ranks'}" differs between ranks: rank ${a.rank} node ` +
    `${a.nodeId} is ${a.coll} of ${a.bytes} B, ` +
    `rank ${b.rank} node ${b.nodeId} is ${b.coll} of ${b.bytes} B`
  );
}

const same = (a: IssuedCollective, b: IssuedCollective) => a.coll === b.coll && BigInt(a.bytes) === BigInt(b.bytes);
const key = (c: IssuedCollective) => `${c.coll}|${c.bytes}`;

/** A mismatch replay refuses, found without running it: the rank and node it is about, and the message. */
export interface CollectiveMismatch {
  rank: number;
  nodeId: bigint | null;
  message: string;
}

/**
 * What replay is sure to refuse, from each rank's collectives in file order, per group: `groups` maps a group key
 * ('' = all ranks) to its members (null: every rank that issues one of its collectives) and each member's
 * collectives. A member issuing another number of them than the others never reaches one (replay stalls); members
 * whose kinds and sizes differ as multisets cannot be matched in any issue order (replay refuses the first pair
 * that differs). Collectives the same as multisets but in another file order are left to replay: the order a rank
 * issues them in depends on timing.
 */
export function unmatchedCollectives(
  groups: Map<string, { members: number[] | null; byRank: Map<number, IssuedCollective[]> }>,
): CollectiveMismatch[] {
  const out: CollectiveMismatch[] = [];
  for (const [groupKey, g] of groups) {
    const members = g.members ?? [...g.byRank.keys()].sort((a, b) => a - b);
    if (members.length < 2) continue;
    const ref = members[0]!;
    const refList = g.byRank.get(ref) ?? [];
    for (const m of members.slice(1)) {
      const list = g.byRank.get(m) ?? [];
      if (list.length !== refList.length) {
        const [few, many] = list.length < refList.length ? [m, ref] : [ref, m];
        const k = Math.min(list.length, refList.length);
        const at = (g.byRank.get(many) ?? [])[k];
        out.push({
          rank: few,
          nodeId: at?.nodeId ?? null,
          message:
            `group "${groupKey || 'all ranks'}": rank ${ref} issues ${refList.length} collective(s), rank ${m} ` +
            `issues ${list.length}: collective #${k} (rank ${many} node ${at?.nodeId}) is never reached by rank ` +
            `${few} (replay stalls)`,
        });
        break;
      }
      const counts = new Map<string, number>();
      for (const c of refList) counts.set(key(c), (counts.get(key(c)) ?? 0) + 1);
      for (const c of list) counts.set(key(c), (counts.get(key(c)) ?? 0) - 1);
      if ([...counts.values()].every((v) => v === 0)) continue;
      const k = list.findIndex((c, i) => !same(c, refList[i]!));
      out.push({ rank: m, nodeId: list[k]!.nodeId, message: collectiveDiffers(groupKey, k, refList[k]!, list[k]!) });
      break;
    }
  }
  return out;
}

/** A send or receive as a rank posts it: `peer` is the destination of a send, the source of a receive. */
export interface PostedMessage {
  rank: number;
  nodeId: bigint;
  peer: number;
  tag: number | bigint;
}

/** Replay's words for a receive that no send matches (it stalls). */
export function messageNeverSent(rank: number, nodeId: bigint | number, src: number, tag: number | bigint): string {
  return `rank ${rank} node ${nodeId} waits for a message ${src}>${rank}#${tag} that is never sent`;
}

/** Receives more than the sends of their source, destination and tag: each one replay is sure to stall on. */
export function unsentMessages(sends: PostedMessage[], recvs: PostedMessage[]): CollectiveMismatch[] {
  const sent = new Map<string, number>();
  for (const m of sends) {
    const k = `${m.rank}>${m.peer}#${m.tag}`;
    sent.set(k, (sent.get(k) ?? 0) + 1);
  }
  const out: CollectiveMismatch[] = [];
  for (const m of recvs) {
    const k = `${m.peer}>${m.rank}#${m.tag}`;
    const left = sent.get(k) ?? 0;
    if (left > 0) sent.set(k, left - 1);
    else
      out.push({
        rank: m.rank,
        nodeId: m.nodeId,
        message: `${messageNeverSent(m.rank, m.nodeId, m.peer, m.tag)} (replay stalls)`,
      });
  }
  return out;
}

/** Collectives ASTRA-sim's system layer simulates (comm_type numbers), the ones replay matches across ranks. */
const MATCHED_KINDS = new Set([0, 2, 6, 7]);

/**
 * Gathers, rank by rank, the communication replay matches across ranks, and says what it is sure to refuse
 * ({@link unmatchedCollectives}, {@link unsentMessages}). `validate` and `export astra-sim` read one rank at a time
 * and feed it each node, so both give the verdict replay gives.
 */
export class CrossRankCheck {
  private readonly groups = new Map<string, { members: number[] | null; byRank: Map<number, IssuedCollective[]> }>();
  private readonly sends: PostedMessage[] = [];
  private readonly recvs: PostedMessage[] = [];

  /** `ranks`: the ranks of the trace (every one is a member of the group without a name). */
  constructor(private readonly ranks: number[]) {}

  /**
   * A COMM_COLL_NODE with the values replay reads (sizes already range-checked). Kinds replay does not match and
   * collectives whose members depend on the network (involved_dim leaving a dimension out) are left to replay.
   */
  collective(
    rank: number,
    nodeId: bigint,
    commType: bigint | number,
    bytes: bigint | number,
    pgName: string | undefined,
    involved: readonly unknown[] | undefined,
  ): void {
    if (!MATCHED_KINDS.has(Number(commType)) || involved?.some((x) => x === false)) return;
    const key = pgName === undefined || pgName === '0' ? '' : pgName;
    let g = this.groups.get(key);
    // A named group's members are the ranks that use it.
    if (!g) this.groups.set(key, (g = { members: key === '' ? this.ranks : null, byRank: new Map() }));
    const list = g.byRank.get(rank);
    const issued = { rank, nodeId, coll: commTypeName(commType), bytes };
    if (list) list.push(issued);
    else g.byRank.set(rank, [issued]);
  }

  /** A send (peer: its destination) or receive (peer: its source) whose peer is a rank of the trace. */
  message(send: boolean, rank: number, nodeId: bigint, peer: number, tag: bigint | number): void {
    (send ? this.sends : this.recvs).push({ rank, nodeId, peer, tag });
  }

  problems(): { code: 'collective-mismatch' | 'message-never-sent'; found: CollectiveMismatch }[] {
    return [
      ...unmatchedCollectives(this.groups).map((found) => ({ code: 'collective-mismatch' as const, found })),
      ...unsentMessages(this.sends, this.recvs).map((found) => ({ code: 'message-never-sent' as const, found })),
    ];
  }
}

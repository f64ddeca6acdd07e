/**
 * Ranks that run the same nodes with peers in the same places: simulated once, and their result given to each.
 *
 * Ranks form a class when (1) their traces, as the replay reads them, are the same node for node (send/receive peers
 * aside, ids up to an offset; compared exactly, table to table, before anything runs); (2) each send or receive goes to
 * a peer of the same
 * class, with the same tag, over the same dimension and hops (classes are refined until that holds); (3) a rank
 * talks to one peer per class, tag and direction, and its peers' matching nodes name it back; (4) every collective
 * runs among members of one class only, and a collective its members issue at once finishes for all of them at
 * the same ns with the same bytes sent. Then every member of a class does the same thing at the same time: by
 * induction over the events, a rank's next event depends only on its class's earlier ones. One representative per
 * class is simulated; sends and receives meet by class.
 */
import type { NodeClassifier } from './classify.js';
import type { CollectiveMatcher } from './collective-matching.js';
import { route, type Cluster } from './network.js';
import { OpKind, type NodeTable } from './node-table.js';
import { nodesHash } from './shared-tables.js';

export interface RankClasses {
  /** Class of each rank. */
  classOf: Int32Array;
  /** The simulated rank of each class. */
  representatives: number[];
}

/** The peer of send / receive slot `s` of `rank`, whose table is `table` (shared-tables.ts: ranks may share one). */
export type PeerAt = (rank: number, table: NodeTable, s: number) => number;
const OWN_PEER: PeerAt = (_rank, table, s) => table.peer[s];

/**
 * Finds the classes of `tables` (every rank's whole trace, loaded, nothing run; ranks with the same nodes may share
 * one table, with their own peers from `peerAt`); null when every rank is its own.
 */
export function findRankClasses(
  tables: NodeTable[],
  cluster: Cluster,
  classifier: NodeClassifier,
  collectives: CollectiveMatcher,
  peerAt: PeerAt = OWN_PEER,
): RankClasses | null {
  const n = tables.length;
  const classOf = sameTraces(tables);
  if (refineByPeers(tables, cluster, classOf, peerAt) === n) return null;
  if (!peersOneToOne(tables, classOf, peerAt) || !collectivesWithinClasses(tables, classifier, collectives, classOf))
    return null;
  const representatives: number[] = [];
  for (let r = 0; r < n; r++) if (representatives[classOf[r]] === undefined) representatives[classOf[r]] = r;
  return { classOf, representatives };
}

/** Classes of ranks whose tables hold the same nodes (bucketed by a quick hash, then compared exactly). */
function sameTraces(tables: NodeTable[]): Int32Array {
  const classOf = new Int32Array(tables.length);
  const buckets = new Map<string, number[]>();
  // A table shared by ranks is hashed once.
  const hashes = new Map<NodeTable, number>();
  let next = 0;
  tables.forEach((t, r) => {
    let h = hashes.get(t);
    if (h === undefined) hashes.set(t, (h = nodesHash(t)));
    const key = `${t.size}:${h}`;
    let reps = buckets.get(key);
    if (!reps) buckets.set(key, (reps = []));
    const same = reps.find((q) => tables[q].sameNodesAs(t));
    if (same !== undefined) classOf[r] = classOf[same];
    else {
      reps.push(r);
      classOf[r] = next++;
    }
  });
  return classOf;
}

/** Splits classes until each rank's sends and receives go to the same classes, tags and routes as its class's. */
function refineByPeers(tables: NodeTable[], cluster: Cluster, classOf: Int32Array, peerAt: PeerAt): number {
  let count = new Set(classOf).size;
  for (;;) {
    const ids = new Map<string, number>();
    const next = new Int32Array(classOf.length);
    tables.forEach((t, r) => {
      const parts = [String(classOf[r])];
      for (let s = 0; s < t.size; s++) {
        const op = t.op[s];
        if (op !== OpKind.Send && op !== OpKind.Recv) continue;
        const peer = peerAt(r, t, s);
        const way = route(cluster, op === OpKind.Send ? r : peer, op === OpKind.Send ? peer : r);
        parts.push(`${s}:${classOf[peer]}:${way ? `${way.dim}/${way.hops}` : 'self'}`);
      }
      const key = parts.join(' ');
      let id = ids.get(key);
      if (id === undefined) ids.set(key, (id = ids.size));
      next[r] = id;
    });
    classOf.set(next);
    if (ids.size === count) return count;
    count = ids.size;
  }
}

/**
 * Each rank sends to (and receives from) one peer per peer class and tag, and that peer has the matching receive
 * (send) naming the rank: then meeting by class pairs the same messages as meeting by rank.
 */
function peersOneToOne(tables: NodeTable[], classOf: Int32Array, peerAt: PeerAt): boolean {
  // rank, direction, peer class, tag → the one peer.
  const endpoints = new Map<string, number>();
  for (let r = 0; r < tables.length; r++) {
    const t = tables[r];
    for (let s = 0; s < t.size; s++) {
      const op = t.op[s];
      if (op !== OpKind.Send && op !== OpKind.Recv) continue;
      const peer = peerAt(r, t, s);
      const key = `${r}:${op}:${classOf[peer]}:${t.aux[s]}`;
      const seen = endpoints.get(key);
      if (seen !== undefined && seen !== peer) return false;
      endpoints.set(key, peer);
    }
  }
  for (let r = 0; r < tables.length; r++) {
    const t = tables[r];
    for (let s = 0; s < t.size; s++) {
      if (t.op[s] !== OpKind.Send) continue;
      const back = `${peerAt(r, t, s)}:${OpKind.Recv}:${classOf[r]}:${t.aux[s]}`;
      if (endpoints.get(back) !== r) return false;
    }
  }
  return true;
}

/** Every collective runs among one class, and finishes for all its members together when they issue it together. */
function collectivesWithinClasses(
  tables: NodeTable[],
  classifier: NodeClassifier,
  collectives: CollectiveMatcher,
  classOf: Int32Array,
): boolean {
  // The distinct (spec, size) of each class, from its first rank (its members have the same nodes).
  const usedByClass = new Map<number, Map<string, { spec: number; bytes: number }>>();
  tables.forEach((t, r) => {
    if (usedByClass.has(classOf[r])) return;
    const used = new Map<string, { spec: number; bytes: number }>();
    for (let s = 0; s < t.size; s++) {
      if (t.op[s] === OpKind.Collective)
        used.set(`${t.peer[s]}|${t.amount[s]}`, { spec: t.peer[s], bytes: t.amount[s] });
    }
    usedByClass.set(classOf[r], used);
  });
  const checked = new Set<string>();
  for (let r = 0; r < tables.length; r++) {
    for (const { spec: index, bytes } of usedByClass.get(classOf[r])!.values()) {
      const spec = classifier.specs[index];
      const group = collectives.groupFor(r, spec);
      const key = `${group.key}|${spec.coll}|${bytes}`;
      if (checked.has(key)) continue;
      checked.add(key);
      if (group.members.some((m) => classOf[m] !== classOf[r])) return false;
      if (!collectives.symmetric(group, spec, bytes)) return false;
    }
  }
  return true;
}

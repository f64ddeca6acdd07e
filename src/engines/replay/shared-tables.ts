/**
 * Memory for many alike ranks. While the replay loads its ranks, a rank whose whole trace has the same nodes as an
 * earlier rank's (NodeTable.sameNodesAs, and the same names) keeps no table of its own: it points at that earlier
 * rank's table and keeps only what differs, its id offset and its send / receive peers. The rank classes
 * (rank-classes.ts) are found on those tables with each rank's own peers; a rank that is then simulated gets its
 * own table back (NodeTable.copyShifted: the table loading it built), before any node runs. So 16,384 ranks of a
 * few distinct traces hold a few tables, not 16,384.
 */
import { OpKind, type NodeTable } from './node-table.js';

interface Template {
  rank: number;
  table: NodeTable;
  /**
   * Slots of its sends and receives, in slot order, and each slot's index among them (−1: not one); found when a
   * first rank shares the table (most tables are shared by none).
   */
  p2pSlots: Int32Array | null;
  p2pIndex: Int32Array | null;
}

/** The template's send and receive slots (Template.p2pSlots), found once. */
function withP2p(t: Template): { p2pSlots: Int32Array; p2pIndex: Int32Array } {
  if (t.p2pSlots === null || t.p2pIndex === null) {
    const table = t.table;
    const p2pIndex = new Int32Array(table.size).fill(-1);
    const slots: number[] = [];
    for (let s = 0; s < table.size; s++) {
      if (table.op[s] === OpKind.Send || table.op[s] === OpKind.Recv) p2pIndex[s] = slots.push(s) - 1;
    }
    t.p2pSlots = Int32Array.from(slots);
    t.p2pIndex = p2pIndex;
  }
  return { p2pSlots: t.p2pSlots, p2pIndex: t.p2pIndex };
}

export class SharedTables {
  /** By size and a hash of the nodes: the tables ranks may share. */
  private readonly buckets = new Map<string, Template[]>();
  /** Per rank sharing a table: the template, its id offset and its peers (by the template's p2pSlots). */
  private readonly sharing = new Map<number, { template: Template; idOffset: number; peers: Int32Array }>();

  /** A whole rank, loaded and not run: the table it keeps (an earlier rank's, when it has the same nodes). */
  offer(rank: number, table: NodeTable): NodeTable {
    const key = `${table.size}:${nodesHash(table)}`;
    let list = this.buckets.get(key);
    if (!list) this.buckets.set(key, (list = []));
    const template = list.find((t) => t.table.sameNodesAs(table) && t.table.sameNamesAs(table));
    if (template === undefined) {
      list.push({ rank, table, p2pSlots: null, p2pIndex: null });
      return table;
    }
    const { p2pSlots } = withP2p(template);
    const peers = new Int32Array(p2pSlots.length);
    for (let i = 0; i < peers.length; i++) peers[i] = table.peer[p2pSlots[i]];
    const idOffset = table.size === 0 ? 0 : table.idNumber[0] - template.table.idNumber[0];
    this.sharing.set(rank, { template, idOffset, peers });
    return template.table;
  }

  /** The peer of a rank's send / receive slot `s` (for ranks that share a table: their own). */
  peerAt(rank: number, table: NodeTable, s: number): number {
    const sh = this.sharing.get(rank);
    return sh === undefined ? table.peer[s] : sh.peers[withP2p(sh.template).p2pIndex[s]];
  }

  /** Whether the rank shares another rank's table. */
  isSharing(rank: number): boolean {
    return this.sharing.has(rank);
  }

  /** The rank's own table, as loading it built it (only before any node of the template's rank has run). */
  restore(rank: number): NodeTable {
    const sh = this.sharing.get(rank)!;
    this.sharing.delete(rank);
    return sh.template.table.copyShifted(sh.idOffset, withP2p(sh.template).p2pSlots, sh.peers);
  }

  /** The rank needs no table (it is not simulated). */
  forget(rank: number): void {
    this.sharing.delete(rank);
  }

  /** Ranks sharing a table. */
  sharingRanks(): number[] {
    return [...this.sharing.keys()];
  }
}

/** A hash of the nodes' ids (from the first), operations and sizes: tables with the same nodes have the same one. */
export function nodesHash(t: NodeTable): number {
  let h = 0x811c9dc5;
  const mix = (x: number) => {
    h = Math.imul(h ^ (x | 0), 0x01000193);
    h = Math.imul(h ^ ((x / 4294967296) | 0), 0x01000193);
  };
  for (let s = 0; s < t.size; s++) {
    mix(t.idNumber[s] - t.idNumber[0]);
    mix(t.op[s]);
    mix(t.amount[s]);
  }
  return h >>> 0;
}

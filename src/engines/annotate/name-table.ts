/**
 * Node names seen by one thread, looked up by their UTF-8 bytes in the trace (no string per node), each resolved
 * against the plan once: ranks of one job run the same kernels, so a thread matches each name once, not once per
 * rank. What is counted per rank (the invocation order, the unmatched count) lives on the entry, reset when the
 * rank in progress first uses it. A thread annotates one rank at a time.
 */
import { baseKernelName, normalizeKernelName } from './names.js';
import { viewOf } from './out.js';
import type { PlanKeys } from './plan.js';
import type { MatchLevel } from './types.js';

/** Match levels in the order they are tried. */
export const MATCH_LEVELS: MatchLevel[] = ['exact', 'normalized', 'base', 'op'];

export interface NameEntry {
  /** The name's bytes (UTF-8, as in the trace), a view on them, and the name. */
  bytes: Uint8Array;
  view: DataView;
  name: string;
  /** Plan entries under the name's key, in invocation order, or null. */
  list: number[] | null;
  /** Index of the match level in MATCH_LEVELS, or -1. */
  level: number;
  /** The rank the counts below belong to (a number of startRank). */
  owner: number;
  next: number;
  /** Nodes of this name left unmatched. */
  unmatched: number;
  /** Next entry whose name has the same hash. */
  chain: NameEntry | undefined;
  /** Next entry the rank in progress used after this one. */
  nextUsed: NameEntry | null;
}

/**
 * Entries kept before the table starts over (checked between ranks): a trace of ever-new names cannot grow it without
 * bound.
 */
const MAX_NAMES = 100_000;
const RECENT = 1024;
const RECENT_SHIFT = 22; // top 10 bits of a 32-bit hash: 1024 slots

/** FNV-1a style hash of buf[s, e), four bytes a step. */
function hashBytes(dv: DataView, buf: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5 ^ (e - s);
  let i = s;
  for (; i + 4 <= e; i += 4) h = Math.imul(h ^ dv.getInt32(i, true), 0x01000193);
  for (; i < e; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h;
}

function sameBytes(st: NameEntry, dv: DataView, buf: Uint8Array, s: number, e: number): boolean {
  const n = st.bytes.length;
  if (n !== e - s) return false;
  const v = st.view;
  let i = 0;
  for (; i + 4 <= n; i += 4) if (v.getInt32(i, true) !== dv.getInt32(s + i, true)) return false;
  for (; i < n; i++) if (st.bytes[i] !== buf[s + i]) return false;
  return true;
}

function newEntry(
  bytes: Uint8Array,
  name: string,
  list: number[] | null,
  level: number,
  chain: NameEntry | undefined,
): NameEntry {
  return { bytes, view: viewOf(bytes), name, list, level, owner: -1, next: 0, unmatched: 0, chain, nextUsed: null };
}

/** How a name matches the plan's keys: exact, then normalized, base and op name. */
function matchName(k: PlanKeys, name: string): { list: number[] | null; level: number } {
  const norm = normalizeKernelName(name);
  const found = [k.exact.get(name), k.normalized.get(norm), k.base.get(baseKernelName(norm)), k.op.get(norm)];
  const level = found.findIndex((l) => l !== undefined);
  return { list: level < 0 ? null : found[level]!, level };
}

export class NameTable {
  private byHash = new Map<number, NameEntry>();
  private size = 0;
  /** Entries last looked up, by a slot of their length and three words (and the slot beside it). */
  private readonly recent: (NameEntry | undefined)[] = new Array(RECENT).fill(undefined);
  private rank = 0;
  /**
   * The entries the rank in progress has used, in order of first use: a list through nextUsed from this head (no
   * entry of its own), appended to without a branch. (An array made per rank would start with another elements
   * kind each time, and deoptimize the code appending to it; a branch taken once per rank would too.)
   */
  private readonly head = newEntry(new Uint8Array(0), '', null, -1, undefined);
  private lastUsed = this.head;

  constructor(private readonly keys: PlanKeys) {}

  /** Starts the counts of a new rank (and the table over, when full: between ranks, no count moves entry). */
  startRank(): void {
    this.rank++;
    this.head.nextUsed = null;
    this.lastUsed = this.head;
    if (this.size < MAX_NAMES) return;
    this.byHash = new Map();
    this.size = 0;
    this.recent.fill(undefined);
  }

  /** The entries the rank in progress has used, in order of first use. */
  usedNames(): NameEntry[] {
    const out: NameEntry[] = [];
    for (let st = this.head.nextUsed; st; st = st.nextUsed) out.push(st);
    return out;
  }

  /** The entry of the name buf[s, e) (UTF-8 bytes), with the counts of the rank in progress; dv views buf. */
  get(dv: DataView, buf: Uint8Array, s: number, e: number): NameEntry {
    // Most names repeat: a slot picked by the length and three words usually holds the entry, checked byte for byte.
    const n = e - s;
    const slot =
      n >= 4
        ? Math.imul(
            n ^
              dv.getInt32(s, true) ^
              Math.imul(dv.getInt32(s + (n >> 1) - 2, true), 0x85ebca6b) ^
              Math.imul(dv.getInt32(e - 4, true), 0xc2b2ae35),
            0x9e3779b1,
          ) >>> RECENT_SHIFT
        : n;
    // Two ways: a name found in the slot's neighbour stays there; one looked up takes the slot, its occupant moving
    // over.
    let st = this.recent[slot];
    if (st === undefined || !sameBytes(st, dv, buf, s, e)) {
      const other = this.recent[slot ^ 1];
      if (other !== undefined && sameBytes(other, dv, buf, s, e)) {
        st = other;
      } else {
        if (st !== undefined) this.recent[slot ^ 1] = st;
        st = this.lookup(dv, buf, s, e);
        this.recent[slot] = st;
      }
    }
    if (st.owner !== this.rank) {
      st.owner = this.rank;
      st.next = 0;
      st.unmatched = 0;
      st.nextUsed = null;
      this.lastUsed.nextUsed = st;
      this.lastUsed = st;
    }
    return st;
  }

  private lookup(dv: DataView, buf: Uint8Array, s: number, e: number): NameEntry {
    const h = hashBytes(dv, buf, s, e);
    const head = this.byHash.get(h);
    for (let st = head; st; st = st.chain) if (sameBytes(st, dv, buf, s, e)) return st;
    const bytes = Uint8Array.prototype.slice.call(buf, s, e);
    const name = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
    const { list, level } = matchName(this.keys, name);
    const st = newEntry(bytes, name, list, level, head);
    this.byHash.set(h, st);
    this.size++;
    return st;
  }
}

/**
 * What the replay made of a node frame, kept by the frame's bytes: a frame met again, byte for byte (ranks of one
 * pipeline stage hold the same compute and collective frames, ids included), is loaded from the record without
 * being read or classified again. Only frames whose reading and classifying had no effect besides their table row
 * and the duration-source count are kept (no diagnostic, canonical varints, no energy band, ids within 2^53), and
 * only after they were read and classified in full without error; the same bytes get the same reading (the probe
 * and the classifier depend on the bytes and the replay's settings alone), so a record stands for that reading.
 */
import type { WireCursor } from '../../formats/chakra/index.js';
import type { IdKey } from './node-table.js';
import type { Attr, ReplayNode } from './replay-node.js';

/** The table row of a classified node, its dependencies, and which duration source it counted (−1: none). */
export interface FrameRecord {
  key: number;
  /** Data dependencies, then control dependencies (ids, numbers). */
  deps: Float64Array;
  dataCount: number;
  resource: number;
  category: number;
  op: number;
  amount: number;
  peer: number;
  aux: number;
  energyJ: number;
  energyMemoryJ: number;
  nameId: number;
  /** Index in DURATION_SOURCES of the count the node added, or −1. */
  durationSource: number;
  /** A GPU compute node (counted by the energy band collector). */
  gpu: boolean;
}

interface Entry {
  /** The frame's bytes: arena[offset, offset + length). */
  offset: number;
  length: number;
  record: FrameRecord;
  /** The next entry of the same hash. */
  next: Entry | null;
}

/** At most this many records are kept, of at most this many frame bytes (then no more frames are recorded). */
const MAX_RECORDS = 2 ** 17;
const MAX_KEPT_BYTES = 16 * 2 ** 20;
/** After this many look-ups, a memo that found fewer than half of them closes (frames that do not repeat). */
const TRIAL_LOOKUPS = 2 ** 14;

export class FrameMemo {
  private readonly byHash = new Map<number, Entry>();
  /** A copy of every kept frame's bytes (the chunk buffers they came from are reused). */
  private arena = new Uint8Array(0);
  private arenaView = new DataView(this.arena.buffer);
  private keptBytes = 0;
  private records = 0;
  private lookups = 0;
  private hits = 0;
  /** False once the memo has closed: frames of this trace do not repeat enough to pay for it. */
  open = true;

  /** The record of the frame in c.buf[start, end), if one was kept; `hash` from frameHash. */
  get(c: WireCursor, start: number, end: number, hash: number): FrameRecord | undefined {
    if (++this.lookups === TRIAL_LOOKUPS && this.hits * 2 < this.lookups) this.close();
    const length = end - start;
    for (let e: Entry | null = this.byHash.get(hash) ?? null; e !== null; e = e.next) {
      if (e.length === length && this.sameBytes(e.offset, c, start, length)) {
        this.hits++;
        return e.record;
      }
    }
    return undefined;
  }

  /** Drops every record and keeps no more. */
  private close(): void {
    this.open = false;
    this.byHash.clear();
    this.arena = new Uint8Array(0);
    this.arenaView = new DataView(this.arena.buffer);
    this.keptBytes = 0;
  }

  /** Keeps the record of the frame in c.buf[start, end). */
  put(c: WireCursor, start: number, end: number, hash: number, record: FrameRecord): void {
    const length = end - start;
    if (!this.open || this.keptBytes + length > MAX_KEPT_BYTES || this.records >= MAX_RECORDS) return;
    if (this.keptBytes + length > this.arena.length) {
      const arena = new Uint8Array(Math.min(MAX_KEPT_BYTES, Math.max(2 * this.arena.length, this.keptBytes + length)));
      arena.set(this.arena.subarray(0, this.keptBytes));
      this.arena = arena;
      this.arenaView = new DataView(arena.buffer);
    }
    this.arena.set(c.buf.subarray(start, end), this.keptBytes);
    this.byHash.set(hash, { offset: this.keptBytes, length, record, next: this.byHash.get(hash) ?? null });
    this.keptBytes += length;
    this.records++;
  }

  /** Whether arena[offset, offset + length) holds the bytes of c.buf[start, start + length), four a step. */
  private sameBytes(offset: number, c: WireCursor, start: number, length: number): boolean {
    const a = this.arenaView;
    const v = c.view;
    let i = 0;
    for (; i + 4 <= length; i += 4) if (a.getInt32(offset + i, true) !== v.getInt32(start + i, true)) return false;
    const arena = this.arena;
    const buf = c.buf;
    for (; i < length; i++) if (arena[offset + i] !== buf[start + i]) return false;
    return true;
  }
}

/** A hash of the frame in c.buf[start, end): its length, first 32 bytes and last 8 (get compares all of them). */
export function frameHash(c: WireCursor, start: number, end: number): number {
  const view = c.view;
  let h = 0x811c9dc5 ^ (end - start);
  const head = Math.min(end, start + 32);
  let i = start;
  for (; i + 4 <= head; i += 4) h = Math.imul(h ^ view.getInt32(i, true), 0x01000193);
  if (end - start >= 8) {
    h = Math.imul(h ^ view.getInt32(end - 8, true), 0x01000193);
    h = Math.imul(h ^ view.getInt32(end - 4, true), 0x01000193);
  } else {
    const buf = c.buf;
    for (; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  }
  return h | 0;
}

/** A node loaded from its frame's record (what the engine's load reads: id and dependencies; classify: the record). */
export class RecordedReplayNode implements ReplayNode {
  record: FrameRecord | null = null;
  readonly recordable = false;
  remember(): void {}

  of(record: FrameRecord): this {
    this.record = record;
    return this;
  }
  private get r(): FrameRecord {
    return this.record!;
  }
  get id(): bigint {
    return BigInt(this.r.key);
  }
  get key(): IdKey {
    return this.r.key;
  }
  depCount(ctrl: boolean): number {
    const r = this.r;
    return ctrl ? r.deps.length - r.dataCount : r.dataCount;
  }
  depKey(ctrl: boolean, i: number): IdKey {
    const r = this.r;
    return r.deps[ctrl ? r.dataCount + i : i];
  }
  dep(ctrl: boolean, i: number): bigint {
    return BigInt(this.depKey(ctrl, i));
  }
  // The classifier reads the record instead of these.
  get name(): string {
    return unread();
  }
  get type(): number {
    return unread();
  }
  get durationMicros(): bigint {
    return unread();
  }
  get durationMicrosNumber(): number {
    return unread();
  }
  nameId(): number {
    return unread();
  }
  mayHave(_slot: Attr): boolean {
    return unread();
  }
  attribute(): undefined {
    return unread();
  }
  varint(): number {
    return unread();
  }
  float(): number | undefined {
    return unread();
  }
}

function unread(): never {
  throw new Error('a recorded node is classified from its record');
}

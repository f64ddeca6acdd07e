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
  hash: number;
  bytes: Uint8Array;
  record: FrameRecord;
}

/** At most this many frame bytes are kept (then no more frames are recorded). */
const MAX_KEPT_BYTES = 32 * 2 ** 20;

export class FrameMemo {
  private readonly byHash = new Map<number, Entry | Entry[]>();
  private keptBytes = 0;

  /** The record of the frame in c.buf[start, end), if one was kept; `hash` from hashOf. */
  get(c: WireCursor, start: number, end: number, hash: number): FrameRecord | undefined {
    const e = this.byHash.get(hash);
    if (e === undefined) return undefined;
    if (!Array.isArray(e)) return sameBytes(e.bytes, c.buf, start, end) ? e.record : undefined;
    for (const x of e) if (sameBytes(x.bytes, c.buf, start, end)) return x.record;
    return undefined;
  }

  /** Keeps the record of the frame in c.buf[start, end). */
  put(c: WireCursor, start: number, end: number, hash: number, record: FrameRecord): void {
    if (this.keptBytes + (end - start) > MAX_KEPT_BYTES) return;
    this.keptBytes += end - start;
    // A copy: the chunk buffer is reused (Buffer.slice would be a view of it).
    const entry: Entry = { hash, bytes: Uint8Array.prototype.slice.call(c.buf, start, end), record };
    const e = this.byHash.get(hash);
    if (e === undefined) this.byHash.set(hash, entry);
    else if (Array.isArray(e)) e.push(entry);
    else this.byHash.set(hash, [e, entry]);
  }
}

/** A hash of the frame in c.buf[start, end), four bytes a step. */
export function frameHash(c: WireCursor, start: number, end: number): number {
  const view = c.view;
  let h = 0x811c9dc5 ^ (end - start);
  let i = start;
  for (; i + 4 <= end; i += 4) h = Math.imul(h ^ view.getInt32(i, true), 0x01000193);
  const buf = c.buf;
  for (; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h | 0;
}

function sameBytes(kept: Uint8Array, buf: Buffer, start: number, end: number): boolean {
  const n = end - start;
  if (kept.length !== n) return false;
  for (let i = 0; i < n; i++) if (kept[i] !== buf[start + i]) return false;
  return true;
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

/**
 * What the fast path appends to an annotated frame: a prepared annotation's attributes (encoded once in the plan)
 * followed by the head of duration_micros_ref, whose value is the node's own duration; one buffer per varint
 * length of that value, made on first use.
 */
import { ANNOTATION_ATTRS } from '../../vocab/attributes.js';
import type { Prepared } from './plan.js';

const DURATION_REF = Buffer.from(ANNOTATION_ATTRS.durationRefMicros, 'latin1');
/** Longest duration varint the scan reads (7 bytes). */
const MAX_VLEN = 7;
/**
 * duration_micros_ref as a Node.attr entry up to its value, by the value's varint length: field 10 tag, length,
 * AttributeProto.name, then the uint64_val (field 13) tag.
 */
const REF_HEAD: Buffer[] = [];
for (let vlen = 1; vlen <= MAX_VLEN; vlen++) {
  REF_HEAD[vlen] = Buffer.from([
    0x52,
    2 + DURATION_REF.length + 1 + vlen,
    0x0a,
    DURATION_REF.length,
    ...DURATION_REF,
    0x68,
  ]);
}

/** Flag of a tail whose DRAM part is not known (beside model/physics-checks.ts's ABOVE_CAP, BELOW_IDLE). */
export const MEMORY_UNKNOWN = 8;

export interface Tails {
  prep: Prepared;
  /** prep's figures, copied here so accounting reads one object. */
  energyJ: number;
  energyMemoryJ: number;
  durationNs: number;
  /** prep.flags, and 8 when the DRAM part is unknown (MEMORY_UNKNOWN). */
  flags: number;
  byLen: (Buffer | null)[];
}

export function tails(prep: Prepared): Tails {
  // byLen filled with nulls up front: one array shape for every Tails, which optimized code relies on.
  const byLen = new Array<Buffer | null>(MAX_VLEN + 1).fill(null);
  return {
    prep,
    energyJ: prep.energyJ,
    energyMemoryJ: prep.energyMemoryJ,
    durationNs: prep.durationNs,
    flags: prep.flags | (prep.memoryKnown ? 0 : MEMORY_UNKNOWN),
    byLen,
  };
}

/** The tail for a duration_micros_ref value of varint length vlen. */
export function tailOf(t: Tails, vlen: number): Buffer {
  let b = t.byLen[vlen];
  if (!b) {
    b = Buffer.concat([t.prep.block, REF_HEAD[vlen]]);
    t.byLen[vlen] = b;
  }
  return b;
}

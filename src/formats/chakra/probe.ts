/**
 * NodeProbe: one pass over a Node frame in place that checks everything the full decoder checks (it is the
 * decoder's first half: decode.ts builds its nodes from a probe) and notes, without building objects, the id,
 * type, name, dependencies, times, where IOInfo and attributes lie, the attributes asked for by name, and the
 * layout an engine needs to splice the frame (splice.ts). Values stay valid until the probe reads another frame.
 */
import { wrongWire } from './attribute-members.js';
import { AttributeLayout, walkAttribute, walkSimpleAttribute } from './attribute-walk.js';
import { decodeAttribute } from './decode-attribute.js';
import { checkIOInfo } from './io-info.js';
import { WIRE_LEN, WIRE_VARINT, WireError, bigintOf, canonicalVarintAt, type WireCursor } from './cursor.js';
import type { Attribute } from './types.js';
import type { AttributeNames } from './attribute-names.js';
import { U64List, readPackedInto } from './u64-list.js';
import { readCanonicalFields } from './probe-canonical.js';

export { AttributeNames } from './attribute-names.js';
export { U64List } from './u64-list.js';

/**
 * Packed dependency lists already read, by their bytes (engines/trace's DependencyMemo): see NodeProbe.knownLists.
 * find() returns the entry whose bytes equal buf[start, end) (compared in full), or −1 (and notes the miss, for
 * its owner to store the list once it has classed it).
 */
export interface KnownPackedLists {
  find(buf: Uint8Array, view: DataView, start: number, end: number): number;
  /** How many values an entry's list holds. */
  countOf(entry: number): number;
}

const NODE_FIELD_NAMES = [
  '',
  'id',
  'name',
  'type',
  'ctrl_deps',
  'data_deps',
  'start_time_micros',
  'duration_micros',
  'inputs',
  'outputs',
  'attr',
];
/** Node fields whose insertion points are kept (1–11: every schema field, and "after all of them"). */
const LAST_KNOWN_FIELD = 11;
/** varintAt's answer when there is no plain value. */
const NO_NUMBER = -1;

export class NodeProbe {
  /** The cursor of the last read (its buffer holds the frame). */
  cursor: WireCursor | null = null;
  type = 0;
  /** id, start_time_micros and duration_micros as exact numbers, or −1 with the value in the *Big field. */
  idNumber = 0;
  idBig = 0n;
  startNumber = 0;
  startBig = 0n;
  durationNumber = 0;
  durationBig = 0n;
  /** duration_micros' tag and the end of its value (−1 when absent). */
  durationTag = -1;
  durationEnd = -1;
  nameStart = -1;
  nameEnd = -1;
  readonly ctrlDeps = new U64List();
  readonly dataDeps = new U64List();
  /**
   * data_deps' bytes when one packed field of canonical varints holds them all (readers may memoise on them); −1 else.
   */
  dataDepsStart = -1;
  dataDepsEnd = -1;
  /**
   * Lists whose bytes were read (and checked) before: when set, a data_deps list found there is not decoded again
   * (the same bytes are the same canonical varints): dataDepsKnown is its entry and dataDeps stays empty (its
   * length is knownLists.countOf(dataDepsKnown)). Only for a reader that takes the list from the entry (inspect's
   * dependency graph); null (the default): every list is decoded into dataDeps.
   */
  knownLists: KnownPackedLists | null = null;
  /** The knownLists entry of this node's data_deps, −1 when they were decoded into dataDeps (or are absent). */
  dataDepsKnown = -1;
  /** IOInfo messages (payloads), −1 when absent. */
  inputsStart = -1;
  inputsEnd = -1;
  outputsStart = -1;
  outputsEnd = -1;
  /** The attribute entries (field 10, tags included) from the first to the end of the last; −1 when none. */
  attrStart = -1;
  attrEnd = -1;
  /** Every entry has a one-byte tag and they follow each other: attrStart…attrEnd holds only them. */
  attrsAsBytes = true;
  /** Fields in ascending order, only field 10 repeated: the layout the encoder writes. */
  canonical = true;
  /** Bit i: field i was written although it holds its default; bit i of unpacked: list i was written unpacked. */
  explicitDefaults = 0;
  unpacked = 0;
  /** Unknown fields as (field, tag position, end) triples, in the order met: unknown[0, unknownLength). */
  readonly unknown: number[] = [];
  unknownLength = 0;
  /** Highest slot of `names` found in this node, −1 when none; whether a name asked for came more than once. */
  maxSlotFound = -1;
  repeatedName = false;

  /** Where each field would be inserted (see insertionPoint); for the canonical reader (probe-canonical.ts). */
  readonly firstAbove = new Int32Array(LAST_KNOWN_FIELD + 1);
  /** Scratch for the attribute walks, and the highest field number the canonical reader read. */
  readonly layout = new AttributeLayout();
  lastField = 0;
  /** Per slot of `names` (and one scratch slot past them, for other names: see noteSlot). */
  private readonly scratchSlot: number;
  private readonly slotRead: Int32Array;
  private readonly slotStart: Int32Array;
  private readonly slotEnd: Int32Array;
  private readonly slotMember: Int32Array;
  private readonly slotValue: Int32Array;
  private readonly slotSimple: Uint8Array;
  private readonly slotNumber: Float64Array;
  /** Number of the current read: a slot was found in this node when slotRead[slot] equals it. */
  private reads = 0;

  /** Dependencies are kept in ctrlDeps / dataDeps (else only checked: the lists stay empty). */
  readonly keepDeps: boolean;
  private readonly canonicalPath: boolean;

  /**
   * `names`: the attributes to note by name. `keepDeps` false, for readers that do not look at dependencies.
   * `canonicalPath` false: every frame through the general walk alone (for tests comparing the two).
   */
  constructor(
    readonly names: AttributeNames | null = null,
    options: { keepDeps?: boolean; canonicalPath?: boolean } = {},
  ) {
    this.keepDeps = options.keepDeps ?? true;
    this.canonicalPath = options.canonicalPath ?? true;
    const n = names?.names.length ?? 0;
    this.scratchSlot = n;
    this.slotRead = new Int32Array(n + 1).fill(-1);
    this.slotStart = new Int32Array(n + 1);
    this.slotEnd = new Int32Array(n + 1);
    this.slotMember = new Int32Array(n + 1);
    this.slotValue = new Int32Array(n + 1);
    this.slotSimple = new Uint8Array(n + 1);
    this.slotNumber = new Float64Array(n + 1);
  }

  /** Reads the Node at c.buf[start, end). Throws WireError for anything the decoder would refuse. */
  read(c: WireCursor, start: number, end: number): void {
    this.cursor = c;
    this.reads = (this.reads + 1) | 0;
    this.type = 0;
    this.idNumber = this.startNumber = this.durationNumber = 0;
    this.durationTag = this.durationEnd = this.nameStart = this.nameEnd = this.dataDepsStart = this.dataDepsEnd = -1;
    this.dataDepsKnown = -1;
    this.inputsStart = this.inputsEnd = this.outputsStart = this.outputsEnd = this.attrStart = this.attrEnd = -1;
    this.attrsAsBytes = this.canonical = true;
    this.explicitDefaults = this.unpacked = 0;
    this.unknownLength = 0;
    this.maxSlotFound = -1;
    this.repeatedName = false;
    this.ctrlDeps.clear();
    this.dataDeps.clear();
    const firstAbove = this.firstAbove;
    const buf = c.buf;
    // The canonical fields first, then (for whatever they did not take) the general walk; it keeps the position in
    // `p`, and hands it to the cursor (c.pos) for every read but the one-byte tags.
    let p = this.canonicalPath ? readCanonicalFields(this, c, start, end) : start;
    let last = this.canonicalPath ? this.lastField : 0;
    while (p < end) {
      const tagPos = p;
      let tag = buf[p];
      if (tag >= 8 && tag < 0x80) {
        p++;
      } else {
        c.pos = p;
        tag = c.tag(end);
        p = c.pos;
      }
      const field = tag >>> 3;
      const wt = tag & 7;
      if (field > last) {
        for (let k = last; k < field && k <= LAST_KNOWN_FIELD; k++) firstAbove[k] = tagPos;
        last = field;
      } else if (field < last || field !== 10) {
        this.canonical = false;
      }
      c.pos = p;
      switch (field) {
        case 1:
        case 6:
        case 7: {
          if (wt !== WIRE_VARINT) throw wrongWire(tagPos, 'Node', field, NODE_FIELD_NAMES[field], wt, '0 (varint)');
          const packed = canonicalVarintAt(buf, p, end);
          let v: number;
          if (packed >= 0) {
            const length = packed & 7;
            v = (packed - length) / 8;
            c.pos = p + length;
          } else {
            v = c.uint64Number(end);
          }
          if (field === 1) {
            this.idNumber = v;
            if (v < 0) this.idBig = c.lastBig;
          } else if (field === 6) {
            this.startNumber = v;
            if (v < 0) this.startBig = c.lastBig;
          } else {
            this.durationNumber = v;
            if (v < 0) this.durationBig = c.lastBig;
            this.durationTag = tagPos;
            this.durationEnd = c.pos;
          }
          if (v === 0) this.explicitDefaults |= 1 << field;
          break;
        }
        case 2: {
          if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'Node', field, 'name', wt, '2 (length-delimited)');
          const stop = c.length(end);
          const from = c.pos;
          if (!c.isAscii(from, stop)) c.checkUtf8(from, stop);
          this.nameStart = from;
          this.nameEnd = c.pos = stop;
          if (stop === from) this.explicitDefaults |= 1 << field;
          break;
        }
        case 3:
          if (wt !== WIRE_VARINT) throw wrongWire(tagPos, 'Node', field, 'type', wt, '0 (varint)');
          this.type = c.int32(end);
          if (this.type === 0) this.explicitDefaults |= 1 << field;
          break;
        case 4:
        case 5: {
          const list = field === 4 ? this.ctrlDeps : this.dataDeps;
          if (field === 5) {
            // A second data_deps field: the first one's values are needed after all.
            if (this.dataDepsKnown >= 0) this.decodeKnownDataDeps();
            this.dataDepsStart = this.dataDepsEnd = -1;
          }
          if (wt === WIRE_LEN) {
            const stop = c.length(end);
            if (stop === c.pos) this.explicitDefaults |= 1 << field;
            if (this.keepDeps) readPackedInto(c, list, stop);
            else while (c.pos < stop) c.skipVarint(stop);
          } else if (wt === WIRE_VARINT) {
            if (this.keepDeps) {
              const v = c.uint64Number(end);
              list.reserve(1);
              if (v < 0) list.setBig(list.count, c.lastBig);
              list.values[list.count++] = v;
            } else {
              c.skipVarint(end);
            }
            this.unpacked |= 1 << field;
          } else {
            throw wrongWire(tagPos, 'Node', field, NODE_FIELD_NAMES[field], wt, '2 (packed) or 0');
          }
          break;
        }
        case 8:
        case 9: {
          if (wt !== WIRE_LEN)
            throw wrongWire(tagPos, 'Node', field, NODE_FIELD_NAMES[field], wt, '2 (length-delimited)');
          const stop = c.length(end);
          const from = c.pos;
          checkIOInfo(c, from, stop);
          c.pos = stop;
          if (field === 8) {
            this.inputsStart = from;
            this.inputsEnd = stop;
          } else {
            this.outputsStart = from;
            this.outputsEnd = stop;
          }
          break;
        }
        case 10: {
          if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'Node', field, 'attr', wt, '2 (length-delimited)');
          if (p !== tagPos + 1 || (this.attrStart >= 0 && tagPos !== this.attrEnd)) this.attrsAsBytes = false;
          if (this.attrStart < 0) this.attrStart = tagPos;
          const stop = c.length(end);
          const from = c.pos;
          const found = this.layout;
          if (!walkSimpleAttribute(c, from, stop, found)) walkAttribute(c, from, stop, found);
          this.noteAttribute(c, from, stop, found);
          this.attrEnd = c.pos = stop;
          break;
        }
        case 11:
          throw new WireError(
            tagPos,
            'Node field 11 is the pre-2023-10-10 (proto2-era) "attribute" field: this trace uses an old Chakra ' +
              'schema that tracewatt does not read; re-convert it with a current chakra_converter',
          );
        default:
          c.skip(end, wt, tagPos);
          this.unknown[this.unknownLength++] = field;
          this.unknown[this.unknownLength++] = tagPos;
          this.unknown[this.unknownLength++] = c.pos;
      }
      p = c.pos;
    }
    for (let k = Math.min(last, LAST_KNOWN_FIELD + 1); k <= LAST_KNOWN_FIELD; k++) firstAbove[k] = end;
  }

  /** Decodes the data_deps list that was found in knownLists (the canonical varints at dataDepsStart…dataDepsEnd). */
  private decodeKnownDataDeps(): void {
    const c = this.cursor!;
    const pos = c.pos;
    this.dataDeps.clear();
    c.pos = this.dataDepsStart;
    readPackedInto(c, this.dataDeps, this.dataDepsEnd);
    c.pos = pos;
    this.dataDepsKnown = -1;
  }

  /** Notes the attribute entry c.buf[start, end), just walked into `found`, when its name is asked for. */
  noteAttribute(c: WireCursor, start: number, end: number, found: AttributeLayout): void {
    if (this.names !== null && found.nameStart >= 0)
      this.noteSlot(this.names.slotOf(c, found.nameStart, found.nameEnd), start, end, found);
  }

  /** Notes the attribute entry c.buf[start, end), walked into `found`, under its name's slot (none: −1). */
  noteSlot(slot: number, start: number, end: number, found: AttributeLayout): void {
    // A name not asked for goes to a scratch slot past the others (never read), and every store is made on every
    // call: the same steps for every attribute, so that code compiled before the first name asked for (or the first
    // repeat) comes is not thrown away there.
    const at = slot < 0 ? this.scratchSlot : slot;
    // The first attribute of a name is the one readers see (getAttr).
    const repeated = this.slotRead[at] === this.reads;
    this.repeatedName = this.repeatedName || (repeated && slot >= 0);
    if (repeated) return;
    this.slotRead[at] = this.reads;
    this.slotStart[at] = start;
    this.slotEnd[at] = end;
    this.slotMember[at] = found.member;
    this.slotValue[at] = found.valueStart;
    this.slotSimple[at] = found.simple ? 1 : 0;
    this.slotNumber[at] = found.number;
    this.maxSlotFound = Math.max(this.maxSlotFound, slot);
  }

  /** In a canonical frame, where a new field numbered `field` would go: before the first field numbered above it. */
  insertionPoint(field: number): number {
    return this.firstAbove[Math.min(field, LAST_KNOWN_FIELD)];
  }

  get id(): bigint {
    return this.idNumber >= 0 ? bigintOf(this.idNumber) : this.idBig;
  }

  get startTimeMicros(): bigint {
    return this.startNumber >= 0 ? bigintOf(this.startNumber) : this.startBig;
  }

  get durationMicros(): bigint {
    return this.durationNumber >= 0 ? bigintOf(this.durationNumber) : this.durationBig;
  }

  get name(): string {
    return this.nameStart < 0 ? '' : this.cursor!.stringAt(this.nameStart, this.nameEnd);
  }

  /** Whether the node has an attribute of the name in this slot. */
  has(slot: number): boolean {
    return this.slotRead[slot] === this.reads;
  }

  /** Field number of the oneof member the slot's attribute holds (0: none); 0 when the node lacks it. */
  memberOf(slot: number): number {
    return this.has(slot) ? this.slotMember[slot] : 0;
  }

  /** The slot's attribute, decoded (a fresh object), or undefined when the node lacks it. */
  attributeAt(slot: number): Attribute | undefined {
    return this.has(slot) ? decodeAttribute(this.cursor!, this.slotStart[slot], this.slotEnd[slot]) : undefined;
  }

  /** Where the slot's attribute entry lies (its AttributeProto), for engines that copy or replace it. */
  attributeRange(slot: number): [number, number] {
    return [this.slotStart[slot], this.slotEnd[slot]];
  }

  /**
   * The slot's value when its attribute has the canonical layout and holds a plain varint member (int32, int64,
   * uint32, uint64 or bool) of at most 2^53 − 1; else −1 (absent, negative, another member or layout).
   */
  varintAt(slot: number): number {
    if (!this.has(slot) || this.slotSimple[slot] === 0) return NO_NUMBER;
    const m = this.slotMember[slot];
    if (m !== 7 && m !== 9 && m !== 11 && m !== 13 && m !== 27) return NO_NUMBER;
    let v = this.slotNumber[slot];
    if (v < 0) {
      const c = this.cursor!;
      c.pos = this.slotValue[slot];
      v = c.uint64Number(this.slotEnd[slot]);
    }
    // What the decoder makes of a 32-bit member wider than 32 bits (it wraps) is not this value.
    return (m === 7 && v >= 2 ** 31) || (m === 11 && v >= 2 ** 32) ? NO_NUMBER : v;
  }

  /**
   * The slot's value when its attribute has the canonical layout and holds a double_val or float_val (what the
   * decoder reads there); else undefined (absent, another member or layout).
   */
  floatAt(slot: number): number | undefined {
    if (!this.has(slot) || this.slotSimple[slot] === 0) return undefined;
    const m = this.slotMember[slot];
    if (m === 3) return this.cursor!.view.getFloat64(this.slotValue[slot], true);
    if (m === 5) return this.cursor!.view.getFloat32(this.slotValue[slot], true);
    return undefined;
  }
}

/**
 * What the replay reads of one node (classify.ts, the engine's load), in one shape from either reader:
 * - DecodedReplayNode: a ChakraNode from the full decoder (generated traces, plans, the library's callers);
 * - ProbedReplayNode: read in place from a node probe over the frame (the replay of files, replay-files.ts): no
 *   node object, no bigint per id, only the attributes the replay reads.
 * Both give the first attribute of a name as the decoder decodes it (the probe notes the first of each name, as
 * getAttr finds it); the probe's fast values (a plain varint, a double) are the values the decoder reads there. So
 * the classifier, written once against this shape, gives every node the same verdict from either reader (a test
 * replays files both ways).
 */
import {
  AttributeNames,
  attrsStillBytes,
  floatOfAttribute,
  getAttr,
  plainIntOfAttribute,
  type Attribute,
  type ChakraNode,
  type NodeProbe,
  type U64List,
} from '../../formats/chakra/index.js';
import type { FrameMemo, FrameRecord } from './frame-memo.js';
import type { NameTable } from './names.js';
import { idKey, type IdKey } from './node-table.js';
import { ANNOTATION_ATTRS } from '../../vocab/attributes.js';

/** The attributes the replay reads, by slot (the `Attr` numbers). */
export const REPLAY_ATTRS = [
  'is_cpu_op',
  'tensor_size',
  'num_ops',
  ANNOTATION_ATTRS.energyJ,
  ANNOTATION_ATTRS.frequencyMHz,
  ANNOTATION_ATTRS.energyMemoryJ,
  ANNOTATION_ATTRS.energyJP10,
  ANNOTATION_ATTRS.energyJP90,
  'comm_src',
  'comm_dst',
  'comm_size',
  'comm_tag',
  'comm_type',
  'involved_dim',
  'pg_name',
] as const;
export enum Attr {
  IsCpuOp = 0,
  TensorSize,
  NumOps,
  EnergyJ,
  FrequencyMHz,
  EnergyMemoryJ,
  EnergyP10,
  EnergyP90,
  CommSrc,
  CommDst,
  CommSize,
  CommTag,
  CommType,
  InvolvedDim,
  PgName,
}
export const REPLAY_ATTR_NAMES = new AttributeNames(REPLAY_ATTRS);

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export interface ReplayNode {
  /** A node loaded from the record of a frame met before (frame-memo.ts): the classifier copies it. Else null. */
  readonly record: FrameRecord | null;
  /** Whether the classifier may record what it made of this node (its frame is kept by its bytes). */
  readonly recordable: boolean;
  /** Records what the classifier made of this node's frame (only when recordable). */
  remember(record: FrameRecord): void;
  readonly id: bigint;
  /** The id as the node table keys it (node-table.ts idKey). */
  readonly key: IdKey;
  readonly name: string;
  readonly type: number;
  readonly durationMicros: bigint;
  /** duration_micros when at most 2^53 − 1, else −1 (read durationMicros). */
  readonly durationMicrosNumber: number;
  /** The name's id in `names`. */
  nameId(names: NameTable): number;
  /** False when the node surely has no attribute named REPLAY_ATTRS[slot] (true: it may have one). */
  mayHave(slot: Attr): boolean;
  /** The first attribute named REPLAY_ATTRS[slot], decoded; undefined when the node has none. */
  attribute(slot: Attr): Attribute | undefined;
  /**
   * A fast reading of that attribute when it holds a plain varint member (int32, int64, uint32, uint64, bool) of at
   * most 2^53 − 1: its value (a bool as 0 / 1); else −1 (read attribute()).
   */
  varint(slot: Attr): number;
  /** A fast reading of a double_val / float_val attribute; undefined otherwise (read attribute()). */
  float(slot: Attr): number | undefined;
  /** Number of data (ctrl: control) dependencies, and each one's key and id. */
  depCount(ctrl: boolean): number;
  depKey(ctrl: boolean, i: number): IdKey;
  dep(ctrl: boolean, i: number): bigint;
}

/**
 * A decoded ChakraNode as a ReplayNode (one object, pointed at each node in turn by `of`). Its attributes are found
 * in one pass over the node (the first of each name, as getAttr finds it), and its dependencies made keys once: the
 * classifier and the engine read each several times. Plain integer and float members give the fast values the
 * probe gives for the same attributes read from a frame (ProbedReplayNode), so both readers take the same path.
 */
export class DecodedReplayNode implements ReplayNode {
  private n: ChakraNode | null = null;
  readonly record = null;
  readonly recordable = false;
  remember(): void {}
  /** Whether the node's dependency keys and attributes (by slot) were found since `of`. */
  private keysFound = false;
  private readonly dataKeys: IdKey[] = [];
  private readonly ctrlKeys: IdKey[] = [];
  private attrsFound = false;
  /** Attributes still wire bytes (a lazily decoded node): each slot is found by getAttr when asked. */
  private attrsLazy = false;
  private readonly slotAttrs: (Attribute | undefined)[] = REPLAY_ATTRS.map(() => undefined);

  of(n: ChakraNode): this {
    this.n = n;
    this.keysFound = false;
    this.attrsFound = false;
    return this;
  }
  private get node(): ChakraNode {
    return this.n!;
  }
  get id(): bigint {
    return this.node.id;
  }
  get key(): IdKey {
    return idKey(this.node.id);
  }
  get name(): string {
    return this.node.name;
  }
  get type(): number {
    return this.node.type;
  }
  get durationMicros(): bigint {
    return this.node.durationMicros;
  }
  get durationMicrosNumber(): number {
    const d = this.node.durationMicros;
    return d <= MAX_SAFE && d >= 0n ? Number(d) : -1;
  }
  nameId(names: NameTable): number {
    return names.idOf(this.node.name);
  }
  mayHave(slot: Attr): boolean {
    return this.attribute(slot) !== undefined;
  }
  attribute(slot: Attr): Attribute | undefined {
    if (!this.attrsFound) this.findAttrs();
    return this.attrsLazy ? getAttr(this.node, REPLAY_ATTRS[slot]) : this.slotAttrs[slot];
  }
  varint(slot: Attr): number {
    const a = this.attribute(slot);
    return a === undefined ? -1 : plainIntOfAttribute(a);
  }
  float(slot: Attr): number | undefined {
    const a = this.attribute(slot);
    return a === undefined ? undefined : floatOfAttribute(a);
  }
  depCount(ctrl: boolean): number {
    return (ctrl ? this.node.ctrlDeps : this.node.dataDeps).length;
  }
  depKey(ctrl: boolean, i: number): IdKey {
    if (!this.keysFound) {
      this.keysFound = true;
      keysInto(this.node.dataDeps, this.dataKeys);
      keysInto(this.node.ctrlDeps, this.ctrlKeys);
    }
    return (ctrl ? this.ctrlKeys : this.dataKeys)[i];
  }
  dep(ctrl: boolean, i: number): bigint {
    return (ctrl ? this.node.ctrlDeps : this.node.dataDeps)[i];
  }

  private findAttrs(): void {
    this.attrsFound = true;
    const n = this.node;
    this.attrsLazy = attrsStillBytes(n);
    if (this.attrsLazy) return;
    const found = this.slotAttrs;
    for (let k = 0; k < found.length; k++) found[k] = undefined;
    const attrs = n.attrs;
    // Last to first: the first attribute of a name is the one kept. (A scan of the few names beats a Map look-up:
    // names are mostly the same interned strings, compared by pointer.)
    for (let i = attrs.length - 1; i >= 0; i--) {
      const name = attrs[i].name;
      for (let k = 0; k < REPLAY_ATTRS.length; k++) {
        if (REPLAY_ATTRS[k] === name) {
          found[k] = attrs[i];
          break;
        }
      }
    }
  }
}

/** The node a probe (made with REPLAY_ATTR_NAMES) has just read, as a ReplayNode; valid until it reads another. */
export class ProbedReplayNode implements ReplayNode {
  readonly record = null;
  /** Where the frame lies (in the probe's cursor) and its hash, and the memo it may be recorded in. */
  private memo: FrameMemo | null = null;
  private start = 0;
  private end = 0;
  private hash = 0;

  constructor(readonly probe: NodeProbe) {}

  /** The frame just read is c.buf[start, end), its hash `hash` (frame-memo.ts frameHash), to be recorded in `memo`. */
  frame(memo: FrameMemo | null, start: number, end: number, hash: number): this {
    this.memo = memo;
    this.start = start;
    this.end = end;
    this.hash = hash;
    return this;
  }
  get recordable(): boolean {
    const p = this.probe;
    if (this.memo === null || p.cursor!.nonCanonical || p.idNumber < 0) return false;
    for (const list of [p.dataDeps, p.ctrlDeps])
      for (let i = 0; i < list.count; i++) if (list.values[i] < 0) return false;
    return true;
  }
  remember(record: FrameRecord): void {
    this.memo!.put(this.probe.cursor!, this.start, this.end, this.hash, record);
  }

  get id(): bigint {
    return this.probe.id;
  }
  get key(): IdKey {
    const p = this.probe;
    return p.idNumber >= 0 ? p.idNumber : p.idBig.toString();
  }
  get name(): string {
    return this.probe.name;
  }
  get type(): number {
    return this.probe.type;
  }
  get durationMicros(): bigint {
    return this.probe.durationMicros;
  }
  get durationMicrosNumber(): number {
    return this.probe.durationNumber;
  }
  nameId(names: NameTable): number {
    const p = this.probe;
    return p.nameStart < 0 ? names.idOf('') : names.idOfBytes(p.cursor!, p.nameStart, p.nameEnd);
  }
  mayHave(slot: Attr): boolean {
    return this.probe.has(slot);
  }
  attribute(slot: Attr): Attribute | undefined {
    return this.probe.attributeAt(slot);
  }
  varint(slot: Attr): number {
    return this.probe.varintAt(slot);
  }
  float(slot: Attr): number | undefined {
    return this.probe.floatAt(slot);
  }
  depCount(ctrl: boolean): number {
    return (ctrl ? this.probe.ctrlDeps : this.probe.dataDeps).count;
  }
  depKey(ctrl: boolean, i: number): IdKey {
    const list = ctrl ? this.probe.ctrlDeps : this.probe.dataDeps;
    const v = list.values[i];
    return v >= 0 ? v : bigKey(list, i);
  }
  dep(ctrl: boolean, i: number): bigint {
    return (ctrl ? this.probe.ctrlDeps : this.probe.dataDeps).valueAt(i);
  }
}

/** The ids' keys into out[0, ids.length) (entries past them are left: shortening an array costs more than they). */
function keysInto(ids: bigint[], out: IdKey[]): void {
  for (let i = 0; i < ids.length; i++) out[i] = idKey(ids[i]);
}

function bigKey(list: U64List, i: number): IdKey {
  return list.valueAt(i).toString();
}

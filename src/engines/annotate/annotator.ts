/**
 * What annotating does to each frame of one rank, frames coming from the codec's frame scanner and read in place
 * by its node probe (which checks every frame as the full decoder would, compute or not).
 *
 * Fast path: frames that are not GPU compute nodes, or that stay unannotated, are copied byte for byte. An
 * annotated frame is spliced (the codec's splice sink): duration_micros (field 7) replaced, the annotation
 * attributes (pre-encoded once per kernel and clock in the plan) inserted after the node's last attribute. That is
 * exactly what decoding, appending the attributes and re-encoding produces, because the codec re-encodes every
 * canonical frame byte for byte. Frames whose layout is not canonical (fields out of order or repeated, unusual
 * integer members on the attributes read, attributes of an earlier annotation) go through the full decoder and
 * encoder instead (`slowPathNodes`).
 */
import { Diagnostics } from '../../diagnostics.js';
import {
  attrBool,
  attrInt,
  ByteSink,
  encodeNodeFrame,
  getAttr,
  makeAttr,
  NodeType,
  setAttr,
  type ChakraNode,
} from '../../formats/chakra/index.js';
import { NodeDecoder } from '../../formats/chakra/decode.js';
import type { FrameScanner } from '../../formats/chakra/frames.js';
import { AttributeNames, NodeProbe } from '../../formats/chakra/probe.js';
import { FrameEdit, viewOf } from '../../formats/chakra/splice.js';
import { varintLen } from '../../formats/chakra/encode.js';
import type { RawOut } from './out.js';
import { FLUSH_BYTES, RUN_BYTES, type ThreadCache } from './thread-cache.js';
import { MATCH_LEVELS, type NameEntry, type NameTable } from './name-table.js';
import { PairMemo } from './pair-memo.js';
import { MEMORY_UNKNOWN, tailOf, tails, type Tails } from './tails.js';
import {
  ABOVE_CAP,
  BELOW_BEST_J_PER_FLOP,
  BELOW_IDLE,
  describeFlag,
  energyPerFlopFlag,
  PHYSICS_CODES,
} from '../../model/physics-checks.js';
import { ANNOTATION_ATTRS, UTIL_PREFIX } from '../../vocab/attributes.js';
import { durationPrepared, rooflinePrepared, type AnnotatePlan } from './plan.js';
import type { NameCount, RankAnnotation } from './types.js';

const ROOFLINE_CACHE = 50_000;
/**
 * Frames per call of frames(): a few hundred calls per chunk tier the loop up through ordinary calls, where one
 * call per chunk had it compiled twice, on stack (OSR) and then whole.
 */
const FRAMES_PER_CALL = 256;
/** Attribute slots of the probe: the three the fast path reads, then those of an earlier annotation. */
const IS_CPU_OP = 0;
const NUM_OPS = 1;
const TENSOR_SIZE = 2;
const FIRST_OURS = 3;
/** The longest original duration the fast path carries over as duration_micros_ref (a 7-byte varint). */
const MAX_FAST_DURATION = 2 ** 49;
const DURATION_TAG = 0x38; // field 7, varint
const COMP = NodeType.COMP_NODE;
/** Flags of a plan entry (entryFlags). */
const BY_DURATION = 1;
const MEMORY = 2;
/** Names of memory copy / set nodes (Kineto's Memcpy …, Memset …; the plan's memory entries match them too). */
const MEMORY_NODE = /^mem(cpy|set)\b/i;
/** Duration annotations kept per rank before the memo starts over. */
const DURATION_CACHE = 50_000;

/** The attribute names a rank's probe looks for (see the slots above). */
function probeNames(components: string[]): AttributeNames {
  return new AttributeNames([
    'is_cpu_op',
    'num_ops',
    'tensor_size',
    ...Object.values(ANNOTATION_ATTRS),
    ...components.map((c) => UTIL_PREFIX + c),
  ]);
}

export class RankAnnotator {
  readonly diag = new Diagnostics();
  private readonly probe: NodeProbe;
  private readonly decoder = new NodeDecoder();
  private readonly edit = new FrameEdit();
  /** The thread's node names, with this rank's counts. */
  private readonly table: NameTable;
  /** Roofline annotations by num_ops and tensor_size (null: none can be made), in front of the thread's. */
  readonly roofline = new PairMemo<Tails[] | null>(ROOFLINE_CACHE);
  /** Per plan entry, its annotations with their encoded tails. */
  readonly entryTails: Tails[][];
  /** Per plan entry, BY_DURATION and MEMORY. */
  private readonly entryFlags: Uint8Array;
  /** Annotations from a node's own duration, by that duration (µs). */
  private readonly byDuration = new PairMemo<Tails[]>(DURATION_CACHE);
  readonly sink = new ByteSink(1 << 12);
  readonly energyJ: Float64Array;
  readonly energyMemoryJ: Float64Array;
  readonly durationNs: Float64Array;
  /** Matches per level of MATCH_LEVELS (a typed array: its map never changes under optimized code). */
  readonly matched = new Float64Array(MATCH_LEVELS.length);
  readonly res: Omit<RankAnnotation, 'perFrequency' | 'unmatchedNames' | 'matchRate' | 'unmatched'> = {
    rank: 0,
    file: '',
    nodes: 0,
    compNodes: 0,
    cpuOps: 0,
    gpuCompNodes: 0,
    matched: { exact: 0, normalized: 0, base: 0, op: 0 },
    memcpy: 0,
    byInvocation: 0,
    roofline: 0,
    estimated: 0,
    untouched: 0,
    slowPathNodes: 0,
    memorySplitUnknown: 0,
    physics: { aboveCap: 0, belowIdle: 0, belowBestEnergyPerFlop: 0 },
  };

  constructor(
    readonly plan: AnnotatePlan,
    readonly outs: RawOut[],
    readonly fast: boolean,
    private readonly cache: ThreadCache,
    rank = 0,
  ) {
    this.probe = new NodeProbe(probeNames(plan.components), { keepDeps: false });
    this.table = cache.namesOf(plan, rank);
    this.entryFlags = Uint8Array.from(plan.entries, (e) => (e.byDuration ? BY_DURATION : 0) | (e.memory ? MEMORY : 0));
    this.table.startRank();
    this.entryTails = cache.entryTailsOf(plan, () => plan.entries.map((e) => e.perFreq.map(tails)));
    this.energyJ = new Float64Array(plan.frequenciesMHz.length);
    this.energyMemoryJ = new Float64Array(plan.frequenciesMHz.length);
    this.durationNs = new Float64Array(plan.frequenciesMHz.length);
  }

  /**
   * The annotation of a GPU compute node of `durationMicros` (its own, at the reference clock), or null to leave it
   * untouched (counted).
   */
  private choose(st: NameEntry, flops: number, bytes: number, durationMicros: number): Tails[] | null {
    const r = this.res;
    r.gpuCompNodes++;
    if (st.list) {
      this.matched[st.level]++;
      if (st.list.length > 1) r.byInvocation++;
      const index = st.list[st.next++ % st.list.length];
      const flags = this.entryFlags[index];
      if (flags & MEMORY) r.memcpy++;
      if (!(flags & BY_DURATION)) return this.entryTails[index];
      return this.fromDuration(durationMicros);
    }
    st.unmatched++;
    // A memcpy/memset with a measured duration keeps it: its bytes often cross PCIe, which the roofline (HBM) misses.
    if (flops > 0 || (bytes > 0 && !(durationMicros > 0 && MEMORY_NODE.test(st.name)))) {
      let prep = this.roofline.get(flops, bytes);
      if (prep === undefined) {
        if (this.plan.rooflineUnavailable) {
          prep = null;
          this.diag.add('roofline-unavailable', {
            message: `${this.plan.rooflineUnavailable}: nodes with num_ops/tensor_size left untouched`,
          });
        } else {
          prep = this.rooflineTails(flops, bytes);
        }
        this.roofline.set(flops, bytes, prep);
      }
      if (prep) {
        r.roofline++;
        return prep;
      }
    }
    return this.fromDuration(durationMicros);
  }

  /** The node's own duration and the plan's assumed power (counted as estimated); null (untouched) for a 0 µs node. */
  private fromDuration(durationMicros: number): Tails[] | null {
    if (!(durationMicros > 0)) {
      this.res.untouched++;
      return null;
    }
    this.res.estimated++;
    let prep = this.byDuration.get(durationMicros, 0);
    if (prep === undefined) {
      prep = durationPrepared(this.plan, durationMicros).map(tails);
      this.byDuration.set(durationMicros, 0, prep);
    }
    return prep;
  }

  // Apart from choose(): a closure there would make every call allocate the context it captures.
  private rooflineTails(flops: number, bytes: number): Tails[] {
    const plan = this.plan;
    return this.cache.rooflineOf(plan, flops, bytes, () => rooflinePrepared(plan, flops, bytes).map(tails));
  }

  /** Adds a node's annotation to the totals; counts (and warns of) a figure outside the physics bounds. */
  private account(prep: Tails[], flops: number, name: string): void {
    let flags = 0;
    for (let i = 0; i < prep.length; i++) {
      const t = prep[i];
      this.energyJ[i] += t.energyJ;
      this.energyMemoryJ[i] += t.energyMemoryJ;
      this.durationNs[i] += t.durationNs;
      flags |= t.flags;
      if (flops > 0) flags |= energyPerFlopFlag(t.energyJ, flops, this.plan.bestEnergyPerFlop);
    }
    if (flags === 0) return;
    if (flags & MEMORY_UNKNOWN) this.res.memorySplitUnknown++;
    if (flags & (ABOVE_CAP | BELOW_IDLE | BELOW_BEST_J_PER_FLOP)) this.physics(prep, flags, flops, name);
  }

  /** Counts a node once per bound it breaks (at any clock) and keeps the first few messages. */
  private physics(prep: Tails[], flags: number, flops: number, name: string): void {
    const p = this.res.physics;
    const plan = this.plan;
    const checks: [number, keyof typeof p, string][] = [
      [ABOVE_CAP, 'aboveCap', PHYSICS_CODES.aboveCap],
      [BELOW_IDLE, 'belowIdle', PHYSICS_CODES.belowIdle],
      [BELOW_BEST_J_PER_FLOP, 'belowBestEnergyPerFlop', PHYSICS_CODES.belowBestEnergyPerFlop],
    ];
    for (const [flag, key, code] of checks) {
      if (!(flags & flag)) continue;
      p[key]++;
      const i = prep.findIndex((t) =>
        flag === BELOW_BEST_J_PER_FLOP ? energyPerFlopFlag(t.energyJ, flops, plan.bestEnergyPerFlop) : t.flags & flag,
      );
      const t = prep[Math.max(0, i)];
      this.diag.add(code, {
        message: describeFlag(
          flag,
          name,
          { powerW: t.prep.powerW, energyJ: t.energyJ, flops },
          plan.bounds[Math.max(0, i)],
          plan.bestEnergyPerFlop,
        ),
      });
    }
  }

  /** Frames copied unchanged are collected into one run of the input and copied together. */
  private pendingBuf: Buffer | null = null;
  private pendingView: DataView | null = null;
  private pendingS = 0;
  private pendingE = 0;

  /** Whether an output has FLUSH_BYTES buffered. */
  due(): boolean {
    for (let i = 0; i < this.outs.length; i++) if (this.outs[i].pos >= FLUSH_BYTES) return true;
    return false;
  }

  private copyAll(buf: Buffer, dv: DataView, fs: number, e: number): void {
    // A run is written once it reaches RUN_BYTES, so that an output holds at most that past FLUSH_BYTES.
    if (this.pendingBuf === buf && this.pendingE === fs && e - this.pendingS <= RUN_BYTES) {
      this.pendingE = e;
      return;
    }
    this.flushPending();
    this.pendingBuf = buf;
    this.pendingView = dv;
    this.pendingS = fs;
    this.pendingE = e;
  }

  /** Writes the run of unchanged frames; called before anything else is written and before the input moves on. */
  flushPending(): void {
    const b = this.pendingBuf;
    if (!b) return;
    for (const o of this.outs) o.copy(b, this.pendingView!, this.pendingS, this.pendingE);
    this.pendingBuf = null;
  }

  /**
   * Annotates up to FRAMES_PER_CALL whole frames of the scanner; false once it holds no more (true: stopped at the
   * limit, or because an output has a flush's worth buffered, so output buffers stay bounded). A method, not a
   * closure per rank, so that its optimized code serves every rank of the thread.
   */
  frames(frames: FrameScanner): boolean {
    for (let k = 0; k < FRAMES_PER_CALL; k++) {
      if (this.due()) return true;
      if (!frames.next()) return false;
      this.node(frames);
    }
    return true;
  }

  /**
   * The first frame, the metadata (checked by the scanner) or a node; false while the scanner holds none. Apart
   * from frames(): a branch taken once per rank, before that loop has type feedback, would deoptimize it every rank.
   */
  first(frames: FrameScanner): boolean {
    if (!frames.next()) return false;
    if (frames.isMetadata) this.copyAll(frames.buf, frames.cursor.view, frames.frameStart, frames.end);
    else this.node(frames);
    return true;
  }

  /** One node frame: the scanner's current frame. */
  private node(frames: FrameScanner): void {
    const buf = frames.buf;
    // The cursor's view of the scanner's buffer, made when the buffer changed.
    const dv = frames.cursor.view;
    const fs = frames.frameStart;
    const s = frames.start;
    const e = frames.end;
    const probe = this.probe;
    this.res.nodes++;
    probe.read(frames.cursor, s, e);
    if (probe.type !== COMP) return this.copyAll(buf, dv, fs, e);
    // The fast path's conditions: a canonical frame, no earlier annotation, plain values of the attributes it reads.
    const isCpu = probe.has(IS_CPU_OP) ? probe.varintAt(IS_CPU_OP) : 0;
    const flops = probe.has(NUM_OPS) ? probe.varintAt(NUM_OPS) : 0;
    const bytes = probe.has(TENSOR_SIZE) ? probe.varintAt(TENSOR_SIZE) : 0;
    const ref = probe.durationTag >= 0 ? probe.durationNumber : 0;
    if (
      !this.fast ||
      !probe.canonical ||
      probe.maxSlotFound >= FIRST_OURS ||
      isCpu < 0 ||
      flops < 0 ||
      bytes < 0 ||
      !(ref >= 0 && ref < MAX_FAST_DURATION)
    ) {
      return this.slow(frames, buf, dv);
    }
    this.res.compNodes++;
    if (isCpu !== 0) {
      this.res.cpuOps++;
      return this.copyAll(buf, dv, fs, e);
    }
    const st =
      probe.nameStart < 0 ? this.table.get(dv, buf, 0, 0) : this.table.get(dv, buf, probe.nameStart, probe.nameEnd);
    const prep = this.choose(st, flops, bytes, ref);
    if (!prep) return this.copyAll(buf, dv, fs, e);
    this.account(prep, flops, st.name);
    const edit = this.edit;
    edit.cut = probe.durationTag >= 0 ? probe.durationTag : probe.insertionPoint(7);
    edit.resume = probe.durationTag >= 0 ? probe.durationEnd : edit.cut;
    edit.at = probe.insertionPoint(10);
    edit.tag = DURATION_TAG;
    edit.trailer = ref;
    const refLength = varintLen(ref);
    this.flushPending();
    for (let i = 0; i < this.outs.length; i++) {
      const t = prep[i];
      edit.value = t.prep.durationMicros;
      edit.bytes = tailOf(t, refLength);
      this.outs[i].splice(buf, dv, s, e, edit);
    }
  }

  /** A compute node through the full decoder and encoder. */
  private slow(frames: FrameScanner, buf: Buffer, dv: DataView): void {
    const { frameStart: fs, start: s, end: e } = frames;
    const node = this.decoder.decode(frames.cursor, s, e);
    this.res.compNodes++;
    const previous = stripAnnotation(node, this.plan.components);
    if (previous)
      this.diag.add('already-annotated', {
        nodeId: node.id,
        message:
          `${frames.file}: node ${node.id} was annotated before; its annotation is replaced (original duration ` +
          `${node.durationMicros} µs kept as reference)`,
      });
    if (attrBool(node, 'is_cpu_op', this.diag)) {
      this.res.cpuOps++;
      return this.copyAll(buf, dv, fs, e);
    }
    const num = (name: string) => {
      const v = attrInt(node, name, this.diag);
      return v !== undefined && v > 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : 0;
    };
    const nameBytes = Buffer.from(node.name, 'utf8');
    const st = this.table.get(viewOf(nameBytes), nameBytes, 0, nameBytes.length);
    const ownMicros =
      node.durationMicros > 0n && node.durationMicros < BigInt(MAX_FAST_DURATION) ? Number(node.durationMicros) : 0;
    const flops = num('num_ops');
    const prep = this.choose(st, flops, num('tensor_size'), ownMicros);
    if (!prep) {
      if (!previous) return this.copyAll(buf, dv, fs, e);
      for (const o of this.outs) this.encode(o, node);
      return;
    }
    this.res.slowPathNodes++;
    this.account(prep, flops, node.name);
    const attrs = node.attrs;
    const ref = node.durationMicros;
    for (let i = 0; i < this.outs.length; i++) {
      node.attrs = attrs.slice();
      for (const a of prep[i].prep.attrs) setAttr(node, a);
      setAttr(node, makeAttr(ANNOTATION_ATTRS.durationRefMicros, 'uint64_val', ref));
      node.durationMicros = BigInt(prep[i].prep.durationMicros);
      this.encode(this.outs[i], node);
    }
    node.attrs = attrs;
    node.durationMicros = ref;
  }

  private encode(o: RawOut, node: ChakraNode): void {
    this.flushPending();
    this.sink.reset();
    encodeNodeFrame(this.sink, node);
    o.put(this.sink.view());
  }

  /** Unmatched names in order of first appearance. */
  private unmatchedNames(): NameCount[] {
    const out: NameCount[] = [];
    for (const st of this.table.usedNames()) if (st.unmatched) out.push({ name: st.name, count: st.unmatched });
    return out;
  }

  finish(outFiles: string[], topCandidates: (list: NameCount[]) => NameCount[]): RankAnnotation {
    const r = this.res;
    MATCH_LEVELS.forEach((l, i) => (r.matched[l] = this.matched[i]));
    const matched = r.matched.exact + r.matched.normalized + r.matched.base + r.matched.op;
    return {
      ...r,
      matched: { ...r.matched },
      unmatched: r.gpuCompNodes - matched,
      matchRate: r.gpuCompNodes > 0 ? matched / r.gpuCompNodes : null,
      unmatchedNames: topCandidates(this.unmatchedNames()),
      physics: { ...r.physics },
      perFrequency: this.plan.frequenciesMHz.map((f, i) => ({
        frequencyMHz: f,
        file: outFiles[i],
        computeEnergyJ: this.energyJ[i],
        memoryEnergyJ: this.energyMemoryJ[i],
        annotatedDurationNs: this.durationNs[i],
      })),
    };
  }
}

/**
 * Removes an earlier tracewatt annotation from a node (the attributes it added, duration_micros restored from
 * duration_micros_ref). Returns false, changing nothing, when the node carries no such annotation.
 */
export function stripAnnotation(node: ChakraNode, components?: string[]): boolean {
  const ref = getAttr(node, ANNOTATION_ATTRS.durationRefMicros);
  if (!ref || !getAttr(node, ANNOTATION_ATTRS.estimatedFrom)) return false;
  const refValue = attrInt(node, ANNOTATION_ATTRS.durationRefMicros);
  if (refValue === undefined || refValue < 0n) return false;
  const ours = new Set<string>(Object.values(ANNOTATION_ATTRS));
  const utils = components ? new Set(components.map((c) => UTIL_PREFIX + c)) : null;
  node.attrs = node.attrs.filter(
    (a) => !(ours.has(a.name) || (utils ? utils.has(a.name) : a.name.startsWith(UTIL_PREFIX))),
  );
  node.durationMicros = refValue;
  return true;
}

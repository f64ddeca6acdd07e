/**
 * Annotates one rank file, streaming: frames are read in 1 MiB chunks and written to one output per target clock
 * through bounded buffers, so memory does not grow with the trace.
 *
 * Fast path: a node frame is scanned at the wire level, not decoded. Frames that are not GPU compute nodes, or
 * that stay unannotated, are copied byte for byte. An annotated frame is spliced: duration_micros (field 7)
 * replaced, the annotation attributes (pre-encoded once per kernel and clock in the plan) inserted after the
 * node's last attribute. That is exactly what decoding, appending the attributes and re-encoding produces, because
 * the codec re-encodes every canonical frame byte for byte. Frames whose layout is not canonical (fields out of
 * order, unusual integer members on the attributes read, attributes of an earlier annotation) go through the full
 * decoder and encoder instead (`slowPathNodes`).
 */
import { Diagnostics, type DiagnosticSummary } from '../../diagnostics.js';
import { ChakraDecodeError, InputError, TracewattError } from '../../errors.js';
import {
  attrBool, attrInt, ByteSink, encodeNodeFrame, getAttr, makeAttr, MAX_FRAME_BYTES, NodeType, setAttr, type ChakraNode,
} from '../../formats/chakra/index.js';
import { decodeNode, isMetadataFrame } from '../../formats/chakra/decode.js';
import { openTraceBytes } from '../../formats/chakra/reader.js';
import { WireError } from '../../formats/chakra/cursor.js';
import { varintLen } from '../../formats/chakra/encode.js';
import { RawOut, viewOf } from './out.js';
import { AttrNames, PASS, rv, S, scanNode, SLOW, vpos } from './scan.js';
import { FLUSH_BYTES, RUN_BYTES, ThreadCache } from './thread-cache.js';
import { MATCH_LEVELS, type NameEntry, type NameTable } from './name-table.js';
import { PairMemo } from './pair-memo.js';
import { tailOf, tails, type Tails } from './tails.js';
import { InputWindow } from './window.js';
import { ANNOTATION_ATTRS, rooflinePrepared, UTIL_PREFIX, type AnnotatePlan } from './plan.js';
import type { NameCount, RankAnnotation } from './types.js';

export interface RankTask {
  rank: number;
  file: string;
  /** One output file per target clock of the plan, in the same order. */
  outFiles: string[];
  /** false: every annotated node through the full decoder/encoder (for tests comparing the two paths). */
  fastPath?: boolean;
}

export interface RankOutcome {
  /**
   * unmatchedNames holds the candidates for the top 20, unordered: annotateTrace orders and cuts them with
   * topNames, on the calling thread, so that a worker never starts the ICU collator (~15 ms) for it.
   */
  result: RankAnnotation;
  diagnostics: DiagnosticSummary[];
}

const TOP_NAMES = 20;

/** Most frequent first, ties in locale order of the name; at most 20. */
export function topNames(list: NameCount[]): NameCount[] {
  return list.sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)).slice(0, TOP_NAMES);
}

/** The names that can be among topNames(list) whatever the order of ties: those counted at least as often as the 20th. */
function topCandidates(list: NameCount[]): NameCount[] {
  if (list.length <= TOP_NAMES) return list;
  const least = list.map((n) => n.count).sort((a, b) => b - a)[TOP_NAMES - 1];
  return list.filter((n) => n.count >= least);
}

const ROOFLINE_CACHE = 50_000;
/**
 * Frames per call of frames(): a few hundred calls per chunk tier the loop up through ordinary calls, where one
 * call per chunk had it compiled twice, on stack (OSR) and then whole.
 */
const FRAMES_PER_CALL = 256;

class RankAnnotator {
  readonly diag = new Diagnostics();
  readonly names: AttrNames;
  /** The thread's node names, with this rank's counts. */
  private readonly table: NameTable;
  /** Roofline annotations by num_ops and tensor_size (null: none can be made), in front of the thread's. */
  readonly roofline = new PairMemo<Tails[] | null>(ROOFLINE_CACHE);
  /** Per plan entry, its annotations with their encoded tails. */
  readonly entryTails: Tails[][];
  readonly sink = new ByteSink(1 << 12);
  readonly energyJ: Float64Array;
  readonly durationNs: Float64Array;
  /** Matches per level of MATCH_LEVELS (a typed array: its map never changes under optimized code). */
  readonly matched = new Float64Array(MATCH_LEVELS.length);
  readonly res: Omit<RankAnnotation, 'perFrequency' | 'unmatchedNames' | 'matchRate'> = {
    rank: 0, file: '', nodes: 0, compNodes: 0, cpuOps: 0, gpuCompNodes: 0,
    matched: { exact: 0, normalized: 0, base: 0, op: 0 }, byInvocation: 0, roofline: 0, untouched: 0, slowPathNodes: 0,
  };

  constructor(readonly plan: AnnotatePlan, readonly outs: RawOut[], readonly fast: boolean, private readonly cache: ThreadCache) {
    this.names = new AttrNames(plan.components);
    this.table = cache.namesOf(plan);
    this.table.startRank();
    this.entryTails = cache.entryTailsOf(plan, () => plan.entries.map((e) => e.perFreq.map(tails)));
    this.energyJ = new Float64Array(plan.frequenciesMHz.length);
    this.durationNs = new Float64Array(plan.frequenciesMHz.length);
  }

  /** The annotation of a GPU compute node, or null to leave it untouched (counted). */
  private choose(st: NameEntry, flops: number, bytes: number): Tails[] | null {
    const r = this.res;
    r.gpuCompNodes++;
    if (st.list) {
      this.matched[st.level]++;
      if (st.list.length > 1) r.byInvocation++;
      return this.entryTails[st.list[st.next++ % st.list.length]];
    }
    st.unmatched++;
    if (flops > 0 || bytes > 0) {
      let prep = this.roofline.get(flops, bytes);
      if (prep === undefined) {
        if (this.plan.rooflineUnavailable) {
          prep = null;
          this.diag.add('roofline-unavailable', { message: `${this.plan.rooflineUnavailable}: nodes with num_ops/tensor_size left untouched` });
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
    r.untouched++;
    return null;
  }

  // Apart from choose(): a closure there would make every call allocate the context it captures.
  private rooflineTails(flops: number, bytes: number): Tails[] {
    const plan = this.plan;
    return this.cache.rooflineOf(plan, flops, bytes, () => rooflinePrepared(plan, flops, bytes).map(tails));
  }

  private account(prep: Tails[]): void {
    for (let i = 0; i < prep.length; i++) {
      this.energyJ[i] += prep[i].energyJ;
      this.durationNs[i] += prep[i].durationNs;
    }
  }

  /** Frames copied unchanged are collected into one run of the input window and copied together. */
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

  /** Writes the run of unchanged frames; called before anything else is written and at the end of each chunk. */
  flushPending(): void {
    const b = this.pendingBuf;
    if (!b) return;
    for (const o of this.outs) o.copy(b, this.pendingView!, this.pendingS, this.pendingE);
    this.pendingBuf = null;
  }

  /** One node frame: buf[fs, e) is the whole frame (length prefix included), buf[s, e) the message; dv views buf. */
  node(buf: Buffer, dv: DataView, fs: number, s: number, e: number, frameIndex: number, offset: number, file: string): void {
    this.res.nodes++;
    const scan = this.fast ? scanNode(buf, dv, s, e, this.names) : SLOW;
    if (scan === PASS) return this.copyAll(buf, dv, fs, e);
    if (scan === SLOW) return this.slow(buf, dv, fs, s, e, frameIndex, offset, file);
    this.res.compNodes++;
    if (S.isCpu) {
      this.res.cpuOps++;
      return this.copyAll(buf, dv, fs, e);
    }
    const st = S.nameS < 0 ? this.table.get(dv, buf, 0, 0) : this.table.get(dv, buf, S.nameS, S.nameE);
    const prep = this.choose(st, S.flops, S.bytes);
    if (!prep) return this.copyAll(buf, dv, fs, e);
    this.account(prep);
    const cut = S.durS >= 0 ? S.durS : S.insDur;
    const resume = S.durS >= 0 ? S.durE : S.insDur;
    const insAttr = S.insAttr;
    const ref = S.durVal;
    const vlen = varintLen(ref);
    const fixed = (cut - s) + (insAttr - resume) + (e - insAttr) + vlen;
    this.flushPending();
    for (let i = 0; i < this.outs.length; i++) {
      const o = this.outs[i];
      const t = prep[i];
      const dur = t.prep.durationMicros;
      const tail = tailOf(t, vlen);
      const len = fixed + 1 + t.durLen + tail.length;
      if (dur <= Number.MAX_SAFE_INTEGER) {
        o.annotated(len, buf, dv, s, cut, resume, insAttr, e, dur, t.durLen, tail, ref);
        continue;
      }
      // A duration past 2^53 µs: the codec's writer, as the full encoder would write it.
      o.ensure(len + 10);
      o.varint(len);
      o.copy(buf, dv, s, cut);
      o.buf[o.pos++] = 0x38; // field 7, varint
      o.varint(dur);
      o.copy(buf, dv, resume, insAttr);
      o.put(tail);
      o.varint(ref);
      if (insAttr !== e) o.copy(buf, dv, insAttr, e);
    }
  }

  private slow(buf: Buffer, dv: DataView, fs: number, s: number, e: number, frameIndex: number, offset: number, file: string): void {
    let node: ChakraNode;
    try {
      node = decodeNode(buf, s, e);
    } catch (err) {
      if (err instanceof WireError) {
        throw new ChakraDecodeError({ file, offset: offset + (err.position - fs), frameIndex }, `${err.problem} (frame starts at byte ${offset})`);
      }
      throw err;
    }
    if (node.type !== NodeType.COMP_NODE) return this.copyAll(buf, dv, fs, e);
    this.res.compNodes++;
    const previous = stripAnnotation(node, this.plan.components);
    if (previous) this.diag.add('already-annotated', { nodeId: node.id, message: `${file}: node ${node.id} was annotated before; its annotation is replaced (original duration ${node.durationMicros} µs kept as reference)` });
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
    const prep = this.choose(st, num('num_ops'), num('tensor_size'));
    if (!prep) {
      if (!previous) return this.copyAll(buf, dv, fs, e);
      for (const o of this.outs) this.encode(o, node);
      return;
    }
    this.res.slowPathNodes++;
    this.account(prep);
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
    const v = this.sink.view();
    o.put(v);
  }

  /** Unmatched names in order of first appearance. */
  private unmatchedNames(): NameCount[] {
    const out: NameCount[] = [];
    for (const st of this.table.usedNames()) if (st.unmatched) out.push({ name: st.name, count: st.unmatched });
    return out;
  }

  /** Frames read so far: the index of the next one. */
  frameIndex = 0;

  /**
   * Annotates the whole frames of the window from win.start on; returns where it stopped: at a frame the window
   * cuts (or a bad length prefix), or early when an output has a flush's worth buffered, so output buffers stay
   * bounded. A method, not a closure per rank, so that its optimized code serves every rank of the thread; all
   * else is left to the caller, since code after a loop that optimized (OSR) code has never left deoptimizes it.
   */
  frames(win: InputWindow): number {
    const buf = win.buf;
    const dv = win.view;
    const end = buf.length;
    const file = this.res.file;
    let p = win.start;
    const stop = this.frameIndex + FRAMES_PER_CALL;
    while (p < end && this.frameIndex < stop && !this.due()) {
      const len = rv(buf, p, end);
      const q = vpos;
      const fe = q + len;
      if (!(len <= MAX_FRAME_BYTES) || fe > end) break;
      this.node(buf, dv, p, q, fe, this.frameIndex, win.offset + p, file);
      this.frameIndex++;
      p = fe;
    }
    return p;
  }

  /**
   * The first frame, the metadata or a node; returns where it ends, or win.start while the window cuts it. Apart
   * from frames(): a branch taken once per rank, before that loop has type feedback, would deoptimize it every rank.
   */
  first(win: InputWindow): number {
    const buf = win.buf;
    const p = win.start;
    const len = rv(buf, p, buf.length);
    const q = vpos;
    const fe = q + len;
    if (!(len <= MAX_FRAME_BYTES) || fe > buf.length) return p;
    if (len > 0 && isMetadataFrame(buf, q, fe)) this.copyAll(buf, win.view, p, fe);
    else this.node(buf, win.view, p, q, fe, 0, win.offset + p, this.res.file);
    this.frameIndex = 1;
    return fe;
  }

  /** The window ends at p inside a frame, or at a bad length prefix: an error, or (not final) wait for more bytes. */
  incomplete(win: InputWindow, p: number, final: boolean): void {
    const buf = win.buf;
    const end = buf.length;
    const fail = (problem: string): never => {
      throw new ChakraDecodeError({ file: this.res.file, offset: win.offset + p, frameIndex: this.frameIndex }, problem);
    };
    const len = rv(buf, p, end);
    if (Number.isNaN(len)) {
      if (end - p >= 5 && !final) fail('frame length prefix is longer than 5 bytes (corrupt data)');
      if (final) fail(`file ends inside a frame length prefix (${end - p} byte(s) left): truncated trace`);
      return;
    }
    if (len > MAX_FRAME_BYTES) fail(`frame length ${len} exceeds ${MAX_FRAME_BYTES} bytes: corrupt length prefix`);
    if (final) fail(`frame length ${len} runs past end of file (${end - vpos} bytes left): truncated trace`);
  }

  finish(outFiles: string[]): RankAnnotation {
    const r = this.res;
    MATCH_LEVELS.forEach((l, i) => (r.matched[l] = this.matched[i]));
    const matched = r.matched.exact + r.matched.normalized + r.matched.base + r.matched.op;
    return {
      ...r,
      matched: { ...r.matched },
      matchRate: r.gpuCompNodes > 0 ? matched / r.gpuCompNodes : null,
      unmatchedNames: topCandidates(this.unmatchedNames()),
      perFrequency: this.plan.frequenciesMHz.map((f, i) => ({ frequencyMHz: f, file: outFiles[i], computeEnergyJ: this.energyJ[i], annotatedDurationNs: this.durationNs[i] })),
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
  node.attrs = node.attrs.filter((a) => !(ours.has(a.name) || (utils ? utils.has(a.name) : a.name.startsWith(UTIL_PREFIX))));
  node.durationMicros = refValue;
  return true;
}

/**
 * A file-system failure of a rank (an unwritable output, a folder that is a file, a full disk) as the InputError
 * naming the path that the CLI prints as one line; other errors as they are. The same in every thread.
 */
export function rankFailure(e: unknown): unknown {
  const err = e as NodeJS.ErrnoException;
  if (!(e instanceof TracewattError) && err?.code && /^E[A-Z]+$/.test(err.code) && err.path) {
    return new InputError(`${err.path}: cannot write (${err.code})`);
  }
  return e;
}

/**
 * Streams one rank file through the plan into `task.outFiles`. A thread annotating several ranks passes them one
 * `cache` (buffers, encoded annotations). `yieldOften`: let the event loop run between stretches of work (about
 * every megabyte written), for a thread that also dispatches ranks to workers and reports progress.
 */
export async function annotateRankFile(
  task: RankTask, plan: AnnotatePlan, onBytes?: (bytesRead: number) => void, cache = new ThreadCache(), yieldOften = false,
): Promise<RankOutcome> {
  const { file } = task;
  if (task.outFiles.length !== plan.frequenciesMHz.length) throw new InputError(`rank ${task.rank}: ${task.outFiles.length} output files for ${plan.frequenciesMHz.length} clocks`);
  const source = await openTraceBytes(file, { reuseBuffers: cache.buffers });
  const chunks = source.chunks;
  const outs: RawOut[] = [];
  const win = new InputWindow(cache.buffers);
  try {
    for (const f of task.outFiles) outs.push(await RawOut.open(f, cache.buffers));
    const ann = new RankAnnotator(plan, outs, task.fastPath !== false, cache);
    ann.res.rank = task.rank;
    ann.res.file = file;
    /** One stretch of frames, then what is left judged, then the run of unchanged frames written. */
    const step = (final: boolean): boolean => {
      if (ann.frameIndex === 0) win.start = ann.first(win);
      for (let from = -1; ann.frameIndex > 0 && win.start !== from && win.start < win.buf.length && !ann.due(); ) {
        from = win.start;
        win.start = ann.frames(win);
      }
      const p = win.start;
      // frames() stops before reading a frame once this holds, and a frame it cannot finish writes nothing.
      const due = ann.due();
      if (!due && p < win.buf.length) ann.incomplete(win, p, final);
      ann.flushPending();
      return due;
    };
    const flushAll = async () => {
      for (const o of outs) o.flush();
      if (yieldOften) await new Promise(setImmediate);
    };
    let sawBytes = false;
    for await (const chunk of chunks) {
      if (chunk.length === 0) continue;
      sawBytes = true;
      win.append(chunk);
      while (step(false)) await flushAll();
      if (ann.due()) await flushAll();
      onBytes?.(source.fileBytesRead());
    }
    if (!sawBytes) throw new ChakraDecodeError({ file, offset: 0, frameIndex: 0 }, 'empty file: a Chakra trace has at least one frame');
    while (step(true)) await flushAll();
    // Each output closes once: one that fails leaves the rest to the loop below.
    for (const o of outs) o.close();
    onBytes?.(source.fileBytesRead());
    return { result: ann.finish(task.outFiles), diagnostics: ann.diag.summary() };
  } finally {
    source.close();
    win.release();
    for (const o of outs) {
      try {
        o.close();
      } catch {
        // already failing: the first error is the one reported
      }
    }
  }
}

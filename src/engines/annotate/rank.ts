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
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Diagnostics, type DiagnosticSummary } from '../../diagnostics.js';
import { ChakraDecodeError, InputError } from '../../errors.js';
import {
  attrBool, attrInt, ByteSink, encodeNodeFrame, getAttr, makeAttr, MAX_FRAME_BYTES, NodeType, setAttr, type ChakraNode,
} from '../../formats/chakra/index.js';
import { decodeNode, isMetadataFrame } from '../../formats/chakra/decode.js';
import { openTraceBytes } from '../../formats/chakra/reader.js';
import { ensureDir } from '../../formats/chakra/writer.js';
import { WireError } from '../../formats/chakra/wire.js';
import { baseKernelName, normalizeKernelName } from './names.js';
import { ANNOTATION_ATTRS, rooflinePrepared, UTIL_PREFIX, type AnnotatePlan, type Prepared } from './plan.js';
import type { MatchLevel, NameCount, RankAnnotation } from './types.js';

function tails(prep: Prepared): Tails {
  return { prep, byLen: [] };
}

export interface RankTask {
  rank: number;
  file: string;
  /** One output file per target clock of the plan, in the same order. */
  outFiles: string[];
  /** false: every annotated node through the full decoder/encoder (for tests comparing the two paths). */
  fastPath?: boolean;
}

export interface RankOutcome {
  result: RankAnnotation;
  diagnostics: DiagnosticSummary[];
}

const FLUSH_BYTES = 1 << 20;
const ROOFLINE_CACHE = 50_000;
const DURATION_REF = Buffer.from(ANNOTATION_ATTRS.durationRefMicros, 'latin1');
/**
 * duration_micros_ref as a Node.attr entry up to its value, by the value's varint length: field 10 tag, length,
 * AttributeProto.name, then the uint64_val (field 13) tag.
 */
const REF_HEAD: Buffer[] = [];
for (let vlen = 1; vlen <= 7; vlen++) {
  REF_HEAD[vlen] = Buffer.from([0x52, 2 + DURATION_REF.length + 1 + vlen, 0x0a, DURATION_REF.length, ...DURATION_REF, 0x68]);
}

/** A prepared annotation's attributes followed by the duration_micros_ref head, per varint length of the value. */
interface Tails {
  prep: Prepared;
  byLen: Buffer[];
}

function tailOf(t: Tails, vlen: number): Buffer {
  let b = t.byLen[vlen];
  if (!b) {
    b = Buffer.concat([t.prep.block, REF_HEAD[vlen]]);
    t.byLen[vlen] = b;
  }
  return b;
}

/** Buffered output file: the codec's growable ByteSink, flushed to a file handle. */
class RawOut extends ByteSink {
  private constructor(readonly file: string, private readonly fh: FileHandle) {
    super(FLUSH_BYTES * 2);
  }

  static async open(file: string): Promise<RawOut> {
    await ensureDir(path.dirname(path.resolve(file)));
    return new RawOut(file, await open(file, 'w'));
  }

  copy(src: Buffer, s: number, e: number): void {
    const n = e - s;
    if (n <= 0) return;
    this.ensure(n);
    if (n < 24) {
      const b = this.buf;
      let p = this.pos;
      for (let i = s; i < e; i++) b[p++] = src[i];
    } else {
      src.copy(this.buf, this.pos, s, e);
    }
    this.pos += n;
  }

  async flush(): Promise<void> {
    let off = 0;
    while (off < this.pos) off += (await this.fh.write(this.buf, off, this.pos - off)).bytesWritten;
    this.pos = 0;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.fh.close();
  }
}

function varintLen(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** What a node frame scan found (module-level scratch: no allocation per node). */
const S = {
  type: 0,
  nameS: -1,
  nameE: -1,
  durS: -1,
  durE: -1,
  durVal: 0,
  insDur: 0,
  insAttr: 0,
  isCpu: false,
  flops: 0,
  bytes: 0,
};
const OK = 0;
const PASS = 1; // not a compute node: copy as is
const SLOW = 2; // use the full decoder

const ATTR_IS_CPU = 1;
const ATTR_NUM_OPS = 2;
const ATTR_TENSOR = 3;
const ATTR_OURS = 4;

let vpos = 0;
/** Unsigned varint; NaN when longer than 7 bytes (may not fit 2^53) or cut off at `end`. */
function rv(buf: Uint8Array, p: number, end: number): number {
  let r = 0;
  let mul = 1;
  for (let i = 0; i < 7; i++) {
    if (p >= end) return NaN;
    const b = buf[p++];
    r += (b & 0x7f) * mul;
    if (b < 0x80) {
      vpos = p;
      return r;
    }
    mul *= 128;
  }
  return NaN;
}

/** Skips a field payload; returns the new position or -1. */
function skip(buf: Uint8Array, p: number, end: number, wt: number): number {
  switch (wt) {
    case 0:
      for (let i = 0; i < 10; i++) {
        if (p >= end) return -1;
        if (buf[p++] < 0x80) return p;
      }
      return -1;
    case 1:
      return p + 8 <= end ? p + 8 : -1;
    case 2: {
      const len = rv(buf, p, end);
      if (!(len >= 0) || vpos + len > end) return -1;
      return vpos + len;
    }
    case 5:
      return p + 4 <= end ? p + 4 : -1;
    default:
      return -1;
  }
}

class AttrNames {
  /** By name length: the names of that length (bytes) and their codes. */
  readonly byLength: { bytes: Buffer; code: number }[][] = [];
  constructor(components: string[]) {
    const add = (n: string, code: number) => {
      const bytes = Buffer.from(n, 'utf8');
      (this.byLength[bytes.length] ??= []).push({ bytes, code });
    };
    add('is_cpu_op', ATTR_IS_CPU);
    add('num_ops', ATTR_NUM_OPS);
    add('tensor_size', ATTR_TENSOR);
    for (const n of Object.values(ANNOTATION_ATTRS)) add(n, ATTR_OURS);
    for (const c of components) add(UTIL_PREFIX + c, ATTR_OURS);
  }
}

/**
 * Scans a node frame buf[s, e). Fills S; returns OK (a compute node with a canonical layout), PASS (not a compute
 * node) or SLOW.
 */
function scanNode(buf: Buffer, s: number, e: number, names: AttrNames): number {
  S.type = 0;
  S.nameS = -1;
  S.durS = -1;
  S.durVal = 0;
  S.insDur = e;
  S.insAttr = e;
  S.isCpu = false;
  S.flops = 0;
  S.bytes = 0;
  let p = s;
  let last = 0;
  while (p < e) {
    const tagPos = p;
    const tag = rv(buf, p, e);
    if (!(tag > 0)) return SLOW;
    p = vpos;
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field < last) return SLOW;
    if (field > 7 && last <= 7) S.insDur = tagPos;
    if (field > 10 && last <= 10) S.insAttr = tagPos;
    last = field;
    if (field === 3) {
      if (wt !== 0) return SLOW;
      const t = rv(buf, p, e);
      if (!(t >= 0)) return SLOW;
      p = vpos;
      S.type = t;
      if (t !== NodeType.COMP_NODE) return PASS;
      continue;
    }
    if (field > 3 && S.type !== NodeType.COMP_NODE) return PASS;
    if (field === 2 && wt === 2) {
      const len = rv(buf, p, e);
      if (!(len >= 0) || vpos + len > e) return SLOW;
      S.nameS = vpos;
      S.nameE = vpos + len;
      p = vpos + len;
      continue;
    }
    if (field === 7) {
      if (wt !== 0) return SLOW;
      const d = rv(buf, p, e);
      if (!(d >= 0)) return SLOW;
      S.durS = tagPos;
      S.durVal = d;
      p = S.durE = vpos;
      continue;
    }
    if (field === 10 && wt === 2) {
      const len = rv(buf, p, e);
      if (!(len >= 0) || vpos + len > e) return SLOW;
      const as = vpos;
      const ae = vpos + len;
      p = ae;
      // AttributeProto: name (1) first in a canonical encoding.
      if (as >= ae || buf[as] !== 0x0a) continue;
      const nlen = rv(buf, as + 1, ae);
      if (!(nlen >= 0) || vpos + nlen > ae) return SLOW;
      const candidates = names.byLength[nlen];
      if (candidates === undefined) continue;
      let code = 0;
      for (const c of candidates) {
        if (sameBytes(c.bytes, buf, vpos, vpos + nlen)) {
          code = c.code;
          break;
        }
      }
      if (code === 0) continue;
      if (code === ATTR_OURS) return SLOW;
      let q = vpos + nlen;
      if (q < ae && buf[q] === 0x12) {
        q = skip(buf, q + 1, ae, 2); // doc_string
        if (q < 0) return SLOW;
      }
      if (q >= ae) return SLOW;
      const atag = rv(buf, q, ae);
      // Plain varint members only: int32 (7), int64 (9), uint32 (11), uint64 (13), bool (27).
      if (!(atag >= 0) || (atag & 7) !== 0) return SLOW;
      const member = atag >>> 3;
      if (member !== 7 && member !== 9 && member !== 11 && member !== 13 && member !== 27) return SLOW;
      const v = rv(buf, vpos, ae);
      if (!(v >= 0) || vpos !== ae) return SLOW; // too large, negative (10-byte) or trailing fields
      if (code === ATTR_IS_CPU) S.isCpu = v !== 0;
      else if (code === ATTR_NUM_OPS) S.flops = v;
      else S.bytes = v;
      continue;
    }
    p = skip(buf, p, e, wt);
    if (p < 0) return SLOW;
  }
  return S.type === NodeType.COMP_NODE ? OK : PASS;
}

interface NameState {
  /** The name's bytes (UTF-8, as in the trace) and the name. */
  bytes: Uint8Array;
  name: string;
  list: number[] | null;
  level: MatchLevel | null;
  next: number;
  /** Nodes of this name left unmatched. */
  unmatched: number;
  /** Next state whose name has the same hash. */
  chain: NameState | undefined;
}

/** FNV-1a over bytes: names are looked up without building a string per node. */
function hashBytes(buf: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h;
}

function sameBytes(a: Uint8Array, buf: Uint8Array, s: number, e: number): boolean {
  if (a.length !== e - s) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== buf[s + i]) return false;
  return true;
}

class RankAnnotator {
  readonly diag = new Diagnostics();
  readonly names: AttrNames;
  readonly nameStates = new Map<number, NameState>();
  /** Roofline annotations by num_ops, then tensor_size. */
  readonly roofline = new Map<number, Map<number, Tails[] | null>>();
  rooflineSize = 0;
  /** Per plan entry, its annotations with their encoded tails. */
  readonly entryTails: Tails[][];
  readonly sink = new ByteSink(1 << 12);
  readonly energyJ: number[];
  readonly durationNs: number[];
  readonly res: Omit<RankAnnotation, 'perFrequency' | 'unmatchedNames' | 'matchRate'> = {
    rank: 0, file: '', nodes: 0, compNodes: 0, cpuOps: 0, gpuCompNodes: 0,
    matched: { exact: 0, normalized: 0, base: 0, op: 0 }, byInvocation: 0, roofline: 0, untouched: 0, slowPathNodes: 0,
  };

  constructor(readonly plan: AnnotatePlan, readonly outs: RawOut[], readonly fast: boolean) {
    this.names = new AttrNames(plan.components);
    this.entryTails = plan.entries.map((e) => e.perFreq.map(tails));
    this.energyJ = plan.frequenciesMHz.map(() => 0);
    this.durationNs = plan.frequenciesMHz.map(() => 0);
  }

  /** Match state of the node name buf[s, e) (UTF-8 bytes). */
  private state(buf: Uint8Array, s: number, e: number): NameState {
    const h = hashBytes(buf, s, e);
    const head = this.nameStates.get(h);
    for (let st = head; st; st = st.chain) if (sameBytes(st.bytes, buf, s, e)) return st;
    const bytes = Uint8Array.prototype.slice.call(buf, s, e);
    const n = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
    const k = this.plan.keys;
    const norm = normalizeKernelName(n);
    let level: MatchLevel | null = null;
    let list: number[] | undefined;
    if ((list = k.exact.get(n))) level = 'exact';
    else if ((list = k.normalized.get(norm))) level = 'normalized';
    else if ((list = k.base.get(baseKernelName(norm)))) level = 'base';
    else if ((list = k.op.get(norm))) level = 'op';
    const st: NameState = { bytes, name: n, list: list ?? null, level, next: 0, unmatched: 0, chain: head };
    this.nameStates.set(h, st);
    return st;
  }

  /** The annotation of a GPU compute node, or null to leave it untouched (counted). */
  private choose(st: NameState, flops: number, bytes: number): Tails[] | null {
    const r = this.res;
    r.gpuCompNodes++;
    if (st.list) {
      r.matched[st.level!]++;
      if (st.list.length > 1) r.byInvocation++;
      return this.entryTails[st.list[st.next++ % st.list.length]];
    }
    st.unmatched++;
    if (flops > 0 || bytes > 0) {
      let byBytes = this.roofline.get(flops);
      if (!byBytes) {
        byBytes = new Map();
        this.roofline.set(flops, byBytes);
      }
      let prep = byBytes.get(bytes);
      if (prep === undefined) {
        if (this.plan.rooflineUnavailable) {
          prep = null;
          this.diag.add('roofline-unavailable', { message: `${this.plan.rooflineUnavailable}: nodes with num_ops/tensor_size left untouched` });
        } else {
          prep = rooflinePrepared(this.plan, flops, bytes).map(tails);
        }
        if (++this.rooflineSize > ROOFLINE_CACHE) {
          this.roofline.clear();
          this.rooflineSize = 0;
        }
        byBytes.set(bytes, prep);
      }
      if (prep) {
        r.roofline++;
        return prep;
      }
    }
    r.untouched++;
    return null;
  }

  private account(prep: Tails[]): void {
    for (let i = 0; i < prep.length; i++) {
      this.energyJ[i] += prep[i].prep.energyJ;
      this.durationNs[i] += prep[i].prep.durationNs;
    }
  }

  /** Frames copied unchanged are collected into one run of the input window and copied together. */
  private pendingBuf: Buffer | null = null;
  private pendingS = 0;
  private pendingE = 0;

  copyMetadata(buf: Buffer, fs: number, e: number): void {
    this.copyAll(buf, fs, e);
  }

  private copyAll(buf: Buffer, fs: number, e: number): void {
    if (this.pendingBuf === buf && this.pendingE === fs) {
      this.pendingE = e;
      return;
    }
    this.flushPending();
    this.pendingBuf = buf;
    this.pendingS = fs;
    this.pendingE = e;
  }

  /** Writes the run of unchanged frames; called before anything else is written and at the end of each chunk. */
  flushPending(): void {
    const b = this.pendingBuf;
    if (!b) return;
    for (const o of this.outs) o.copy(b, this.pendingS, this.pendingE);
    this.pendingBuf = null;
  }

  /** One node frame: buf[fs, e) is the whole frame (length prefix included), buf[s, e) the message. */
  node(buf: Buffer, fs: number, s: number, e: number, frameIndex: number, offset: number, file: string): void {
    this.res.nodes++;
    const scan = this.fast ? scanNode(buf, s, e, this.names) : SLOW;
    if (scan === PASS) return this.copyAll(buf, fs, e);
    if (scan === SLOW) return this.slow(buf, fs, s, e, frameIndex, offset, file);
    this.res.compNodes++;
    if (S.isCpu) {
      this.res.cpuOps++;
      return this.copyAll(buf, fs, e);
    }
    const st = S.nameS < 0 ? this.state(buf, 0, 0) : this.state(buf, S.nameS, S.nameE);
    const prep = this.choose(st, S.flops, S.bytes);
    if (!prep) return this.copyAll(buf, fs, e);
    this.account(prep);
    const cut = S.durS >= 0 ? S.durS : S.insDur;
    const resume = S.durS >= 0 ? S.durE : S.insDur;
    const insAttr = S.insAttr;
    const ref = S.durVal;
    const vlen = varintLen(ref);
    const fixed = (cut - s) + (insAttr - resume) + (e - insAttr) + vlen;
    const oldDurLen = S.durS >= 0 ? S.durE - S.durS - 1 : -1;
    this.flushPending();
    for (let i = 0; i < this.outs.length; i++) {
      const o = this.outs[i];
      const p = prep[i].prep;
      const tail = tailOf(prep[i], vlen);
      const durLen = varintLen(p.durationMicros);
      const len = fixed + 1 + durLen + tail.length;
      o.ensure(len + 10);
      o.varint(len);
      if (durLen === oldDurLen && insAttr === e) {
        // Common case: one copy of the frame, the duration patched in place, the attributes appended.
        const at = o.pos + (S.durS - s) + 1;
        o.copy(buf, s, e);
        const end = o.pos;
        o.pos = at;
        o.varint(p.durationMicros);
        o.pos = end;
      } else {
        o.copy(buf, s, cut);
        o.buf[o.pos++] = 0x38; // field 7, varint
        o.varint(p.durationMicros);
        o.copy(buf, resume, insAttr);
      }
      o.copy(tail, 0, tail.length);
      o.varint(ref);
      if (insAttr !== e) o.copy(buf, insAttr, e);
    }
  }

  private slow(buf: Buffer, fs: number, s: number, e: number, frameIndex: number, offset: number, file: string): void {
    let node: ChakraNode;
    try {
      node = decodeNode(buf, s, e);
    } catch (err) {
      if (err instanceof WireError) {
        throw new ChakraDecodeError({ file, offset: offset + (err.position - fs), frameIndex }, `${err.problem} (frame starts at byte ${offset})`);
      }
      throw err;
    }
    if (node.type !== NodeType.COMP_NODE) return this.copyAll(buf, fs, e);
    this.res.compNodes++;
    const previous = stripAnnotation(node, this.plan.components);
    if (previous) this.diag.add('already-annotated', { nodeId: node.id, message: `${file}: node ${node.id} was annotated before; its annotation is replaced (original duration ${node.durationMicros} µs kept as reference)` });
    if (attrBool(node, 'is_cpu_op', this.diag)) {
      this.res.cpuOps++;
      return this.copyAll(buf, fs, e);
    }
    const num = (name: string) => {
      const v = attrInt(node, name, this.diag);
      return v !== undefined && v > 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : 0;
    };
    const nameBytes = Buffer.from(node.name, 'utf8');
    const st = this.state(nameBytes, 0, nameBytes.length);
    const prep = this.choose(st, num('num_ops'), num('tensor_size'));
    if (!prep) {
      if (!previous) return this.copyAll(buf, fs, e);
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
    o.copy(v, 0, v.length);
  }

  private unmatchedNames(): NameCount[] {
    const out: NameCount[] = [];
    for (const head of this.nameStates.values()) for (let st: NameState | undefined = head; st; st = st.chain) if (st.unmatched) out.push({ name: st.name, count: st.unmatched });
    return out;
  }

  finish(outFiles: string[]): RankAnnotation {
    const r = this.res;
    const matched = r.matched.exact + r.matched.normalized + r.matched.base + r.matched.op;
    return {
      ...r,
      matched: { ...r.matched },
      matchRate: r.gpuCompNodes > 0 ? matched / r.gpuCompNodes : null,
      unmatchedNames: this.unmatchedNames().sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)).slice(0, 20),
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

/** Streams one rank file through the plan into `task.outFiles`. */
export async function annotateRankFile(task: RankTask, plan: AnnotatePlan, onBytes?: (bytesRead: number) => void): Promise<RankOutcome> {
  const { file } = task;
  if (task.outFiles.length !== plan.frequenciesMHz.length) throw new InputError(`rank ${task.rank}: ${task.outFiles.length} output files for ${plan.frequenciesMHz.length} clocks`);
  const source = await openTraceBytes(file);
  const chunks = source.chunks;
  const outs: RawOut[] = [];
  try {
    for (const f of task.outFiles) outs.push(await RawOut.open(f));
    const ann = new RankAnnotator(plan, outs, task.fastPath !== false);
    ann.res.rank = task.rank;
    ann.res.file = file;
    let window: Buffer = Buffer.alloc(0);
    let start = 0;
    let windowOffset = 0;
    let frameIndex = 0;
    const fail = (at: number, problem: string): never => {
      throw new ChakraDecodeError({ file, offset: windowOffset + at, frameIndex }, problem);
    };
    const decode = (final: boolean) => {
      const buf = window;
      const end = buf.length;
      let p = start;
      while (p < end) {
        const len = rv(buf, p, end);
        if (Number.isNaN(len)) {
          if (end - p >= 5 && !final) fail(p, 'frame length prefix is longer than 5 bytes (corrupt data)');
          if (final) fail(p, `file ends inside a frame length prefix (${end - p} byte(s) left): truncated trace`);
          break;
        }
        if (len > MAX_FRAME_BYTES) fail(p, `frame length ${len} exceeds ${MAX_FRAME_BYTES} bytes: corrupt length prefix`);
        const q = vpos;
        if (q + len > end) {
          if (final) fail(p, `frame length ${len} runs past end of file (${end - q} bytes left): truncated trace`);
          break;
        }
        if (frameIndex === 0 && len > 0 && isMetadataFrame(buf, q, q + len)) ann.copyMetadata(buf, p, q + len);
        else ann.node(buf, p, q, q + len, frameIndex, windowOffset + p, file);
        frameIndex++;
        p = q + len;
      }
      ann.flushPending();
      start = p;
    };
    let sawBytes = false;
    for await (const chunk of chunks) {
      if (chunk.length === 0) continue;
      sawBytes = true;
      if (start >= window.length) {
        windowOffset += window.length;
        window = chunk;
      } else {
        windowOffset += start;
        window = Buffer.concat([window.subarray(start), chunk]);
      }
      start = 0;
      decode(false);
      if (outs.some((o) => o.pos >= FLUSH_BYTES)) await Promise.all(outs.map((o) => o.flush()));
      onBytes?.(source.fileBytesRead());
    }
    if (!sawBytes) throw new ChakraDecodeError({ file, offset: 0, frameIndex: 0 }, 'empty file: a Chakra trace has at least one frame');
    decode(true);
    for (const o of outs.splice(0)) await o.close();
    onBytes?.(source.fileBytesRead());
    return { result: ann.finish(task.outFiles), diagnostics: ann.diag.summary() };
  } finally {
    source.close();
    for (const o of outs) await o.close().catch(() => {});
  }
}

/**
 * Encodes Chakra messages in the canonical layout every real trace uses: fields in ascending number
 * order, proto3 defaults omitted, repeated numbers packed, the oneof member always written, a
 * present IOInfo written even when empty. Unknown fields and explicit defaults recorded by the
 * decoder are written back in place, so decode → encode is byte-identical.
 */
import { ATTR_MEMBER_BY_KIND, type ScalarType } from './schema.js';
import type { AttrScalarValue, Attribute, ChakraNode, GlobalMetadata, IOInfo, Lossless } from './types.js';
import { WIRE_LEN, WIRE_VARINT } from './cursor.js';
import { wireTypeOf } from './decode-attribute.js';
import { DecodedNode } from './decoded-node.js';
import { LazyIOInfo } from './io-info.js';

const TWO_POW_53 = 2n ** 53n;

/** Writes v (a non-negative safe integer) as a varint at b[p], which has room; returns the end. */
export function putVarint(b: Uint8Array, p: number, v: number): number {
  if (v < 0x80000000) {
    while (v >= 0x80) {
      b[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
  } else {
    while (v >= 0x80) {
      b[p++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
  }
  b[p++] = v;
  return p;
}

/** Bytes of v (a non-negative integer) as a varint. */
export function varintLen(v: number): number {
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  if (v < 2 ** 35) return 5;
  if (v < 2 ** 42) return 6;
  if (v < 2 ** 49) return 7;
  if (v < 2 ** 56) return 8;
  return v < 2 ** 63 ? 9 : 10;
}

/** A growable output buffer with protobuf writers. */
export class ByteSink {
  buf: Buffer;
  pos = 0;

  constructor(initialSize = 1 << 16) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Bytes written so far (a view, valid until the next write). */
  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  reset(): void {
    this.pos = 0;
  }

  varint(n: number): void {
    if (n < 0 || !Number.isSafeInteger(n)) {
      this.varintBig(BigInt.asUintN(64, BigInt(n)));
      return;
    }
    this.ensure(10);
    this.pos = putVarint(this.buf, this.pos, n);
  }

  varintBig(v: bigint): void {
    if (v >= 0n && v < TWO_POW_53) {
      this.varint(Number(v));
      return;
    }
    v = BigInt.asUintN(64, v);
    this.ensure(10);
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  string(s: string): void {
    // Worst case 3 bytes per UTF-16 unit, plus a 5-byte length.
    this.ensure(s.length * 3 + 5);
    if (s.length < 128) {
      const lenPos = this.pos++;
      // Short ASCII strings (nearly all names) byte by byte: cheaper than a call into Buffer.write.
      const b = this.buf;
      let p = this.pos;
      let k = 0;
      for (; k < s.length; k++) {
        const c = s.charCodeAt(k);
        if (c >= 0x80) break;
        b[p++] = c;
      }
      if (k === s.length) {
        b[lenPos] = k;
        this.pos = p;
        return;
      }
      const n = this.buf.write(s, this.pos, 'utf8');
      if (n < 128) {
        this.buf[lenPos] = n;
        this.pos += n;
        return;
      }
      this.pos = lenPos;
    }
    const n = Buffer.byteLength(s, 'utf8');
    this.varint(n);
    this.buf.write(s, this.pos, 'utf8');
    this.pos += n;
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Reserves one byte for a length; finishLength() fixes it up (moving the payload if it needs more). */
  beginLength(): number {
    this.ensure(1);
    return this.pos++;
  }

  finishLength(lenPos: number): void {
    const len = this.pos - lenPos - 1;
    if (len < 0x80) {
      this.buf[lenPos] = len;
      return;
    }
    const extra = varintLen(len) - 1;
    this.ensure(extra);
    this.buf.copy(this.buf, lenPos + 1 + extra, lenPos + 1, this.pos);
    const end = this.pos + extra;
    this.pos = lenPos;
    this.varint(len);
    this.pos = end;
  }
}

/**
 * Writes one message's fields in ascending order: each field writer first writes back the unknown fields numbered
 * below it (so they land where they were read), and omits a proto3 default unless the decoder saw it written.
 */
class FieldWriter {
  private i = 0;
  constructor(
    readonly sink: ByteSink,
    readonly l: Lossless | undefined,
  ) {}

  /** Writes the unknown fields numbered below `before`. */
  flush(before: number): void {
    const list = this.l?.unknown;
    if (!list) return;
    while (this.i < list.length && list[this.i].field < before) this.sink.raw(list[this.i++].bytes);
  }

  /** Writes whatever unknown fields are left: the message's end. */
  end(): void {
    this.flush(Infinity);
  }

  explicit(field: number): boolean {
    const l = this.l;
    return l?.explicitDefaults !== undefined && (l.explicitDefaults & (1 << field)) !== 0;
  }

  uint32(field: number, v: number): void {
    this.flush(field);
    if (v !== 0 || this.explicit(field)) {
      this.sink.tag(field, WIRE_VARINT);
      this.sink.varint(v);
    }
  }

  uint64(field: number, v: bigint): void {
    this.flush(field);
    if (v !== 0n || this.explicit(field)) {
      this.sink.tag(field, WIRE_VARINT);
      this.sink.varintBig(v);
    }
  }

  string(field: number, s: string): void {
    this.flush(field);
    if (s !== '' || this.explicit(field)) {
      this.sink.tag(field, WIRE_LEN);
      this.sink.string(s);
    }
  }

  deps(field: number, deps: bigint[]): void {
    this.flush(field);
    const sink = this.sink;
    if (unpacked(this.l, field)) {
      for (const d of deps) {
        sink.tag(field, WIRE_VARINT);
        sink.varintBig(d);
      }
      return;
    }
    if (deps.length === 0 && !this.explicit(field)) return;
    sink.tag(field, WIRE_LEN);
    const at = sink.beginLength();
    for (const d of deps) sink.varintBig(d);
    sink.finishLength(at);
  }

  attributes(field: number, attrs: Attribute[]): void {
    this.flush(field);
    for (const a of attrs) {
      this.sink.tag(field, WIRE_LEN);
      const at = this.sink.beginLength();
      encodeAttribute(this.sink, a);
      this.sink.finishLength(at);
    }
  }
}

function unpacked(l: Lossless | undefined, field: number): boolean {
  return l?.unpacked !== undefined && (l.unpacked & (1 << field)) !== 0;
}

export function encodeNode(sink: ByteSink, node: ChakraNode): void {
  const w = new FieldWriter(sink, node.lossless);
  w.uint64(1, node.id);
  w.string(2, node.name);
  w.uint32(3, node.type);
  w.deps(4, node.ctrlDeps);
  w.deps(5, node.dataDeps);
  w.uint64(6, node.startTimeMicros);
  w.uint64(7, node.durationMicros);
  w.flush(8);
  if (node.inputs) ioField(sink, 8, node.inputs);
  w.flush(9);
  if (node.outputs) ioField(sink, 9, node.outputs);
  const rawAttrs = node instanceof DecodedNode ? node.unmodifiedAttrBytes() : null;
  if (rawAttrs !== null) {
    w.flush(10);
    sink.raw(rawAttrs);
  } else {
    w.attributes(10, node.attrs);
  }
  w.end();
}

function ioField(sink: ByteSink, field: number, io: IOInfo): void {
  sink.tag(field, WIRE_LEN);
  const raw = io instanceof LazyIOInfo ? io.unmodifiedBytes() : null;
  if (raw) {
    sink.bytes(raw);
    return;
  }
  const at = sink.beginLength();
  const w = new FieldWriter(sink, io.lossless);
  w.string(1, io.values);
  w.string(2, io.shapes);
  w.string(3, io.types);
  w.end();
  sink.finishLength(at);
}

export function encodeMetadata(sink: ByteSink, md: GlobalMetadata): void {
  const w = new FieldWriter(sink, md.lossless);
  w.string(1, md.version);
  w.attributes(2, md.attrs);
  w.end();
}

export function encodeAttribute(sink: ByteSink, a: Attribute): void {
  const w = new FieldWriter(sink, a.lossless);
  w.string(1, a.name);
  w.string(2, a.docString);
  if (a.kind !== null) {
    const member = ATTR_MEMBER_BY_KIND.get(a.kind);
    if (!member) throw new TypeError(`attribute "${a.name}": unknown kind ${a.kind}`);
    w.flush(member.field);
    if (member.list) {
      sink.tag(member.field, WIRE_LEN);
      const at = sink.beginLength();
      const values = (a.value ?? []) as AttrScalarValue[];
      if (!Array.isArray(values)) throw new TypeError(`attribute "${a.name}": ${a.kind} needs an array value`);
      encodeListValues(sink, member.scalar, values, unpacked(a.lossless, member.field));
      sink.finishLength(at);
    } else {
      sink.tag(member.field, wireTypeOf(member.scalar));
      writeScalar(sink, member.scalar, a.value as AttrScalarValue, a.name);
    }
  }
  w.end();
}

function encodeListValues(sink: ByteSink, scalar: ScalarType, values: AttrScalarValue[], asUnpacked: boolean): void {
  const wt = wireTypeOf(scalar);
  if (wt === WIRE_LEN || asUnpacked) {
    for (const v of values) {
      sink.tag(1, wt);
      writeScalar(sink, scalar, v, 'values');
    }
    return;
  }
  if (values.length === 0) return;
  sink.tag(1, WIRE_LEN);
  const at = sink.beginLength();
  for (const v of values) writeScalar(sink, scalar, v, 'values');
  sink.finishLength(at);
}

/** The fixed-width scalars: their size in bytes and how each is written at a Buffer offset. */
const FIXED_WIDTH: Partial<
  Record<ScalarType, { bytes: number; write: (buf: Buffer, v: AttrScalarValue, name: string, at: number) => void }>
> = {
  double: { bytes: 8, write: (buf, v, name, at) => buf.writeDoubleLE(num(v, name), at) },
  float: { bytes: 4, write: (buf, v, name, at) => buf.writeFloatLE(num(v, name), at) },
  fixed32: { bytes: 4, write: (buf, v, name, at) => buf.writeUInt32LE(num(v, name), at) },
  sfixed32: { bytes: 4, write: (buf, v, name, at) => buf.writeInt32LE(num(v, name), at) },
  fixed64: { bytes: 8, write: (buf, v, name, at) => buf.writeBigUInt64LE(BigInt.asUintN(64, big(v, name)), at) },
  sfixed64: { bytes: 8, write: (buf, v, name, at) => buf.writeBigInt64LE(BigInt.asIntN(64, big(v, name)), at) },
};

function writeScalar(sink: ByteSink, scalar: ScalarType, v: AttrScalarValue, name: string): void {
  const fixed = FIXED_WIDTH[scalar];
  if (fixed) {
    sink.ensure(fixed.bytes);
    fixed.write(sink.buf, v, name, sink.pos);
    sink.pos += fixed.bytes;
    return;
  }
  switch (scalar) {
    case 'int32':
    case 'uint32':
      sink.varint(num(v, name));
      return;
    case 'sint32': {
      const n = num(v, name);
      sink.varint(((n << 1) ^ (n >> 31)) >>> 0);
      return;
    }
    case 'int64':
    case 'uint64':
      sink.varintBig(big(v, name));
      return;
    case 'sint64': {
      const n = BigInt.asIntN(64, big(v, name));
      sink.varintBig(BigInt.asUintN(64, (n << 1n) ^ (n >> 63n)));
      return;
    }
    case 'bool':
      sink.varint(v ? 1 : 0);
      return;
    case 'string':
      if (typeof v !== 'string') throw new TypeError(`attribute "${name}": string value expected`);
      sink.string(v);
      return;
    case 'bytes':
      if (!(v instanceof Uint8Array)) throw new TypeError(`attribute "${name}": bytes value expected`);
      sink.bytes(v);
      return;
  }
}

function num(v: AttrScalarValue, name: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  throw new TypeError(`attribute "${name}": numeric value expected, got ${typeof v}`);
}

function big(v: AttrScalarValue, name: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'boolean') return v ? 1n : 0n;
  throw new TypeError(`attribute "${name}": integer value expected, got ${String(v)}`);
}

/** Appends one length-prefixed frame holding a Node. */
export function encodeNodeFrame(sink: ByteSink, node: ChakraNode): void {
  const at = sink.beginLength();
  encodeNode(sink, node);
  sink.finishLength(at);
}

export function encodeMetadataFrame(sink: ByteSink, md: GlobalMetadata): void {
  const at = sink.beginLength();
  encodeMetadata(sink, md);
  sink.finishLength(at);
}

/** Encodes a whole trace in memory (small traces, tests). */
export function encodeTrace(metadata: GlobalMetadata | null, nodes: Iterable<ChakraNode>): Buffer {
  const sink = new ByteSink();
  if (metadata) encodeMetadataFrame(sink, metadata);
  for (const n of nodes) encodeNodeFrame(sink, n);
  return Buffer.from(sink.view());
}

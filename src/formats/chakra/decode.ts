/**
 * Decodes Chakra messages (GlobalMetadata, Node) from protobuf wire bytes. A Node is first read by the probe
 * (probe.ts), which checks the whole frame; the node is then built from what the probe noted. Unknown fields are
 * kept as raw bytes and explicit default values are remembered, so that encode(decode(x)) reproduces x byte for
 * byte (see encode.ts).
 */
import { decodeAttribute, keepUnknown, markExplicit, wrongWire } from './decode-attribute.js';
import { DecodedNode } from './decoded-node.js';
import { LazyIOInfo } from './io-info.js';
import { NodeProbe } from './probe.js';
import { Slab } from './slab.js';
import type { Attribute, ChakraNode, GlobalMetadata, Lossless } from './types.js';
import { WIRE_LEN, WireCursor } from './cursor.js';

/** Decodes the Node frames of one stream: its probe, and the slab its nodes keep their lazily read bytes in. */
export class NodeDecoder {
  readonly probe = new NodeProbe();
  private readonly slab = new Slab();

  /** The Node at c.buf[start, end). */
  decode(c: WireCursor, start: number, end: number): ChakraNode {
    const p = this.probe;
    p.read(c, start, end);
    const node = new DecodedNode(
      p.id,
      p.name,
      p.type,
      p.ctrlDeps.toBigints(),
      p.dataDeps.toBigints(),
      p.startTimeMicros,
      p.durationMicros,
      null,
      null,
    );
    let attrStart = p.attrStart;
    if (attrStart >= 0 && !p.attrsAsBytes) {
      node.attrs = decodeAttributeFields(c, start, end);
      attrStart = -1;
    }
    const { inputsStart, outputsStart } = p;
    if (inputsStart >= 0 || outputsStart >= 0 || attrStart >= 0) {
      // One copy holds every lazily decoded part (they are usually adjacent, at the end of the frame).
      const lo = Math.min(
        inputsStart < 0 ? end : inputsStart,
        outputsStart < 0 ? end : outputsStart,
        attrStart < 0 ? end : attrStart,
      );
      const hi = Math.max(p.inputsEnd, p.outputsEnd, attrStart < 0 ? -1 : p.attrEnd);
      const shift = this.slab.keep(c.buf, lo, hi) - lo;
      const raw = this.slab.keptIn;
      if (inputsStart >= 0) node.inputs = new LazyIOInfo(raw, inputsStart + shift, p.inputsEnd + shift);
      if (outputsStart >= 0) node.outputs = new LazyIOInfo(raw, outputsStart + shift, p.outputsEnd + shift);
      if (attrStart >= 0) node.setAttrBytes(raw, attrStart + shift, p.attrEnd + shift);
    }
    if (p.explicitDefaults !== 0 || p.unpacked !== 0 || p.unknownLength > 0) node.lossless = losslessOf(p, c.buf);
    return node;
  }
}

/** What re-encoding needs beyond the values, from what the probe noted. */
function losslessOf(p: NodeProbe, buf: Buffer): Lossless {
  const l: Lossless = {};
  if (p.explicitDefaults !== 0) l.explicitDefaults = p.explicitDefaults;
  if (p.unpacked !== 0) l.unpacked = p.unpacked;
  for (let i = 0; i < p.unknownLength; i += 3) keepUnknown(l, p.unknown[i], buf, p.unknown[i + 1], p.unknown[i + 2]);
  return l;
}

/** Decodes a Node occupying buf[start, end) (a convenience for tests and single frames). */
export function decodeNode(buf: Buffer, start: number, end: number): ChakraNode {
  return new NodeDecoder().decode(new WireCursor(buf), start, end);
}

/** Decodes every field-10 entry of an already checked Node frame (layouts that are not kept as bytes). */
function decodeAttributeFields(c: WireCursor, start: number, end: number): Attribute[] {
  const attrs: Attribute[] = [];
  c.pos = start;
  while (c.nextField(end)) {
    if (c.field === 10) {
      const stop = c.length(end);
      attrs.push(decodeAttribute(c, c.pos, stop));
      c.pos = stop;
    } else {
      c.skipField(end);
    }
  }
  return attrs;
}

export function decodeMetadata(c: WireCursor, start: number, end: number): GlobalMetadata {
  const md: GlobalMetadata = { version: '', attrs: [] };
  let lossless: Lossless | undefined;
  c.pos = start;
  while (c.nextField(end)) {
    const { field, wireType: wt, tagPos } = c;
    if (field === 1) {
      if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'GlobalMetadata', 1, 'version', wt, '2');
      md.version = c.string(end);
      if (md.version === '') lossless = markExplicit(lossless, 1);
    } else if (field === 2) {
      if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'GlobalMetadata', 2, 'attr', wt, '2');
      const stop = c.length(end);
      md.attrs.push(decodeAttribute(c, c.pos, stop));
      c.pos = stop;
    } else {
      c.skipField(end);
      lossless = keepUnknown(lossless, field, c.buf, tagPos, c.pos);
    }
  }
  if (lossless) md.lossless = lossless;
  return md;
}

/**
 * True when a frame is a GlobalMetadata rather than a Node: metadata has only fields 1 and 2,
 * both length-delimited, whereas a Node's field 1 (id) is a varint and nodes carry fields ≥ 3.
 */
export function isMetadataFrame(buf: Buffer, start: number, end: number): boolean {
  const c = new WireCursor(buf, start);
  try {
    while (c.nextField(end)) {
      if (c.field > 2 || c.wireType !== WIRE_LEN) return false;
      c.skipField(end);
    }
    return true;
  } catch {
    return false;
  }
}

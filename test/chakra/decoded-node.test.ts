/**
 * Decoded nodes keep their attributes as checked bytes until read. Reading one by name, materialising all of
 * them, changing them and re-encoding must each agree with a node built from plain objects.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getAttr, makeAttr, setAttr } from '../../src/formats/chakra/attrs.js';
import { decodeNode } from '../../src/formats/chakra/decode.js';
import { nodeToJson } from '../../src/formats/chakra/json.js';
import { DecodedNode } from '../../src/formats/chakra/decoded-node.js';
import { ByteSink, encodeAttribute, encodeNode } from '../../src/formats/chakra/encode.js';
import { decodeTraceBuffer } from '../../src/formats/chakra/reader.js';
import type { ChakraNode } from '../../src/formats/chakra/types.js';
import { describeShared } from '../helpers/shared.js';
import { sharedTraceFiles, shipped, shippedTraceFiles } from '../helpers/traces.js';

const FEEDER = shipped('chakra-tests', 'feeder_tests_chakra.0.et');
const RESNET = shipped('astra-sim-history', 'resnet_dp', 'Resnet50_DataParallel.1.et');

function encoded(node: ChakraNode): Buffer {
  const sink = new ByteSink(1024);
  encodeNode(sink, node);
  return Buffer.from(sink.buf.subarray(0, sink.pos));
}

/** A plain-object copy, so the encoder cannot take the raw-bytes path. */
function plainCopy(n: ChakraNode): ChakraNode {
  return { ...n, attrs: n.attrs.map((a) => ({ ...a })), ...(n.lossless ? { lossless: n.lossless } : {}) };
}

describe('decoded nodes with attributes kept as bytes', () => {
  function checkGetAttr(files: string[]): number {
    let compared = 0;
    for (const file of files) {
      const bytes = readFileSync(file);
      const lazy = decodeTraceBuffer(bytes, file).nodes;
      const eager = decodeTraceBuffer(bytes, file).nodes.map((n) => n.attrs);
      lazy.forEach((n, i) => {
        expect(n).toBeInstanceOf(DecodedNode);
        for (const a of eager[i]) {
          expect(getAttr(n, a.name), `${file} node ${n.id} ${a.name}`).toEqual(eager[i].find((x) => x.name === a.name));
          compared++;
        }
        expect(getAttr(n, 'no_such_attribute')).toBeUndefined();
        // Still untouched: the encoder writes the original bytes.
        expect((n as DecodedNode).unmodifiedAttrBytes()).not.toBeNull();
      });
    }
    return compared;
  }

  it('getAttr on an untouched node equals the materialised attribute (shipped traces)', () => {
    expect(checkGetAttr([FEEDER, RESNET, ...shippedTraceFiles])).toBeGreaterThan(10_000);
  });

  describeShared('every trace in ../shared', () => {
    it('getAttr on an untouched node equals the materialised attribute', () => {
      expect(checkGetAttr(sharedTraceFiles)).toBeGreaterThan(30_000);
    });
  });

  it('untouched, materialised and plain-object nodes encode to the same bytes', () => {
    const bytes = readFileSync(FEEDER);
    const nodes = decodeTraceBuffer(bytes, FEEDER).nodes.slice(0, 2000);
    for (const n of nodes) {
      const raw = encoded(n);
      expect(encoded(plainCopy(n)).equals(raw)).toBe(true);
      expect((n as DecodedNode).unmodifiedAttrBytes()).toBeNull();
      expect(encoded(n).equals(raw)).toBe(true);
    }
  });

  it('changes made after materialising are encoded; a copy from getAttr does not change the node', () => {
    const n = decodeTraceBuffer(readFileSync(FEEDER), FEEDER).nodes.find((x) => x.attrs.length > 0 && x.id > 10n)!;
    const fresh = decodeNode(encoded(n), 0, encoded(n).length);
    const name = n.attrs[0].name;
    getAttr(fresh, name)!.name = 'renamed';
    expect(getAttr(fresh, name)).toBeDefined();
    setAttr(fresh, makeAttr('energy_j', 'double_val', 1.5));
    const back = decodeNode(encoded(fresh), 0, encoded(fresh).length);
    expect(getAttr(back, 'energy_j')?.value).toBe(1.5);
    expect(back.attrs.map((a) => a.name)).toEqual([...n.attrs.map((a) => a.name), 'energy_j']);
  });

  it('an IOInfo changed after decoding is re-encoded with the change; the other keeps its bytes', () => {
    const n = decodeTraceBuffer(readFileSync(FEEDER), FEEDER).nodes.find((x) => x.inputs && x.outputs)!;
    const frame = encoded(n);
    const fresh = decodeNode(frame, 0, frame.length);
    const before = { shapes: fresh.inputs!.shapes, types: fresh.inputs!.types, outputs: nodeToJson(fresh) };
    fresh.inputs!.values = '[[1, 2, 3]]';
    const back = decodeNode(encoded(fresh), 0, encoded(fresh).length);
    expect(back.inputs!.values).toBe('[[1, 2, 3]]');
    expect(back.inputs!.shapes).toBe(before.shapes);
    expect(back.inputs!.types).toBe(before.types);
    expect(JSON.parse(nodeToJson(back)).outputs).toEqual(JSON.parse(before.outputs).outputs);
    // Nothing changed: the same bytes.
    const again = decodeNode(frame, 0, frame.length);
    expect(encoded(again).equals(frame)).toBe(true);
  });

  it('attribute entries that are not contiguous are decoded at once and keep their values', () => {
    const n = decodeTraceBuffer(readFileSync(FEEDER), FEEDER).nodes.find((x) => x.attrs.length >= 2 && !x.lossless)!;
    const entry = (i: number) => {
      const sink = new ByteSink(256);
      sink.tag(10, 2);
      const at = sink.beginLength();
      encodeAttribute(sink, n.attrs[i]);
      sink.finishLength(at);
      return Buffer.from(sink.buf.subarray(0, sink.pos));
    };
    // An unknown field (99, varint 5) between the first and the other attribute entries.
    const rest = n.attrs.slice(1).map((_, i) => entry(i + 1));
    const odd = Buffer.concat([
      encoded({ ...plainCopy(n), attrs: [] }),
      entry(0),
      Buffer.from([0x98, 0x06, 0x05]),
      ...rest,
    ]);
    const d = decodeNode(odd, 0, odd.length) as DecodedNode;
    expect(d.unmodifiedAttrBytes()).toBeNull();
    expect(d.attrs).toEqual(n.attrs);
    expect(d.lossless?.unknown?.[0].field).toBe(99);
  });
});

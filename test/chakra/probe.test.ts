/**
 * The node probe's canonical fast path (probe-canonical.ts) must note exactly what the general walk notes, and give
 * the same verdict (the same WireError at the same position) on every frame: real traces, and the same traces with
 * seeded byte flips. The probe's values must also be those of the decoded node.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WireCursor, WireError } from '../../src/formats/chakra/cursor.js';
import { FrameScanner } from '../../src/formats/chakra/frames.js';
import { AttributeNames, NodeProbe, type KnownPackedLists } from '../../src/formats/chakra/probe.js';
import { encodeTrace } from '../../src/formats/chakra/encode.js';
import { emptyNode } from '../../src/formats/chakra/types.js';
import { decodeNode } from '../../src/formats/chakra/decode.js';
import { getAttr } from '../../src/formats/chakra/attrs.js';
import { rng } from '../helpers/rng.js';
import { describeShared } from '../helpers/shared.js';
import { sharedTraceFiles, shippedTraceFiles } from '../helpers/traces.js';

const NAMES = ['is_cpu_op', 'num_ops', 'tensor_size', 'comm_type', 'comm_size', 'op_schema', 'rf_id', 'energy_j'];
const names = new AttributeNames(NAMES);

/** Everything a probe notes about a frame, or the error it throws. */
function snapshot(probe: NodeProbe, buf: Buffer, start: number, end: number): unknown {
  try {
    probe.read(new WireCursor(buf), start, end);
  } catch (e) {
    if (!(e instanceof WireError)) throw e;
    return { error: e.problem, at: e.position };
  }
  const p = probe;
  return {
    type: p.type,
    id: p.id,
    start: p.startTimeMicros,
    duration: p.durationMicros,
    durationAt: [p.durationTag, p.durationEnd],
    name: [p.nameStart, p.nameEnd],
    ctrl: p.ctrlDeps.toBigints(),
    data: p.dataDeps.toBigints(),
    io: [p.inputsStart, p.inputsEnd, p.outputsStart, p.outputsEnd],
    attrs: [p.attrStart, p.attrEnd, p.attrsAsBytes],
    canonical: p.canonical,
    explicit: p.explicitDefaults,
    unpacked: p.unpacked,
    unknown: p.unknown.slice(0, p.unknownLength),
    maxSlot: p.maxSlotFound,
    slots: NAMES.map((_, slot) => (p.has(slot) ? [p.memberOf(slot), p.attributeRange(slot), p.varintAt(slot)] : null)),
    insertion: p.canonical ? Array.from({ length: 12 }, (_, f) => p.insertionPoint(f)) : null,
  };
}

/** Node frames of a trace: [message start, end] pairs (the metadata frame left out). */
function nodeFrames(buf: Buffer, file: string): [number, number][] {
  const frames = new FrameScanner(file, { knownSize: buf.length });
  frames.append(buf);
  frames.finish();
  const out: [number, number][] = [];
  while (frames.next()) if (!frames.isMetadata) out.push([frames.start, frames.end]);
  return out;
}

function compareFiles(files: string[], flips: number): number {
  const fast = new NodeProbe(names);
  const general = new NodeProbe(names, { canonicalPath: false });
  // Without the dependencies: the same notes but for them, and the same verdicts.
  const noDeps = new NodeProbe(names, { keepDeps: false });
  const noDepsGeneral = new NodeProbe(names, { keepDeps: false, canonicalPath: false });
  const withoutDeps = (x: unknown) =>
    typeof x === 'object' && x !== null && 'ctrl' in x ? { ...x, ctrl: [], data: [] } : x;
  let compared = 0;
  const random = rng(1234);
  for (const file of files) {
    const original = readFileSync(file);
    const frames = nodeFrames(original, file);
    for (const [k, [s, e]] of frames.entries()) {
      const expected = snapshot(general, original, s, e);
      expect(snapshot(fast, original, s, e), `${file} frame ${k}`).toEqual(expected);
      expect(snapshot(noDeps, original, s, e), `${file} frame ${k} without deps`).toEqual(withoutDeps(expected));
      expect(snapshot(noDepsGeneral, original, s, e), `${file} frame ${k} without deps`).toEqual(withoutDeps(expected));
      // The values are the decoded node's.
      const node = decodeNode(original, s, e);
      expect([fast.id, fast.type, fast.name, fast.durationMicros, fast.dataDeps.toBigints()]).toEqual([
        node.id,
        node.type,
        node.name,
        node.durationMicros,
        node.dataDeps,
      ]);
      for (const [slot, name] of NAMES.entries()) expect(fast.attributeAt(slot)).toEqual(getAttr(node, name));
      compared++;
      // Seeded byte flips inside the frame: the same notes or the same error.
      for (let f = 0; f < flips && e > s; f++) {
        const bad = Buffer.from(original.subarray(s, e));
        const at = Math.floor(random() * bad.length);
        bad[at] = [0x00, 0x80, 0xff, bad[at] ^ 0x80, bad[at] + 1][Math.floor(random() * 5)] & 0xff;
        const verdict = snapshot(general, bad, 0, bad.length);
        expect(snapshot(fast, bad, 0, bad.length), `${file} frame ${k} byte ${at}`).toEqual(verdict);
        expect(snapshot(noDeps, bad, 0, bad.length), `${file} frame ${k} byte ${at} without deps`).toEqual(
          withoutDeps(verdict),
        );
        compared++;
      }
    }
  }
  return compared;
}

describe('node probe: the canonical fast path against the general walk', () => {
  it('notes the same on every frame of the shipped traces, and on byte flips of them', () => {
    expect(compareFiles(shippedTraceFiles, 3)).toBeGreaterThan(20_000);
  });
});

describeShared('node probe on ../shared', () => {
  it('notes the same on every frame of every trace in ../shared, and on byte flips of them', () => {
    expect(compareFiles(sharedTraceFiles, 1)).toBeGreaterThan(40_000);
  });
});

/** Known lists as a plain map of their bytes; every list looked up and missed is then known (as the graph stores). */
class MapLists implements KnownPackedLists {
  readonly counts: number[] = [];
  private readonly byBytes = new Map<string, number>();
  lastMiss: string | null = null;
  find(buf: Uint8Array, _view: DataView, start: number, end: number): number {
    const key = Buffer.from(buf.subarray(start, end)).toString('hex');
    this.lastMiss = this.byBytes.has(key) ? null : key;
    return this.byBytes.get(key) ?? -1;
  }
  countOf(entry: number): number {
    return this.counts[entry];
  }
  /** Stores the list missed last, with its length. */
  storeMiss(count: number): void {
    if (this.lastMiss === null) return;
    this.byBytes.set(this.lastMiss, this.counts.length);
    this.counts.push(count);
    this.lastMiss = null;
  }
}

describe('node probe with known lists (data dependency lists read before, left undecoded)', () => {
  it('notes the same as without them but for a known list, which it names with its length; verdicts are the same', () => {
    const plain = new NodeProbe(names);
    const known = new NodeProbe(names);
    const lists = new MapLists();
    known.knownLists = lists;
    const random = rng(99);
    let found = 0;
    const noData = (x: unknown) => (typeof x === 'object' && x !== null && 'data' in x ? { ...x, data: [] } : x);
    for (const file of shippedTraceFiles) {
      const original = readFileSync(file);
      for (const [k, [s, e]] of nodeFrames(original, file).entries()) {
        for (const [bytes, start, end] of [[original, s, e] as const, flipped(original, s, e, random)]) {
          lists.lastMiss = null;
          const expected = snapshot(plain, bytes, start, end);
          const got = snapshot(known, bytes, start, end);
          if (known.dataDepsKnown >= 0 && !('error' in (got as object))) {
            found++;
            expect(got, `${file} frame ${k}`).toEqual(noData(expected));
            expect(lists.countOf(known.dataDepsKnown)).toBe(plain.dataDeps.count);
          } else {
            expect(got, `${file} frame ${k}`).toEqual(expected);
            if (!('error' in (got as object)) && known.dataDepsStart >= 0) lists.storeMiss(known.dataDeps.count);
          }
        }
      }
    }
    expect(found).toBeGreaterThan(100);
  });

  it('decodes a known list after all when the frame has a second data_deps field', () => {
    const node = emptyNode(7n, 'n', 4);
    node.dataDeps = [1n, 2n, 300n];
    const frame = encodeTrace(null, [node]);
    const frames = nodeFrames(frame, 'frame');
    const [s, e] = frames[0];
    // The same frame with a second data_deps field (5 and 6 packed) appended: valid, not canonical.
    const bytes = Buffer.concat([frame.subarray(s, e), Buffer.from([0x2a, 0x02, 0x05, 0x06])]);
    const lists = new MapLists();
    const probe = new NodeProbe(names);
    probe.knownLists = lists;
    probe.read(new WireCursor(bytes), 0, e - s);
    lists.storeMiss(probe.dataDeps.count);
    probe.read(new WireCursor(bytes), 0, e - s);
    expect([probe.dataDepsKnown, probe.dataDeps.count]).toEqual([0, 0]);
    probe.read(new WireCursor(bytes), 0, bytes.length);
    expect([probe.dataDepsKnown, probe.dataDepsStart, probe.canonical]).toEqual([-1, -1, false]);
    expect(probe.dataDeps.toBigints()).toEqual([1n, 2n, 300n, 5n, 6n]);
  });
});

/** A copy of one frame with one byte changed (seeded), as [bytes, start, end]. */
function flipped(original: Buffer, s: number, e: number, random: () => number): readonly [Buffer, number, number] {
  const bad = Buffer.from(original.subarray(s, e));
  if (bad.length === 0) return [bad, 0, 0];
  const at = Math.floor(random() * bad.length);
  bad[at] = [0x00, 0x80, 0xff, bad[at] ^ 0x80, bad[at] + 1][Math.floor(random() * 5)] & 0xff;
  return [bad, 0, bad.length];
}

/**
 * proto/et_def.proto is the single source of truth: the hand-written codec's tables must agree
 * with it, and protobufjs (reading the .proto) must decode real traces to the same values.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { decodeTraceBuffer } from '../../src/formats/chakra/reader.js';
import { ATTR_MEMBERS, CollectiveCommType, FIELDS, NodeType } from '../../src/formats/chakra/schema.js';
import type { Attribute, ChakraNode } from '../../src/formats/chakra/types.js';
import { repoRoot } from '../helpers/shared.js';
import { sharedTraceFiles, shippedTraceFiles } from '../helpers/traces.js';

const root = new protobuf.Root().loadSync(path.join(repoRoot, 'proto', 'et_def.proto'), { keepCase: true });
const type = (n: string) => root.lookupType(`ChakraProtoMsg.${n}`);
const enumOf = (n: string) => root.lookupEnum(`ChakraProtoMsg.${n}`);

describe('schema tables agree with proto/et_def.proto', () => {
  it('has the same enums', () => {
    expect(enumOf('NodeType').values).toEqual(NodeType);
    expect(enumOf('CollectiveCommType').values).toEqual(CollectiveCommType);
  });

  it('has the same message field numbers', () => {
    for (const [msg, fields] of Object.entries(FIELDS)) {
      const t = type(msg);
      for (const [name, id] of Object.entries(fields)) expect(t.fields[name]?.id, `${msg}.${name}`).toBe(id);
    }
    const node = type('Node');
    expect(node.fields.ctrl_deps.repeated && node.fields.ctrl_deps.type).toBe('uint64');
    expect(node.fields.id.type).toBe('uint64');
  });

  it('has the same AttributeProto oneof members, numbers and types', () => {
    const attr = type('AttributeProto');
    const oneof = attr.oneofs.value.fieldsArray;
    expect(oneof.map((f) => f.name)).toEqual(ATTR_MEMBERS.map((m) => m.kind));
    for (const m of ATTR_MEMBERS) {
      const f = attr.fields[m.kind];
      expect(f.id, m.kind).toBe(m.field);
      if (m.list) {
        const listType = type(f.type);
        expect(listType.fields.values.type, m.kind).toBe(m.scalar);
        expect(listType.fields.values.repeated).toBe(true);
      } else {
        expect(f.type, m.kind).toBe(m.scalar);
      }
    }
  });
});

function normalise(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map(normalise);
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN';
  return v;
}

function ours(a: Attribute) {
  const value = a.kind?.endsWith('_list') ? { values: normalise(a.value) } : normalise(a.value);
  return { name: a.name, kind: a.kind, value };
}

function theirs(o: Record<string, unknown>) {
  const kind = (o.value as string | undefined) ?? null;
  let value = kind ? o[kind] : null;
  if (typeof value === 'number' && Number.isNaN(value)) value = 'NaN';
  if (kind?.endsWith('_list'))
    value = {
      values: ((value as { values?: unknown[] }).values ?? []).map((x) =>
        typeof x === 'number' && Number.isNaN(x) ? 'NaN' : x,
      ),
    };
  return { name: (o.name as string) ?? '', kind, value };
}

describe('protobufjs decodes real traces to the same values', () => {
  const files = sharedTraceFiles.length ? sharedTraceFiles : shippedTraceFiles;
  it(`agrees on every node of ${files.length} traces`, () => {
    const Node = type('Node');
    const Meta = type('GlobalMetadata');
    const opts = { longs: String, enums: Number, bytes: String, oneofs: true, defaults: false };
    let compared = 0;
    for (const f of files) {
      const buf = readFileSync(f);
      const t = decodeTraceBuffer(buf, f);
      const reader = protobuf.Reader.create(buf);
      if (t.metadata) {
        const m = Meta.toObject(Meta.decodeDelimited(reader), opts);
        expect(m.version ?? '').toBe(t.metadata.version);
      }
      for (const n of t.nodes) {
        const o = Node.toObject(Node.decodeDelimited(reader), opts) as Record<string, unknown>;
        const mine: ChakraNode = n;
        expect(o.id ?? '0', f).toBe(mine.id.toString());
        expect(o.type ?? 0).toBe(mine.type);
        expect(o.name ?? '').toBe(mine.name);
        expect((o.data_deps as string[] | undefined) ?? []).toEqual(mine.dataDeps.map(String));
        expect((o.ctrl_deps as string[] | undefined) ?? []).toEqual(mine.ctrlDeps.map(String));
        expect(o.duration_micros ?? '0').toBe(mine.durationMicros.toString());
        expect(((o.attr as Record<string, unknown>[] | undefined) ?? []).map(theirs)).toEqual(mine.attrs.map(ours));
        compared++;
      }
      expect(reader.pos).toBe(buf.length);
    }
    expect(compared).toBeGreaterThan(10_000);
  });
});

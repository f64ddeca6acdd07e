/**
 * Chakra trace ↔ one JSON document: `{"metadata": {…} | null, "nodes": [ … ]}`.
 * Messages follow the protobuf proto3 JSON mapping (lowerCamelCase names, 64-bit integers as
 * strings, enum names, bytes as base64, "NaN"/"Infinity" for non-finite doubles), so any JSON tool
 * or protobuf JSON parser reads it. Encoding details needed for a byte-identical return trip
 * (unknown fields, explicit defaults, unpacked lists) ride in an optional "$lossless" member.
 */
import { tooDeepAt, tooDeepError } from '../text-file.js';
import { excerpt, FormatError } from '../../errors.js';
import { describeJson, jsonPath, JsonShape } from '../json-shape.js';
import {
  ATTR_MEMBER_BY_KIND,
  ATTR_MEMBERS,
  BIGINT_SCALARS,
  nodeTypeFromName,
  nodeTypeName,
  type AttrMember,
} from './schema.js';
import type { AttrScalarValue, AttrValue, Attribute, ChakraNode, GlobalMetadata, IOInfo, Lossless } from './types.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const MEMBER_BY_JSON = new Map<string, AttrMember>(ATTR_MEMBERS.map((m) => [camel(m.kind), m]));

// ---------- to JSON ----------

function jsonNumber(v: number): string {
  if (Number.isNaN(v)) return '"NaN"';
  if (v === Infinity) return '"Infinity"';
  if (v === -Infinity) return '"-Infinity"';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

function scalarJson(member: AttrMember, v: AttrScalarValue): string {
  if (BIGINT_SCALARS.has(member.scalar)) return `"${String(v)}"`;
  switch (member.scalar) {
    case 'bool':
      return v ? 'true' : 'false';
    case 'string':
      return JSON.stringify(v);
    case 'bytes':
      return `"${Buffer.from(v as Uint8Array).toString('base64')}"`;
    default:
      return jsonNumber(v as number);
  }
}

function losslessJson(l: Lossless | undefined): string {
  if (!l) return '';
  const parts: string[] = [];
  if (l.explicitDefaults) parts.push(`"explicitDefaults":${l.explicitDefaults}`);
  if (l.unpacked) parts.push(`"unpacked":${l.unpacked}`);
  if (l.unknown?.length) {
    parts.push(
      `"unknown":[` +
        l.unknown.map((u) => `{"field":${u.field},"bytes":"${Buffer.from(u.bytes).toString('base64')}"}`).join(',') +
        `]`,
    );
  }
  return parts.length ? `,"$lossless":{${parts.join(',')}}` : '';
}

export function attributeToJson(a: Attribute): string {
  let s = `{"name":${JSON.stringify(a.name)}`;
  if (a.docString !== '') s += `,"docString":${JSON.stringify(a.docString)}`;
  if (a.kind !== null) {
    const m = ATTR_MEMBER_BY_KIND.get(a.kind)!;
    const key = camel(a.kind);
    if (m.list) {
      const values = a.value as AttrScalarValue[];
      s += `,"${key}":{"values":[${values.map((v) => scalarJson(m, v)).join(',')}]}`;
    } else {
      s += `,"${key}":${scalarJson(m, a.value as AttrScalarValue)}`;
    }
  }
  return `${s + losslessJson(a.lossless)}}`;
}

function ioJson(io: IOInfo): string {
  const parts: string[] = [];
  if (io.values !== '') parts.push(`"values":${JSON.stringify(io.values)}`);
  if (io.shapes !== '') parts.push(`"shapes":${JSON.stringify(io.shapes)}`);
  if (io.types !== '') parts.push(`"types":${JSON.stringify(io.types)}`);
  const l = losslessJson(io.lossless);
  return `{${parts.join(',')}${parts.length ? l : l.slice(1)}}`;
}

export function nodeToJson(n: ChakraNode): string {
  const parts: string[] = [];
  if (n.id !== 0n) parts.push(`"id":"${n.id}"`);
  if (n.name !== '') parts.push(`"name":${JSON.stringify(n.name)}`);
  if (n.type !== 0) {
    const t = nodeTypeName(n.type);
    parts.push(t.startsWith('NodeType(') ? `"type":${n.type}` : `"type":"${t}"`);
  }
  if (n.ctrlDeps.length) parts.push(`"ctrlDeps":[${n.ctrlDeps.map((d) => `"${d}"`).join(',')}]`);
  if (n.dataDeps.length) parts.push(`"dataDeps":[${n.dataDeps.map((d) => `"${d}"`).join(',')}]`);
  if (n.startTimeMicros !== 0n) parts.push(`"startTimeMicros":"${n.startTimeMicros}"`);
  if (n.durationMicros !== 0n) parts.push(`"durationMicros":"${n.durationMicros}"`);
  if (n.inputs) parts.push(`"inputs":${ioJson(n.inputs)}`);
  if (n.outputs) parts.push(`"outputs":${ioJson(n.outputs)}`);
  if (n.attrs.length) parts.push(`"attr":[${n.attrs.map(attributeToJson).join(',')}]`);
  const l = losslessJson(n.lossless);
  return `{${parts.join(',')}${parts.length ? l : l.slice(1)}}`;
}

export function metadataToJson(md: GlobalMetadata): string {
  const parts: string[] = [];
  if (md.version !== '') parts.push(`"version":${JSON.stringify(md.version)}`);
  if (md.attrs.length) parts.push(`"attr":[${md.attrs.map(attributeToJson).join(',')}]`);
  const l = losslessJson(md.lossless);
  return `{${parts.join(',')}${parts.length ? l : l.slice(1)}}`;
}

/** Text pieces of the document, so large traces can be written as a stream. */
export const jsonDocument = {
  head: (md: GlobalMetadata | null) => `{"metadata":${md ? metadataToJson(md) : 'null'},\n"nodes":[\n`,
  node: (n: ChakraNode, first: boolean) => (first ? '' : ',\n') + nodeToJson(n),
  tail: () => '\n]}\n',
};

// ---------- from JSON ----------

/**
 * Where a value sits in the JSON trace: the file's checker (json-shape.ts), the value's JSON path, and the node and
 * attribute it belongs to (named after each problem).
 */
class Ctx {
  constructor(
    readonly shape: JsonShape,
    readonly path: string,
    readonly owner = '',
  ) {}
  fail(problem: string): never {
    return this.shape.fail(this.path, problem + this.owner);
  }
  expected(what: string, v: unknown): never {
    return this.fail(`expected ${what}, found ${describeJson(v)}`);
  }
  at(key: string | number, owner = this.owner): Ctx {
    return new Ctx(this.shape, jsonPath(this.path, key), owner);
  }
}

function obj(ctx: Ctx, v: unknown, what: string): Record<string, Json> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) ctx.expected(`${what} (a JSON object)`, v);
  return v as Record<string, Json>;
}

function list(ctx: Ctx, v: unknown): Json[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) ctx.expected('a list', v);
  return v as Json[];
}

function uint64(ctx: Ctx, v: Json | undefined): bigint {
  if (v === undefined) return 0n;
  if (typeof v === 'string' && /^\d+$/.test(v)) {
    const b = BigInt(v);
    if (b < 2n ** 64n) return b;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return ctx.expected('an unsigned 64-bit integer (as a string)', v);
}

function int64(ctx: Ctx, v: Json): bigint {
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  return ctx.expected('a 64-bit integer (as a string)', v);
}

function str(ctx: Ctx, v: Json | undefined): string {
  if (v === undefined) return '';
  if (typeof v !== 'string') ctx.expected('a string', v);
  return v as string;
}

function floatFrom(ctx: Ctx, v: Json): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return ctx.expected('a number', v);
}

/** Value ranges of the integer scalars, checked so nothing wraps silently on encode. */
const INT_RANGES: Partial<Record<AttrMember['scalar'], [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  sint32: [-(2n ** 31n), 2n ** 31n - 1n],
  sfixed32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  fixed32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  sint64: [-(2n ** 63n), 2n ** 63n - 1n],
  sfixed64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  fixed64: [0n, 2n ** 64n - 1n],
};

function inRange(ctx: Ctx, m: AttrMember, v: bigint): bigint {
  const r = INT_RANGES[m.scalar];
  if (r && (v < r[0] || v > r[1])) ctx.fail(`${v} is outside the ${m.scalar} range [${r[0]}, ${r[1]}]`);
  return v;
}

function scalarFrom(ctx: Ctx, m: AttrMember, v: Json): AttrScalarValue {
  if (BIGINT_SCALARS.has(m.scalar)) return inRange(ctx, m, int64(ctx, v));
  switch (m.scalar) {
    case 'bool':
      if (typeof v !== 'boolean') ctx.expected('true or false', v);
      return v as boolean;
    case 'string':
      return str(ctx, v);
    case 'bytes':
      return new Uint8Array(Buffer.from(str(ctx, v), 'base64'));
    case 'double':
    case 'float':
      return floatFrom(ctx, v);
    default:
      if (typeof v !== 'number' || !Number.isInteger(v)) ctx.expected('an integer', v);
      return Number(inRange(ctx, m, BigInt(v as number)));
  }
}

function losslessFrom(ctx: Ctx, v: Json | undefined): Lossless | undefined {
  if (v === undefined) return undefined;
  const o = obj(ctx, v, 'the lossless record');
  const l: Lossless = {};
  if (o.explicitDefaults !== undefined) l.explicitDefaults = o.explicitDefaults as number;
  if (o.unpacked !== undefined) l.unpacked = o.unpacked as number;
  if (o.unknown !== undefined) {
    l.unknown = list(ctx.at('unknown'), o.unknown).map((u, i) => {
      const at = ctx.at('unknown').at(i);
      const uo = obj(at, u, 'an unknown field {field, bytes}');
      return { field: uo.field as number, bytes: new Uint8Array(Buffer.from(str(at.at('bytes'), uo.bytes), 'base64')) };
    });
  }
  return l;
}

export function attributeFromJson(ctx: Ctx, v: Json): Attribute {
  const o = obj(ctx, v, 'an attribute');
  const name = str(ctx.at('name'), o.name);
  // Problems in its members name the attribute after the node: " (node id 7, attribute "x")".
  const owner = `${ctx.owner ? `${ctx.owner.slice(0, -1)}, ` : ' ('}attribute "${excerpt(name)}")`;
  const at = (key: string) => ctx.at(key, owner);
  const a: Attribute = { name, docString: str(at('docString'), o.docString), kind: null, value: null };
  for (const [key, val] of Object.entries(o)) {
    if (key === 'name' || key === 'docString' || key === '$lossless') continue;
    const m = MEMBER_BY_JSON.get(key);
    if (!m) at(key).fail('unknown attribute member');
    if (a.kind !== null) at(key).fail(`more than one value member (${camel(a.kind)} and ${key})`);
    a.kind = m!.kind;
    if (m!.list) {
      const lo = obj(at(key), val, 'a list {values}');
      const values = at(key).at('values');
      a.value = list(values, lo.values).map((x, j) => scalarFrom(values.at(j), m!, x)) as AttrValue;
    } else {
      a.value = scalarFrom(at(key), m!, val);
    }
  }
  const l = losslessFrom(at('$lossless'), o.$lossless);
  if (l) a.lossless = l;
  return a;
}

function ioFrom(ctx: Ctx, v: Json): IOInfo {
  const o = obj(ctx, v, 'an IOInfo');
  const io: IOInfo = {
    values: str(ctx.at('values'), o.values),
    shapes: str(ctx.at('shapes'), o.shapes),
    types: str(ctx.at('types'), o.types),
  };
  const l = losslessFrom(ctx.at('$lossless'), o.$lossless);
  if (l) io.lossless = l;
  return io;
}

const NODE_KEYS = new Set([
  'id',
  'name',
  'type',
  'ctrlDeps',
  'dataDeps',
  'startTimeMicros',
  'durationMicros',
  'inputs',
  'outputs',
  'attr',
  '$lossless',
]);

export function nodeFromJson(ctx: Ctx, v: Json): ChakraNode {
  const o = obj(ctx, v, 'a node');
  for (const k of Object.keys(o)) if (!NODE_KEYS.has(k)) ctx.at(k).fail('unknown node field');
  let type = 0;
  if (typeof o.type === 'string') {
    const t = nodeTypeFromName(o.type);
    if (t === undefined) ctx.at('type').fail(`unknown NodeType "${o.type}"`);
    type = t!;
  } else if (typeof o.type === 'number') type = o.type;
  const deps = (key: 'ctrlDeps' | 'dataDeps') => list(ctx.at(key), o[key]).map((d, j) => uint64(ctx.at(key).at(j), d));
  const node: ChakraNode = {
    id: uint64(ctx.at('id'), o.id),
    name: str(ctx.at('name'), o.name),
    type,
    ctrlDeps: deps('ctrlDeps'),
    dataDeps: deps('dataDeps'),
    startTimeMicros: uint64(ctx.at('startTimeMicros'), o.startTimeMicros),
    durationMicros: uint64(ctx.at('durationMicros'), o.durationMicros),
    inputs: o.inputs === undefined ? null : ioFrom(ctx.at('inputs'), o.inputs),
    outputs: o.outputs === undefined ? null : ioFrom(ctx.at('outputs'), o.outputs),
    attrs: list(ctx.at('attr'), o.attr).map((a, j) => attributeFromJson(ctx.at('attr').at(j), a)),
  };
  const l = losslessFrom(ctx.at('$lossless'), o.$lossless);
  if (l) node.lossless = l;
  return node;
}

export function metadataFromJson(ctx: Ctx, v: Json): GlobalMetadata {
  const o = obj(ctx, v, 'the metadata');
  const md: GlobalMetadata = {
    version: str(ctx.at('version'), o.version),
    attrs: list(ctx.at('attr'), o.attr).map((a, j) => attributeFromJson(ctx.at('attr').at(j), a)),
  };
  const l = losslessFrom(ctx.at('$lossless'), o.$lossless);
  if (l) md.lossless = l;
  return md;
}

/** Parses a whole JSON trace document (held in memory). */
export function traceFromJson(text: string, file: string): { metadata: GlobalMetadata | null; nodes: ChakraNode[] } {
  let doc: Json;
  const deep = tooDeepAt(text);
  if (deep >= 0) throw tooDeepError(file, text, deep);
  try {
    doc = JSON.parse(text) as Json;
  } catch (e) {
    throw new FormatError(file, '', `not valid JSON (${(e as Error).message})`);
  }
  const root = new Ctx(new JsonShape(file), '');
  const o = obj(root, doc, 'a Chakra JSON trace {"metadata": …, "nodes": […]}');
  if (!Array.isArray(o.nodes)) root.at('nodes').expected('the list of nodes ({"metadata": …, "nodes": […]})', o.nodes);
  const metadata =
    o.metadata === null || o.metadata === undefined ? null : metadataFromJson(root.at('metadata'), o.metadata);
  const nodes = (o.nodes as Json[]).map((n, i) => {
    const id = n && typeof n === 'object' && !Array.isArray(n) ? (n as Record<string, Json>).id : undefined;
    return nodeFromJson(root.at('nodes').at(i, id !== undefined ? ` (node id ${excerpt(String(id))})` : ''), n);
  });
  return { metadata, nodes };
}

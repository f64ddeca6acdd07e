/**
 * Chakra trace ↔ one JSON document: `{"metadata": {…} | null, "nodes": [ … ]}`.
 * Messages follow the protobuf proto3 JSON mapping (lowerCamelCase names, 64-bit integers as
 * strings, enum names, bytes as base64, "NaN"/"Infinity" for non-finite doubles), so any JSON tool
 * or protobuf JSON parser reads it. Encoding details needed for a byte-identical return trip
 * (unknown fields, explicit defaults, unpacked lists) ride in an optional "$lossless" member.
 */
import { tooDeepAt, tooDeepError } from '../text-file.js';
import { FormatError } from '../../errors.js';
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
      `"unknown":[${l.unknown.map((u) => `{"field":${u.field},"bytes":"${Buffer.from(u.bytes).toString('base64')}"}`).join(',')}]`,
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

class Ctx {
  constructor(
    readonly file: string,
    readonly where: string,
  ) {}
  fail(problem: string): never {
    throw new FormatError(this.file, this.where, problem);
  }
  at(where: string): Ctx {
    return new Ctx(this.file, where);
  }
}

function obj(ctx: Ctx, v: unknown, what: string): Record<string, Json> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) ctx.fail(`${what} must be a JSON object`);
  return v as Record<string, Json>;
}

function uint64(ctx: Ctx, v: Json | undefined, field: string): bigint {
  if (v === undefined) return 0n;
  if (typeof v === 'string' && /^\d+$/.test(v)) {
    const b = BigInt(v);
    if (b < 2n ** 64n) return b;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return ctx.fail(`${field} must be an unsigned 64-bit integer (as a string), got ${JSON.stringify(v)}`);
}

function int64(ctx: Ctx, v: Json, field: string): bigint {
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  return ctx.fail(`${field} must be a 64-bit integer (as a string), got ${JSON.stringify(v)}`);
}

function str(ctx: Ctx, v: Json | undefined, field: string): string {
  if (v === undefined) return '';
  if (typeof v !== 'string') ctx.fail(`${field} must be a string`);
  return v as string;
}

function floatFrom(ctx: Ctx, v: Json, field: string): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return ctx.fail(`${field} must be a number, got ${JSON.stringify(v)}`);
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

function inRange(ctx: Ctx, m: AttrMember, v: bigint, field: string): bigint {
  const r = INT_RANGES[m.scalar];
  if (r && (v < r[0] || v > r[1])) ctx.fail(`${field} = ${v} is outside the ${m.scalar} range [${r[0]}, ${r[1]}]`);
  return v;
}

function scalarFrom(ctx: Ctx, m: AttrMember, v: Json, field: string): AttrScalarValue {
  if (BIGINT_SCALARS.has(m.scalar)) return inRange(ctx, m, int64(ctx, v, field), field);
  switch (m.scalar) {
    case 'bool':
      if (typeof v !== 'boolean') ctx.fail(`${field} must be true or false`);
      return v as boolean;
    case 'string':
      return str(ctx, v, field);
    case 'bytes':
      return new Uint8Array(Buffer.from(str(ctx, v, field), 'base64'));
    case 'double':
    case 'float':
      return floatFrom(ctx, v, field);
    default:
      if (typeof v !== 'number' || !Number.isInteger(v)) ctx.fail(`${field} must be an integer`);
      return Number(inRange(ctx, m, BigInt(v as number), field));
  }
}

function losslessFrom(ctx: Ctx, v: Json | undefined): Lossless | undefined {
  if (v === undefined) return undefined;
  const o = obj(ctx, v, '$lossless');
  const l: Lossless = {};
  if (o.explicitDefaults !== undefined) l.explicitDefaults = o.explicitDefaults as number;
  if (o.unpacked !== undefined) l.unpacked = o.unpacked as number;
  if (o.unknown !== undefined) {
    l.unknown = (o.unknown as Json[]).map((u) => {
      const uo = obj(ctx, u, '$lossless.unknown[]');
      return { field: uo.field as number, bytes: new Uint8Array(Buffer.from(str(ctx, uo.bytes, 'bytes'), 'base64')) };
    });
  }
  return l;
}

export function attributeFromJson(ctx: Ctx, v: Json): Attribute {
  const o = obj(ctx, v, 'attribute');
  const a: Attribute = {
    name: str(ctx, o.name, 'name'),
    docString: str(ctx, o.docString, 'docString'),
    kind: null,
    value: null,
  };
  for (const [key, val] of Object.entries(o)) {
    if (key === 'name' || key === 'docString' || key === '$lossless') continue;
    const m = MEMBER_BY_JSON.get(key);
    if (!m) ctx.fail(`attribute "${a.name}": unknown member "${key}"`);
    if (a.kind !== null) ctx.fail(`attribute "${a.name}": more than one value member (${camel(a.kind)} and ${key})`);
    a.kind = m!.kind;
    if (m!.list) {
      const lo = obj(ctx, val, `${key}`);
      if (!Array.isArray(lo.values ?? [])) ctx.fail(`attribute "${a.name}": ${key}.values must be an array`);
      a.value = ((lo.values ?? []) as Json[]).map((x) => scalarFrom(ctx, m!, x, `${a.name}.${key}`)) as AttrValue;
    } else {
      a.value = scalarFrom(ctx, m!, val, `${a.name}.${key}`);
    }
  }
  const l = losslessFrom(ctx, o.$lossless);
  if (l) a.lossless = l;
  return a;
}

function ioFrom(ctx: Ctx, v: Json): IOInfo {
  const o = obj(ctx, v, 'IOInfo');
  const io: IOInfo = {
    values: str(ctx, o.values, 'values'),
    shapes: str(ctx, o.shapes, 'shapes'),
    types: str(ctx, o.types, 'types'),
  };
  const l = losslessFrom(ctx, o.$lossless);
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
  const o = obj(ctx, v, 'node');
  for (const k of Object.keys(o)) if (!NODE_KEYS.has(k)) ctx.fail(`unknown node field "${k}"`);
  let type = 0;
  if (typeof o.type === 'string') {
    const t = nodeTypeFromName(o.type);
    if (t === undefined) ctx.fail(`unknown NodeType "${o.type}"`);
    type = t!;
  } else if (typeof o.type === 'number') type = o.type;
  const deps = (key: 'ctrlDeps' | 'dataDeps') => {
    const arr = o[key] ?? [];
    if (!Array.isArray(arr)) ctx.fail(`${key} must be an array`);
    return (arr as Json[]).map((d) => uint64(ctx, d, key));
  };
  const attrs = o.attr ?? [];
  if (!Array.isArray(attrs)) ctx.fail('attr must be an array');
  const node: ChakraNode = {
    id: uint64(ctx, o.id, 'id'),
    name: str(ctx, o.name, 'name'),
    type,
    ctrlDeps: deps('ctrlDeps'),
    dataDeps: deps('dataDeps'),
    startTimeMicros: uint64(ctx, o.startTimeMicros, 'startTimeMicros'),
    durationMicros: uint64(ctx, o.durationMicros, 'durationMicros'),
    inputs: o.inputs === undefined ? null : ioFrom(ctx, o.inputs),
    outputs: o.outputs === undefined ? null : ioFrom(ctx, o.outputs),
    attrs: (attrs as Json[]).map((a) => attributeFromJson(ctx, a)),
  };
  const l = losslessFrom(ctx, o.$lossless);
  if (l) node.lossless = l;
  return node;
}

export function metadataFromJson(ctx: Ctx, v: Json): GlobalMetadata {
  const o = obj(ctx, v, 'metadata');
  const attrs = o.attr ?? [];
  if (!Array.isArray(attrs)) ctx.fail('metadata.attr must be an array');
  const md: GlobalMetadata = {
    version: str(ctx, o.version, 'version'),
    attrs: (attrs as Json[]).map((a) => attributeFromJson(ctx, a)),
  };
  const l = losslessFrom(ctx, o.$lossless);
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
  const root = new Ctx(file, 'document');
  const o = obj(root, doc, 'the document');
  if (!('nodes' in o)) root.fail('missing "nodes" array; expected {"metadata": …, "nodes": […]}');
  if (!Array.isArray(o.nodes)) root.fail('"nodes" must be an array');
  const metadata =
    o.metadata === null || o.metadata === undefined ? null : metadataFromJson(root.at('metadata'), o.metadata);
  const nodes = (o.nodes as Json[]).map((n, i) => {
    const id = n && typeof n === 'object' && !Array.isArray(n) ? (n as Record<string, Json>).id : undefined;
    return nodeFromJson(root.at(`nodes[${i}]${id !== undefined ? ` (id ${String(id)})` : ''}`), n);
  });
  return { metadata, nodes };
}

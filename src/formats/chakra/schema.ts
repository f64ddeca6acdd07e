/**
 * The Chakra schema (proto/et_def.proto) as tables the hand-written codec runs on.
 * test/chakra/schema.test.ts parses the .proto with protobufjs and checks every number here against it.
 */

export const NodeType = {
  INVALID_NODE: 0,
  METADATA_NODE: 1,
  MEM_LOAD_NODE: 2,
  MEM_STORE_NODE: 3,
  COMP_NODE: 4,
  COMM_SEND_NODE: 5,
  COMM_RECV_NODE: 6,
  COMM_COLL_NODE: 7,
} as const;
export type NodeTypeName = keyof typeof NodeType;

export const CollectiveCommType = {
  ALL_REDUCE: 0,
  REDUCE: 1,
  ALL_GATHER: 2,
  GATHER: 3,
  SCATTER: 4,
  BROADCAST: 5,
  ALL_TO_ALL: 6,
  REDUCE_SCATTER: 7,
  REDUCE_SCATTER_BLOCK: 8,
  BARRIER: 9,
} as const;
export type CollectiveCommTypeName = keyof typeof CollectiveCommType;

const nodeTypeNames = invert(NodeType);
const commTypeNames = invert(CollectiveCommType);

/** Enum name for a NodeType number; proto3 enums are open, so unknown numbers read as "NodeType(12)". */
export function nodeTypeName(value: number): string {
  return nodeTypeNames.get(value) ?? `NodeType(${value})`;
}

export function commTypeName(value: number | bigint): string {
  return commTypeNames.get(Number(value)) ?? `CollectiveCommType(${value})`;
}

export function nodeTypeFromName(name: string): number | undefined {
  return (NodeType as Record<string, number>)[name];
}

export function commTypeFromName(name: string): number | undefined {
  return (CollectiveCommType as Record<string, number>)[name];
}

function invert(table: Record<string, number>): Map<number, string> {
  return new Map(Object.entries(table).map(([k, v]) => [v, k]));
}

/** The integer scalars of the AttributeProto oneof, in field order. */
const INTEGER_TYPES = [
  'int32',
  'int64',
  'uint32',
  'uint64',
  'sint32',
  'sint64',
  'fixed32',
  'fixed64',
  'sfixed32',
  'sfixed64',
] as const;

/** Scalar kinds of the AttributeProto oneof, named as in the .proto, in field order. */
export const SCALAR_TYPES = ['double', 'float', ...INTEGER_TYPES, 'bool', 'string', 'bytes'] as const;

export type ScalarType = (typeof SCALAR_TYPES)[number];

/** AttributeProto oneof member names, e.g. "int64_val", "bool_list". */
export type AttrKind = `${ScalarType}_val` | `${ScalarType}_list`;

export interface AttrMember {
  kind: AttrKind;
  field: number;
  scalar: ScalarType;
  list: boolean;
}

/** Oneof members in field order: double_val = 3, double_list = 4, float_val = 5, … bytes_list = 32. */
export const ATTR_MEMBERS: readonly AttrMember[] = SCALAR_TYPES.flatMap((scalar, i) => [
  { kind: `${scalar}_val` as AttrKind, field: 3 + 2 * i, scalar, list: false },
  { kind: `${scalar}_list` as AttrKind, field: 4 + 2 * i, scalar, list: true },
]);

export const ATTR_MEMBER_BY_FIELD: ReadonlyMap<number, AttrMember> = new Map(ATTR_MEMBERS.map((m) => [m.field, m]));
export const ATTR_MEMBER_BY_KIND: ReadonlyMap<string, AttrMember> = new Map(ATTR_MEMBERS.map((m) => [m.kind, m]));

export const INTEGER_SCALARS: ReadonlySet<ScalarType> = new Set(INTEGER_TYPES);

/** Scalars whose JS value is a bigint (64-bit integers). */
export const BIGINT_SCALARS: ReadonlySet<ScalarType> = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/** Field numbers of the messages, used by the codec and checked against the .proto. */
export const FIELDS = {
  GlobalMetadata: { version: 1, attr: 2 },
  Node: {
    id: 1,
    name: 2,
    type: 3,
    ctrl_deps: 4,
    data_deps: 5,
    start_time_micros: 6,
    duration_micros: 7,
    inputs: 8,
    outputs: 9,
    attr: 10,
  },
  IOInfo: { values: 1, shapes: 2, types: 3 },
  AttributeProto: { name: 1, doc_string: 2 },
} as const;

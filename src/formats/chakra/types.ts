/**
 * In-memory model of a Chakra trace. 64-bit integers (ids, deps, times, 64-bit attribute values)
 * are bigint so they never lose precision; 32-bit and floating values are number.
 */
import type { AttrKind } from './schema.js';

export type AttrScalarValue = number | bigint | boolean | string | Uint8Array;
export type AttrValue = AttrScalarValue | AttrScalarValue[];

/**
 * Encoding details that a canonical re-encode would not reproduce, kept so that decode → encode
 * is byte-identical. Absent on the common (canonical) path.
 */
export interface Lossless {
  /** Unknown fields as raw bytes (tag and payload), in the order met, with their field numbers. */
  unknown?: { field: number; bytes: Uint8Array }[];
  /** Bit i set: field i was written explicitly although it holds its default value. */
  explicitDefaults?: number;
  /** Bit i set: repeated field i was written unpacked. */
  unpacked?: number;
}

export interface Attribute {
  name: string;
  docString: string;
  /** Which oneof member is set; null when none is. */
  kind: AttrKind | null;
  /** Scalar for *_val, array for *_list; null when kind is null. */
  value: AttrValue | null;
  lossless?: Lossless;
}

export interface IOInfo {
  values: string;
  shapes: string;
  types: string;
  lossless?: Lossless;
}

export interface GlobalMetadata {
  version: string;
  attrs: Attribute[];
  lossless?: Lossless;
}

export interface ChakraNode {
  id: bigint;
  name: string;
  /** NodeType number (see schema.ts NodeType); proto3 enums are open so any number may appear. */
  type: number;
  ctrlDeps: bigint[];
  dataDeps: bigint[];
  startTimeMicros: bigint;
  durationMicros: bigint;
  inputs: IOInfo | null;
  outputs: IOInfo | null;
  attrs: Attribute[];
  lossless?: Lossless;
}

export function emptyNode(id: bigint, name = '', type = 0): ChakraNode {
  return {
    id,
    name,
    type,
    ctrlDeps: [],
    dataDeps: [],
    startTimeMicros: 0n,
    durationMicros: 0n,
    inputs: null,
    outputs: null,
    attrs: [],
  };
}

/**
 * The integer values of a node that a replay reads into a number, and the range it accepts for each: one check, so
 * that `validate` (a problem per node), replay's classifier and `export astra-sim` (an InputError naming file and
 * node) give a trace the same verdict. Sizes and counts must be whole numbers a float holds exactly (0 to 2^53 − 1);
 * a negative size is no size; a duration must stay exact once in ns.
 */

import { type CollectiveKind, SIMULATED_COLLECTIVES } from '../../vocab/collectives.js';
import { CollectiveCommType, NodeType } from './schema.js';

/** 2^53 − 1: the largest whole number every reader of a figure holds exactly. */
export const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

export interface NodeValueLimit {
  min: bigint;
  max: bigint;
  unit: string;
}

/** Attributes read as counts or sizes, with their range (inclusive) and unit. */
export const NODE_VALUE_LIMITS: Readonly<Record<string, NodeValueLimit>> = {
  num_ops: { min: 0n, max: MAX_EXACT, unit: 'operations' },
  tensor_size: { min: 0n, max: MAX_EXACT, unit: 'bytes' },
  comm_size: { min: 0n, max: MAX_EXACT, unit: 'bytes' },
  comm_src: { min: 0n, max: MAX_EXACT, unit: '(a rank)' },
  comm_dst: { min: 0n, max: MAX_EXACT, unit: '(a rank)' },
  comm_tag: { min: -MAX_EXACT, max: MAX_EXACT, unit: '' },
};

/**
 * The limited attributes a consumer reads as numbers on a node of `type` (replay's classifier and ASTRA-sim's
 * workload layer): a size on a compute node, a peer and tag on a send or receive, … An attribute a node's consumers
 * never read (a comm_tag on a collective) is not checked on it.
 */
export function valuesReadBy(type: number): readonly string[] {
  return READ_BY_TYPE[type] ?? [];
}
const READ_BY_TYPE: Record<number, readonly string[]> = {
  [NodeType.COMP_NODE]: ['num_ops', 'tensor_size'],
  [NodeType.MEM_LOAD_NODE]: ['tensor_size'],
  [NodeType.MEM_STORE_NODE]: ['tensor_size'],
  [NodeType.COMM_SEND_NODE]: ['comm_dst', 'comm_size', 'comm_tag'],
  [NodeType.COMM_RECV_NODE]: ['comm_src', 'comm_size', 'comm_tag'],
  [NodeType.COMM_COLL_NODE]: ['comm_size'],
};
const SIMULATED_BY_COMM_TYPE = new Map<number, CollectiveKind>(
  SIMULATED_COLLECTIVES.map((kind) => [CollectiveCommType[kind], kind]),
);

/** The simulated collective (vocab/collectives.ts) a comm_type names, or undefined: one that runs for its duration. */
export function simulatedCollective(commType: number | bigint | undefined): CollectiveKind | undefined {
  return commType === undefined ? undefined : SIMULATED_BY_COMM_TYPE.get(Number(commType));
}

/**
 * Whether a node's duration is read (it runs for duration_micros): compute nodes, and collectives that are not one of
 * the four ASTRA-sim simulates (a BROADCAST, a CPU-side collective without comm_type).
 */
export function durationRead(type: number, commType: bigint | undefined): boolean {
  return (
    type === NodeType.COMP_NODE || (type === NodeType.COMM_COLL_NODE && simulatedCollective(commType) === undefined)
  );
}

/** duration_micros: its value in ns (× 1000) must be exact. */
export const MAX_DURATION_MICROS = MAX_EXACT / 1000n;

/** "comm_size = -5 is out of range (0 to 9007199254740991 bytes)", or null when `v` is in range (or not limited). */
export function nodeValueProblem(name: string, v: bigint): string | null {
  const limit = NODE_VALUE_LIMITS[name];
  if (!limit || (v >= limit.min && v <= limit.max)) return null;
  return `${name} = ${v} is out of range (${limit.min} to ${limit.max}${limit.unit ? ` ${limit.unit}` : ''})`;
}

/** The problem with a duration_micros, or null. */
export function durationProblem(micros: bigint): string | null {
  return micros > MAX_DURATION_MICROS
    ? `duration_micros ${micros} is too large (at most ${MAX_DURATION_MICROS} µs, so that its ns are exact)`
    : null;
}

/**
 * Why a collective of 0 bytes that is an ALL_GATHER cannot run: ASTRA-sim's Sys::generate_collective rounds other
 * empty collectives up to preferred-dataset-splits × NPUs bytes (and charges their latency), but an all-gather keeps
 * size 0, makes no stream, and is never finished. validate and replay refuse it with these words.
 */
export const EMPTY_ALL_GATHER =
  'ALL_GATHER of 0 bytes: ASTRA-sim makes no stream for it and never finishes it (every rank stalls); give it ' +
  'a comm_size > 0';

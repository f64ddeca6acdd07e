/**
 * The integer values of a node that a replay reads into a number, and the range it accepts for each: one check, so
 * that `validate` (a problem per node), replay's classifier and `export astra-sim` (an InputError naming file and
 * node) give a trace the same verdict. Sizes and counts must be whole numbers a float holds exactly (0 to 2^53 − 1);
 * a negative size is no size; a duration must stay exact once in ns.
 */

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
  return micros > MAX_DURATION_MICROS ? `duration_micros ${micros} is too large (at most ${MAX_DURATION_MICROS} µs, so that its ns are exact)` : null;
}

/**
 * Why a collective of 0 bytes that is an ALL_GATHER cannot run: ASTRA-sim's Sys::generate_collective rounds other
 * empty collectives up to preferred-dataset-splits × NPUs bytes (and charges their latency), but an all-gather keeps
 * size 0, makes no stream, and is never finished. validate and replay refuse it with these words.
 */
export const EMPTY_ALL_GATHER = 'ALL_GATHER of 0 bytes: ASTRA-sim makes no stream for it and never finishes it (every rank stalls); give it a comm_size > 0';

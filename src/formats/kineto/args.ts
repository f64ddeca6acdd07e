/**
 * Reading the `args` of Kineto events: ids kept exact above 2^53 (read from the event's text, since JSON.parse rounds
 * them), streams as CUDA (integer) or ROCm (hex string "0x0") traces write them, and the communication arguments
 * PyTorch records on `record_param_comms` ops and, in newer Kineto, on NCCL kernels.
 */

/** A correlation or event id: a number up to 2^53, an exact bigint above (never a rounded number). */
export type EventId = number | bigint;

/** What PyTorch records about one collective (record_param_comms args; nccl:* / c10d:: Input Dims and types). */
export interface CommArgs {
  /** "Collective name" (allreduce, all_to_allv, …). */
  collective: string | null;
  /** "In msg nelems" / "Out msg nelems": elements of the message. */
  inNelems: number | null;
  outNelems: number | null;
  /** "dtype" (Float, BFloat16, …). */
  dtype: string | null;
  groupSize: number | null;
  /** "Process Group Name" / "Process Group Description" / "Process Group Ranks" (PyTorch 2.2+). */
  pgName: string | null;
  pgDesc: string | null;
  pgRanks: number[] | null;
  /** "Input Dims" / "Input type" (record_shapes): the op's input shapes and element types. */
  inputDims: unknown[] | null;
  inputTypes: string[] | null;
}

const COMM_KEYS = ['Collective name', 'In msg nelems', 'Process Group Name', 'Process Group Ranks', 'Group size'];

/** Ops whose inputs describe a collective (PyTorch's c10d / backend record functions). */
export const COMM_OP = /^(record_param_comms$|nccl:|c10d::|gloo:|mpi:|ucc:|xccl:)/;

/** The id under `key` exactly: the parsed number when safe, else the digits from the event's text. */
export function exactId(args: Record<string, unknown> | undefined, key: string, text: string): EventId | null {
  const v = args?.[key];
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) return v;
    if (!Number.isInteger(v) || v < 0) return null;
    const m = new RegExp(`"${key}"\\s*:\\s*(\\d+)`).exec(text);
    if (!m) return null;
    const b = BigInt(m[1]!);
    return b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
  }
  if (typeof v === 'string' && /^\d+$/.test(v)) {
    const b = BigInt(v);
    return b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
  }
  return null;
}

/** A stream id: an integer (CUDA) or a hex / decimal string (ROCm writes "0x0"); null when absent or unreadable. */
export function streamOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string') {
    const n = /^0x[0-9a-f]+$/i.test(v) ? Number.parseInt(v, 16) : /^-?\d+$/.test(v) ? Number(v) : NaN;
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const whole = (v: unknown) =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
    ? v
    : typeof v === 'string' && /^\d+$/.test(v) && Number.isSafeInteger(Number(v))
      ? Number(v)
      : null;

/** "[0, 1, 2]" or [0, 1, 2] → the ranks; null when not a list of ranks. */
function ranksOf(v: unknown): number[] | null {
  let list: unknown = v;
  if (typeof v === 'string') {
    try {
      list = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (!Array.isArray(list) || !list.every((x) => Number.isSafeInteger(x) && (x as number) >= 0)) return null;
  return list as number[];
}

/** The communication arguments of an op or kernel, or null when it records none. */
export function commArgsOf(name: string, args: Record<string, unknown> | undefined): CommArgs | null {
  if (!args) return null;
  if (!COMM_OP.test(name) && !COMM_KEYS.some((k) => k in args)) return null;
  const dims = Array.isArray(args['Input Dims']) ? (args['Input Dims'] as unknown[]) : null;
  const types = Array.isArray(args['Input type']) ? (args['Input type'] as unknown[]).map((t) => String(t)) : null;
  return {
    collective: str(args['Collective name']),
    inNelems: whole(args['In msg nelems']),
    outNelems: whole(args['Out msg nelems']),
    dtype: str(args.dtype),
    groupSize: whole(args['Group size']),
    pgName: str(args['Process Group Name']),
    pgDesc: str(args['Process Group Description']),
    pgRanks: ranksOf(args['Process Group Ranks']),
    inputDims: dims,
    inputTypes: types,
  };
}

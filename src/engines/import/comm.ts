/**
 * Collectives from the execution trace's NCCL / c10d ops: which collective a GPU NCCL kernel performs, how many bytes
 * and in which process group. PyTorch records a collective as a chain of host ops, e.g. `c10d::allreduce_` →
 * `record_param_comms` (its inputs name the collective and, from PyTorch 2.2, the process group) → `nccl:all_reduce`
 * (whose input tensors are the data), and the NCCL kernel is launched under the innermost of them.
 */
import { CollectiveCommType, makeAttr, type Attribute } from '../../formats/chakra/index.js';
import type { EtNode } from '../../formats/pytorch/et.js';
import { SIMULATED_COLLECTIVES } from '../../vocab/collectives.js';

export interface CommInfo {
  /** Chakra CollectiveCommType, or null when the name says no known collective. */
  commType: number | null;
  /** The collective's name as recorded (e.g. all_to_allv, allreduce). */
  collective: string;
  /** Bytes of the collective's input tensors, or null when no tensor is recorded. */
  commSizeBytes: number | null;
  /** Process group name when the trace records one (PyTorch ≥ 2.2); null otherwise. */
  pgName: string | null;
  /**
   * Process group identity as older traces record it, when no name is: record_param_comms' integer two before the
   * collective's name (PyTorch 2.1: the group's address; 2.2–2.3: its backend id, which `## process_group:init ##`
   * maps to a name, see processGroupNames).
   */
  pgPointer: number | null;
  /** Point-to-point (send / recv): not a collective. */
  p2p: 'send' | 'recv' | null;
}

/**
 * The comm_types written as collective nodes: the simulated collectives (vocab/collectives.ts) and BROADCAST, which
 * replay runs for its duration; the others are written as GPU compute nodes replayed from their duration.
 */
export const WRITTEN_AS_COLLECTIVE = new Set<number>([
  ...SIMULATED_COLLECTIVES.map((kind) => CollectiveCommType[kind]),
  CollectiveCommType.BROADCAST,
]);

/**
 * How an NCCL kernel is written: as a collective node with its comm_type, comm_size and pg_name (when recorded)
 * attributes, or, where the record does not allow that, as a GPU compute node, saying why; `noSize` says what a
 * collective without a size lacks.
 */
export function collectiveAttrs(
  info: Pick<CommInfo, 'commType' | 'collective' | 'commSizeBytes' | 'pgName' | 'p2p'>,
  noSize: string,
): { attrs: Attribute[]; commType: number; commSizeBytes: number } | { why: string } {
  const { commType, commSizeBytes, collective } = info;
  if (commType !== null && WRITTEN_AS_COLLECTIVE.has(commType) && commSizeBytes !== null) {
    const attrs = [
      makeAttr('comm_type', 'int64_val', BigInt(commType)),
      makeAttr('comm_size', 'int64_val', BigInt(commSizeBytes)),
    ];
    if (info.pgName !== null) attrs.push(makeAttr('pg_name', 'string_val', info.pgName));
    return { attrs, commType, commSizeBytes };
  }
  if (info.p2p) return { why: `point-to-point ${info.p2p} (no peer rank recorded)` };
  if (commType === null) return { why: `collective "${collective}" not recognised` };
  if (commSizeBytes === null) return { why: `collective "${collective}" without ${noSize}` };
  return { why: `collective "${collective}" is not simulated by ASTRA-sim` };
}

/** True for NCCL kernel names (ncclKernel_…, ncclDevKernel_…). */
export function isNcclKernel(name: string): boolean {
  return /^nccl(Dev)?Kernel/.test(name);
}

/** Collective type of a name (record_param_comms collective, nccl:/c10d:: op, or NCCL kernel name). */
export function commTypeOf(name: string): number | null {
  const n = name.toLowerCase().replace(/[_\-\s]/g, '');
  // More specific names first: reducescatter and allreduce both contain "reduce".
  if (n.includes('reducescatter')) return CollectiveCommType.REDUCE_SCATTER;
  if (n.includes('allreduce')) return CollectiveCommType.ALL_REDUCE;
  if (n.includes('alltoall')) return CollectiveCommType.ALL_TO_ALL;
  if (n.includes('allgather')) return CollectiveCommType.ALL_GATHER;
  if (n.includes('broadcast')) return CollectiveCommType.BROADCAST;
  if (n.includes('barrier')) return CollectiveCommType.BARRIER;
  if (n.includes('gather')) return CollectiveCommType.GATHER;
  if (n.includes('scatter')) return CollectiveCommType.SCATTER;
  if (n.includes('reduce')) return CollectiveCommType.REDUCE;
  return null;
}

/** A tensor value as the ET writes it: [tensor id, storage id, offset, numel, element bytes, device]. */
function tensorBytes(v: unknown): number | null {
  if (!Array.isArray(v) || v.length < 5 || !Number.isSafeInteger(v[3]) || !Number.isSafeInteger(v[4])) return null;
  const bytes = (v[3] as number) * (v[4] as number);
  return Number.isSafeInteger(bytes) && bytes >= 0 ? bytes : null;
}

/** Bytes of an op's tensor inputs (lists of tensors summed). */
export function inputTensorBytes(node: EtNode): number | null {
  let total = 0;
  let any = false;
  node.inputs.types.forEach((t, i) => {
    const v = node.inputs.values[i];
    if (/^GenericList\[Tensor/.test(t) && Array.isArray(v)) {
      for (const x of v) {
        const b = tensorBytes(x);
        if (b !== null) {
          total += b;
          any = true;
        }
      }
    } else if (/^Tensor/.test(t)) {
      const b = tensorBytes(v);
      if (b !== null) {
        total += b;
        any = true;
      }
    }
  });
  return any ? total : null;
}

/**
 * The collective a GPU kernel launched under `launcher` performs, from the launcher and its ancestors (nearest
 * first), falling back to the kernel's own name.
 */
export function commInfo(
  kernelName: string,
  launcher: EtNode | null,
  parentOf: (n: EtNode) => EtNode | null,
): CommInfo {
  let collective = '';
  let size: number | null = null;
  let pgName: string | null = null;
  let pgPointer: number | null = null;
  let p2p: CommInfo['p2p'] = null;
  for (let n = launcher, depth = 0; n && depth < 6; n = parentOf(n), depth++) {
    if (n.name.startsWith('nccl:')) {
      collective ||= n.name.slice(5);
      size ??= inputTensorBytes(n);
    } else if (n.name === 'record_param_comms') {
      const i = n.inputs.types.indexOf('String');
      if (i >= 0 && typeof n.inputs.values[i] === 'string') collective ||= n.inputs.values[i] as string;
      size ??= inputTensorBytes(n);
      const pg = n.attrs.pg_name;
      if (typeof pg === 'string') pgName ??= pg;
      // PyTorch 2.4+ records (pg_name, pg_desc) among the inputs; before, (seq, group, rank, name, …): the group's
      // address (2.1) or backend id (2.2–2.3) two before the collective's name.
      n.inputs.values.forEach((v) => {
        if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') pgName ??= v[0];
      });
      const g = n.inputs.values[i - 2];
      if (
        i >= 2 &&
        n.inputs.types[i - 2] === 'Int' &&
        n.inputs.types[i - 1] === 'Int' &&
        Number.isSafeInteger(g) &&
        pgPointer === null
      )
        pgPointer = g as number;
    } else if (n.name.startsWith('c10d::')) {
      collective ||= n.name.slice(6).replace(/_+$/, '');
      size ??= inputTensorBytes(n);
    }
    if (/(^|[^a-z])send/i.test(n.name) && !/sendrecv/i.test(n.name)) p2p ??= 'send';
    if (/(^|[^a-z])recv/i.test(n.name) && !/sendrecv/i.test(n.name)) p2p ??= 'recv';
  }
  if (!collective) collective = kernelName.replace(/^nccl(Dev)?Kernel_/, '').split(/[_(]/)[0] ?? kernelName;
  const commType = p2p ? null : (commTypeOf(collective) ?? commTypeOf(kernelName));
  return { commType, collective, commSizeBytes: size, pgName, pgPointer, p2p };
}

/**
 * Process group names by backend id, from the `## process_group:init ##` node PyTorch 2.2+ writes (its String input:
 * a JSON list of {pg_name, backend_id, ranks, group_size, …}); empty when the trace has none or it does not parse.
 */
export function processGroupNames(nodes: EtNode[]): Map<number, string> {
  const names = new Map<number, string>();
  for (const n of nodes) {
    if (!/process_group:init/.test(n.name)) continue;
    for (const v of n.inputs.values) {
      if (typeof v !== 'string') continue;
      try {
        const list = JSON.parse(v) as unknown;
        if (!Array.isArray(list)) continue;
        for (const pg of list as Record<string, unknown>[]) {
          if (
            pg &&
            Number.isSafeInteger(pg.backend_id) &&
            (typeof pg.pg_name === 'string' || typeof pg.pg_name === 'number')
          )
            names.set(pg.backend_id as number, String(pg.pg_name));
        }
      } catch {
        // not the JSON list: no names from it
      }
    }
  }
  return names;
}

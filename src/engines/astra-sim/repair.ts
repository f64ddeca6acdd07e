/**
 * Per-node repairs that make ASTRA-sim run a node the way tracewatt's replay does, where ASTRA-sim would stall,
 * abort or misread it (ASTRA-sim at 518bd51: workload/Workload.cc and Chakra's
 * feeder_v3). Every repair is counted under a code with samples; what cannot be repaired without guessing (a
 * missing comm_size with no --comm-size given, a collective ASTRA-sim cannot simulate, a roofline node without
 * num_ops …) is an InputError naming file and node, the same refusal `replay` gives.
 */
import type { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import type { CommGroupConfig, RemoteMemoryConfig, SystemConfig } from '../../formats/astra/index.js';
import { SIMULATED_COLLECTIVES } from '../../vocab/collectives.js';
import { CHAKRA_INTEGER_ATTRS } from '../../vocab/attributes.js';
import { missingImplementation } from '../replay/collective-plan.js';
import {
  ATTR_MEMBER_BY_KIND,
  BIGINT_SCALARS,
  CollectiveCommType,
  EMPTY_ALL_GATHER,
  INTEGER_SCALARS,
  NodeType,
  attrBool,
  attrInt,
  attrString,
  commTypeName,
  durationProblem,
  durationRead,
  getAttr,
  makeAttr,
  nodeTypeName,
  nodeValueProblem,
  setAttr,
  simulatedCollective,
  valuesReadBy,
  type Attribute,
  type ChakraNode,
} from '../../formats/chakra/index.js';

/** Repair codes and what each does, for the export's listing. */
export const REPAIRS = {
  'metadata-added':
    'GlobalMetadata frame added (ASTRA-sim reads the first frame as metadata and would lose the first node)',
  'dangling-dependency-removed':
    'dependency on a node absent from the rank removed (ASTRA-sim refuses the file; replay ignores it)',
  'self-dependency-removed': 'dependency of a node on itself removed (it could never run; replay ignores it)',
  'comm-marked-cpu': 'is_cpu_op cleared on a communication node (ASTRA-sim aborts: "Comm node should not be on CPU")',
  'cpu-collective-to-compute':
    'CPU-side collective without comm_type turned into a CPU COMP_NODE of the same duration (as replay runs ' +
    'it; ASTRA-sim aborts on it)',
  'comm-size-added': 'comm_size set from --comm-size on a collective without one (ASTRA-sim stalls every rank)',
  'broadcast-comm-size-added':
    'comm_size 0 added to a BROADCAST without one (ASTRA-sim reads it, then replays the duration)',
  'involved-dim-padded':
    'involved_dim padded with true to one entry per network dimension (ASTRA-sim reads past a short list and stalls)',
  'involved-dim-added':
    'involved_dim (all true) added for a network of more than 4 dimensions (ASTRA-sim assumes 4 without it)',
  'involved-dim-as-bool-list': 'involved_dim written as bool_list (ASTRA-sim exits on another list type)',
  'comm-tag-added': 'comm_tag 0 added to a send/receive without one (replay matches by tag 0; ASTRA-sim requires it)',
  'unknown-node-type-invalidated':
    'node of a type ASTRA-sim does not know made INVALID_NODE, which it skips (replay gives it no time)',
  'is-cpu-op-as-bool':
    'is_cpu_op that is neither a bool nor an integer (e.g. a string) written as bool_val false, as replay ' +
    'reads it (ASTRA-sim cannot read it)',
  'mistyped-attribute-dropped':
    'attribute of a kind no consumer reads for its name (a string or list where a number is read, a non-list ' +
    'involved_dim, a non-string pg_name) removed, as replay reads it: absent',
} satisfies Record<string, string>;
export type RepairCode = keyof typeof REPAIRS;

/** Without involved_dim, ASTRA-sim involves this many dimensions. */
const ASTRA_DEFAULT_DIMS = 4;

export interface RepairContext {
  file: string;
  rank: number;
  /** Ranks of the trace (a send or receive's peer must be one of them). */
  ranks: number;
  dims: number;
  system: SystemConfig;
  memory?: RemoteMemoryConfig;
  commGroups?: CommGroupConfig;
  /** comm_size for collectives that have none (--comm-size); undefined: refuse them. */
  commSizeBytes?: bigint;
  /** Whether an id is a node of this rank. */
  hasNode(id: bigint): boolean;
  repairs: Diagnostics;
}

function where(c: RepairContext, n: ChakraNode): string {
  return `${c.file}: node ${n.id} ("${n.name}", ${nodeTypeName(n.type)})`;
}

function note(c: RepairContext, n: ChakraNode, code: RepairCode, detail: string): void {
  c.repairs.add(code, { file: c.file, nodeId: n.id, message: `${where(c, n)}: ${detail}` });
}

/** The attribute with its value replaced by the zero / false of its own member. */
function cleared(a: Attribute): Attribute {
  const member = a.kind ? ATTR_MEMBER_BY_KIND.get(a.kind) : undefined;
  const value = !member || member.scalar === 'bool' ? false : BIGINT_SCALARS.has(member.scalar) ? 0n : 0;
  return { ...a, value };
}

function dropDeps(c: RepairContext, n: ChakraNode): void {
  for (const key of ['dataDeps', 'ctrlDeps'] as const) {
    const deps = n[key];
    if (!deps.some((d) => d === n.id || !c.hasNode(d))) continue;
    n[key] = deps.filter((d) => {
      if (d === n.id) {
        note(c, n, 'self-dependency-removed', `${key === 'dataDeps' ? 'data' : 'ctrl'} dependency on itself removed`);
        return false;
      }
      if (!c.hasNode(d)) {
        note(
          c,
          n,
          'dangling-dependency-removed',
          `${key === 'dataDeps' ? 'data' : 'ctrl'} dependency on absent node ${d} removed`,
        );
        return false;
      }
      return true;
    });
  }
}

function needInt(c: RepairContext, n: ChakraNode, name: string, why: string): void {
  if (attrInt(n, name) === undefined) throw new InputError(`${where(c, n)} has no ${name}: ${why}`);
}

/** Whether an attribute kind is a single integer or bool (what attrInt reads; doubles are read when whole). */
function scalarNumber(a: Attribute): boolean {
  const member = a.kind ? ATTR_MEMBER_BY_KIND.get(a.kind) : undefined;
  return member !== undefined && !member.list && member.scalar !== 'string' && member.scalar !== 'bytes';
}

/**
 * Attributes ASTRA-sim cannot read (it aborts, or reads garbage) that replay reads as absent or false: made what
 * replay reads, so that ASTRA-sim runs the node as replay does and the exported trace validates.
 */
function retypeAttributes(c: RepairContext, n: ChakraNode): void {
  const cpu = getAttr(n, 'is_cpu_op');
  if (
    cpu &&
    !(cpu.kind === 'bool_val' || (scalarNumber(cpu) && INTEGER_SCALARS.has(ATTR_MEMBER_BY_KIND.get(cpu.kind!)!.scalar)))
  ) {
    setAttr(n, makeAttr('is_cpu_op', 'bool_val', false));
    note(c, n, 'is-cpu-op-as-bool', `is_cpu_op ${cpu.kind ?? 'without a value'} written as bool_val false`);
  }
  const drop = (name: string, why: string) => {
    const a = getAttr(n, name);
    if (!a) return;
    n.attrs = n.attrs.filter((x) => x.name !== name);
    note(c, n, 'mistyped-attribute-dropped', `${name} (${a.kind ?? 'no value'}) removed: ${why}`);
  };
  for (const name of CHAKRA_INTEGER_ATTRS) {
    const a = getAttr(n, name);
    if (a && !scalarNumber(a)) drop(name, 'an integer is read');
  }
  const dims = getAttr(n, 'involved_dim');
  const member = dims?.kind ? ATTR_MEMBER_BY_KIND.get(dims.kind) : undefined;
  if (dims && !(member?.list && (member.scalar === 'bool' || INTEGER_SCALARS.has(member.scalar))))
    drop('involved_dim', 'a list of bools is read');
  const pg = getAttr(n, 'pg_name');
  if (pg && pg.kind !== 'string_val') drop('pg_name', 'a string is read');
}

/** Values outside the ranges every reader accepts: refused with the words validate and replay use. */
function checkValues(c: RepairContext, n: ChakraNode): void {
  for (const name of valuesReadBy(n.type)) {
    const v = attrInt(n, name);
    const bad = v === undefined ? null : nodeValueProblem(name, v);
    if (bad) throw new InputError(`${where(c, n)}: ${bad}`);
  }
  const bad = durationRead(n.type, attrInt(n, 'comm_type')) ? durationProblem(n.durationMicros) : null;
  if (bad) throw new InputError(`${where(c, n)}: ${bad}`);
}

/** Clears is_cpu_op on a communication node. */
function notOnCpu(c: RepairContext, n: ChakraNode): void {
  const a = getAttr(n, 'is_cpu_op');
  if (a && attrBool(n, 'is_cpu_op')) {
    setAttr(n, cleared(a));
    note(c, n, 'comm-marked-cpu', 'is_cpu_op cleared');
  }
}

function repairCollective(c: RepairContext, n: ChakraNode): void {
  const type = attrInt(n, 'comm_type');
  if (type === undefined) {
    if (attrBool(n, 'is_cpu_op')) {
      note(
        c,
        n,
        'cpu-collective-to-compute',
        `CPU-side collective without comm_type made a CPU COMP_NODE of ${n.durationMicros} µs`,
      );
      n.type = NodeType.COMP_NODE;
      return;
    }
    throw new InputError(
      `${where(c, n)} has no comm_type: neither ASTRA-sim nor replay can tell which collective it is`,
    );
  }
  notOnCpu(c, n);
  const t = Number(type);
  const kind = simulatedCollective(t);
  if (kind === undefined && t !== CollectiveCommType.BROADCAST) {
    throw new InputError(
      `${where(c, n)}: comm_type ${commTypeName(type)} is not simulated by ASTRA-sim's analytical backend (` +
        `${SIMULATED_COLLECTIVES.join(', ')}; BROADCAST is replayed)`,
    );
  }
  if (attrInt(n, 'comm_size') === undefined) {
    if (t === CollectiveCommType.BROADCAST) {
      setAttr(n, makeAttr('comm_size', 'int64_val', 0n));
      note(c, n, 'broadcast-comm-size-added', 'comm_size 0 added');
    } else if (c.commSizeBytes !== undefined) {
      setAttr(n, makeAttr('comm_size', 'int64_val', c.commSizeBytes));
      note(c, n, 'comm-size-added', `comm_size ${c.commSizeBytes} added (--comm-size)`);
    } else {
      throw new InputError(
        `${where(c, n)} has no comm_size: ASTRA-sim logs "Attribute comm_size not found" and stalls every rank. ` +
          'Give --comm-size <bytes> to set one on every collective without it, or re-generate the trace with comm_size',
      );
    }
  }
  if (kind === undefined) return;
  if (t === CollectiveCommType.ALL_GATHER && attrInt(n, 'comm_size') === 0n)
    throw new InputError(`${where(c, n)}: ${EMPTY_ALL_GATHER}`);
  const missing = missingImplementation(c.system, kind);
  if (missing) throw new InputError(missing);
  repairInvolvedDims(c, n);
  const pg = attrString(n, 'pg_name') ?? '';
  if (pg !== '' && pg !== '0' && !c.commGroups?.groups.has(pg)) {
    throw new InputError(
      `${where(c, n)}: pg_name "${pg}" is not defined` +
        (c.commGroups ? ` in ${c.commGroups.file}` : ' (no --comm-group file given)'),
    );
  }
}

function repairInvolvedDims(c: RepairContext, n: ChakraNode): void {
  const a = getAttr(n, 'involved_dim');
  if (!a) {
    if (c.dims > ASTRA_DEFAULT_DIMS) {
      setAttr(n, makeAttr('involved_dim', 'bool_list', new Array<boolean>(c.dims).fill(true)));
      note(c, n, 'involved-dim-added', `involved_dim of ${c.dims} × true added`);
    }
    return;
  }
  const member = a.kind ? ATTR_MEMBER_BY_KIND.get(a.kind) : undefined;
  let list: boolean[];
  let changed = false;
  if (a.kind === 'bool_list') list = [...(a.value as boolean[])];
  else if (member?.list && INTEGER_SCALARS.has(member.scalar)) {
    list = (a.value as (number | bigint)[]).map((v) => (typeof v === 'bigint' ? v !== 0n : v !== 0));
    changed = true;
    note(c, n, 'involved-dim-as-bool-list', `involved_dim ${a.kind} [${list.join(', ')}] written as bool_list`);
  } else {
    throw new InputError(`${where(c, n)}: involved_dim holds ${a.kind ?? 'no value'}; ASTRA-sim reads a bool_list`);
  }
  if (list.length < c.dims) {
    const before = list.length;
    while (list.length < c.dims) list.push(true);
    changed = true;
    note(
      c,
      n,
      'involved-dim-padded',
      `involved_dim of ${before} entr${before === 1 ? 'y' : 'ies'} padded to [${list.join(', ')}]`,
    );
  }
  if (changed) setAttr(n, { ...a, kind: 'bool_list', value: list });
}

function repairPointToPoint(c: RepairContext, n: ChakraNode): void {
  notOnCpu(c, n);
  const send = n.type === NodeType.COMM_SEND_NODE;
  const peerName = send ? 'comm_dst' : 'comm_src';
  needInt(c, n, peerName, 'the peer rank is needed');
  needInt(c, n, 'comm_size', 'the message size is needed');
  const peer = attrInt(n, peerName)!;
  if (peer >= BigInt(c.ranks))
    throw new InputError(`${where(c, n)}: ${peerName} ${peer} is not a rank of this trace (0..${c.ranks - 1})`);
  if (attrInt(n, 'comm_tag') === undefined) {
    setAttr(n, makeAttr('comm_tag', 'int32_val', 0));
    note(c, n, 'comm-tag-added', 'comm_tag 0 added');
  }
}

/** Repairs one node in place (a decoded node keeps its original bytes unless an attribute was changed). */
export function repairNode(c: RepairContext, n: ChakraNode): void {
  dropDeps(c, n);
  retypeAttributes(c, n);
  checkValues(c, n);
  switch (n.type) {
    case NodeType.COMM_COLL_NODE:
      repairCollective(c, n);
      return;
    case NodeType.COMM_SEND_NODE:
    case NodeType.COMM_RECV_NODE:
      repairPointToPoint(c, n);
      return;
    case NodeType.COMP_NODE:
      if (
        c.system.rooflineEnabled &&
        !attrBool(n, 'is_cpu_op') &&
        (attrInt(n, 'tensor_size') ?? 0n) !== 0n &&
        attrInt(n, 'num_ops') === undefined
      ) {
        throw new InputError(
          `${where(c, n)} has no num_ops, which ${c.system.file} (roofline-enabled) needs on every GPU ` +
            `COMP_NODE (ASTRA-sim stalls without it); use a system with roofline-enabled 0`,
        );
      }
      return;
    case NodeType.MEM_LOAD_NODE:
    case NodeType.MEM_STORE_NODE:
      if (!c.memory || c.memory.memoryType === 'NO_MEMORY_EXPANSION') {
        throw new InputError(
          `${where(c, n)} needs a remote memory model: pass --memory with a memory-type other than NO_MEMORY_EXPANSION`,
        );
      }
      needInt(c, n, 'tensor_size', 'MEM_LOAD/STORE nodes need their size');
      return;
    case NodeType.INVALID_NODE:
    case NodeType.METADATA_NODE:
      return;
    default:
      note(c, n, 'unknown-node-type-invalidated', `type ${nodeTypeName(n.type)} made INVALID_NODE`);
      n.type = NodeType.INVALID_NODE;
  }
}

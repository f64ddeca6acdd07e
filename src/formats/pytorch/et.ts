/**
 * PyTorch execution traces (`ExecutionTraceObserver` JSON, `.json` or `.json.gz`), streamed node by node
 * (json-stream.ts). Two layouts exist:
 * - schema 1.0.1 (PyTorch ≤ 2.1): flat `parent`, `rf_id`, `fw_parent`, `seq_id`, `scope`, `tid`, `fw_tid`,
 *   `op_schema`, and `inputs` / `input_shapes` / `input_types` (same for outputs);
 * - schema 1.0.2-chakra.0.0.4 and later (1.0.3, 1.0.4, 1.1.x): `ctrl_deps` (the parent), `inputs` / `outputs` as
 *   `{values, shapes, types}`, and the other fields as `attrs: [{name, type, value}]` (where newer PyTorch also puts
 *   pg_name, pg_desc … on record_param_comms).
 * The layout is told per node by its keys, so a newer version than those listed reads too (a note says so).
 */
import { FormatError } from '../../errors.js';
import { parseElement, readJsonPieceBatches } from '../json-stream.js';

export interface EtIo {
  values: unknown[];
  shapes: unknown[];
  types: string[];
}

export interface EtNode {
  id: number;
  name: string;
  /** Parent node id (the caller), null for a root. */
  parent: number | null;
  rfId: number | null;
  fwParent: number | null;
  seqId: number | null;
  scope: number | null;
  tid: number | null;
  fwTid: number | null;
  opSchema: string;
  inputs: EtIo;
  outputs: EtIo;
  /** Attributes other than the ones above (newer schemas: pg_name, pg_desc, …), by name. */
  attrs: Record<string, unknown>;
}

export interface EtTrace {
  file: string;
  schema: string;
  pid: number | null;
  time: string | null;
  startTs: number | null;
  finishTs: number | null;
  nodes: EtNode[];
  /** Other top-level keys as read (distributedInfo when present, …). */
  meta: Record<string, unknown>;
  notes: string[];
  /**
   * The file is a linked "ET+" (Chakra's chakra_trace_link output: the execution trace with the Kineto trace's GPU
   * operators added as nodes, and durations on the host nodes): the GPU nodes it added, left out here, so that what
   * is read is the execution trace it was made from. 0 for a plain execution trace.
   */
  linkedGpuNodes: number;
  /** Whether the host nodes carry chakra_trace_link's keys (inclusive_dur, exclusive_dur, ts, inter_thread_dep). */
  linked: boolean;
}

/** Keys chakra_trace_link adds to every node of an ET+ file. */
const LINK_KEYS = ['inclusive_dur', 'exclusive_dur', 'inter_thread_dep'];
/** True when the first 64 KB of an execution trace look like a linked ET+ (chakra_trace_link output). */
export function looksLikeLinkedEt(head: string): boolean {
  return /"(inclusive_dur|exclusive_dur|inter_thread_dep)"\s*:/.test(head);
}

/** Schemas whose layout tracewatt was written against. */
export const KNOWN_ET_SCHEMAS = [
  '1.0.1',
  '1.0.2-chakra.0.0.4',
  '1.0.3-chakra.0.0.4',
  '1.0.4-chakra.0.0.4',
  '1.1.0-chakra.0.0.4',
  '1.1.1-chakra.0.0.4',
  '1.1.1-chakra.1.0.0',
];

/** Names of the process and thread root nodes the observer adds (older traces say execution_graph). */
export const ET_PROCESS_ROOT = /^\[pytorch\|profiler\|execution_(trace|graph)\|process\]$/;
export const ET_THREAD_ROOT = /^\[pytorch\|profiler\|execution_(trace|graph)\|thread\]$/;

const NAMED_ATTRS = new Set(['rf_id', 'fw_parent', 'seq_id', 'scope', 'tid', 'fw_tid', 'op_schema']);

/** True when the first 64 KB of text look like a PyTorch execution trace (with or without its schema key). */
export function looksLikePytorchEt(head: string): boolean {
  const t = head.trimStart();
  if (!t.startsWith('{') || !/"nodes"\s*:/.test(t)) return false;
  // The schema key, or (a file without one) the root node the observer writes.
  return /"schema"\s*:\s*"\d+\.\d+/.test(t) || ET_PROCESS_ROOT_TEXT.test(t);
}

const ET_PROCESS_ROOT_TEXT = /"\[pytorch\|profiler\|execution_(trace|graph)\|(process|thread)\]"/;

type Raw = Record<string, unknown>;

function int(file: string, at: string, v: unknown, what: string, nullable: boolean): number | null {
  if (v === undefined || v === null) {
    if (nullable) return null;
    throw new FormatError(file, at, `missing ${what}`);
  }
  if (typeof v !== 'number' || !Number.isSafeInteger(v))
    throw new FormatError(file, at, `${what} must be an integer below 2^53, got ${JSON.stringify(v)}`);
  return v;
}

function io(values: unknown, shapes: unknown, types: unknown): EtIo {
  return {
    values: Array.isArray(values) ? values : [],
    shapes: Array.isArray(shapes) ? shapes : [],
    types: Array.isArray(types) ? types.map(String) : [],
  };
}

function parseNode(file: string, raw: Raw, at: string): EtNode {
  const id = int(file, at, raw.id, 'node id', false)!;
  const where = `${at} (node ${id})`;
  const name = typeof raw.name === 'string' ? raw.name : '';
  let fields: Raw;
  let inputs: EtIo;
  let outputs: EtIo;
  const attrs: Record<string, unknown> = {};
  let parent: unknown;
  if (Array.isArray(raw.attrs) || (raw.inputs && !Array.isArray(raw.inputs))) {
    fields = {};
    for (const a of (raw.attrs ?? []) as Raw[]) {
      if (!a || typeof a.name !== 'string') continue;
      if (NAMED_ATTRS.has(a.name)) fields[a.name] = a.value;
      else attrs[a.name] = a.value;
    }
    parent = raw.ctrl_deps ?? raw.parent;
    const i = (raw.inputs ?? {}) as Raw;
    const o = (raw.outputs ?? {}) as Raw;
    inputs = io(i.values, i.shapes, i.types);
    outputs = io(o.values, o.shapes, o.types);
    for (const [k, v] of Object.entries(raw))
      if (!['id', 'name', 'ctrl_deps', 'parent', 'inputs', 'outputs', 'attrs'].includes(k)) attrs[k] = v;
  } else {
    fields = raw;
    parent = raw.parent;
    inputs = io(raw.inputs, raw.input_shapes, raw.input_types);
    outputs = io(raw.outputs, raw.output_shapes, raw.output_types);
  }
  const p = int(file, where, Array.isArray(parent) ? parent[0] : parent, 'parent', true);
  return {
    id,
    name,
    parent: p,
    rfId: int(file, where, fields.rf_id, 'rf_id', true),
    fwParent: int(file, where, fields.fw_parent, 'fw_parent', true),
    seqId: int(file, where, fields.seq_id, 'seq_id', true),
    scope: int(file, where, fields.scope, 'scope', true),
    tid: int(file, where, fields.tid, 'tid', true),
    fwTid: int(file, where, fields.fw_tid, 'fw_tid', true),
    opSchema: typeof fields.op_schema === 'string' ? fields.op_schema : '',
    inputs,
    outputs,
    attrs,
  };
}

/** Reads an execution trace. Bad JSON or a node without an integer id is a FormatError naming the byte offset. */
export async function readExecutionTrace(file: string): Promise<EtTrace> {
  const et: EtTrace = {
    file,
    schema: '',
    pid: null,
    time: null,
    startTs: null,
    finishTs: null,
    nodes: [],
    meta: {},
    notes: [],
    linkedGpuNodes: 0,
    linked: false,
  };
  let sawNodes = false;
  const ids = new Set<number>();
  for await (const batch of readJsonPieceBatches(file, new Set(['nodes'])))
    for (const piece of batch) {
      if (piece.kind === 'value') {
        const v = piece.value;
        if (piece.key === 'schema') et.schema = String(v);
        else if (piece.key === 'pid' && Number.isSafeInteger(v)) et.pid = v as number;
        else if (piece.key === 'time' && typeof v === 'string') et.time = v;
        else if (piece.key === 'start_ts' && Number.isSafeInteger(v)) et.startTs = v as number;
        else if (piece.key === 'finish_ts' && Number.isSafeInteger(v)) et.finishTs = v as number;
        else et.meta[piece.key] = v;
        continue;
      }
      if (piece.kind === 'array') {
        sawNodes = true;
        continue;
      }
      const raw = parseElement(file, piece);
      const at = `byte ${piece.offset}, node ${piece.index}`;
      if (!raw || typeof raw !== 'object' || Array.isArray(raw))
        throw new FormatError(file, at, 'a node must be a JSON object');
      const r = raw as Raw;
      if (!et.linked && LINK_KEYS.some((k) => k in r)) et.linked = true;
      // A GPU operator chakra_trace_link added (Kineto's cat and ph on a node): not part of the execution trace.
      if (typeof r.cat === 'string' && typeof r.ph === 'string') {
        et.linkedGpuNodes++;
        continue;
      }
      const node = parseNode(file, raw as Raw, at);
      if (ids.has(node.id)) throw new FormatError(file, at, `node id ${node.id} appears twice`);
      ids.add(node.id);
      et.nodes.push(node);
    }
  if (!sawNodes) throw new FormatError(file, '', 'no "nodes" array: not a PyTorch execution trace');
  const known = `the schemas tracewatt was written against: ${KNOWN_ET_SCHEMAS.join(', ')}`;
  if (!et.schema) et.notes.push(`the execution trace has no "schema" key (${known}): read by its node layout`);
  else if (!KNOWN_ET_SCHEMAS.includes(et.schema))
    et.notes.push(`execution-trace schema ${et.schema} is not one of ${known}: read by its node layout`);
  if (et.linked || et.linkedGpuNodes) {
    et.notes.push(
      `the execution trace is a linked "ET+" (chakra_trace_link output): read as the execution trace it was ` +
        `made from, its ${et.linkedGpuNodes} GPU node(s) and the durations it added left out (the Kineto trace ` +
        `gives them)`,
    );
  }
  return et;
}

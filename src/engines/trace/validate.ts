/**
 * `validate`: every problem ASTRA-sim would reject or misread, each with file and node id.
 * Errors: replay refuses the trace (every refusal replay makes from the trace alone is an error here: the value
 * ranges of formats/chakra/node-values.ts, the rank numbering of paths.ts, missing sizes and types), or ASTRA-sim
 * would reject or misread it (`export astra-sim` repairs those it can, and what it writes validates without errors).
 * Warnings are odd but replayable.
 */
import { Diagnostics } from '../../diagnostics.js';
import { CHAKRA_INTEGER_ATTRS } from '../../vocab/attributes.js';
import { getAttr } from '../../formats/chakra/attrs.js';
import { NodeDecoder } from '../../formats/chakra/decode.js';
import {
  durationProblem,
  durationRead,
  EMPTY_ALL_GATHER,
  nodeValueProblem,
  simulatedCollective,
  valuesReadBy,
} from '../../formats/chakra/node-values.js';
import { missingRankProblem, resolveRankFiles } from '../../formats/chakra/paths.js';
import { AttributeNames, NodeProbe } from '../../formats/chakra/probe.js';
import {
  ATTR_MEMBER_BY_FIELD,
  ATTR_MEMBER_BY_KIND,
  CollectiveCommType,
  NodeType,
  commTypeName,
  nodeTypeName,
  type AttrKind,
} from '../../formats/chakra/schema.js';
import type { Attribute, ChakraNode } from '../../formats/chakra/types.js';
import { CrossRankCheck } from '../replay/collective-sequence.js';
import { probeRank, RankWorkspace } from './probe-rank.js';

export type Severity = 'error' | 'warning';

export interface Problem {
  severity: Severity;
  code: string;
  file: string;
  rank: number;
  nodeId: bigint | null;
  message: string;
}

export interface ValidationReport {
  path: string;
  ranks: number;
  nodes: number;
  errors: number;
  warnings: number;
  /** Count per problem code. */
  counts: Record<string, number>;
  /** Problems listed individually (capped per code and rank by `maxPerCode`). */
  problems: Problem[];
}

class Collector {
  readonly problems: Problem[] = [];
  readonly counts: Record<string, number> = {};
  errors = 0;
  warnings = 0;
  private readonly listed = new Map<string, number>();
  constructor(
    private readonly file: string,
    private readonly rank: number,
    private readonly maxPerCode: number,
  ) {}

  /** Counts problems known only by number (beyond the listed samples). */
  addUnlisted(severity: Severity, code: string, n: number): void {
    if (n <= 0) return;
    this.counts[code] = (this.counts[code] ?? 0) + n;
    if (severity === 'error') this.errors += n;
    else this.warnings += n;
  }

  add(severity: Severity, code: string, nodeId: bigint | null, message: string): void {
    this.counts[code] = (this.counts[code] ?? 0) + 1;
    if (severity === 'error') this.errors++;
    else this.warnings++;
    const n = this.listed.get(code) ?? 0;
    if (n < this.maxPerCode) {
      this.listed.set(code, n + 1);
      this.problems.push({ severity, code, file: this.file, rank: this.rank, nodeId, message });
    }
  }
}

/** The fields the checks read of a node: a NodeProbe or a decoded ChakraNode has them. */
type NodeFacts = Pick<ChakraNode, 'id' | 'type' | 'name' | 'durationMicros'>;

/** The attributes the checks read of a node: through its probe, or decoded when an attribute they read is repeated. */
interface AttrView {
  /** The attributes the checks are about (at least), in the node's order. */
  list(): { name: string; kind: AttrKind | null }[];
  intValue(name: string): bigint | undefined;
  /** An attribute among those the checks are about, decoded. */
  attr(name: string): Attribute | undefined;
}

/** Attributes whose value a consumer reads as a number / bool / string / bool list (the probe's slots). */
const CHECKED = [...CHAKRA_INTEGER_ATTRS, 'is_cpu_op', 'involved_dim', 'pg_name'];
const CHECKED_NAMES = new AttributeNames(CHECKED);
const SLOT = new Map(CHECKED.map((n, i) => [n, i]));

/** intValue's reading of an attribute: any integer, a bool as 0/1; a string, list or no value is none. */
function intOf(a: Attribute | undefined): bigint | undefined {
  if (!a || a.kind === null) return undefined;
  const v = a.value;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'boolean') return v ? 1n : 0n;
  return undefined;
}

class ProbeView implements AttrView {
  constructor(private readonly probe: NodeProbe) {}
  list(): { name: string; kind: AttrKind | null }[] {
    const p = this.probe;
    const found = CHECKED.map((name, slot) => ({ name, slot })).filter(({ slot }) => p.has(slot));
    found.sort((a, b) => p.attributeRange(a.slot)[0] - p.attributeRange(b.slot)[0]);
    return found.map(({ name, slot }) => ({ name, kind: ATTR_MEMBER_BY_FIELD.get(p.memberOf(slot))?.kind ?? null }));
  }
  intValue(name: string): bigint | undefined {
    const slot = SLOT.get(name)!;
    const v = this.probe.varintAt(slot);
    return v >= 0 ? BigInt(v) : intOf(this.probe.attributeAt(slot));
  }
  attr(name: string): Attribute | undefined {
    return this.probe.attributeAt(SLOT.get(name)!);
  }
}

/** The attributes of a node decoded in full (one whose attributes the probe cannot place). */
function decodedView(node: ChakraNode): AttrView {
  return {
    list: () => node.attrs,
    intValue: (name) => intOf(getAttr(node, name)),
    attr: (name) => getAttr(node, name),
  };
}

function checkAttrTypes(node: NodeFacts, attrs: AttrView, c: Collector): void {
  for (const a of attrs.list()) {
    const member = a.kind ? ATTR_MEMBER_BY_KIND.get(a.kind) : undefined;
    if (CHAKRA_INTEGER_ATTRS.includes(a.name)) {
      const numeric = member && !member.list && member.scalar !== 'string' && member.scalar !== 'bytes';
      if (!numeric)
        c.add(
          'error',
          'attribute-type',
          node.id,
          `node ${node.id}: attribute ${a.name} holds ${a.kind ?? 'no value'}; consumers read an integer`,
        );
      else if (member.scalar === 'double' || member.scalar === 'float') {
        c.add(
          'warning',
          'attribute-type',
          node.id,
          `node ${node.id}: attribute ${a.name} is ${a.kind}; ASTRA-sim expects an integer member`,
        );
      }
    } else if (
      a.name === 'is_cpu_op' &&
      !(member && !member.list && (member.scalar === 'bool' || member.scalar.includes('int')))
    ) {
      c.add(
        'error',
        'attribute-type',
        node.id,
        `node ${node.id}: attribute is_cpu_op holds ${a.kind ?? 'no value'}; consumers read bool_val`,
      );
    } else if (a.name === 'involved_dim' && a.kind !== 'bool_list') {
      c.add(
        'error',
        'attribute-type',
        node.id,
        `node ${node.id}: attribute involved_dim holds ${a.kind ?? 'no value'}; ASTRA-sim reads bool_list`,
      );
    } else if (a.name === 'pg_name' && a.kind !== 'string_val') {
      c.add(
        'error',
        'attribute-type',
        node.id,
        `node ${node.id}: attribute pg_name holds ${a.kind ?? 'no value'}; consumers read string_val`,
      );
    }
  }
}

/** Values outside the ranges every reader accepts (formats/chakra/node-values.ts), as replay refuses them. */
function checkValues(node: NodeFacts, attrs: AttrView, c: Collector): void {
  for (const name of valuesReadBy(node.type)) {
    const v = attrs.intValue(name);
    const bad = v === undefined ? null : nodeValueProblem(name, v);
    if (bad) c.add('error', 'value-out-of-range', node.id, `node ${node.id}: ${bad}`);
  }
  const bad = durationRead(node.type, attrs.intValue('comm_type')) ? durationProblem(node.durationMicros) : null;
  if (bad) c.add('error', 'value-out-of-range', node.id, `node ${node.id}: ${bad}`);
}

function checkNode(
  node: NodeFacts,
  attrs: AttrView,
  c: Collector,
  ranks: number,
  rank: number,
  cross?: CrossRankCheck,
): void {
  const id = node.id;
  checkAttrTypes(node, attrs, c);
  checkValues(node, attrs, c);
  if (node.type === NodeType.INVALID_NODE) {
    c.add('warning', 'invalid-node', id, `node ${id}: INVALID_NODE; ASTRA-sim skips it and replay gives it no time`);
    return;
  }
  if (node.type < NodeType.METADATA_NODE || node.type > NodeType.COMM_COLL_NODE) {
    c.add(
      'error',
      'node-type',
      id,
      `node ${id}: type ${nodeTypeName(node.type)} is not a node type ASTRA-sim knows (it exits on it; replay ` +
        `gives it no time; export astra-sim makes it INVALID_NODE)`,
    );
    return;
  }
  const isComm =
    node.type === NodeType.COMM_COLL_NODE ||
    node.type === NodeType.COMM_SEND_NODE ||
    node.type === NodeType.COMM_RECV_NODE;
  if (isComm && (attrs.intValue('is_cpu_op') ?? 0n) !== 0n) {
    c.add(
      'error',
      'comm-marked-cpu',
      id,
      `node ${id} (${nodeTypeName(node.type)}): communication node marked is_cpu_op; ASTRA-sim would run it on ` +
        `the CPU slot, not the network`,
    );
  }
  if (node.type === NodeType.COMM_COLL_NODE) {
    const t = attrs.intValue('comm_type');
    if (t === undefined)
      c.add('error', 'collective-missing-comm-type', id, `node ${id} "${node.name}": COMM_COLL_NODE without comm_type`);
    else if (simulatedCollective(t) === undefined) {
      if (Number(t) === CollectiveCommType.BROADCAST) {
        c.add(
          'warning',
          'collective-replayed-from-duration',
          id,
          `node ${id}: BROADCAST is replayed from duration_micros, not simulated on the network`,
        );
      } else {
        c.add(
          'error',
          'collective-unsupported',
          id,
          `node ${id}: comm_type ${commTypeName(t)} is not simulated by ASTRA-sim (ALL_REDUCE, ALL_GATHER, ` +
            `REDUCE_SCATTER, ALL_TO_ALL are)`,
        );
      }
    }
    const size = attrs.intValue('comm_size');
    if (cross && t !== undefined && size !== undefined && !nodeValueProblem('comm_size', size)) {
      const pg = attrs.attr('pg_name')?.value;
      const involved = attrs.attr('involved_dim')?.value;
      cross.collective(
        rank,
        id,
        t,
        size,
        typeof pg === 'string' ? pg : undefined,
        Array.isArray(involved) ? involved : undefined,
      );
    }
    if (size === undefined)
      c.add(
        'error',
        'collective-missing-comm-size',
        id,
        `node ${id} "${node.name}": COMM_COLL_NODE without comm_size (ASTRA-sim stalls on it)`,
      );
    else if (size === 0n && t !== undefined && Number(t) === CollectiveCommType.ALL_GATHER) {
      c.add('error', 'collective-empty-all-gather', id, `node ${id} "${node.name}": ${EMPTY_ALL_GATHER}`);
    }
  }
  if (node.type === NodeType.COMM_SEND_NODE || node.type === NodeType.COMM_RECV_NODE) {
    // What ASTRA-sim reads (Workload::issue_send_comm / issue_recv_comm): the peer and the size; its own rank is
    // optional.
    const peerName = node.type === NodeType.COMM_SEND_NODE ? 'comm_dst' : 'comm_src';
    for (const name of [peerName, 'comm_size']) {
      if (attrs.intValue(name) === undefined)
        c.add('error', 'p2p-missing-attribute', id, `node ${id}: ${nodeTypeName(node.type)} without ${name}`);
    }
    const peer = attrs.intValue(peerName);
    if (cross && peer !== undefined && peer >= 0n && peer < BigInt(ranks))
      cross.message(node.type === NodeType.COMM_SEND_NODE, rank, id, Number(peer), attrs.intValue('comm_tag') ?? 0n);
    if (peer !== undefined && !nodeValueProblem(peerName, peer) && peer >= BigInt(ranks)) {
      c.add(
        'error',
        'p2p-peer-not-a-rank',
        id,
        `node ${id}: ${peerName} ${peer} is not a rank of this trace (0..${ranks - 1})`,
      );
    }
  }
  if (
    (node.type === NodeType.MEM_LOAD_NODE || node.type === NodeType.MEM_STORE_NODE) &&
    attrs.intValue('tensor_size') === undefined
  ) {
    c.add('error', 'memory-missing-tensor-size', id, `node ${id}: ${nodeTypeName(node.type)} without tensor_size`);
  }
  if (
    node.type === NodeType.COMP_NODE &&
    (attrs.intValue('is_cpu_op') ?? 0n) === 0n &&
    attrs.intValue('num_ops') === undefined
  ) {
    c.add(
      'warning',
      'compute-missing-num-ops',
      id,
      `node ${id}: GPU COMP_NODE without num_ops (replays from duration only; roofline mode stalls in ASTRA-sim)`,
    );
  }
}

/**
 * `ranks`: how many ranks the trace has (a send or receive's peer must be one of them). With `cross`, the rank's
 * communication is gathered there for the check across ranks.
 */
export async function validateRank(
  file: string,
  rank: number,
  maxPerCode = 20,
  workspace?: RankWorkspace,
  ranks = 1,
  cross?: CrossRankCheck,
): Promise<{ c: Collector; nodes: number }> {
  const c = new Collector(file, rank, maxPerCode);
  const diagnostics = new Diagnostics();
  const probe = new NodeProbe(CHECKED_NAMES);
  const view = new ProbeView(probe);
  const decoder = new NodeDecoder();
  let nodes = 0;
  const { facts: g } = await probeRank(
    file,
    probe,
    diagnostics,
    (p, frames) => {
      if (frames.frameIndex === 0)
        c.add(
          'warning',
          'no-metadata',
          null,
          'no GlobalMetadata frame: the first frame is already a Node (older ASTRA-sim traces); readers that ' +
            'skip the first frame lose a node',
        );
      nodes++;
      if (p.repeatedName) {
        const node = decoder.decode(frames.cursor, frames.start, frames.end);
        checkNode(node, decodedView(node), c, ranks, rank, cross);
      } else checkNode(p, view, c, ranks, rank, cross);
    },
    workspace,
  );
  for (const id of g.duplicateIds) c.add('error', 'duplicate-id', id, `node id ${id} appears more than once`);
  c.addUnlisted('error', 'duplicate-id', g.duplicateCount - g.duplicateIds.length);
  for (const d of g.danglingSamples) {
    c.add(
      'error',
      'dangling-dependency',
      d.nodeId,
      `node ${d.nodeId}: ${d.kind} dependency on absent node ${d.parentId} (fatal in ASTRA-sim)`,
    );
  }
  c.addUnlisted('error', 'dangling-dependency', g.danglingData + g.danglingCtrl - g.danglingSamples.length);
  if (g.nodesInCycles > 0) {
    c.add(
      'error',
      'cycle',
      g.cycleSample[0] ?? null,
      `${g.nodesInCycles} node(s) can never run: dependency cycle (data and ctrl deps together) ` +
        `${g.cycleSample.join(' → ')}${g.cycleSample.length ? ` → ${g.cycleSample[0]}` : ''}`,
    );
  }
  for (const d of diagnostics.summary()) {
    for (const s of d.samples) c.add('warning', d.code, s.nodeId ?? null, s.message);
    c.addUnlisted('warning', d.code, d.count - d.samples.length);
  }
  return { c, nodes };
}

export async function validateTrace(target: string, maxPerCode = 20): Promise<ValidationReport> {
  const files = await resolveRankFiles(target);
  const report: ValidationReport = {
    path: target,
    ranks: files.length,
    nodes: 0,
    errors: 0,
    warnings: 0,
    counts: {},
    problems: [],
  };
  const gap = missingRankProblem(target, files);
  if (gap) {
    report.errors++;
    report.counts['rank-missing'] = 1;
    report.problems.push({
      severity: 'error',
      code: 'rank-missing',
      file: target,
      rank: files.findIndex((f, i) => f.rank !== i),
      nodeId: null,
      message: gap,
    });
  }
  const workspace = new RankWorkspace();
  const cross = new CrossRankCheck(files.map((f) => f.rank));
  for (const f of files) {
    const { c, nodes } = await validateRank(f.file, f.rank, maxPerCode, workspace, files.length, cross);
    report.nodes += nodes;
    report.errors += c.errors;
    report.warnings += c.warnings;
    for (const [k, v] of Object.entries(c.counts)) report.counts[k] = (report.counts[k] ?? 0) + v;
    report.problems.push(...c.problems);
  }
  // Across ranks, as replay matches communication (only where the rank files are numbered as replay needs).
  if (!gap) {
    const fileOf = new Map(files.map((f) => [f.rank, f.file]));
    const listed = new Map<string, number>();
    for (const { code, found: m } of cross.problems()) {
      report.errors++;
      report.counts[code] = (report.counts[code] ?? 0) + 1;
      const n = listed.get(code) ?? 0;
      listed.set(code, n + 1);
      if (n < maxPerCode)
        report.problems.push({
          severity: 'error',
          code,
          file: fileOf.get(m.rank) ?? target,
          rank: m.rank,
          nodeId: m.nodeId,
          message: m.message,
        });
    }
  }
  return report;
}

/**
 * What the replay takes from each Chakra node, as ASTRA-sim's workload layer reads it (Workload.cc issue): the
 * resource it occupies, its operation (a fixed duration, a collective, a send or a receive) and sizes, and its
 * energy, written into a NodeTable slot. Everything ASTRA-sim would stall on or misread is refused here with the
 * node named. One departure, on purpose: an annotated GPU compute node (frequency_mhz or energy_j) keeps its
 * duration_micros under roofline-enabled, where ASTRA-sim would recompute it from num_ops (`export astra-sim` writes
 * such traces' system file with roofline off, so ASTRA-sim gives the annotated times too).
 */
import type { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import type { CommGroupConfig, RemoteMemoryConfig, SystemConfig } from '../../formats/astra/index.js';
import { type CollectiveKind, SIMULATED_COLLECTIVES } from '../../vocab/collectives.js';
import {
  boolListOfAttribute,
  boolOfAttribute,
  commTypeName,
  intOfAttribute,
  nodeValueProblem,
  NodeType,
  nodeTypeName,
  numberOfAttribute,
  simulatedCollective,
  stringOfAttribute,
} from '../../formats/chakra/index.js';
import { ComputeBandCollector } from './energy-band.js';
import { NameTable } from './names.js';
import { Category, OpKind, Resource, type NodeTable } from './node-table.js';
import { Attr, REPLAY_ATTRS, type ReplayNode } from './replay-node.js';
import { FrameMemo, type FrameRecord } from './frame-memo.js';
import type { DurationSources } from './types.js';

const KIND_CODES: Record<CollectiveKind, number> = { ALL_REDUCE: 0, ALL_GATHER: 1, ALL_TO_ALL: 2, REDUCE_SCATTER: 3 };
const BROADCAST = 5;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MAX_EXACT_MICROS = Math.floor(Number.MAX_SAFE_INTEGER / 1000);
const DURATION_SOURCES: readonly (keyof DurationSources)[] = ['annotated', 'measured', 'roofline', 'zero'];

/** A collective as its nodes state it; nodes share one spec per distinct (kind, involved_dim, pg_name). */
export interface CollSpec {
  coll: CollectiveKind;
  /** involved_dim cut to the network's dimensions; undefined when absent. */
  involved?: boolean[];
  /** pg_name of a comm group; '' for none (or "0"). */
  group: string;
}

export interface ClassifyContext {
  system: SystemConfig;
  memory?: RemoteMemoryConfig;
  commGroups?: CommGroupConfig;
  networkFile: string;
  dims: number;
  ranks: number;
  diag: Diagnostics;
  /** Keep node names (for timelines, by-name rows), as ids in `names`. */
  keepNames: boolean;
}

export class NodeClassifier {
  readonly specs: CollSpec[] = [];
  /** pg_name → (kind and involved_dim as a number) → index in `specs`. */
  private readonly specIndex = new Map<string, Map<number, number>>();
  /** By kind code, the spec of a collective with neither involved_dim nor pg_name (−1: none met yet). */
  private readonly plainSpecs = [-1, -1, -1, -1];
  /** The energy bands of the GPU compute nodes (energy_j_p10 / energy_j_p90). */
  readonly bands: ComputeBandCollector;
  /** GPU compute nodes by where their duration came from. */
  readonly durationSources: DurationSources = { annotated: 0, measured: 0, roofline: 0, zero: 0 };
  /** The kept names (table.nameId). */
  readonly names = new NameTable();

  constructor(private readonly ctx: ClassifyContext) {
    this.bands = new ComputeBandCollector(ctx.diag);
  }

  /** What the replay made of frames met before (filled by recordable nodes, read by the replay's file reader). */
  readonly memo = new FrameMemo();
  /**
   * The duration source the node being classified counted (index in DURATION_SOURCES), or −1; and whether it had a
   * band.
   */
  private counted = -1;
  private banded = false;

  /** Fills slot `s` of `table` from node `n` of `file`. */
  classify(table: NodeTable, s: number, n: ReplayNode, file: string): void {
    const rec = n.record;
    if (rec !== null) {
      this.copy(table, s, rec);
      return;
    }
    const diagnosed = this.ctx.diag.added;
    this.counted = -1;
    this.banded = false;
    this.read(table, s, n, file);
    // Recorded only when the node had no effect besides its row and its duration-source count (frame-memo.ts); not
    // sends and receives, whose peers make their frames differ from rank to rank.
    const op = table.op[s];
    if (op !== OpKind.Send && op !== OpKind.Recv && n.recordable && this.ctx.diag.added === diagnosed && !this.banded) {
      const deps = new Float64Array(n.depCount(false) + n.depCount(true));
      const dataCount = n.depCount(false);
      for (let i = 0; i < deps.length; i++)
        deps[i] = i < dataCount ? (n.depKey(false, i) as number) : (n.depKey(true, i - dataCount) as number);
      n.remember({
        key: n.key as number,
        deps,
        dataCount,
        resource: table.resource[s],
        category: table.category[s],
        op: table.op[s],
        amount: table.amount[s],
        peer: table.peer[s],
        aux: table.aux[s],
        energyJ: table.energyJ[s],
        energyMemoryJ: table.energyMemoryJ[s],
        nameId: table.nameId[s],
        durationSource: this.counted,
        gpu: table.category[s] === Category.Gpu,
      });
    }
  }

  /** classify from a frame's record: the row, and the counts the frame added when it was read. */
  private copy(table: NodeTable, s: number, rec: FrameRecord): void {
    table.resource[s] = rec.resource;
    table.category[s] = rec.category;
    table.op[s] = rec.op;
    table.amount[s] = rec.amount;
    table.peer[s] = rec.peer;
    table.aux[s] = rec.aux;
    table.energyJ[s] = rec.energyJ;
    table.energyMemoryJ[s] = rec.energyMemoryJ;
    table.nameId[s] = rec.nameId;
    if (rec.durationSource >= 0) this.durationSources[DURATION_SOURCES[rec.durationSource]]++;
    if (rec.gpu) this.bands.addUnbanded();
  }

  private read(table: NodeTable, s: number, n: ReplayNode, file: string): void {
    const { ctx } = this;
    if (ctx.keepNames) table.nameId[s] = n.nameId(this.names);
    const isCpu = this.bool(n, Attr.IsCpuOp) ?? false;
    switch (n.type) {
      case NodeType.COMP_NODE: {
        table.resource[s] = isCpu ? Resource.Cpu : Resource.Gpu;
        table.category[s] = isCpu ? Category.Cpu : Category.Gpu;
        const tensor = this.intAttr(file, n, Attr.TensorSize, null) ?? 0;
        this.intAttr(file, n, Attr.NumOps, null); // range-checked whether or not roofline reads it, as validate does
        table.aux[s] = tensor;
        if (isCpu) {
          table.amount[s] = this.durationNs(file, n);
          return;
        }
        const e = this.number(n, Attr.EnergyJ);
        this.gpuDuration(table, s, n, file, tensor, e !== undefined || this.number(n, Attr.FrequencyMHz) !== undefined);
        if (e !== undefined) table.energyJ[s] = e;
        const mem = this.number(n, Attr.EnergyMemoryJ);
        if (mem !== undefined) table.energyMemoryJ[s] = mem;
        const p10 = this.number(n, Attr.EnergyP10);
        const p90 = this.number(n, Attr.EnergyP90);
        this.banded = p10 !== undefined || p90 !== undefined;
        // The name only groups banded nodes: not made (nor the node's description) for a node without a band.
        if (p10 === undefined && p90 === undefined) this.bands.addUnbanded();
        else this.bands.add(n.name, e, p10, p90, () => where(file, n), file);
        return;
      }
      case NodeType.MEM_LOAD_NODE:
      case NodeType.MEM_STORE_NODE: {
        const mem = ctx.memory;
        if (!mem || mem.memoryType === 'NO_MEMORY_EXPANSION') {
          throw new InputError(
            `${where(file, n)} needs a remote memory model: pass --memory with a memory-type other than ` +
              `NO_MEMORY_EXPANSION`,
          );
        }
        const bytes = this.intAttr(file, n, Attr.TensorSize, 'MEM_LOAD/STORE nodes need their size')!;
        table.resource[s] = Resource.Comm;
        table.category[s] = Category.Mem;
        table.aux[s] = bytes;
        table.amount[s] = Math.floor(mem.latencyNs + bytes / mem.bandwidthGBps);
        return;
      }
      case NodeType.COMM_SEND_NODE:
      case NodeType.COMM_RECV_NODE: {
        const send = n.type === NodeType.COMM_SEND_NODE;
        const peerSlot = send ? Attr.CommDst : Attr.CommSrc;
        const peerName = REPLAY_ATTRS[peerSlot];
        const peer = this.intAttr(file, n, peerSlot, '')!;
        if (peer < 0 || peer >= ctx.ranks)
          throw new InputError(
            `${where(file, n)}: ${peerName} ${peer} is not a rank of this trace (0..${ctx.ranks - 1})`,
          );
        table.resource[s] = send ? Resource.Comm : Resource.None;
        table.category[s] = Category.Comm;
        table.op[s] = send ? OpKind.Send : OpKind.Recv;
        table.peer[s] = peer;
        table.amount[s] = this.intAttr(file, n, Attr.CommSize, '')!;
        table.aux[s] = this.intAttr(file, n, Attr.CommTag, null) ?? 0;
        return;
      }
      case NodeType.COMM_COLL_NODE: {
        // A plain varint stays a number (no bigint per collective node); others as attrInt reads them.
        const fastType = n.varint(Attr.CommType);
        const type = fastType >= 0 ? fastType : this.int(n, Attr.CommType);
        if (type === undefined) {
          if (isCpu) {
            ctx.diag.add('replay.cpu-collective-replayed', {
              file,
              nodeId: n.id,
              message:
                `${where(file, n)} is a CPU-side collective without comm_type; replayed from its duration on the ` +
                `CPU`,
            });
            table.resource[s] = Resource.Cpu;
            table.category[s] = Category.Cpu;
            table.amount[s] = this.durationNs(file, n);
            return;
          }
          throw new InputError(`${where(file, n)} has no comm_type attribute`);
        }
        table.resource[s] = Resource.Comm;
        table.category[s] = Category.Comm;
        if (Number(type) === BROADCAST) {
          table.amount[s] = this.durationNs(file, n);
          return;
        }
        const coll = simulatedCollective(type);
        if (!coll) {
          throw new InputError(
            `${where(file, n)}: comm_type ${commTypeName(type)} is not simulated (ASTRA-sim's analytical ` +
              `backend models ${SIMULATED_COLLECTIVES.join(', ')}; BROADCAST is replayed)`,
          );
        }
        table.op[s] = OpKind.Collective;
        table.amount[s] = this.intAttr(
          file,
          n,
          Attr.CommSize,
          'the collective size is needed (ASTRA-sim logs "Attribute comm_size not found" and then stalls every ' +
            'rank); re-generate the trace with comm_size on every COMM_COLL node',
        )!;
        table.peer[s] = this.spec(file, n, coll);
        return;
      }
      case NodeType.METADATA_NODE:
        return;
      default:
        ctx.diag.add('replay.unknown-node-type', {
          file,
          nodeId: n.id,
          message: `${where(file, n)}: node type not replayed; it takes no time`,
        });
    }
  }

  private spec(file: string, n: ReplayNode, coll: CollectiveKind): number {
    // Most collectives name neither involved_dim nor pg_name: one spec per kind, found once.
    const plain = !n.mayHave(Attr.InvolvedDim) && !n.mayHave(Attr.PgName);
    if (plain) {
      const known = this.plainSpecs[KIND_CODES[coll]];
      if (known >= 0) return known;
    }
    const index = this.readSpec(file, n, coll);
    if (plain) this.plainSpecs[KIND_CODES[coll]] = index;
    return index;
  }

  private readSpec(file: string, n: ReplayNode, coll: CollectiveKind): number {
    const { ctx } = this;
    const a = n.attribute(Attr.InvolvedDim);
    const involved = a ? boolListOfAttribute(a, n, ctx.diag) : undefined;
    if (involved && involved.length < ctx.dims) {
      throw new InputError(
        `${where(file, n)}: involved_dim has ${involved.length} entr${involved.length === 1 ? 'y' : 'ies'} but ` +
          `${ctx.networkFile} has ${ctx.dims} dimensions (ASTRA-sim reads past the list and stalls)`,
      );
    }
    if (involved && involved.length > ctx.dims) {
      ctx.diag.add('replay.involved-dim-longer', {
        file,
        nodeId: n.id,
        message:
          `${where(file, n)}: involved_dim has more entries than the network has dimensions; the extra ones are ` +
          `ignored`,
      });
    }
    const pgAttr = n.attribute(Attr.PgName);
    const pg = (pgAttr ? stringOfAttribute(pgAttr, n, ctx.diag) : undefined) ?? '';
    const group = pg === '' || pg === '0' ? '' : pg;
    if (group && !ctx.commGroups?.groups.has(group)) {
      throw new InputError(
        `${where(file, n)}: pg_name "${group}" is not defined` +
          (ctx.commGroups ? ` in ${ctx.commGroups.file}` : ' (no --comm-group file given)'),
      );
    }
    // The kind, and involved_dim as a bit mask (0 when absent), in one number.
    let mask = 0;
    if (involved) {
      mask = 1;
      for (let d = 0; d < ctx.dims; d++) if (involved[d]) mask += 2 ** (d + 1);
    }
    const key = KIND_CODES[coll] * 2 ** (ctx.dims + 1) + mask;
    let byKey = this.specIndex.get(group);
    if (!byKey) this.specIndex.set(group, (byKey = new Map()));
    let index = byKey.get(key);
    if (index === undefined) {
      index = this.specs.push({ coll, involved: involved?.slice(0, ctx.dims), group }) - 1;
      byKey.set(key, index);
    }
    return index;
  }

  /**
   * A GPU compute node's time: an annotated node (frequency_mhz or energy_j) keeps its duration_micros even with
   * roofline-enabled (the annotation is the time at the clock asked for); otherwise roofline-enabled times it from
   * num_ops and tensor_size as ASTRA-sim does (tensor_size 0: skipped, no time), and roofline off takes
   * duration_micros (0 becomes 1 ns, as in ASTRA-sim). Counted by source; a node that gets no time is warned about.
   */
  private gpuDuration(
    table: NodeTable,
    s: number,
    n: ReplayNode,
    file: string,
    tensor: number,
    annotated: boolean,
  ): void {
    const { ctx } = this;
    const sys = ctx.system;
    if (annotated) {
      this.count('annotated');
      table.amount[s] = this.durationNs(file, n);
      return;
    }
    if (sys.rooflineEnabled) {
      if (tensor !== 0) {
        const ops = this.intAttr(
          file,
          n,
          Attr.NumOps,
          'roofline-enabled needs num_ops on every GPU COMP_NODE (ASTRA-sim stalls without it)',
        )!;
        const perf = Math.min(sys.localMemBandwidthGBps * 1e9 * (ops / tensor), sys.peakPerfTFlops * 1e12);
        table.amount[s] = Math.trunc((ops / perf) * 1e9);
        this.count('roofline');
        return;
      }
      this.withoutTime(
        file,
        n,
        `${where(file, n)}: roofline-enabled and no tensor_size, and no annotation (frequency_mhz / energy_j): ` +
          `the node takes 0 ns ` +
          `and no energy, as in ASTRA-sim` +
          (n.durationMicros > 0n ? ` (its duration_micros ${n.durationMicros} is not used under roofline)` : ''),
      );
      return;
    }
    table.amount[s] = this.durationNs(file, n);
    if (n.durationMicrosNumber !== 0) {
      this.count('measured');
      return;
    }
    this.withoutTime(
      file,
      n,
      `${where(file, n)}: duration_micros 0, roofline off and no annotation: the node takes 1 ns, as in ASTRA-sim`,
    );
  }

  /** A GPU compute node with no time of its own: counted as 'zero' and warned about (`message`). */
  private withoutTime(file: string, n: ReplayNode, message: string): void {
    this.count('zero');
    this.ctx.diag.add('replay.gpu-node-without-time', { file, nodeId: n.id, message });
  }

  private count(source: keyof DurationSources): void {
    this.durationSources[source]++;
    this.counted = DURATION_SOURCES.indexOf(source);
  }

  private durationNs(file: string, n: ReplayNode): number {
    const us = n.durationMicrosNumber;
    // Below 2^53 / 1000 µs the ns are exact as a number.
    if (us >= 0 && us <= MAX_EXACT_MICROS) return us === 0 ? 1 : us * 1000;
    const ns = n.durationMicros * 1000n;
    if (ns > MAX_SAFE) throw new InputError(`${where(file, n)}: duration_micros ${n.durationMicros} is too large`);
    return ns === 0n ? 1 : Number(ns);
  }

  /** The attribute as attrInt reads it (chakra/attrs.ts). */
  private int(n: ReplayNode, slot: Attr): bigint | undefined {
    if (!n.mayHave(slot)) return undefined;
    const fast = n.varint(slot);
    if (fast >= 0) return BigInt(fast);
    const a = n.attribute(slot);
    return a ? intOfAttribute(a, n, this.ctx.diag) : undefined;
  }

  /** The attribute as attrNumber reads it. */
  private number(n: ReplayNode, slot: Attr): number | undefined {
    if (!n.mayHave(slot)) return undefined;
    const f = n.float(slot);
    if (f !== undefined) return f;
    const fast = n.varint(slot);
    if (fast >= 0) return fast;
    const a = n.attribute(slot);
    return a ? numberOfAttribute(a, n, this.ctx.diag) : undefined;
  }

  /** The attribute as attrBool reads it. */
  private bool(n: ReplayNode, slot: Attr): boolean | undefined {
    if (!n.mayHave(slot)) return undefined;
    const fast = n.varint(slot);
    if (fast >= 0) return fast !== 0;
    const a = n.attribute(slot);
    return a ? boolOfAttribute(a, n, this.ctx.diag) : undefined;
  }

  private intAttr(file: string, n: ReplayNode, slot: Attr, required: string | null): number | undefined {
    const name = REPLAY_ATTRS[slot];
    const fast = n.varint(slot);
    // A plain varint of at most 2^53 − 1 is within every limit (node-values.ts: 0 to 2^53 − 1, or ± that).
    if (fast >= 0) return fast;
    const v = this.int(n, slot);
    if (v === undefined) {
      if (required !== null)
        throw new InputError(`${where(file, n)} has no ${name} attribute${required ? `: ${required}` : ''}`);
      return undefined;
    }
    // The one range check validate and export use too (formats/chakra/node-values.ts): one verdict per input.
    const bad = nodeValueProblem(name, v);
    if (bad) throw new InputError(`${where(file, n)}: ${bad}`);
    if (v > MAX_SAFE || v < -MAX_SAFE) throw new InputError(`${where(file, n)}: ${name} = ${v} is out of range`);
    return Number(v);
  }
}

export function where(file: string, n: ReplayNode): string {
  return `${file}: node ${n.id} ("${n.name}", ${nodeTypeName(n.type)})`;
}

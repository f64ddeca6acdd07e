/**
 * The measured collectives of an imported run: every COMM_COLL_NODE of every rank file, read the way the replay reads
 * it (its NodeClassifier: kind, comm_size, pg_name / involved_dim) and grouped the way the replay groups it (its
 * CollectiveMatcher: the k-th collective a rank issues on a group meets the k-th of every other member; a rank's
 * collectives are taken in measured start order). Each member brings its own measured duration (duration_micros,
 * which `import pytorch` writes from the NCCL kernel's Kineto duration).
 *
 * A member's NCCL kernel starts when that member reaches the collective and ends when the data exchange ends, so
 * every member but the last to arrive also measures its wait for the others. The collective's own time is therefore
 * taken as the shortest member duration: that of the member that arrived last and waited for no one.
 */
import { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import {
  checkSystemAgainstNetwork,
  type CommGroupConfig,
  type NetworkConfig,
  type SystemConfig,
} from '../../formats/astra/index.js';
import type { CollectiveKind } from '../../vocab/collectives.js';
import { attrInt, CollectiveCommType, NodeType, type ChakraNode } from '../../formats/chakra/index.js';
import { NodeClassifier, type CollSpec } from '../replay/classify.js';
import { DecodedReplayNode } from '../replay/replay-node.js';
import { CollectiveMatcher, type CollGroup } from '../replay/collective-matching.js';
import { CollectiveModel } from '../replay/collective.js';
import { rankSourcesFromFiles } from '../replay/load.js';
import { makeCluster } from '../replay/network.js';
import { idKey, NodeTable, OpKind } from '../replay/node-table.js';

export interface MeasuredMember {
  rank: number;
  nodeId: bigint;
  /** start_time_micros as written (µs since the epoch for imported runs). */
  startMicros: bigint;
  durationNs: number;
}

export interface MeasuredCollective {
  /** Its place among the collectives of its group (0 = first). */
  ordinal: number;
  kind: CollectiveKind;
  /** comm_size, bytes. */
  bytes: number;
  spec: CollSpec;
  group: CollGroup;
  /** By member index (the group's member order). */
  members: MeasuredMember[];
  /** The collective's own measured time: the shortest member duration, ns. */
  measuredNs: number;
  /** The member (by rank) whose duration that is: the one that reached the collective last. */
  lastMemberRank: number;
}

export interface MeasuredRun {
  trace: string;
  ranks: number;
  collectives: MeasuredCollective[];
  /** Collective nodes not fitted to, by reason (e.g. BROADCAST, replayed from its duration). */
  skipped: Record<string, number>;
  diagnostics: Diagnostics;
}

export interface MeasuredInput {
  trace: string;
  system: SystemConfig;
  network: NetworkConfig;
  commGroups?: CommGroupConfig;
  diagnostics?: Diagnostics;
}

interface RankCollective {
  node: ChakraNode;
  spec: CollSpec;
  bytes: number;
}

/** Reads every rank file of `trace` and matches its collectives across ranks. */
export async function readMeasuredCollectives(input: MeasuredInput): Promise<MeasuredRun> {
  const diagnostics = input.diagnostics ?? new Diagnostics();
  const { system, network, commGroups, trace } = input;
  checkSystemAgainstNetwork(system, network, diagnostics);
  const cluster = makeCluster(network);
  const sources = await rankSourcesFromFiles(trace, diagnostics);
  if (sources.length !== cluster.totalNpus) {
    throw new InputError(
      `${trace}: ${sources.length} rank file(s) but ${network.file} describes ${cluster.totalNpus} NPUs ` +
        `(npus_count [${network.dims.map((d) => d.npus).join(', ')}]): give the network the run ran on`,
    );
  }
  sources.forEach((s, i) => {
    if (s.rank !== i)
      throw new InputError(
        `${trace}: rank files must be numbered 0..${sources.length - 1}; rank ${i} is missing (found ${s.file} ` +
          `as rank ${s.rank})`,
      );
  });
  const classifier = new NodeClassifier({
    system,
    commGroups,
    networkFile: network.file,
    dims: network.dims.length,
    ranks: sources.length,
    diag: diagnostics,
    keepNames: false,
  });
  const view = new DecodedReplayNode();
  const skipped: Record<string, number> = {};
  const perRank: RankCollective[][] = [];
  for (const src of sources) {
    const list: RankCollective[] = [];
    const table = new NodeTable();
    for (let batch = await src.nextBatch(); batch; batch = await src.nextBatch()) {
      for (const n of batch) {
        if (n.type !== NodeType.COMM_COLL_NODE) continue;
        const type = attrInt(n, 'comm_type', diagnostics);
        if (
          type !== undefined &&
          type !== BigInt(CollectiveCommType.BROADCAST) &&
          attrInt(n, 'comm_size', diagnostics) === undefined
        ) {
          throw new InputError(
            `${src.file}: node ${n.id} ("${n.name}") is a collective without comm_size: the fit needs the ` +
              `bytes of every ` +
              'collective (import pytorch writes them from the tensors the execution trace records)',
          );
        }
        const key = idKey(n.id);
        const s = table.add(key);
        classifier.classify(table, s, view.of(n), src.file);
        if (table.op[s] === OpKind.Collective)
          list.push({ node: n, spec: classifier.specs[table.peer[s]], bytes: table.amount[s] });
        else skipped[n.name] = (skipped[n.name] ?? 0) + 1;
        table.remove(s, key);
      }
    }
    list.sort((a, b) =>
      a.node.startTimeMicros < b.node.startTimeMicros
        ? -1
        : a.node.startTimeMicros > b.node.startTimeMicros
          ? 1
          : a.node.id < b.node.id
            ? -1
            : 1,
    );
    perRank.push(list);
  }
  if (perRank.every((l) => l.length === 0)) {
    throw new InputError(
      `${trace}: no collective with comm_type and comm_size in any of its ${sources.length} rank file(s)` +
        `${
          Object.keys(skipped).length
            ? ` (only ${Object.entries(skipped)
                .map(([k, v]) => `${k} ×${v}`)
                .join(', ')}, replayed from their durations)`
            : ''
        }: ` +
        'nothing to fit the network to; import the run with `import pytorch` from an execution trace and ' +
        'Kineto trace that hold its NCCL kernels',
    );
  }
  const matcher = new CollectiveMatcher(cluster, commGroups, new CollectiveModel(cluster, system), ({ rank }) => ({
    file: sources[rank].file,
    nodeId: -1n,
  }));
  return {
    trace,
    ranks: sources.length,
    collectives: match(
      perRank,
      matcher,
      sources.map((s) => s.file),
    ),
    skipped,
    diagnostics,
  };
}

/** Groups each rank's collectives into instances: per group, the k-th of every member. */
function match(perRank: RankCollective[][], matcher: CollectiveMatcher, files: string[]): MeasuredCollective[] {
  const byGroup = new Map<CollGroup, Map<number, MeasuredCollective>>();
  const out: MeasuredCollective[] = [];
  perRank.forEach((list, rank) => {
    const ordinals = new Map<CollGroup, number>();
    for (const { node, spec, bytes } of list) {
      const group = matcher.groupFor(rank, spec);
      const index = group.indexOf(rank);
      if (index < 0)
        throw new InputError(
          `${files[rank]}: node ${node.id} is a collective of group "${spec.group}" but rank ${rank} is not a ` +
            `member of it`,
        );
      const ordinal = ordinals.get(group) ?? 0;
      ordinals.set(group, ordinal + 1);
      let instances = byGroup.get(group);
      if (!instances) byGroup.set(group, (instances = new Map()));
      let inst = instances.get(ordinal);
      if (!inst) {
        inst = {
          ordinal,
          kind: spec.coll,
          bytes,
          spec,
          group,
          members: new Array<MeasuredMember>(group.members.length),
          measuredNs: Infinity,
          lastMemberRank: -1,
        };
        instances.set(ordinal, inst);
        out.push(inst);
      } else if (inst.kind !== spec.coll || inst.bytes !== bytes) {
        const first = inst.members.find((m) => m)!;
        throw new InputError(
          `collective #${ordinal} of ${groupName(group)} differs between ranks: ${files[first.rank]} node ` +
            `${first.nodeId} is ` +
            `${inst.kind} of ${inst.bytes} B, ${files[rank]} node ${node.id} is ${spec.coll} of ${bytes} B`,
        );
      }
      const durationNs = Number(node.durationMicros) * 1000;
      inst.members[index] = { rank, nodeId: node.id, startMicros: node.startTimeMicros, durationNs };
    }
  });
  for (const inst of out) {
    inst.group.members.forEach((rank, m) => {
      if (!inst.members[m]) {
        const first = inst.members.find((x) => x)!;
        throw new InputError(
          `collective #${inst.ordinal} of ${groupName(inst.group)} (${inst.kind} of ${inst.bytes} B, ` +
            `${files[first.rank]} node ${first.nodeId}) ` +
            `has no counterpart in ${files[rank]}: rank ${rank} issues fewer collectives on that group`,
        );
      }
    });
    for (const m of inst.members) {
      if (m.durationNs < inst.measuredNs) {
        inst.measuredNs = m.durationNs;
        inst.lastMemberRank = m.rank;
      }
    }
  }
  return out;
}

export function groupName(group: CollGroup): string {
  return group.key ? `group "${group.key}"` : 'all ranks';
}

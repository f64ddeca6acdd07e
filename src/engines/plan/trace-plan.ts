/**
 * Clock plans for an annotated multi-rank Chakra trace (`generate llm` + `annotate --frequencies`): one clock per
 * group of GPU compute nodes, a group being one micro-batch's forward or backward pass on one rank (node names
 * `mb<j>.…`, backward ending in .bwd / .dgrad / .wgrad); ranks of a pipeline stage share the plan, so tensor- and
 * data-parallel peers stay in step.
 *
 * The replay engine supplies the rest: replays of the trace at each annotated clock give every group's span
 * (compute and the tensor-parallel collectives inside it) and the message delays between stages; the pipeline is
 * planned on those (the planning model); the plan is then written into the trace's nodes (each group's nodes taken
 * from the trace annotated at its clock) and replayed, and if the replayed iteration is slower than the
 * all-max-clock one by more than the tolerance, every planned slowdown is scaled back until it is not.
 * Annotated durations are replayed as they are: a system config with roofline-enabled is replayed with it off.
 */
import { InputError } from '../../errors.js';
import { Diagnostics } from '../../diagnostics.js';
import { attrBool, NodeType, readTraceFile, resolveRankFiles, type ChakraNode } from '../../formats/chakra/index.js';
import { outputPrefixes } from '../annotate/index.js';
import {
  commPowerW,
  loadClusterConfigs,
  replay,
  type ClusterFiles,
  type RankSource,
  type ReplayOptions,
  type ReplayResult,
  type ReplaySlice,
} from '../replay/index.js';
import type { BandwidthUnit } from '../replay/index.js';
import type { ClockOption } from './curve.js';
import type { Pass, StageLags } from './pipeline.js';
import { planPipeline } from './plan-pipeline.js';
import type { StageOptions } from './stage-options.js';
import type { PlanRecord, ReplayedIteration } from './types.js';

export interface TracePlanInput extends ClusterFiles {
  /** The --out prefix given to annotate --frequencies: files <trace>.<F>MHz.<rank>.et. */
  trace: string;
  frequenciesMHz: number[];
  /** Default: the GPU idle power of the highest clock's power config. */
  blockingPowerW?: number;
  bandwidthUnit?: BandwidthUnit;
  points?: number;
  /** Replayed iteration time allowed above the all-max-clock one, % (default 0.1). */
  tolerancePct?: number;
}

interface LlmConfig {
  tp: number;
  dp: number;
  pp: number;
  microBatches: number;
  schedule: '1f1b' | 'gpipe';
}

interface Group {
  rank: number;
  stage: number;
  microBatch: number;
  pass: Pass;
  /** Indices (in the rank's node list) of the group's GPU compute nodes, the nodes whose clock is planned. */
  compute: number[];
}

const BACKWARD = /\.(bwd|dgrad|wgrad)$/;
const MICRO_BATCH = /^mb(\d+)\./;

function llmConfig(nodes: { metadata: { attrs: { name: string; value: unknown }[] } | null }, file: string): LlmConfig {
  const attr = nodes.metadata?.attrs.find((a) => a.name === 'tracewatt_llm_config');
  if (!attr || typeof attr.value !== 'string') {
    throw new InputError(
      `${file}: no tracewatt_llm_config metadata: plan --trace needs a trace written by \`tracewatt generate ` +
        `llm\` (it names the stages and micro-batches)`,
    );
  }
  const c = JSON.parse(attr.value) as Partial<LlmConfig>;
  for (const k of ['tp', 'dp', 'pp', 'microBatches'] as const)
    if (!Number.isInteger(c[k]) || c[k]! < 1)
      throw new InputError(`${file}: tracewatt_llm_config.${k} is not a positive integer`);
  if (c.schedule !== '1f1b' && c.schedule !== 'gpipe')
    throw new InputError(
      `${file}: tracewatt_llm_config.schedule is ${JSON.stringify(c.schedule)}, expected 1f1b or gpipe`,
    );
  return c as LlmConfig;
}

function isGpuCompute(n: ChakraNode): boolean {
  return n.type === NodeType.COMP_NODE && !(attrBool(n, 'is_cpu_op') ?? false);
}

/**
 * Groups of one rank, keyed `<microBatch>:<pass>`; also maps node ids of group members (collectives included) to their
 * group.
 */
function groupsOf(
  nodes: ChakraNode[],
  rank: number,
  stage: number,
): { groups: Map<string, Group>; member: Map<bigint, string> } {
  const groups = new Map<string, Group>();
  const member = new Map<bigint, string>();
  nodes.forEach((n, index) => {
    const m = MICRO_BATCH.exec(n.name);
    if (!m || n.type === NodeType.COMM_SEND_NODE || n.type === NodeType.COMM_RECV_NODE) return;
    const pass: Pass = BACKWARD.test(n.name) ? 'backward' : 'forward';
    const key = `${m[1]}:${pass}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { rank, stage, microBatch: Number(m[1]), pass, compute: [] }));
    member.set(n.id, key);
    if (isGpuCompute(n)) g.compute.push(index);
  });
  return { groups, member };
}

export async function planTrace(input: TracePlanInput): Promise<PlanRecord> {
  const clocks = [...new Set(input.frequenciesMHz)].sort((a, b) => b - a);
  if (clocks.length < 2) throw new InputError('plan --trace: give at least two annotated clocks (--frequencies)');
  const prefixes = outputPrefixes(input.trace, clocks, true);
  const traces: ChakraNode[][][] = [];
  let config: LlmConfig | null = null;
  for (const prefix of prefixes) {
    const files = await resolveRankFiles(prefix);
    const ranks: ChakraNode[][] = [];
    for (const { rank, file } of files) {
      const t = await readTraceFile(file);
      if (!config) config = llmConfig(t, file);
      ranks[rank] = t.nodes;
    }
    traces.push(ranks);
  }
  const cfg = config!;
  const rankCount = cfg.tp * cfg.dp * cfg.pp;
  traces.forEach((ranks, k) => {
    if (ranks.length !== rankCount || ranks.some((r) => !r))
      throw new InputError(
        `${prefixes[k]}: expected ranks 0–${rankCount - 1} (tp ${cfg.tp} × dp ${cfg.dp} × pp ${cfg.pp})`,
      );
    ranks.forEach((nodes, rank) => {
      const ref = traces[0]![rank]!;
      if (nodes.length !== ref.length || nodes.some((n, i) => n.id !== ref[i]!.id)) {
        throw new InputError(
          `${prefixes[k]}.${rank}.et: its nodes differ from ${prefixes[0]}.${rank}.et (annotate one trace at ` +
            `every clock)`,
        );
      }
    });
  });
  const peers = cfg.tp * cfg.dp;
  const stageOf = (rank: number) => Math.floor(rank / peers);
  const perRank = traces[0]!.map((nodes, rank) => groupsOf(nodes, rank, stageOf(rank)));
  const groupCount = perRank.reduce((a, r) => a + r.groups.size, 0);

  const diagnostics = new Diagnostics();
  const cluster = await loadClusterConfigs(
    { ...input, power: input.power ?? `${prefixes[0]}.power.json` },
    diagnostics,
  );
  const notes: string[] = [];
  if (cluster.system.rooflineEnabled)
    notes.push('the system config has roofline-enabled: replayed with it off, so the annotated durations count');
  const options: ReplayOptions = {
    ...cluster,
    system: { ...cluster.system, rooflineEnabled: false },
    bandwidthUnit: input.bandwidthUnit,
    diagnostics,
  };
  let replays = 0;
  const run = async (
    nodesOf: (rank: number) => ChakraNode[],
    onSlice?: (s: ReplaySlice) => void,
  ): Promise<ReplayResult> => {
    replays++;
    const sources: RankSource[] = Array.from({ length: rankCount }, (_, rank) => {
      let given = false;
      return {
        rank,
        file: `${input.trace}.plan.${rank}.et`,
        nextBatch: async () => (given ? null : ((given = true), nodesOf(rank))),
      };
    });
    // The plan reads spans from the slices and totals from the result: no rows by name.
    return replay(sources, { ...options, onSlice, label: input.trace, byName: false });
  };

  // Group spans and energies at every clock; message delays at the highest.
  // Per clock, rank and group: its span, and its GPU compute nodes' busy time (ns) and energy (J).
  const spans = clocks.map(() =>
    perRank.map(() => new Map<string, { start: number; end: number; gpuNs: number; gpuJ: number }>()),
  );
  const sends: { rank: number; name: string; endNs: number }[] = [];
  for (let k = 0; k < clocks.length; k++) {
    await run(
      (rank) => traces[k]![rank]!,
      (s) => {
        const key = perRank[s.rank]!.member.get(s.nodeId);
        if (key) {
          const m = spans[k]![s.rank]!;
          let span = m.get(key);
          if (!span) m.set(key, (span = { start: s.startNs, end: s.endNs, gpuNs: 0, gpuJ: 0 }));
          else {
            span.start = Math.min(span.start, s.startNs);
            span.end = Math.max(span.end, s.endNs);
          }
          if (s.kind === 'gpu') {
            span.gpuNs += s.endNs - s.startNs;
            span.gpuJ += s.powerW * (s.endNs - s.startNs) * 1e-9;
          }
        } else if (k === 0 && /^mb\d+\.send_(activation|gradient)$/.test(s.name))
          sends.push({ rank: s.rank, name: s.name, endNs: s.endNs });
      },
    );
  }
  const commW = commPowerW(cluster.power.gpu);
  const stages: StageOptions[] = Array.from({ length: cfg.pp }, () => ({ forward: [], backward: [] }));
  for (let s = 0; s < cfg.pp; s++) {
    for (const pass of ['forward', 'backward'] as const) {
      stages[s]![pass] = clocks.map((clockMHz, k): ClockOption => {
        let time = 0;
        let energy = 0;
        let n = 0;
        perRank.forEach((r, rank) => {
          if (stageOf(rank) !== s) return;
          for (const [key, g] of r.groups) {
            if (g.pass !== pass) continue;
            const span = spans[k]![rank]!.get(key);
            if (!span) continue;
            time += span.end - span.start;
            // The ledger's energy of the group: its GPU nodes' energy, and the rest of its span (its collectives) at
            // the GPU's communication power.
            energy += span.gpuJ + commW * Math.max(0, span.end - span.start - span.gpuNs) * 1e-9;
            n++;
          }
        });
        if (n === 0) throw new InputError(`${prefixes[k]}: stage ${s} has no ${pass} groups (node names mb<j>.…)`);
        // Mean group of the stage, energies summed over its tensor- and data-parallel ranks.
        return { clockMHz, timeS: time / n / 1e9, energyJ: (energy / n) * peers };
      });
    }
  }
  const lags = messageDelays(sends, spans[0]!, cfg, stageOf);
  const idleW = cluster.power.gpu.idlePowerW;
  const blockingPowerW = (input.blockingPowerW ?? idleW) * peers;
  const record = planPipeline({
    label: input.trace,
    source: { mode: 'trace', file: input.trace, clocksMHz: [...clocks].reverse() },
    stages,
    microBatches: cfg.microBatches,
    schedule: cfg.schedule,
    blockingPowerW,
    lags,
    gpusPerStage: peers,
    points: input.points,
    notes: [
      ...notes,
      `planning model: one op per stage × micro-batch × pass (its group span from replays at each clock), ` +
        `message delays from the replay at ${clocks[0]} MHz; ` +
        `energies are the energy ledger's: a group's GPU node energies, the rest of its span (its collectives) ` +
        `at ${commW.toFixed(2)} W ` +
        `(communication power), blocking at ${(input.blockingPowerW ?? idleW).toFixed(2)} W per GPU (` +
        `${input.blockingPowerW === undefined ? 'idle power' : 'given'}), all ${rankCount} ranks`,
    ],
  });

  // The intrinsic plan in the trace, replayed; slowdowns scaled back until within the tolerance.
  const tolerancePct = input.tolerancePct ?? 0.1;
  const plan = record.plans.find((p) => p.name === 'intrinsic')!;
  const planned = new Map(plan.computations.map((c) => [`${c.stage}:${c.microBatch}:${c.instruction}`, c]));
  const clockIndex = (stage: number, pass: Pass, share: number, key: string): number => {
    const c = planned.get(key)!;
    const list = stages[stage]![pass];
    const fastest = list[0]!;
    const chosen = list.find((o) => o.clockMHz === c.clockMHz)!;
    const target = fastest.timeS + share * (chosen.timeS - fastest.timeS);
    // The slowest annotated clock whose group time fits the scaled-back target (clocks are fastest first).
    let best = 0;
    for (let k = 0; k < list.length; k++)
      if (list[k]!.timeS <= target * (1 + 1e-12) && list[k]!.timeS >= list[best]!.timeS) best = k;
    return best;
  };
  const applied =
    (share: number) =>
    (rank: number): ChakraNode[] => {
      const out = traces[0]![rank]!.slice();
      for (const g of perRank[rank]!.groups.values()) {
        const k = clockIndex(g.stage, g.pass, share, `${g.stage}:${g.microBatch}:${g.pass}`);
        for (const i of g.compute) out[i] = traces[k]![rank]![i]!;
      }
      return out;
    };
  const baseline = summarize(await run((rank) => traces[0]![rank]!));
  let share = 1;
  let result = summarize(await run(applied(share)));
  const within = (r: ReplayedIteration) => r.timeS <= baseline.timeS * (1 + tolerancePct / 100);
  if (!within(result)) {
    let lo = 0;
    let hi = 1;
    let best = baseline;
    for (let step = 0; step < 10; step++) {
      const mid = (lo + hi) / 2;
      const r = summarize(await run(applied(mid)));
      if (within(r)) {
        lo = mid;
        best = r;
      } else hi = mid;
    }
    share = lo;
    result = best;
  }
  record.replayCheck = {
    baseline,
    plan: {
      ...result,
      savingPct: 100 * (1 - result.energyJ / baseline.energyJ),
      timeChangePct: 100 * (result.timeS / baseline.timeS - 1),
    },
    slowdownShare: share,
    tolerancePct,
    replays,
    groups: groupCount,
  };
  for (const d of diagnostics.summary())
    record.notes.push(`replay: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}`);
  return record;
}

function summarize(r: ReplayResult): ReplayedIteration {
  return { timeS: r.makespanNs / 1e9, energyJ: r.energyJ.total, energyBreakdownJ: r.energyJ };
}

/** Longest delay from a group's end to its message's arrival, per stage boundary and direction, s. */
function messageDelays(
  sends: { rank: number; name: string; endNs: number }[],
  spans: Map<string, { start: number; end: number }>[],
  cfg: LlmConfig,
  stageOf: (rank: number) => number,
): StageLags {
  const lags: StageLags = { activationS: new Array(cfg.pp - 1).fill(0), gradientS: new Array(cfg.pp - 1).fill(0) };
  for (const s of sends) {
    const m = /^mb(\d+)\.send_(activation|gradient)$/.exec(s.name)!;
    const activation = m[2] === 'activation';
    const span = spans[s.rank]!.get(`${m[1]}:${activation ? 'forward' : 'backward'}`);
    if (!span) continue;
    const stage = stageOf(s.rank);
    const delay = Math.max(0, (s.endNs - span.end) / 1e9);
    if (activation && stage < cfg.pp - 1) lags.activationS[stage] = Math.max(lags.activationS[stage]!, delay);
    if (!activation && stage > 0) lags.gradientS[stage - 1] = Math.max(lags.gradientS[stage - 1]!, delay);
  }
  return lags;
}

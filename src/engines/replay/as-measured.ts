/**
 * `replay --as-measured`: an imported run replayed as it ran. Every node takes its measured duration and the
 * measured delay before it (formats/chakra/measured.ts: the attributes `import pytorch` / `import kineto` write, and
 * the replay rule), after the dependencies the importer wrote: host-thread order, launch → kernel, in-stream order
 * and CUDA synchronisation. Each collective takes its own measured NCCL kernel duration on its rank (the time it
 * waited for its peers included), so the ranks replay independently and no system or network description is needed.
 *
 * Per rank, the result sets the replayed finish beside the measured iteration (metadata measured_iteration_ns), and
 * the energy ledger's parts on the replayed timeline (summarizeAsMeasured), or a power log's energy over the
 * iteration where one is given (measured-power.ts).
 */
import { Diagnostics } from '../../diagnostics.js';
import { ANNOTATION_ATTRS } from '../../vocab/attributes.js';
import { InputError } from '../../errors.js';
import { BufferPool } from '../../formats/chakra/buffer-pool.js';
import {
  attrBool,
  attrInt,
  attrNumber,
  NodeType,
  openTrace,
  readTraceMetadata,
  resolveRankFiles,
  type ChakraNode,
  type GlobalMetadata,
} from '../../formats/chakra/index.js';
import { MEASURED_META_ATTRS, MEASURED_NODE_ATTRS } from '../../formats/chakra/measured.js';
import { CHUNK_BYTES } from '../../formats/chakra/source.js';
import type { PowerConfig } from '../../formats/astra/index.js';
import { visitInDependencyOrder } from '../trace/kahn.js';
import { unionNs } from './intervals.js';
import { gpuNodeEnergyJ, splitNodeEnergy } from './ledger.js';
import { powerLogEnergy, type PowerLogEnergy } from './measured-power.js';
import { summarizeRun, type RankTotals } from './result.js';
import type { RankResult, ReplayResult } from './types.js';

/** One rank replayed as measured: its timing split (ns), the energy of its nodes (J), and the measurement. */
export interface AsMeasuredRank {
  rank: number;
  file: string;
  nodes: number;
  /** The replayed iteration: the last node's finish, ns from the start of the measured iteration. */
  finishNs: number;
  /** The measured iteration (metadata), null when the import recorded none. */
  measuredIterationNs: number | null;
  measuredStep: string | null;
  measuredStartUnixNs: bigint | null;
  device: string | null;
  /** Union of GPU compute (kernels, memcpy, memset), of communication, of host ops; ns. */
  gpuComputeNs: number;
  commNs: number;
  cpuNs: number;
  /** Communication with no GPU compute running; host ops with neither; nothing running (up to finishNs). */
  commOnlyNs: number;
  hostOnlyNs: number;
  waitNs: number;
  /** GPU compute and communication at once. */
  overlapNs: number;
  /** Union of every interval. */
  wallNs: number;
  /**
   * Σ GPU compute node energy (annotated energy_j scaled to the measured duration, else active power × duration) less
   * its DRAM part, J.
   */
  computeJ: number;
  /**
   * DRAM part of the GPU compute nodes (energy_memory_j, else tensor_size × memory pJ/bit), carved out of their energy,
   * J.
   */
  memoryJ: number;
  memoryBytes: number;
}

/** A replay result (as `replay --json` writes it) with, per rank, the measurement beside the replay. */
export interface AsMeasuredResult extends ReplayResult {
  mode: 'as-measured';
  ranks: (RankResult & {
    measuredIterationNs: number | null;
    measuredStep: string | null;
    errorPct: number | null;
    commOnlyNs: number;
    hostOnlyNs: number;
    waitNs: number;
  })[];
  /** Per-rank error |replayed − measured| / measured: worst and mean over the ranks with a measurement, %. */
  worstErrorPct: number | null;
  meanErrorPct: number | null;
  /** What energy the result holds and what was assumed. */
  energyNotes: string[];
  /** The energy a power log measured over each rank's iteration, when a log was given. */
  powerLog?: PowerLogEnergy;
}

const metaAttr = (m: GlobalMetadata | null, name: string) => m?.attrs.find((a) => a.name === name);
const metaInt = (m: GlobalMetadata | null, name: string): bigint | null => {
  const a = metaAttr(m, name);
  return a && (typeof a.value === 'bigint' || typeof a.value === 'number') ? BigInt(a.value) : null;
};
const metaStr = (m: GlobalMetadata | null, name: string): string | null => {
  const a = metaAttr(m, name);
  return a && typeof a.value === 'string' ? a.value : null;
};

const need = (file: string, n: ChakraNode, name: string, diag: Diagnostics): number => {
  const v = attrInt(n, name, diag);
  if (v === undefined) {
    throw new InputError(
      `${file}: node ${n.id} ("${n.name}") has no ${name}: replay --as-measured reads traces written by import ` +
        `pytorch or import kineto (annotate keeps the attributes)`,
    );
  }
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER))
    throw new InputError(`${file}: node ${n.id}: ${name} = ${v} is out of range`);
  return Number(v);
};

const GPU_COMPUTE = 1;
const COMM = 2;
const CPU = 3;

/** Replays one rank file as measured. */
export async function replayRankAsMeasured(
  rank: number,
  file: string,
  power: PowerConfig,
  diag: Diagnostics,
): Promise<AsMeasuredRank> {
  const reader = await openTrace(file, { diagnostics: diag });
  const meta = reader.metadata;
  const index = new Map<bigint, number>();
  const durNs: number[] = [];
  const delayNs: number[] = [];
  const launchOffset: number[] = [];
  const kind: number[] = [];
  const energyJ: number[] = [];
  const nodeMemoryJ: number[] = [];
  const bytes: number[] = [];
  const deps: bigint[][] = [];
  const launcher: (bigint | null)[] = [];
  for await (const batch of reader.batches()) {
    for (const n of batch) {
      if (index.has(n.id)) throw new InputError(`${file}: node id ${n.id} appears twice`);
      const i = durNs.length;
      index.set(n.id, i);
      const d = need(file, n, MEASURED_NODE_ATTRS.durationNs, diag);
      durNs.push(d);
      delayNs.push(need(file, n, MEASURED_NODE_ATTRS.delayNs, diag));
      const off = attrInt(n, MEASURED_NODE_ATTRS.launchOffsetNs, diag);
      launchOffset.push(off === undefined ? NaN : Number(off));
      launcher.push(off !== undefined && n.ctrlDeps.length ? n.ctrlDeps[0]! : null);
      const cpu = attrBool(n, 'is_cpu_op', diag) ?? false;
      const isComm =
        n.type === NodeType.COMM_COLL_NODE || n.type === NodeType.COMM_SEND_NODE || n.type === NodeType.COMM_RECV_NODE;
      const k = isComm ? COMM : n.type === NodeType.COMP_NODE && !cpu ? GPU_COMPUTE : CPU;
      kind.push(k);
      let e = 0;
      let m = 0;
      let b = 0;
      if (k === GPU_COMPUTE) {
        // The annotated energy (and its DRAM part) scaled to the measured duration, else active power × duration;
        // the DRAM part carved out of it by the ledger's one rule (splitNodeEnergy).
        const annotated = attrNumber(n, ANNOTATION_ATTRS.energyJ, diag);
        const annotatedMemory = attrNumber(n, ANNOTATION_ATTRS.energyMemoryJ, diag);
        const micros = Number(n.durationMicros);
        const scale = micros > 0 ? d / (micros * 1000) : NaN;
        e = gpuNodeEnergyJ(annotated !== undefined && micros > 0 ? annotated * scale : NaN, d, power);
        const split = splitNodeEnergy(
          e,
          annotatedMemory !== undefined && micros > 0 ? annotatedMemory * scale : NaN,
          Number(attrInt(n, 'tensor_size', diag) ?? 0n),
          power.memory.energyPjPerBit,
        );
        m = split.memoryJ;
        b = Number(attrInt(n, 'tensor_size', diag) ?? 0n);
      }
      energyJ.push(e - m);
      nodeMemoryJ.push(m);
      bytes.push(b);
      deps.push(
        n.dataDeps.length && n.ctrlDeps.length
          ? [...n.dataDeps, ...n.ctrlDeps]
          : n.dataDeps.length
            ? n.dataDeps
            : n.ctrlDeps,
      );
    }
  }
  const n = durNs.length;
  // Dependency order (Kahn): each node starts at the latest ready time of its dependencies plus its delay.
  const pending = new Int32Array(n);
  const depIdx: number[][] = deps.map((list, i) => {
    const seen = new Set<number>();
    for (const d of list) {
      const j = index.get(d);
      if (j === undefined) {
        diag.add('as-measured.missing-dependency', {
          file,
          message: `${file}: a node depends on id ${d}, which is not in the file; that dependency is ignored`,
        });
        continue;
      }
      if (j !== i) seen.add(j);
    }
    pending[i] = seen.size;
    return [...seen];
  });
  // Each node's users, in a CSR list (first, users): ascending, as the nodes are numbered.
  const first = new Int32Array(n + 1);
  for (const list of depIdx) for (const j of list) first[j + 1]++;
  for (let i = 0; i < n; i++) first[i + 1] += first[i]!;
  const users = new Int32Array(first[n]!);
  const fill = first.slice(0, n);
  depIdx.forEach((list, i) => {
    for (const j of list) users[fill[j]!++] = i;
  });
  const start = new Float64Array(n);
  const finish = new Float64Array(n);
  const done = visitInDependencyOrder(pending, first, users, (i) => {
    let at = 0;
    const l = launcher[i];
    const li = l === null ? undefined : index.get(l);
    for (const j of depIdx[i]!) {
      const t = j === li ? start[j]! + launchOffset[i]! : finish[j]!;
      if (t > at) at = t;
    }
    start[i] = at + delayNs[i]!;
    finish[i] = start[i]! + durNs[i]!;
  });
  if (done !== n) throw new InputError(`${file}: ${n - done} nodes sit on a dependency cycle; cannot replay`);

  const spans = (k: number) => {
    const out: [number, number][] = [];
    for (let i = 0; i < n; i++) if (kind[i] === k && finish[i]! > start[i]!) out.push([start[i]!, finish[i]!]);
    return out;
  };
  const gpu = spans(GPU_COMPUTE);
  const comm = spans(COMM);
  const cpu = spans(CPU);
  const gpuNs = unionNs(gpu);
  const commNs = unionNs(comm);
  const cpuNs = unionNs(cpu);
  const gpuOrComm = unionNs([...gpu, ...comm]);
  const wallNs = unionNs([...gpu, ...comm, ...cpu]);
  let finishNs = 0;
  for (let i = 0; i < n; i++) if (finish[i]! > finishNs) finishNs = finish[i]!;
  let computeJ = 0;
  let memoryJ = 0;
  let memoryBytes = 0;
  for (let i = 0; i < n; i++) {
    computeJ += energyJ[i]!;
    memoryJ += nodeMemoryJ[i]!;
    memoryBytes += bytes[i]!;
  }
  const iteration = metaInt(meta, MEASURED_META_ATTRS.iterationNs);
  return {
    rank,
    file,
    nodes: n,
    finishNs,
    measuredIterationNs: iteration === null ? null : Number(iteration),
    measuredStep: metaStr(meta, MEASURED_META_ATTRS.step),
    measuredStartUnixNs: metaInt(meta, MEASURED_META_ATTRS.startUnixNs),
    device: metaStr(meta, MEASURED_META_ATTRS.device),
    gpuComputeNs: gpuNs,
    commNs,
    cpuNs,
    commOnlyNs: gpuOrComm - gpuNs,
    hostOnlyNs: wallNs - gpuOrComm,
    waitNs: finishNs - wallNs,
    overlapNs: gpuNs + commNs - gpuOrComm,
    wallNs,
    computeJ,
    memoryJ,
    memoryBytes,
  };
}

export interface AsMeasuredInput {
  trace: string;
  power: PowerConfig;
  label?: string;
  /** A power log of the run (nvidia-smi, DCGM, Zeus, time,power CSV): its energy over each iteration is reported. */
  powerLog?: string;
  diagnostics?: Diagnostics;
}

/** Replays every rank of an imported trace as measured. Refuses a rank without a measured iteration. */
export async function replayAsMeasured(
  input: AsMeasuredInput,
): Promise<{ ranks: AsMeasuredRank[]; diagnostics: Diagnostics }> {
  const diagnostics = input.diagnostics ?? new Diagnostics();
  const files = await resolveRankFiles(input.trace);
  const ranks: AsMeasuredRank[] = [];
  for (const f of files) ranks.push(await replayRankAsMeasured(f.rank, f.file, input.power, diagnostics));
  const missing = ranks.filter((r) => r.measuredIterationNs === null);
  if (missing.length) {
    throw new InputError(
      `${missing[0]!.file}: no measured iteration (its Kineto trace had no ProfilerStep): import it again with ` +
        `--step NAME or --window START:END (µs as the trace writes "ts"), then replay --as-measured`,
    );
  }
  return { ranks, diagnostics };
}

/** `replay --as-measured`: every rank replayed as measured, the ledger on that timeline, and a power log's energy. */
export async function replayFilesAsMeasured(input: AsMeasuredInput): Promise<AsMeasuredResult> {
  const diagnostics = input.diagnostics ?? new Diagnostics();
  const { ranks } = await replayAsMeasured({ ...input, diagnostics });
  const log = input.powerLog ? await powerLogEnergy(input.powerLog, ranks, diagnostics) : undefined;
  const res = summarizeAsMeasured(ranks, input.power, input.label ?? `${input.trace} as measured`, diagnostics);
  return log ? { ...res, powerLog: log } : res;
}

/**
 * The measured iteration and its wall-clock start each rank file records (metadata only; null where the import recorded
 * none).
 */
export async function measuredIterations(trace: string): Promise<
  {
    rank: number;
    file: string;
    measuredIterationNs: number | null;
    measuredStep: string | null;
    measuredStartUnixNs: bigint | null;
  }[]
> {
  const out = [];
  const pool = new BufferPool(CHUNK_BYTES);
  for (const f of await resolveRankFiles(trace)) {
    const meta = await readTraceMetadata(f.file, { pool });
    const it = metaInt(meta, MEASURED_META_ATTRS.iterationNs);
    out.push({
      rank: f.rank,
      file: f.file,
      measuredIterationNs: it === null ? null : Number(it),
      measuredStep: metaStr(meta, MEASURED_META_ATTRS.step),
      measuredStartUnixNs: metaInt(meta, MEASURED_META_ATTRS.startUnixNs),
    });
  }
  return out;
}

/**
 * The ledger on the measured timeline: per-rank totals into the shared summary (result.ts). Kept to this one function
 * so that it follows the ledger's RankTotals as that grows. No network is modelled here: network energy is 0 (said).
 */
export function summarizeAsMeasured(
  ranks: AsMeasuredRank[],
  power: PowerConfig,
  label: string,
  diagnostics: Diagnostics,
): AsMeasuredResult {
  const totals: RankTotals[] = ranks.map((r) => ({
    rank: r.rank,
    file: r.file,
    finishNs: r.finishNs,
    gpuComputeNs: r.gpuComputeNs,
    cpuComputeNs: r.cpuNs,
    commNs: r.commNs,
    remoteMemNs: 0,
    wallNs: r.wallNs,
    overlapNs: r.overlapNs,
    bytesSentPerDim: [],
    memoryBytes: r.memoryBytes,
    computeJ: r.computeJ,
    memoryJ: r.memoryJ,
    networkJ: 0,
    nodes: r.nodes,
    commOnlyNs: r.commOnlyNs,
    hostOnlyNs: r.hostOnlyNs,
    remoteMemOnlyNs: 0,
  }));
  const base = summarizeRun(totals, {
    label,
    network: { file: '(none: as measured)', dims: [] },
    power,
    bandwidthUnit: 'none',
    events: 0,
    diagnostics: diagnostics.summary(),
  });
  const errors: number[] = [];
  const out: AsMeasuredResult = {
    ...base,
    mode: 'as-measured',
    ranks: base.ranks.map((x, i) => {
      const r = ranks[i]!;
      const err = r.measuredIterationNs ? ((r.finishNs - r.measuredIterationNs) / r.measuredIterationNs) * 100 : null;
      if (err !== null) errors.push(Math.abs(err));
      return {
        ...x,
        measuredIterationNs: r.measuredIterationNs,
        measuredStep: r.measuredStep,
        errorPct: err,
        commOnlyNs: r.commOnlyNs,
        hostOnlyNs: r.hostOnlyNs,
        waitNs: r.waitNs,
      };
    }),
    worstErrorPct: errors.length ? Math.max(...errors) : null,
    meanErrorPct: errors.length ? errors.reduce((a, b) => a + b, 0) / errors.length : null,
    energyNotes: [
      `energy estimated on the replayed timeline with power config ${power.name}: GPU compute nodes at their ` +
        `annotated energy (scaled to the measured duration) or ${power.gpu.activePowerW} W, idle ` +
        `${power.gpu.idlePowerW} W otherwise`,
      'network energy not estimated (no network is modelled in an as-measured replay)',
    ],
  };
  return out;
}

/**
 * Where an imported run's ranks began their measured iteration, ns after the earliest rank (metadata
 * measured_start_unix_ns), so that a modelled replay starts each rank as it ran; null unless every rank records it.
 */
export function measuredStartOffsets(ranks: { rank: number; measuredStartUnixNs: bigint | null }[]): number[] | null {
  if (ranks.length === 0 || ranks.some((r) => r.measuredStartUnixNs === null)) return null;
  const first = ranks.reduce(
    (a, r) => (r.measuredStartUnixNs! < a ? r.measuredStartUnixNs! : a),
    ranks[0]!.measuredStartUnixNs!,
  );
  const out: number[] = [];
  for (const r of ranks) {
    const d = r.measuredStartUnixNs! - first;
    if (d > BigInt(Number.MAX_SAFE_INTEGER))
      throw new InputError(`rank ${r.rank}: its measured start is ${d} ns after the earliest rank's: not one run`);
    out[r.rank] = Number(d);
  }
  return out;
}

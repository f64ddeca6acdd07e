/**
 * `annotate`: joins a Chakra trace (what ran) and a calibrated profile (how each kernel draws power across clocks)
 * into an annotated trace per target SM clock, plus the power configuration the replay reads beside it.
 *
 * GPU compute nodes are matched to profiled kernels by exact name, then normalised name, then base name, then by
 * op name to a profile aggregated by op (samples with an `op` column); several profiled kernels under one key are
 * taken in invocation order; with one profile per rank (Kineto traces), each rank against its own. Unmatched nodes
 * with num_ops / tensor_size get a roofline estimate (estimated_from = roofline); nodes matched to a profile with
 * durations only, and unmatched ones with a duration, are estimated from their own duration and the calibration's
 * assumed power (estimated_from = node-duration,calibration-power); the rest (0 µs), and host-side ops (is_cpu_op),
 * stay byte for byte as they were.
 * Ranks run in parallel, in worker threads (the library's worker pool, src/engines/workers) and in the calling
 * thread, when the compiled worker is available. Figures are estimates.
 */
import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Diagnostics, type DiagnosticSummary } from '../../diagnostics.js';
import type { ProfileTable } from '../../vocab/kernel-sample.js';
import { InputError } from '../../errors.js';
import { isRankFileOf, resolveRankFiles, type RankFile } from '../../formats/chakra/index.js';
import { OutputSet as OutputFiles } from '../../formats/output.js';
import { readProfile, type ProfileFormat, type ReadProfileOptions } from '../../formats/profiles/index.js';
import { loadCalibration, type Calibration } from '../calibrate/index.js';
import { buildPlan, durationEstimateNote, type AnnotatePlan, type RooflinePrecision } from './plan.js';
import { buildPowerDocument, loadPowerBase, memoryPjPerBitOf, type PowerOptions } from './power-config.js';
import { DEVICE_MISMATCH, deviceMismatchWarning } from '../../model/device-match.js';
import { annotateRankFile, rankFailure, topNames, type RankOutcome, type RankTask } from './rank.js';
import { sharePlan } from './shared-plan.js';
import { ThreadCache } from './thread-cache.js';
import type { AnnotateProgress, AnnotateResult, MatchLevel, NameCount, OutputSet, RankAnnotation } from './types.js';
import type { WorkerTask } from './worker.js';
import { compiledWorker, runLanes, WorkerPool, type Lane } from '../workers/index.js';
import { annotateWarnings } from './warnings.js';

export {
  buildPlan,
  type RooflinePrecision,
} from './plan.js';
export { annotateRankFile, stripAnnotation } from './rank.js';
export { normalizeKernelName, baseKernelName, demangleName } from './names.js';
export {
  componentPowersAt,
  loadPowerBase,
  memoryPjPerBitOf,
  COMM_ACTIVE_SHARE,
  type PowerOptions,
} from './power-config.js';
export type * from './types.js';

export interface AnnotateOptions {
  /** <prefix> of <prefix>.<rank>.et files, a directory, or one .et file. */
  trace: string;
  /** Output prefix: <out>.<rank>.et and <out>.power.json (or <out>.<F>MHz.… per clock, see perFrequencyOutputs). */
  out: string;
  calibration: Calibration | string;
  profiles: (ProfileTable | string)[];
  profileFormat?: ProfileFormat;
  /** More reader options for profile files: a generic CSV's column mapping, a power log joined to the profile, … */
  profileOptions?: Omit<ReadProfileOptions, 'format' | 'diagnostics' | 'referenceClockMHz'>;
  /** Target SM clocks; empty: the reference clock (said in the result's notes). */
  frequenciesMHz: number[];
  /** Name outputs <out>.<F>MHz.<rank>.et; default: only when there are several clocks. */
  perFrequencyOutputs?: boolean;
  /**
   * SM clock the trace's durations were recorded at; default: the clock a Kineto profile's reader assumed (the
   * device's boost clock), else the calibration's highest clock.
   */
  referenceClockMHz?: number;
  /**
   * Write each node's 10–90 % band (energy_j_p10/p90, duration_ns_p10/p90) where the calibration's band model gives
   * one.
   */
  bands?: boolean;
  scaling?: 'ratio' | 'offset';
  rooflinePrecision?: RooflinePrecision;
  power?: PowerOptions;
  /** 'ok': say nothing when a profile names a device other than the calibration's (default: a warning naming both). */
  deviceMismatch?: 'warn' | 'ok';
  /**
   * Threads annotating ranks: the calling thread and workers − 1 worker threads; 0 or 1: in-process. Default: one
   * per CPU, at most one per rank.
   */
  workers?: number;
  /** false: annotated nodes go through the full decoder/encoder (for tests). */
  fastPath?: boolean;
  onProgress?: (p: AnnotateProgress) => void;
}

const LEVELS: MatchLevel[] = ['exact', 'normalized', 'base', 'op'];

function clockLabel(f: number): string {
  return `${Number(f.toPrecision(8))}MHz`;
}

/** Output prefix of each target clock. */
export function outputPrefixes(
  out: string,
  frequenciesMHz: number[],
  perFrequency = frequenciesMHz.length > 1,
): string[] {
  return frequenciesMHz.map((f) => (perFrequency ? `${out}.${clockLabel(f)}` : out));
}

/**
 * The module the worker pool loads: worker.bundle.js (one module, made by `npm run build`) while none of the
 * modules it bundled (listed in worker.bundle.json) is newer than it, else worker.js; null when running from
 * TypeScript sources, where there is no compiled worker.
 */
export function annotateWorkerFile(): string | null {
  return compiledWorker(new URL('./worker.js', import.meta.url));
}

/**
 * A worker pool when it can be used: more than one thread wanted and the compiled worker beside this module. The
 * calling thread annotates ranks too (it is otherwise idle once the plan is built), so the pool has one worker
 * fewer than the threads wanted, and one worker fewer to start.
 */
function startPool(
  workers: number,
  ranks: number,
): { pool: WorkerPool<WorkerTask, RankOutcome> | null; threads: number; reason?: string } {
  const threads = Math.min(workers, ranks);
  if (threads <= 1) return { pool: null, threads: 1, reason: workers <= 1 ? 'one worker requested' : 'one rank' };
  const file = annotateWorkerFile();
  if (!file) return { pool: null, threads: 1, reason: 'compiled worker not found (running from TypeScript sources)' };
  return { pool: WorkerPool.start(file, threads - 1), threads };
}

/**
 * Ranks go to whichever lane is free next: each worker, and the calling thread (runLanes: after a failure no lane
 * takes another rank, and the first error, of its own class, is thrown once every lane has stopped, so that
 * nothing is still writing when annotateTrace rejects).
 */
async function runRanks(
  plan: AnnotatePlan,
  tasks: RankTask[],
  started: ReturnType<typeof startPool>,
  onBytes: (rank: number, bytes: number) => void,
): Promise<{ outcomes: RankOutcome[]; parallelism: AnnotateResult['parallelism'] }> {
  const { pool, threads } = started;
  const cache = new ThreadCache();
  const here: Lane<RankTask, RankOutcome> = (t) =>
    annotateRankFile(t, plan, (b) => onBytes(t.rank, b), cache, true).catch((e: unknown) => {
      throw rankFailure(e);
    });
  const lanes = [here];
  if (pool) {
    const shared = sharePlan(plan);
    const inWorker: Lane<RankTask, RankOutcome> = (t) =>
      pool.run({ ...t, plan: shared }, (bytes) => onBytes(t.rank, bytes as number));
    for (let k = 1; k < threads; k++) lanes.push(inWorker);
  }
  const outcomes = await runLanes(tasks, lanes);
  return {
    outcomes,
    parallelism: pool ? { mode: 'workers', threads } : { mode: 'in-process', threads: 1, reason: started.reason },
  };
}

function mergeNames(lists: NameCount[][]): NameCount[] {
  const m = new Map<string, number>();
  for (const l of lists) for (const { name, count } of l) m.set(name, (m.get(name) ?? 0) + count);
  return topNames([...m].map(([name, count]) => ({ name, count })));
}

function total(ranks: RankAnnotation[]): AnnotateResult['total'] {
  const sum = (f: (r: RankAnnotation) => number) => ranks.reduce((s, r) => s + f(r), 0);
  const matched = Object.fromEntries(LEVELS.map((l) => [l, sum((r) => r.matched[l])])) as Record<MatchLevel, number>;
  const gpu = sum((r) => r.gpuCompNodes);
  return {
    nodes: sum((r) => r.nodes),
    compNodes: sum((r) => r.compNodes),
    cpuOps: sum((r) => r.cpuOps),
    gpuCompNodes: gpu,
    matched,
    memcpy: sum((r) => r.memcpy),
    unmatched: sum((r) => r.unmatched),
    byInvocation: sum((r) => r.byInvocation),
    roofline: sum((r) => r.roofline),
    estimated: sum((r) => r.estimated),
    untouched: sum((r) => r.untouched),
    memorySplitUnknown: sum((r) => r.memorySplitUnknown),
    physics: {
      aboveCap: sum((r) => r.physics.aboveCap),
      belowIdle: sum((r) => r.physics.belowIdle),
      belowBestEnergyPerFlop: sum((r) => r.physics.belowBestEnergyPerFlop),
    },
    matchRate: gpu > 0 ? LEVELS.reduce((s, l) => s + matched[l], 0) / gpu : null,
    unmatchedNames: mergeNames(ranks.map((r) => r.unmatchedNames)),
    slowPathNodes: sum((r) => r.slowPathNodes),
  };
}

/** Annotates every rank of a trace at each target clock and writes the power configuration beside each output. */
export async function annotateTrace(o: AnnotateOptions): Promise<AnnotateResult> {
  const diagnostics = new Diagnostics();
  const rankFiles: RankFile[] = await resolveRankFiles(o.trace);
  // Start the workers first: they load while the calibration and profiles are read.
  const started = startPool(o.workers ?? os.availableParallelism(), rankFiles.length);
  // The workers stop once the ranks are done, while the power configurations are written (close: once, its
  // failure surfacing where it is awaited, at the end).
  const stop = () => started.pool?.close() ?? Promise.resolve();
  try {
    return await annotateWith(o, rankFiles, started, diagnostics, stop);
  } finally {
    await stop();
  }
}

async function annotateWith(
  o: AnnotateOptions,
  rankFiles: RankFile[],
  started: ReturnType<typeof startPool>,
  diagnostics: Diagnostics,
  stopWorkers: () => Promise<void>,
): Promise<AnnotateResult> {
  const calFile = typeof o.calibration === 'string' ? o.calibration : null;
  // The calibration loads while the profiles are read (in order, so that their diagnostics keep it).
  const loading = typeof o.calibration === 'string' ? loadCalibration(o.calibration) : Promise.resolve(o.calibration);
  loading.catch(() => {});
  const profiles: ProfileTable[] = [];
  const profileNotes: AnnotateResult['profileNotes'] = [];
  if (o.profileOptions?.power !== undefined && o.profiles.length !== 1)
    throw new InputError(`--power-log joins one profile with one power log; got ${o.profiles.length} profiles`);
  for (const p of o.profiles) {
    const table =
      typeof p === 'string'
        ? await readProfile(p, {
            ...o.profileOptions,
            format: o.profileFormat,
            diagnostics,
            referenceClockMHz: o.referenceClockMHz,
          })
        : p;
    profiles.push(table);
    profileNotes.push({
      profile: typeof p === 'string' ? p : (table.samples[0]?.source.file ?? table.format),
      notes: table.notes,
    });
  }
  const cal = await loading;
  // Memory energy per bit first: roofline estimates take their DRAM part from it.
  const powerBase = await loadPowerBase(o.power ?? {}, cal.device.name);
  const plan = buildPlan(cal, profiles, {
    frequenciesMHz: o.frequenciesMHz,
    referenceClockMHz: o.referenceClockMHz,
    scaling: o.scaling,
    rooflinePrecision: o.rooflinePrecision,
    bands: o.bands,
    diagnostics,
    memoryPjPerBit: memoryPjPerBitOf(powerBase, o.power ?? {}),
  });
  // A diagnostic, so that every command running annotate (sweep gpu, case study) prints it.
  if (o.deviceMismatch !== 'ok') {
    profiles.forEach((t, i) => {
      const w = deviceMismatchWarning(cal.device.name, {
        what: `profile ${profileNotes[i]!.profile}`,
        device: t.device,
      });
      if (w) diagnostics.add(DEVICE_MISMATCH, { message: w });
    });
  }
  const prefixes = outputPrefixes(o.out, plan.frequenciesMHz, o.perFrequencyOutputs);
  const inputs = new Set(rankFiles.map((r) => path.resolve(r.file)));
  const outFiles = rankFiles.map(({ rank }) => prefixes.map((p) => `${p}.${rank}.et`));
  for (const f of outFiles.flat())
    if (inputs.has(path.resolve(f)))
      throw new InputError(`output ${f} would overwrite an input rank file: choose another --out`);

  // Every rank file and power configuration is written under a temporary name and renamed into place together once
  // all are complete: a failed or interrupted run leaves the previous outputs as they were.
  // Rank files of an earlier run on the same prefix that this one does not write again go too.
  const { ranks, outcomes, parallelism, outputs } = await OutputFiles.write(o.out, async (set) => {
    for (const p of prefixes) set.supersede(path.dirname(p), (name) => isRankFileOf(p, name));
    const tasks: RankTask[] = rankFiles.map(({ rank, file }, r) => ({
      rank,
      file,
      outFiles: outFiles[r].map((f) => set.file(f)),
      fastPath: o.fastPath,
    }));
    const sizes = await Promise.all(rankFiles.map(async (r) => (await stat(r.file)).size));
    const bytesTotal = sizes.reduce((a, b) => a + b, 0);
    const done = new Map<number, number>();
    let ranksDone = 0;
    const onBytes = (rank: number, bytes: number) => {
      done.set(rank, bytes);
      if (!o.onProgress) return;
      let bytesDone = 0;
      for (const b of done.values()) bytesDone += b;
      o.onProgress({ bytesDone: Math.min(bytesDone, bytesTotal), bytesTotal, ranksDone, ranks: tasks.length });
    };
    const { outcomes, parallelism } = await runRanks(plan, tasks, started, onBytes);
    void stopWorkers();
    ranksDone = tasks.length;
    o.onProgress?.({ bytesDone: bytesTotal, bytesTotal, ranksDone, ranks: tasks.length });

    const ranks = outcomes.map((x) => x.result);
    ranks.forEach((r, i) => {
      r.unmatchedNames = topNames(r.unmatchedNames);
      r.perFrequency.forEach((pf, k) => (pf.file = outFiles[i][k]));
    });
    const outputs: OutputSet[] = [];
    for (let i = 0; i < plan.frequenciesMHz.length; i++) {
      const f = plan.frequenciesMHz[i];
      const computeEnergyJ = ranks.reduce((s, r) => s + r.perFrequency[i].computeEnergyJ, 0);
      const memoryEnergyJ = ranks.reduce((s, r) => s + r.perFrequency[i].memoryEnergyJ, 0);
      const annotatedDurationNs = ranks.reduce((s, r) => s + r.perFrequency[i].annotatedDurationNs, 0);
      const powerFile = `${prefixes[i]}.power.json`;
      const p = await buildPowerDocument(
        cal,
        f,
        { computeEnergyJ, annotatedDurationNs },
        o.power ?? {},
        `${path.basename(prefixes[i])}`,
        powerBase,
      );
      await set.put(powerFile, `${JSON.stringify(p.doc, null, 2)}\n`);
      outputs.push({
        frequencyMHz: f,
        prefix: prefixes[i],
        powerFile,
        computeEnergyJ,
        memoryEnergyJ,
        activePowerW: p.activePowerW,
        idlePowerW: p.idlePowerW,
        commPowerW: p.commPowerW,
      });
    }
    return { ranks, outcomes, parallelism, outputs };
  });
  const merged: DiagnosticSummary[][] = [diagnostics.summary(), ...outcomes.map((x) => x.diagnostics)];
  const all = new Diagnostics();
  // Diagnostics.merge reads only summary(): worker outcomes carry summaries.
  for (const list of merged) all.merge({ summary: () => list } as Diagnostics);

  const sum = total(ranks);
  return {
    trace: o.trace,
    calibration: { device: cal.device.name, kind: cal.device.kind, file: calFile },
    referenceClockMHz: plan.referenceClockMHz,
    profileKernels: plan.entries.length,
    profileNotes,
    // Nodes estimated from their own duration without a duration-only profile entry (no profile, or unmatched): the
    // plan's note does not cover them, so say here what they assumed.
    notes:
      sum.estimated > 0 && !plan.entries.some((e) => e.byDuration)
        ? [...plan.notes, durationEstimateNote(plan, `${sum.estimated} GPU compute node(s) with no profile match`)]
        : plan.notes,
    warnings: annotateWarnings(sum, plan.entries.length, o.profiles.length),
    outputs,
    ranks,
    total: sum,
    parallelism,
    diagnostics: all.summary(),
    estimate: true,
  };
}

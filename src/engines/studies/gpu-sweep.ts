/**
 * GPU clock sweep: annotate the trace at every SM clock in one streaming pass per rank (the annotate engine, ranks in
 * worker threads), replay each clock's annotated trace with the power configuration written beside it, and report
 * time and energy per clock, the time–energy Pareto front, the energy- and time-optimal clocks, what each selector
 * picks, and "energy saved vs runtime penalty" between the fastest and the lowest-energy Pareto points.
 * All figures are estimates (calibrated power and time models, analytical replay).
 */
import path from 'node:path';
import { InputError } from '../../errors.js';
import { withTempDir } from '../../formats/output.js';
import {
  loadPowerConfig,
  type CommGroupConfig,
  type NetworkConfig,
  type RemoteMemoryConfig,
  type SystemConfig,
} from '../../formats/astra/index.js';
import type { ProfileFormat } from '../../formats/profiles/index.js';
import { annotateTrace, type AnnotateProgress, type AnnotateResult, type PowerOptions } from '../annotate/index.js';
import type { Calibration } from '../calibrate/index.js';
import type { BandwidthUnit, ReplayResult } from '../replay/index.js';
import { markDominated, paretoFront } from './pareto.js';
import { runPoints, type PoolRun } from './pool.js';
import type { PointTask } from './replay-point.js';
import { minimumEnergy, minimumTime, type OperatingPoint, type Selector } from './selectors.js';
import type { GpuClockPoint, GpuClockSweepRecord, TradeoffRow } from './types.js';

export interface GpuSweepInput {
  label: string;
  trace: string;
  calibration: Calibration | string;
  profiles: string[];
  profileFormat?: ProfileFormat;
  frequenciesMHz: readonly number[];
  referenceClockMHz?: number;
  power?: PowerOptions;
  system: SystemConfig;
  network: NetworkConfig;
  memory?: RemoteMemoryConfig;
  commGroups?: CommGroupConfig;
  bandwidthUnit?: BandwidthUnit;
  /** Folder for the annotated traces; default: a temporary folder removed afterwards. */
  workDir?: string;
  selectors?: Selector[];
  threads?: number;
  onAnnotate?: (p: AnnotateProgress) => void;
  onPoint?: (done: number, total: number) => void;
}

export interface GpuSweepOutput {
  record: GpuClockSweepRecord;
  annotate: AnnotateResult;
  parallelism: PoolRun['parallelism'];
}

/** Pareto points from the fastest to the lowest-energy one, each against the fastest. */
export function tradeoffTable(points: readonly OperatingPoint[]): TradeoffRow[] {
  const front = paretoFront(points).map((i) => points[i]);
  if (front.length === 0) return [];
  const fastest = front[0];
  // A fastest point of 0 J or 0 s has nothing to save or lose against: 0 %, not 0/0.
  return front.map((p) => ({
    clockMHz: p.setting,
    timeS: p.timeS,
    energyJ: p.energyJ,
    energySavedPct: fastest.energyJ > 0 ? (100 * (fastest.energyJ - p.energyJ)) / fastest.energyJ : 0,
    runtimePenaltyPct: fastest.timeS > 0 ? (100 * (p.timeS - fastest.timeS)) / fastest.timeS : 0,
  }));
}

/** Builds the sweep record from per-clock results (sorted by clock here). */
export function gpuSweepRecord(
  label: string,
  raw: readonly GpuSweepRawPoint[],
  selectors: Selector[] = [],
): GpuClockSweepRecord {
  if (raw.length === 0) throw new InputError('the GPU clock sweep has no clocks');
  const sorted = [...raw].sort((a, b) => a.clockMHz - b.clockMHz);
  const ops: OperatingPoint[] = sorted.map((p) => ({ setting: p.clockMHz, timeS: p.timeS, energyJ: p.energyJ.total }));
  const dominated = markDominated(ops);
  return {
    kind: 'gpu-clock-sweep',
    schemaVersion: 1,
    label,
    points: sorted.map((p, i) => ({ ...p, pareto: !dominated[i] })),
    energyOptimalMHz: minimumEnergy().select(ops).setting,
    timeOptimalMHz: minimumTime().select(ops).setting,
    tradeoff: tradeoffTable(ops),
    selections: selectors.map((s) => ({ selector: s.name, clockMHz: s.select(ops).setting })),
    estimate: true,
  };
}

/** The figures of one clock, before the sweep's record compares the clocks. */
export interface GpuSweepRawPoint {
  clockMHz: number;
  timeS: number;
  energyJ: GpuClockPoint['energyJ'];
  energyBandJ?: GpuClockPoint['energyBandJ'];
}

/** One clock's figures from its replay: time, energy and, when the annotated nodes carry bands, the energy's band. */
export function sweepPointOf(clockMHz: number, r: ReplayResult): GpuSweepRawPoint {
  const point: GpuSweepRawPoint = { clockMHz, timeS: r.makespanNs * 1e-9, energyJ: r.energyJ };
  if (r.energyBandJ) {
    const { sums: _, ...band } = r.energyBandJ;
    point.energyBandJ = band;
  }
  return point;
}

/** The sweep's clocks, sorted and checked. */
export function sweepClocks(frequenciesMHz: readonly number[]): number[] {
  const freqs = [...new Set(frequenciesMHz)].sort((a, b) => a - b);
  if (freqs.length === 0) throw new InputError('--frequencies gives no clocks');
  for (const f of freqs)
    if (!(f > 0) || !Number.isFinite(f)) throw new InputError(`clock ${f} MHz must be a positive number`);
  return freqs;
}

type SweepPoints = {
  clocks: number[];
  points: GpuSweepRawPoint[];
  annotate: AnnotateResult;
  parallelism: PoolRun['parallelism'];
};

/**
 * Annotates and replays the clocks at `indices` of the sweep's sorted clocks (default: all); a shard of a sharded
 * sweep computes every N-th clock.
 */
export async function gpuSweepPoints(input: GpuSweepInput, indices?: readonly number[]): Promise<SweepPoints> {
  const clocks = sweepClocks(input.frequenciesMHz);
  const freqs = (indices ?? clocks.map((_, i) => i)).map((i) => clocks[i]);
  // The annotated traces go to a temporary folder removed on every exit path (interrupts included).
  return input.workDir
    ? pointsIn(input.workDir, input, clocks, freqs)
    : withTempDir('tracewatt-sweep-gpu-', (dir) => pointsIn(dir, input, clocks, freqs));
}

async function pointsIn(dir: string, input: GpuSweepInput, clocks: number[], freqs: number[]): Promise<SweepPoints> {
  const annotate = await annotateTrace({
    trace: input.trace,
    out: path.join(dir, 'annotated'),
    calibration: input.calibration,
    profiles: input.profiles,
    profileFormat: input.profileFormat,
    frequenciesMHz: freqs,
    perFrequencyOutputs: true,
    referenceClockMHz: input.referenceClockMHz,
    power: input.power,
    workers: input.threads,
    onProgress: input.onAnnotate,
    bands: true,
  });
  if (annotate.ranks.every((r) => r.nodes === 0)) {
    throw new InputError(
      `sweep gpu: ${input.trace} has no nodes (${annotate.ranks.length} rank file(s), all empty): there is ` +
        `nothing whose time or energy a clock changes`,
    );
  }
  // Each clock's compute times are the annotated durations: ASTRA-sim's roofline mode would
  // recompute them from num_ops at one fixed peak and hide the clock.
  const system: SystemConfig = { ...input.system, rooflineEnabled: false };
  const tasks: PointTask[] = [];
  for (const o of annotate.outputs) {
    tasks.push({
      trace: { kind: 'files', trace: o.prefix },
      system,
      network: input.network,
      power: await loadPowerConfig(o.powerFile),
      memory: input.memory,
      commGroups: input.commGroups,
      bandwidthUnit: input.bandwidthUnit,
    });
  }
  let done = 0;
  let run: PoolRun;
  try {
    run = await runPoints(tasks, { threads: input.threads, onDone: () => input.onPoint?.(++done, tasks.length) });
  } catch (e) {
    // A kept folder (workDir, --keep) stays: its files are the ones to name.
    throw input.workDir ? e : namingUserFiles(e, path.join(dir, 'annotated'), input.trace);
  }
  const points = run.results.map((r, i) => sweepPointOf(annotate.outputs[i].frequencyMHz, r));
  return { clocks, points, annotate, parallelism: run.parallelism };
}

/**
 * An error in a point's replay names the temporary annotated copy (`<tmp>/annotated.<F>MHz.<rank>.et`), which is
 * gone once the sweep ends: name the user's trace and rank instead, with the clock it was annotated at.
 */
function namingUserFiles(e: unknown, tempPrefix: string, trace: string): unknown {
  if (!(e instanceof Error)) return e;
  const escaped = tempPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  e.message = e.message.replace(
    new RegExp(`${escaped}\\.([0-9.]+)MHz(?:\\.(\\d+)\\.et)?`, 'g'),
    (_all, mhz: string, rank?: string) =>
      `${rank === undefined ? '' : `rank ${rank} of `}${trace} (annotated at ${mhz} MHz)`,
  );
  return e;
}

export async function sweepGpu(input: GpuSweepInput): Promise<GpuSweepOutput> {
  const run = await gpuSweepPoints(input);
  return {
    record: gpuSweepRecord(input.label, run.points, input.selectors),
    annotate: run.annotate,
    parallelism: run.parallelism,
  };
}

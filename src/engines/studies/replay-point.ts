/**
 * One replay of a sweep: a plain, structured-clonable task (configs already parsed and adjusted for the point) so it
 * can run in a worker thread. Traces come from files or from the LLM generator (regenerated in the worker: cheaper
 * than shipping the nodes across threads).
 */
import { Diagnostics } from '../../diagnostics.js';
import type {
  CommGroupConfig,
  NetworkConfig,
  PowerConfig,
  RemoteMemoryConfig,
  SystemConfig,
} from '../../formats/astra/index.js';
import { loadCalibration, type Calibration } from '../../model/calibration.js';
import { calibratedTimeModel, generateLlmTraces, type LlmGenerateOptions } from '../generate/index.js';
import {
  measuredRankStarts,
  rankSourcesFromFiles,
  replay,
  type BandwidthUnit,
  type RankSource,
  type ReplayResult,
} from '../replay/index.js';

/** Generator options without a custom time model (functions cannot cross threads): the roofline of the GPU preset. */
export type LlmTraceOptions = Omit<LlmGenerateOptions, 'timeModel'>;

/**
 * Kernel times and energies from a calibration file at one SM clock (instead of the GPU preset's roofline and a
 * fixed active power): a plain object, so it crosses threads; the worker loads the file once.
 */
export interface CalibratedKernels {
  calibrationFile: string;
  clockMHz: number;
}

export type TraceSpec =
  | { kind: 'files'; trace: string }
  | { kind: 'llm'; options: LlmTraceOptions; calibrated?: CalibratedKernels };

/** Calibrations a worker has loaded, by file; a sweep names one or two, so a small bound suffices. */
const calibrations = new Map<string, Promise<Calibration>>();
const MAX_CACHED_CALIBRATIONS = 8;

/** The calibration in `file`, loaded once per worker; a failed load is not kept (the next point tries again). */
function cachedCalibration(file: string): Promise<Calibration> {
  let cal = calibrations.get(file);
  if (cal) return cal;
  if (calibrations.size >= MAX_CACHED_CALIBRATIONS) calibrations.delete(calibrations.keys().next().value!);
  cal = loadCalibration(file);
  calibrations.set(file, cal);
  cal.catch(() => {
    if (calibrations.get(file) === cal) calibrations.delete(file);
  });
  return cal;
}

/** Generator options with the calibrated time-and-energy model, when one is asked for. */
export async function llmOptions(spec: Extract<TraceSpec, { kind: 'llm' }>): Promise<LlmGenerateOptions> {
  if (!spec.calibrated) return spec.options;
  const { calibrationFile, clockMHz } = spec.calibrated;
  const cal = await cachedCalibration(calibrationFile);
  return { ...spec.options, timeModel: calibratedTimeModel(cal, clockMHz, spec.options.dtype ?? 'bf16', true) };
}

export interface PointTask {
  trace: TraceSpec;
  system: SystemConfig;
  network: NetworkConfig;
  power: PowerConfig;
  memory?: RemoteMemoryConfig;
  commGroups?: CommGroupConfig;
  bandwidthUnit?: BandwidthUnit;
  windowNodes?: number;
}

/** Generated ranks as sources: each rank's nodes handed over in one batch. */
export function llmSources(options: LlmGenerateOptions): RankSource[] {
  const set = generateLlmTraces(options);
  return Array.from({ length: set.ranks }, (_, rank) => {
    let done = false;
    return {
      rank,
      file: `generated ${set.plan.model.name} rank ${rank}`,
      async nextBatch() {
        if (done) return null;
        done = true;
        return set.nodesOf(rank);
      },
    };
  });
}

export async function runPoint(task: PointTask): Promise<ReplayResult> {
  const diagnostics = new Diagnostics();
  const sources =
    task.trace.kind === 'files'
      ? await rankSourcesFromFiles(task.trace.trace, diagnostics)
      : llmSources(await llmOptions(task.trace));
  // An imported run's ranks start at their measured starts, as in `replay` (load.ts measuredRankStarts).
  const starts = task.trace.kind === 'files' ? await measuredRankStarts(task.trace.trace, sources.length) : {};
  return replay(sources, {
    system: task.system,
    network: task.network,
    power: task.power,
    memory: task.memory,
    commGroups: task.commGroups,
    bandwidthUnit: task.bandwidthUnit,
    windowNodes: task.windowNodes,
    diagnostics,
    // Studies read totals only (makespan, energy parts, network per dimension): no rows by name.
    byName: false,
    ...starts,
  });
}

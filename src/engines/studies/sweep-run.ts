/**
 * A sweep as `tracewatt sweep network|gpu` and `tracewatt merge` run it: from the files named on the command line to
 * the record of the whole sweep, or with a shard to the partial of that shard (its points and the sweep's identity,
 * for merge), the JSON written atomically to `out` when one is given. What the loads and runs noted comes back
 * beside it, to be reported.
 */
import { toJson } from '../../formats/json.js';
import { Diagnostics, type DiagnosticSummary } from '../../diagnostics.js';
import { writeFileAtomic } from '../../formats/output.js';
import type { ProfileFormat } from '../../formats/profiles/index.js';
import {
  loadClusterConfigs,
  POWER_PRESETS,
  presetPath,
  type BandwidthUnit,
  type ClusterFiles,
} from '../replay/index.js';
import { gpuSweepPoints, gpuSweepRecord, sweepClocks } from './gpu-sweep.js';
import { mergeSweepFiles, type GpuSweepRecordOptions, type NetworkSweepRecordOptions } from './merge.js';
import { networkSweepPoints, networkSweepRecord } from './network-sweep.js';
import { parseSelector } from './selectors.js';
import { inputDigests, makePartial, shardIndices, type Shard, type SweepKind, type SweepPartial } from './shard.js';
import type { GpuClockSweepRecord, NetworkSweepRecord } from './types.js';
import { DEFAULT_SERDES_VF_CURVE, loadVfCurve } from './vf-curve.js';

/** How a sweep runs besides its inputs: whole or one shard, where its JSON goes, with what progress report. */
export interface SweepRunOptions {
  /** Compute only this shard's points and give its partial. */
  shard?: Shard;
  /** Also write the JSON (the record, or the partial) to this file, atomically. */
  out?: string;
  threads?: number;
  onPoint?: (done: number, total: number) => void;
}

/** What a shard wrote: the file, the shard and its share of the sweep's points. */
export interface ShardWritten {
  out: string;
  shard: Shard;
  points: number;
  totalPoints: number;
}

export type SweepRun = (
  | { kind: 'record'; record: NetworkSweepRecord | GpuClockSweepRecord }
  | { kind: 'partial'; partial: SweepPartial; written?: ShardWritten }
) & {
  /** Notes of the profiles read (GPU sweep), to be reported. */
  profileNotes: { profile: string; notes: string[] }[];
  /** What loading the configs and replaying noted, to be reported. */
  diagnostics: DiagnosticSummary[];
};

export interface NetworkSweepRequest extends ClusterFiles, SweepRunOptions {
  /** <prefix> of <prefix>.<rank>.et files, a directory, or one .et file. */
  trace: string;
  /** V–f curve JSON; default the SerDes curve. */
  vfCurve?: string;
  /** Network dimension to scale, 0-based. */
  dimension: number;
  /** Frequency scales (1 = nominal). */
  scales: readonly number[];
  bandwidthUnit: BandwidthUnit;
}

export async function runNetworkSweep(req: NetworkSweepRequest): Promise<SweepRun> {
  const diagnostics = new Diagnostics();
  const cluster = await loadClusterConfigs(
    { system: req.system, network: req.network, memory: req.memory, commGroup: req.commGroup, power: req.power },
    diagnostics,
  );
  const vfCurve = req.vfCurve ? await loadVfCurve(req.vfCurve) : undefined;
  const options: NetworkSweepRecordOptions = {
    label: `${req.trace} on ${req.network}: dimension ${req.dimension} DVFS`,
    dimension: req.dimension,
    vfCurve: (vfCurve ?? DEFAULT_SERDES_VF_CURVE).name,
  };
  const input = {
    label: options.label,
    trace: { kind: 'files' as const, trace: req.trace },
    ...cluster,
    bandwidthUnit: req.bandwidthUnit,
    dimension: req.dimension,
    scales: req.scales,
    vfCurve,
    threads: req.threads,
    onPoint: req.onPoint,
  };
  const indices = req.shard ? shardIndices(req.scales.length, req.shard) : undefined;
  const run = await networkSweepPoints(input, indices);
  const notes = {
    profileNotes: [],
    diagnostics: [...diagnostics.summary(), ...(run.replays[0]?.diagnostics ?? [])],
  };
  if (!req.shard) {
    const record = networkSweepRecord(options.label, req.dimension, options.vfCurve, run.points);
    await writeJson(req.out, record);
    return { kind: 'record', record, ...notes };
  }
  const inputs = await inputDigests(
    {
      system: cluster.system.file,
      network: cluster.network.file,
      memory: cluster.memory?.file,
      commGroup: cluster.commGroups?.file,
      power: cluster.power.file,
      vfCurve: req.vfCurve,
    },
    req.trace,
  );
  const identity = { inputs, options: { ...options, scales: run.scales, bandwidthUnit: req.bandwidthUnit } };
  return { ...(await shardOutput('network', req, identity, indices!, run.scales.length, run.points)), ...notes };
}

export interface GpuSweepRequest extends SweepRunOptions {
  /** <prefix> of <prefix>.<rank>.et files, a directory, or one .et file. */
  trace: string;
  calibration: string;
  profiles: string[];
  profileFormat?: ProfileFormat;
  frequenciesMHz: readonly number[];
  referenceClockMHz?: number;
  system: string;
  network: string;
  memory?: string;
  commGroup?: string;
  /** Memory and network pJ/bit from a preset or a power.json; default: by device. */
  powerPreset?: string;
  bandwidthUnit: BandwidthUnit;
  /** Keep the annotated traces in this folder (default: a temporary folder, removed). */
  keep?: string;
  /** Selector texts (min-energy, max-slowdown:5, …). */
  selectors: string[];
}

export async function runGpuSweep(req: GpuSweepRequest): Promise<SweepRun> {
  const diagnostics = new Diagnostics();
  const { power: _power, ...cluster } = await loadClusterConfigs(
    { system: req.system, network: req.network, memory: req.memory, commGroup: req.commGroup },
    diagnostics,
  );
  const options: GpuSweepRecordOptions = { label: `${req.trace}: SM clock sweep`, selectors: req.selectors };
  const input = {
    label: options.label,
    trace: req.trace,
    calibration: req.calibration,
    profiles: req.profiles,
    profileFormat: req.profileFormat,
    frequenciesMHz: req.frequenciesMHz,
    referenceClockMHz: req.referenceClockMHz,
    power: req.powerPreset ? { preset: req.powerPreset } : undefined,
    ...cluster,
    bandwidthUnit: req.bandwidthUnit,
    workDir: req.keep,
    selectors: req.selectors.map((t) => parseSelector(t)),
    threads: req.threads,
    onPoint: req.onPoint,
  };
  const clocks = sweepClocks(input.frequenciesMHz);
  const indices = req.shard ? shardIndices(clocks.length, req.shard) : undefined;
  const run = await gpuSweepPoints(input, indices);
  const notes = {
    profileNotes: run.annotate.profileNotes,
    diagnostics: [...diagnostics.summary(), ...run.annotate.diagnostics],
  };
  if (!req.shard) {
    const record = gpuSweepRecord(options.label, run.points, input.selectors);
    await writeJson(req.out, record);
    return { kind: 'record', record, ...notes };
  }
  const preset = req.powerPreset;
  const inputs = await inputDigests(
    {
      system: cluster.system.file,
      network: cluster.network.file,
      memory: cluster.memory?.file,
      commGroup: cluster.commGroups?.file,
      calibration: req.calibration,
      profile: req.profiles,
      powerPreset: preset && (POWER_PRESETS as readonly string[]).includes(preset) ? presetPath(preset) : preset,
    },
    req.trace,
  );
  const identity = {
    inputs,
    options: {
      ...options,
      frequenciesMHz: clocks,
      referenceClockMHz: req.referenceClockMHz ?? null,
      profileFormat: req.profileFormat ?? null,
      bandwidthUnit: req.bandwidthUnit,
    },
  };
  return { ...(await shardOutput('gpu', req, identity, indices!, clocks.length, run.points)), ...notes };
}

/** The record of a sharded sweep from its partials (`tracewatt merge`), also written to `out` when given. */
export async function mergeSweep(
  partials: readonly string[],
  out?: string,
): Promise<NetworkSweepRecord | GpuClockSweepRecord> {
  const record = await mergeSweepFiles(partials);
  await writeJson(out, record);
  return record;
}

/** A shard's partial, written to `out` when given. */
async function shardOutput<P>(
  sweep: SweepKind,
  req: SweepRunOptions,
  identity: { inputs: Record<string, string>; options: Record<string, unknown> },
  indices: number[],
  totalPoints: number,
  points: P[],
): Promise<{ kind: 'partial'; partial: SweepPartial<P>; written?: ShardWritten }> {
  const shard = req.shard!;
  const partial = makePartial(
    sweep,
    shard,
    identity,
    totalPoints,
    indices.map((index, i) => ({ index, point: points[i] })),
  );
  if (!req.out) return { kind: 'partial', partial };
  await writeJson(req.out, partial);
  return { kind: 'partial', partial, written: { out: req.out, shard, points: indices.length, totalPoints } };
}

async function writeJson(out: string | undefined, value: unknown): Promise<void> {
  if (out) await writeFileAtomic(out, `${toJson(value)}\n`);
}

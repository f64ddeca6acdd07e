/** Glue from file paths to a replay: resolves rank files, loads configs, streams the traces, writes the timeline. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Diagnostics } from '../../diagnostics.js';
import {
  defaultSystem,
  loadCommGroupConfig,
  loadNetworkConfig,
  NO_NETWORK,
  oneNpuNetwork,
  loadPowerConfig,
  loadRemoteMemoryConfig,
  loadSystemConfig,
  parsePowerConfig,
  type CommGroupConfig,
  type NetworkConfig,
  type PowerConfig,
  type RemoteMemoryConfig,
  type SystemConfig,
} from '../../formats/astra/index.js';
import { InputError } from '../../errors.js';
import { BufferPool } from '../../formats/chakra/buffer-pool.js';
import { openTrace, resolveRankFiles, type ChakraNode } from '../../formats/chakra/index.js';
import { CHUNK_BYTES } from '../../formats/chakra/source.js';
import { TraceEventWriter } from '../../formats/trace-event/index.js';
import { measuredIterations, measuredStartOffsets } from './as-measured.js';
import { replay, type ReplayOptions } from './engine.js';
import type { BandwidthUnit } from './network.js';
import type { FrameMemo } from './frame-memo.js';
import type { ReplayNode } from './replay-node.js';
import { ReplayFileReader, ReplayReadState } from './replay-source.js';
import { TimelineRecorder } from './timeline.js';
import type { RankSource, ReplayResult, ReplaySlice } from './types.js';

export interface ReplayFilesInput extends ClusterFiles {
  trace: string;
  bandwidthUnit?: BandwidthUnit;
  windowNodes?: number;
  /** Simulate ranks with the same trace and peers once per class (default true; see ReplayOptions). */
  identicalRanksOnce?: boolean;
  /** The result's label; default "<trace> on <network>". */
  label?: string;
  /**
   * An imported run whose ranks record their measured start (measured_start_unix_ns): start each rank that long after
   * the earliest, and count its finishNs from there (default true). false starts every rank at 0.
   */
  startAsMeasured?: boolean;
  /**
   * Writes a Chrome/Perfetto trace-event timeline here (µs; a track per rank × slot, estimated power counters),
   * atomically: `<file>.tmp`, renamed when the replay has finished, removed when it fails.
   */
  timeline?: string;
  onSlice?: (slice: ReplaySlice) => void;
}

/** The shipped power presets (calibration/power/<name>.json). */
export const POWER_PRESETS = ['h100-cluster', 'a100-cluster', 'v100-cluster'] as const;
export const DEFAULT_POWER_PRESET = 'h100-cluster';

export function presetPath(name: string): string {
  return fileURLToPath(new URL(`../../../calibration/power/${name}.json`, import.meta.url));
}

/** A power configuration from a preset name ({@link POWER_PRESETS}) or a power.json path. */
export async function resolvePower(spec: string = DEFAULT_POWER_PRESET): Promise<PowerConfig> {
  if ((POWER_PRESETS as readonly string[]).includes(spec))
    return parsePowerConfig(presetPath(spec), await readFile(presetPath(spec), 'utf8'));
  return loadPowerConfig(spec);
}

/**
 * The rank files of a trace as replay sources. The replay reads them with its own reader (replay-source.ts: only
 * what it needs, in place); nextBatch gives the fully decoded nodes (for other engines). `fullDecoder`: no replay
 * reader, so the replay reads decoded nodes too (tests compare the two).
 */
export async function rankSourcesFromFiles(
  trace: string,
  diagnostics?: Diagnostics,
  options: { fullDecoder?: boolean } = {},
): Promise<RankSource[]> {
  const files = await resolveRankFiles(trace);
  // The chunk buffers go from rank to rank: the replay reads one rank file at a time.
  const shared = new ReplayReadState(new BufferPool(CHUNK_BYTES));
  return files.map(({ rank, file }) => {
    let it: AsyncGenerator<ChakraNode[]> | null = null;
    let done = false;
    const reader = options.fullDecoder ? null : new ReplayFileReader(file, diagnostics, shared);
    return {
      rank,
      file,
      async nextBatch() {
        if (done) return null;
        if (!it) it = (await openTrace(file, { diagnostics })).batches();
        const r = await it.next();
        if (r.done) {
          // Lets the finished reader and its last chunk go while the replay goes on.
          done = true;
          it = null;
          return null;
        }
        // splice: the suspended reader keeps its reference to the batch it yielded; emptied, that holds no nodes.
        return r.value.splice(0);
      },
      ...(reader
        ? { readNodes: (load: (n: ReplayNode) => void, memo?: FrameMemo | null) => reader.readNodes(load, memo) }
        : {}),
    };
  });
}

/** The cluster's configuration files: ASTRA-sim system, network, remote memory and comm groups, and power. */
export interface ClusterFiles {
  /**
   * system.json; may be left out only with network {@link NO_NETWORK} (ASTRA-sim's defaults,
   * formats/astra/defaults.ts).
   */
  system?: string;
  /** network.yml, or {@link NO_NETWORK} ("none"): one NPU, no network. */
  network: string;
  memory?: string;
  commGroup?: string;
  /** power.json or a preset name; default {@link DEFAULT_POWER_PRESET}. */
  power?: string;
}

export interface ClusterConfigs {
  system: SystemConfig;
  network: NetworkConfig;
  memory?: RemoteMemoryConfig;
  commGroups?: CommGroupConfig;
  power: PowerConfig;
}

/** Reads and checks the cluster's configuration files (comm groups against the network's NPU count). */
export async function loadClusterConfigs(files: ClusterFiles, diagnostics?: Diagnostics): Promise<ClusterConfigs> {
  const none = files.network === NO_NETWORK;
  const network = none ? oneNpuNetwork() : await loadNetworkConfig(files.network);
  if (files.system === undefined && !none)
    throw new InputError(
      'give --system (an ASTRA-sim system.json); only a one-rank replay with --network none has a default',
    );
  return {
    system: files.system === undefined ? defaultSystem() : await loadSystemConfig(files.system, diagnostics),
    network,
    memory: files.memory ? await loadRemoteMemoryConfig(files.memory) : undefined,
    commGroups: files.commGroup
      ? await loadCommGroupConfig(
          files.commGroup,
          network.dims.reduce((a, d) => a * d.npus, 1),
        )
      : undefined,
    power: await resolvePower(files.power),
  };
}

/**
 * The replay option that starts an imported run's ranks at their measured starts (ReplayOptions.rankStartNs), or
 * nothing where the rank files do not all record one: what every replay of rank files takes by default.
 */
export async function measuredRankStarts(trace: string, ranks: number): Promise<Pick<ReplayOptions, 'rankStartNs'>> {
  const starts = measuredStartOffsets(await measuredIterations(trace));
  return starts && starts.length === ranks ? { rankStartNs: starts } : {};
}

export async function replayFiles(input: ReplayFilesInput): Promise<ReplayResult> {
  const diagnostics = new Diagnostics();
  const sources = await rankSourcesFromFiles(input.trace, diagnostics);
  const cluster = await loadClusterConfigs(input, diagnostics);
  const power = cluster.power;
  const opts: ReplayOptions = {
    ...cluster,
    ...(input.startAsMeasured === false ? {} : await measuredRankStarts(input.trace, sources.length)),
    bandwidthUnit: input.bandwidthUnit,
    windowNodes: input.windowNodes,
    identicalRanksOnce: input.identicalRanksOnce,
    diagnostics,
    onSlice: input.onSlice,
    label:
      input.label ?? `${input.trace} on ${input.network === NO_NETWORK ? 'one NPU (--network none)' : input.network}`,
  };
  if (!input.timeline) return replay(sources, opts);

  const writer = await TraceEventWriter.create(input.timeline);
  const rec = new TimelineRecorder(writer, power);
  const onSlice = input.onSlice;
  try {
    const res = await replay(sources, {
      ...opts,
      onSlice: onSlice
        ? (s) => {
            rec.slice(s);
            onSlice(s);
          }
        : rec.slice,
      backpressure: rec.pending,
    });
    await rec.finish(res.ranks.length, res.makespanNs);
    await writer.close();
    return res;
  } catch (e) {
    await writer.abort();
    throw e;
  }
}

/** Glue from file paths to a replay: resolves rank files, loads configs, streams the traces. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Diagnostics } from '../../core/diagnostics.js';
import {
  loadCommGroupConfig, loadNetworkConfig, loadPowerConfig, loadRemoteMemoryConfig, loadSystemConfig, parsePowerConfig,
} from '../../formats/astra/index.js';
import { openTrace, resolveRankFiles, type ChakraNode } from '../../formats/chakra/index.js';
import { replay, type ReplayOptions } from './engine.js';
import type { BandwidthUnit } from './network.js';
import type { RankSource, ReplayResult, ReplaySlice } from './types.js';

export interface ReplayFilesInput {
  trace: string;
  system: string;
  network: string;
  memory?: string;
  commGroup?: string;
  /** power.json; default: the shipped H100 case-study preset. */
  power?: string;
  bandwidthUnit?: BandwidthUnit;
  windowNodes?: number;
  onSlice?: (slice: ReplaySlice) => void;
}

/** The shipped power presets (calibration/power/<name>.json). */
export const POWER_PRESETS = ['h100-cluster', 'a100-cluster', 'v100-cluster'] as const;
export const DEFAULT_POWER_PRESET = 'h100-cluster';

export function presetPath(name: string): string {
  return fileURLToPath(new URL(`../../../calibration/power/${name}.json`, import.meta.url));
}

export async function rankSourcesFromFiles(trace: string, diagnostics?: Diagnostics): Promise<RankSource[]> {
  const files = await resolveRankFiles(trace);
  return files.map(({ rank, file }) => {
    let it: AsyncGenerator<ChakraNode[]> | null = null;
    return {
      rank, file,
      async nextBatch() {
        if (!it) it = (await openTrace(file, { diagnostics })).batches();
        const r = await it.next();
        return r.done ? null : r.value;
      },
    };
  });
}

export async function replayFiles(input: ReplayFilesInput): Promise<ReplayResult> {
  const diagnostics = new Diagnostics();
  const sources = await rankSourcesFromFiles(input.trace, diagnostics);
  const powerFile = input.power ?? presetPath(DEFAULT_POWER_PRESET);
  const power = (POWER_PRESETS as readonly string[]).includes(powerFile)
    ? parsePowerConfig(presetPath(powerFile), await readFile(presetPath(powerFile), 'utf8'))
    : await loadPowerConfig(powerFile);
  const opts: ReplayOptions = {
    system: await loadSystemConfig(input.system, diagnostics),
    network: await loadNetworkConfig(input.network),
    memory: input.memory ? await loadRemoteMemoryConfig(input.memory) : undefined,
    commGroups: input.commGroup ? await loadCommGroupConfig(input.commGroup, sources.length) : undefined,
    power,
    bandwidthUnit: input.bandwidthUnit,
    windowNodes: input.windowNodes,
    diagnostics,
    onSlice: input.onSlice,
  };
  return replay(sources, opts);
}

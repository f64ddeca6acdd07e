/** `tracewatt merge`: the record of a sharded sweep from its partial results, the same as the unsharded sweep's. */
import { parseJsonText, readTextFile } from '../../formats/text-file.js';
import { gpuSweepRecord, type GpuSweepRawPoint } from './gpu-sweep.js';
import { networkSweepRecord, type NetworkSweepBasePoint } from './network-sweep.js';
import { parseSelector } from './selectors.js';
import { checkPartial, mergePartials, type SweepPartial } from './shard.js';
import type { GpuClockSweepRecord, NetworkSweepRecord } from './types.js';

/** What a sweep puts in its identity's options so that merge can build the record (besides telling sweeps apart). */
export interface NetworkSweepRecordOptions {
  label: string;
  dimension: number;
  vfCurve: string;
}
export interface GpuSweepRecordOptions {
  label: string;
  selectors: string[];
}

export async function loadPartial(file: string): Promise<SweepPartial> {
  return checkPartial(file, parseJsonText(file, await readTextFile(file)));
}

export async function mergeSweepFiles(files: readonly string[]): Promise<NetworkSweepRecord | GpuClockSweepRecord> {
  const parts = [];
  for (const file of files) parts.push({ file, partial: await loadPartial(file) });
  const merged = mergePartials(parts);
  if (merged.sweep === 'network') {
    const o = merged.identity.options as unknown as NetworkSweepRecordOptions;
    return networkSweepRecord(o.label, o.dimension, o.vfCurve, merged.points as NetworkSweepBasePoint[]);
  }
  const o = merged.identity.options as unknown as GpuSweepRecordOptions;
  return gpuSweepRecord(
    o.label,
    merged.points as GpuSweepRawPoint[],
    o.selectors.map((s) => parseSelector(s)),
  );
}

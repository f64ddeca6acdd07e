/** Replay results → the report's `replay` record, plus the per-dimension network energy it carries. */
import type { NetworkConfig, PowerConfig } from '../../formats/astra/index.js';
import type { ReplayResult } from '../replay/index.js';
import type { ReplayRecord } from './types.js';

const J_PER_PJ = 1e-12;

/** Names like "scale-out (Ring 4)", one per network dimension. */
export function dimensionNames(network: NetworkConfig, power: PowerConfig): string[] {
  return network.dims.map((d, i) => `${power.network[i]?.name ?? `dimension ${i}`} (${d.topology} ${d.npus})`);
}

/** Network energy per dimension, J: bytes all ranks inject on it × 8 × its pJ/bit (the replay engine's convention). */
export function networkEnergyPerDimJ(bytesSentPerDim: readonly number[], power: PowerConfig): number[] {
  return bytesSentPerDim.map((b, i) => b * 8 * power.network[i].energyPjPerBit * J_PER_PJ);
}

export function replayRecord(label: string, res: ReplayResult, network: NetworkConfig, power: PowerConfig): ReplayRecord {
  const last = res.ranks.reduce((a, r) => (r.finishNs > a.finishNs ? r : a), res.ranks[0]);
  return {
    kind: 'replay',
    schemaVersion: 1,
    label,
    makespanNs: res.makespanNs,
    energyJ: res.energyJ,
    timeS: res.timeS,
    exposedCommNs: last?.exposedCommNs ?? 0,
    overlapShare: res.timeS.communication > 0 ? res.timeS.overlap / res.timeS.communication : 0,
    ranks: res.ranks.map((r) => ({ rank: r.rank, finishNs: r.finishNs, exposedCommNs: r.exposedCommNs, energyJ: r.energyJ })),
    bytesSentPerDim: res.bytesSentPerDim,
    networkEnergyPerDimJ: networkEnergyPerDimJ(res.bytesSentPerDim, power),
    dimensionNames: dimensionNames(network, power),
  };
}

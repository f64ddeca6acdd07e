/**
 * From per-rank totals to a replay result: idle energy from the finish times, cluster totals, the time breakdown.
 * The replay engine calls it with its own timing; `energy --astra-sim-log` calls it with ASTRA-sim's, so both give
 * the same energy for the same times.
 */
import type { DiagnosticSummary } from '../../diagnostics.js';
import type { NetworkConfig, PowerConfig } from '../../formats/astra/index.js';
import { energyBand, type ComputeBandSums } from './energy-band.js';
import { RESULT_SCHEMA_VERSION, type EnergyBreakdownJ, type RankResult, type ReplayResult } from './types.js';

const J_PER_PJ = 1e-12;

/** What one rank did: its timing (ns) and the energy of its nodes, before idle energy is known. */
export type RankTotals = Omit<RankResult, 'exposedCommNs' | 'energyJ'> & { computeJ: number; memoryJ: number; networkJ: number };

export interface RunSummaryContext {
  label: string;
  network: NetworkConfig;
  power: PowerConfig;
  bandwidthUnit: string;
  events: number;
  diagnostics: DiagnosticSummary[];
  /** Sums of the nodes' energy bands (null or absent when no node carries one). */
  computeBand?: ComputeBandSums | null;
}

/** A rank of a result back to its totals (the energy of its nodes, without idle). */
export function rankTotalsOf(r: RankResult): RankTotals {
  return {
    rank: r.rank, file: r.file, finishNs: r.finishNs, gpuComputeNs: r.gpuComputeNs, cpuComputeNs: r.cpuComputeNs,
    commNs: r.commNs, remoteMemNs: r.remoteMemNs, wallNs: r.wallNs, overlapNs: r.overlapNs,
    bytesSentPerDim: r.bytesSentPerDim, memoryBytes: r.memoryBytes,
    computeJ: r.energyJ.compute, memoryJ: r.energyJ.memory, networkJ: r.energyJ.network, nodes: r.nodes,
  };
}

export function summarizeRun(totals: readonly RankTotals[], ctx: RunSummaryContext): ReplayResult {
  const makespanNs = totals.reduce((a, r) => Math.max(a, r.finishNs), 0);
  const p = ctx.power;
  const dims = ctx.network.dims;
  const netPj = dims.map((_, i) => p.network[i].energyPjPerBit);
  const ranks: RankResult[] = totals.map((r) => {
    const idle = p.gpu.idlePowerW * Math.max(0, makespanNs - r.gpuComputeNs) * 1e-9 + p.networkIdlePowerWPerRank * makespanNs * 1e-9;
    const energyJ = breakdown(r.computeJ, r.memoryJ, r.networkJ, idle);
    return {
      rank: r.rank, file: r.file, finishNs: r.finishNs, exposedCommNs: r.finishNs - r.gpuComputeNs,
      gpuComputeNs: r.gpuComputeNs, cpuComputeNs: r.cpuComputeNs, commNs: r.commNs, remoteMemNs: r.remoteMemNs, wallNs: r.wallNs,
      overlapNs: r.overlapNs, bytesSentPerDim: r.bytesSentPerDim, memoryBytes: r.memoryBytes, energyJ, nodes: r.nodes,
    };
  });
  const sum = (f: (x: RankResult) => number) => ranks.reduce((a, x) => a + f(x), 0);
  const energyJ = breakdown(sum((x) => x.energyJ.compute), sum((x) => x.energyJ.memory), sum((x) => x.energyJ.network), sum((x) => x.energyJ.idle));
  const bytesSentPerDim = dims.map((_, i) => sum((x) => x.bytesSentPerDim[i]));
  const timeS = {
    compute: sum((x) => x.gpuComputeNs) * 1e-9,
    communication: sum((x) => x.commNs) * 1e-9,
    exposedCommunication: sum((x) => x.exposedCommNs) * 1e-9,
    overlap: sum((x) => x.overlapNs) * 1e-9,
    makespan: makespanNs * 1e-9,
  };
  const last = ranks.reduce<RankResult | undefined>((a, r) => (a === undefined || r.finishNs > a.finishNs ? r : a), undefined);
  return {
    kind: 'replay',
    schemaVersion: RESULT_SCHEMA_VERSION,
    label: ctx.label,
    makespanNs,
    energyJ,
    ...(ctx.computeBand ? { energyBandJ: energyBand(ctx.computeBand, energyJ) } : {}),
    timeS,
    exposedCommNs: last?.exposedCommNs ?? 0,
    overlapShare: timeS.communication > 0 ? timeS.overlap / timeS.communication : 0,
    ranks,
    bytesSentPerDim,
    networkEnergyPerDimJ: bytesSentPerDim.map((b, i) => b * 8 * netPj[i] * J_PER_PJ),
    dimensionNames: dims.map((d, i) => `${p.network[i]?.name ?? `dimension ${i}`} (${d.topology} ${d.npus})`),
    nodes: sum((x) => x.nodes),
    events: ctx.events,
    settings: {
      bandwidthUnit: ctx.bandwidthUnit,
      powerPreset: p.name,
      networkEnergyConvention: 'bytes each rank injects per dimension × that dimension\'s pJ/bit, counted at the sending rank',
    },
    diagnostics: ctx.diagnostics,
  };
}

function breakdown(compute: number, memory: number, network: number, idle: number): EnergyBreakdownJ {
  return { compute, memory, network, idle, total: compute + memory + network + idle };
}

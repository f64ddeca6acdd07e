/**
 * From per-rank totals to a replay result: the energy ledger's parts per rank (ledger.ts) from the times and node
 * energies, the time split, cluster totals. The replay engine calls it with its own timing; `energy --astra-sim-log`
 * calls it with ASTRA-sim's, so both give the same energy for the same times; an as-measured replay calls it with
 * measured times. This is the one seam from "what each rank did" to a ReplayResult.
 */
import type { DiagnosticSummary } from '../../diagnostics.js';
import type { NetworkConfig, PowerConfig } from '../../formats/astra/index.js';
import { energyBand, type ComputeBandSums } from './energy-band.js';
import { ledgerSettings, rankEnergyJ, rankTimeSplit, sumBreakdowns } from './ledger.js';
import {
  RESULT_SCHEMA_VERSION,
  type DurationSources,
  type RankActivity,
  type RankResult,
  type ReplayResult,
} from './types.js';

const J_PER_PJ = 1e-12;

/**
 * What one rank did, before the ledger turns it into energy parts and a time split: its activity (RankActivity), the
 * ledger's exclusive times and the energy of its nodes.
 */
export interface RankTotals extends RankActivity {
  /** Time with communication running and no GPU compute node (the ledger's communication-only time), ns. */
  commOnlyNs: number;
  /** Time with a CPU node running and neither GPU compute nor communication, ns. */
  hostOnlyNs: number;
  /** Time with remote-memory loads/stores running and no GPU compute, communication or CPU node, ns. */
  remoteMemOnlyNs: number;
  /** Σ over GPU compute nodes of (node energy − DRAM part), J (ledger.ts splitNodeEnergy). */
  computeJ: number;
  /** DRAM parts of GPU compute nodes + remote-memory energy, J. */
  memoryJ: number;
  /** bytesSentPerDim × pJ/bit per dimension, J (network static power is added by the ledger). */
  networkJ: number;
}

export interface RunSummaryContext {
  label: string;
  network: NetworkConfig;
  power: PowerConfig;
  bandwidthUnit: string;
  events: number;
  diagnostics: DiagnosticSummary[];
  /** Sums of the nodes' energy bands (null or absent when no node carries one). */
  computeBand?: ComputeBandSums | null;
  /** Where the GPU compute nodes' durations came from; absent: all zero (e.g. times measured, not replayed). */
  durationSources?: DurationSources;
}

/** A rank's busy times and bytes (RankActivity less its identity, start, finish and node count), in result order. */
function activityTotals(r: RankActivity) {
  return {
    gpuComputeNs: r.gpuComputeNs,
    cpuComputeNs: r.cpuComputeNs,
    commNs: r.commNs,
    remoteMemNs: r.remoteMemNs,
    wallNs: r.wallNs,
    overlapNs: r.overlapNs,
    bytesSentPerDim: r.bytesSentPerDim,
    memoryBytes: r.memoryBytes,
  };
}

/** A rank of a result back to its totals (times and the energy of its nodes, before the ledger). */
export function rankTotalsOf(r: RankResult): RankTotals {
  return {
    rank: r.rank,
    file: r.file,
    finishNs: r.finishNs,
    ...activityTotals(r),
    commOnlyNs: r.exposedCommNs,
    hostOnlyNs: r.hostExposedNs,
    remoteMemOnlyNs: r.remoteMemExposedNs,
    computeJ: r.energyJ.compute,
    memoryJ: r.energyJ.memory,
    networkJ: r.nodeNetworkJ,
    nodes: r.nodes,
  };
}

export function summarizeRun(totals: readonly RankTotals[], ctx: RunSummaryContext): ReplayResult {
  const makespanNs = totals.reduce((a, r) => Math.max(a, r.finishNs), 0);
  const p = ctx.power;
  const dims = ctx.network.dims;
  const netPj = dims.map((_, i) => p.network[i].energyPjPerBit);
  const ranks: RankResult[] = totals.map((r) => ({
    rank: r.rank,
    file: r.file,
    finishNs: r.finishNs,
    ...(r.startOffsetNs !== undefined ? { startOffsetNs: r.startOffsetNs } : {}),
    ...rankTimeSplit(r, makespanNs),
    ...activityTotals(r),
    energyJ: rankEnergyJ(r, makespanNs, p),
    nodeNetworkJ: r.networkJ,
    nodes: r.nodes,
  }));
  const sum = (f: (x: RankResult) => number) => ranks.reduce((a, x) => a + f(x), 0);
  const energyJ = sumBreakdowns(ranks.map((x) => x.energyJ));
  const bytesSentPerDim = dims.map((_, i) => sum((x) => x.bytesSentPerDim[i]));
  const timeS = {
    compute: sum((x) => x.gpuComputeNs) * 1e-9,
    communication: sum((x) => x.commNs) * 1e-9,
    exposedCommunication: sum((x) => x.exposedCommNs) * 1e-9,
    hostExposed: sum((x) => x.hostExposedNs) * 1e-9,
    remoteMemExposed: sum((x) => x.remoteMemExposedNs) * 1e-9,
    wait: sum((x) => x.waitNs) * 1e-9,
    astraExposed: sum((x) => x.astraExposedNs) * 1e-9,
    overlap: sum((x) => x.overlapNs) * 1e-9,
    makespan: makespanNs * 1e-9,
  };
  const last = ranks.reduce<RankResult | undefined>(
    (a, r) => (a === undefined || r.finishNs > a.finishNs ? r : a),
    undefined,
  );
  return {
    kind: 'replay',
    schemaVersion: RESULT_SCHEMA_VERSION,
    label: ctx.label,
    makespanNs,
    energyJ,
    ...(ctx.computeBand ? { energyBandJ: energyBand(ctx.computeBand, energyJ) } : {}),
    timeS,
    exposedCommNs: last?.exposedCommNs ?? 0,
    astraExposedNs: last?.astraExposedNs ?? 0,
    overlapShare: timeS.communication > 0 ? timeS.overlap / timeS.communication : 0,
    durationSources: ctx.durationSources ?? { annotated: 0, measured: 0, roofline: 0, zero: 0 },
    ranks,
    bytesSentPerDim,
    networkEnergyPerDimJ: bytesSentPerDim.map((b, i) => b * 8 * netPj[i] * J_PER_PJ),
    dimensionNames: dims.map((d, i) => `${p.network[i]?.name ?? `dimension ${i}`} (${d.topology} ${d.npus})`),
    nodes: sum((x) => x.nodes),
    events: ctx.events,
    settings: {
      bandwidthUnit: ctx.bandwidthUnit,
      powerPreset: p.name,
      networkEnergyConvention:
        "bytes each rank injects per dimension × that dimension's pJ/bit, counted at the sending rank; " +
        'plus network static power (networkIdlePowerWPerRank × makespan per rank), in energyJ.network but in ' +
        'no dimension',
      ledger: ledgerSettings(p),
    },
    diagnostics: ctx.diagnostics,
  };
}

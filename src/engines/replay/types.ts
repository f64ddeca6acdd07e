import type { DiagnosticSummary } from '../../diagnostics.js';
import type { ChakraNode } from '../../formats/chakra/index.js';
import type { ComputeBandSums } from './energy-band.js';

/** Nodes of one rank in file order, in batches; null when the file is exhausted. */
export interface RankSource {
  rank: number;
  file: string;
  nextBatch(): Promise<ChakraNode[] | null>;
}

export type Slot = 'gpu' | 'cpu' | 'comm' | 'none';

/** One executed node, for timelines. */
export interface ReplaySlice {
  rank: number;
  slot: Slot;
  nodeId: bigint;
  name: string;
  startNs: number;
  endNs: number;
  /** Average power over the slice attributed to it (W), for the power counter track. */
  powerW: number;
}

/** Version of the result records (`replay` here, the studies' records, `accuracy`) that `tracewatt report` reads. */
export const RESULT_SCHEMA_VERSION = 1;

/** Energy of one run split by where it is spent, in joules (estimated). */
export interface EnergyBreakdownJ {
  /** Active GPU compute energy (kernels running). */
  compute: number;
  /** Memory energy (HBM / remote memory traffic). */
  memory: number;
  /** Network energy, all dimensions together (bytes moved × energy per bit). */
  network: number;
  /** Energy drawn while devices wait (idle power × idle time, plus network idle power per rank). */
  idle: number;
  /** compute + memory + network + idle. */
  total: number;
}

/**
 * The 10–90 % band of a run's estimated energy (J), from the bands `annotate` writes on nodes (energy_j_p10,
 * energy_j_p90); energy-band.ts says how node bands add up. Only compute energy has a band: memory, network and
 * idle energy and all times are as estimated.
 */
export interface EnergyBandJ {
  /** Band of energyJ.compute: nodes of one name err together (fully correlated), different names independently. */
  computeP10: number;
  computeP90: number;
  /** Band of energyJ.total: compute at its band plus memory, network and idle as estimated. */
  totalP10: number;
  totalP90: number;
  /** The widest reading of energyJ.compute's band: every node errs the same way at once (Σ p10, Σ p90). */
  correlatedComputeP10: number;
  correlatedComputeP90: number;
  /** GPU compute nodes with a band, of all GPU compute nodes (the others count at their estimate, with no width). */
  bandedNodes: number;
  gpuNodes: number;
  /** Distinct names among the banded nodes: the groups combined as independent. */
  kernels: number;
  /** Share of energyJ.compute in banded nodes, 0..1. */
  bandedShare: number;
  /** What the band is made of (kept so a retimed summary, `energy --astra-sim-log`, gives the same band). */
  sums: ComputeBandSums;
}

/**
 * Where the time of a run goes, in seconds (estimated): `makespan` is wall time; every other part is summed over
 * ranks (rank-seconds), each a union of intervals per rank, so parts overlap.
 */
export interface TimeBreakdownS {
  /** Wall time from start to the last rank's finish (not summed). */
  makespan: number;
  /** Time with GPU compute running. */
  compute: number;
  /** Time with communication running (overlapped or not). */
  communication: number;
  /** Communication not hidden behind compute (finish − GPU compute time, ASTRA-sim's definition). */
  exposedCommunication: number;
  /** Compute–communication overlap: compute + communication − union of the two. */
  overlap: number;
  /** Time with memory operations running, when an engine reports it (the replay engine does not). */
  memory?: number;
  /** Time devices do nothing, when an engine reports it (the replay engine does not). */
  idle?: number;
}

/** Replay numbers of one rank (NPU). */
export interface RankResult {
  rank: number;
  file: string;
  /** When this rank finished, ns from start. */
  finishNs: number;
  /** ASTRA-sim's definition: finish − GPU compute time (CPU and remote-memory time count as exposed). */
  exposedCommNs: number;
  gpuComputeNs: number;
  cpuComputeNs: number;
  /** Union of the intervals with communication (collectives, sends, receives) in flight. */
  commNs: number;
  remoteMemNs: number;
  /** Union of all busy intervals. */
  wallNs: number;
  /** gpuComputeNs + commNs − union(gpu, comm). */
  overlapNs: number;
  bytesSentPerDim: number[];
  memoryBytes: number;
  energyJ: EnergyBreakdownJ;
  nodes: number;
}

/**
 * One replay of a trace set on a cluster (`tracewatt replay --json`), and the `replay` record `tracewatt report`
 * reads. Energies and times are estimates.
 */
export interface ReplayResult {
  kind: 'replay';
  schemaVersion: typeof RESULT_SCHEMA_VERSION;
  /** What was replayed, e.g. the trace prefix and cluster. */
  label: string;
  makespanNs: number;
  /** Cluster totals. */
  energyJ: EnergyBreakdownJ;
  /** 10–90 % band of the energy; present when annotated nodes carry energy bands. */
  energyBandJ?: EnergyBandJ;
  /** Time totals over ranks, in seconds (AstraWattch breakdown). */
  timeS: TimeBreakdownS;
  /** Exposed communication of the rank that finishes last, ns. */
  exposedCommNs: number;
  /** timeS.overlap / timeS.communication, 0..1: the share of communication hidden behind compute (0 without communication). */
  overlapShare: number;
  ranks: RankResult[];
  /** Bytes sent per network dimension, all ranks together; index = dimension (0 = first in the network config). */
  bytesSentPerDim: number[];
  /** Network energy per dimension, J (estimated); index = dimension. Sums to energyJ.network. */
  networkEnergyPerDimJ: number[];
  /** Names of the dimensions from the power config and network, e.g. ["scale-up (Switch 8)", "scale-out (Ring 4)"]. */
  dimensionNames: string[];
  nodes: number;
  events: number;
  settings: { bandwidthUnit: string; powerPreset: string; networkEnergyConvention: string };
  diagnostics: DiagnosticSummary[];
}

import type { DiagnosticSummary } from '../../core/diagnostics.js';
import type { ChakraNode } from '../../formats/chakra/index.js';

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

export interface EnergyBreakdownJ {
  compute: number;
  memory: number;
  network: number;
  idle: number;
  total: number;
}

export interface RankResult {
  rank: number;
  file: string;
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

export interface ReplayResult {
  makespanNs: number;
  ranks: RankResult[];
  energyJ: EnergyBreakdownJ;
  bytesSentPerDim: number[];
  /** Time totals over ranks, in seconds (AstraWattch breakdown). */
  timeS: { compute: number; communication: number; exposedCommunication: number; overlap: number; makespan: number };
  nodes: number;
  events: number;
  settings: { bandwidthUnit: string; powerPreset: string; networkEnergyConvention: string };
  diagnostics: DiagnosticSummary[];
}

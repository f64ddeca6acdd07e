import type { DiagnosticSummary } from '../../diagnostics.js';
import type { ChakraNode } from '../../formats/chakra/index.js';
import type { ByNameRow } from './by-name.js';
import type { ComputeBandSums } from './energy-band.js';
import type { FrameMemo } from './frame-memo.js';
import type { ReplayNode } from './replay-node.js';
import type { EnergyBreakdownJ, LedgerSettings, PowerSliceKind } from './ledger.js';

/** Nodes of one rank in file order, in batches; null when the file is exhausted. */
export interface RankSource {
  rank: number;
  file: string;
  nextBatch(): Promise<ChakraNode[] | null>;
  /**
   * The replay's reader, when the source has one (files: replay-source.ts): hands each node of the next batch to
   * `load` as read in place, instead of nextBatch's decoded nodes (a frame `memo` has a record of: as that record);
   * false when the trace has no batch left. The replay uses it instead of nextBatch.
   */
  readNodes?(load: (n: ReplayNode) => void, memo?: FrameMemo | null): Promise<boolean>;
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
  /**
   * Which part of the modelled power the node drives (ledger.ts PowerTrack): GPU compute, host, communication, remote
   * memory.
   */
  kind: PowerSliceKind;
  /**
   * The node's own power over the slice, W: a GPU compute node's energy (compute + memory) / duration; a
   * communication node's network energy / duration; a remote-memory node's energy / duration; 0 otherwise.
   */
  powerW: number;
}

/** Counts of GPU compute nodes by where their duration came from (ReplayResult.durationSources). */
export interface DurationSources {
  annotated: number;
  measured: number;
  roofline: number;
  zero: number;
}

/** Version of the result records (`replay` here, the studies' records, `accuracy`) that `tracewatt report` reads. */
export const RESULT_SCHEMA_VERSION = 1;

export type { EnergyBreakdownJ } from './ledger.js';

/**
 * The 10–90 % band of a run's estimated energy (J), from the bands `annotate` writes on nodes (energy_j_p10,
 * energy_j_p90); energy-band.ts says how node bands add up. Only compute energy has a band: memory, network and
 * idle energy and all times are as estimated.
 */
export interface EnergyBandJ {
  /** Band of energyJ.compute: nodes of one name err together (fully correlated), different names independently. */
  computeP10: number;
  computeP90: number;
  /** Band of energyJ.total: compute at its band plus the other parts as estimated. */
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
 * ranks (rank-seconds). compute, exposedCommunication, hostExposed, remoteMemExposed and wait split each rank's
 * makespan (ledger.ts rankTimeSplit); communication and overlap are unions of intervals that overlap compute.
 */
export interface TimeBreakdownS {
  /** Wall time from start to the last rank's finish (not summed). */
  makespan: number;
  /** Time with GPU compute running. */
  compute: number;
  /** Time with communication running (overlapped or not). */
  communication: number;
  /** Communication running with no GPU compute (not hidden by compute). */
  exposedCommunication: number;
  /** Host (CPU) nodes running with neither GPU compute nor communication. */
  hostExposed: number;
  /** Remote-memory loads/stores running with no GPU compute, communication or CPU node. */
  remoteMemExposed: number;
  /** Nothing running, up to the makespan (waiting for peers, dependencies or the last rank). */
  wait: number;
  /** ASTRA-sim's "exposed communication": finish − GPU compute time, per rank, summed. */
  astraExposed: number;
  /** Compute–communication overlap: compute + communication − union of the two. */
  overlap: number;
  /** Time with memory operations running, when an engine reports it (the replay engine does not). */
  memory?: number;
  /** Time devices do nothing, when an engine reports it (the replay engine does not). */
  idle?: number;
}

/** What one rank did, ns over [0, finishNs]: intervals are unions (a slot running two nodes at once counts once). */
export interface RankActivity {
  rank: number;
  file: string;
  /**
   * When this rank's last node finished, ns from its start: from 0, or for an imported run whose ranks record their
   * measured start, from startOffsetNs (its finish less that offset: its modelled iteration).
   */
  finishNs: number;
  /**
   * An imported run's rank started this long after the earliest rank (measured_start_unix_ns): the replay starts it
   * then, as it ran. Absent where the replay starts every rank at 0.
   */
  startOffsetNs?: number;
  /** Time with a GPU compute node running. */
  gpuComputeNs: number;
  /** Time with a CPU node running. */
  cpuComputeNs: number;
  /** Time with communication (collectives, sends, receives) in flight. */
  commNs: number;
  /** Time with remote-memory loads/stores running. */
  remoteMemNs: number;
  /** Time with anything running. */
  wallNs: number;
  /** Time with GPU compute and communication running together: gpuComputeNs + commNs − union(gpu, comm). */
  overlapNs: number;
  /** Bytes the rank sent per network dimension. */
  bytesSentPerDim: number[];
  /** tensor_size bytes of compute nodes and remote-memory bytes. */
  memoryBytes: number;
  /** Nodes of the rank. */
  nodes: number;
}

/** Replay numbers of one rank (NPU). */
export interface RankResult extends RankActivity {
  /**
   * Communication running with no GPU compute node, ns. This and the next four split the makespan with
   * gpuComputeNs (ledger.ts rankTimeSplit; definitions in ledger.ts TIME_DEFINITIONS).
   */
  exposedCommNs: number;
  /** CPU nodes running with neither GPU compute nor communication, ns. */
  hostExposedNs: number;
  /** Remote-memory loads/stores running with no GPU compute, communication or CPU node, ns. */
  remoteMemExposedNs: number;
  /** Nothing running, up to the makespan (waiting for peers, dependencies or the last rank), ns. */
  waitNs: number;
  /**
   * ASTRA-sim's "exposed communication": finish − GPU compute time (CPU, remote-memory and waiting time included), ns.
   */
  astraExposedNs: number;
  energyJ: EnergyBreakdownJ;
  /** Network energy of the rank's sends (bytes × pJ/bit), J: energyJ.network less the network static power. */
  nodeNetworkJ: number;
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
  /** Exposed communication (with no GPU compute) of the rank that finishes last, ns. */
  exposedCommNs: number;
  /** ASTRA-sim's exposed communication (finish − GPU compute) of the rank that finishes last, ns. */
  astraExposedNs: number;
  /**
   * Where the GPU compute nodes' durations came from: annotated (frequency_mhz or energy_j on the node: its
   * duration_micros, even with roofline-enabled), measured (duration_micros of an unannotated node, roofline off),
   * roofline (num_ops and tensor_size, roofline-enabled), zero (neither: the node takes no time, or 1 ns).
   */
  durationSources: DurationSources;
  /**
   * timeS.overlap / timeS.communication, 0..1: the share of communication hidden behind compute (0 without
   * communication).
   */
  overlapShare: number;
  ranks: RankResult[];
  /** Bytes sent per network dimension, all ranks together; index = dimension (0 = first in the network config). */
  bytesSentPerDim: number[];
  /**
   * Network energy of the bytes sent per dimension, J (estimated); index = dimension. Sums to energyJ.network less
   * the network static energy (networkIdlePowerWPerRank × makespan × ranks), which belongs to no dimension.
   */
  networkEnergyPerDimJ: number[];
  /** Names of the dimensions from the power config and network, e.g. ["scale-up (Switch 8)", "scale-out (Ring 4)"]. */
  dimensionNames: string[];
  nodes: number;
  events: number;
  settings: {
    bandwidthUnit: string;
    powerPreset: string;
    networkEnergyConvention: string;
    /** The powers the energy parts used (ledger.ts); energyDefinitions(ledger) says what each part is. */
    ledger: LedgerSettings;
  };
  diagnostics: DiagnosticSummary[];
  /**
   * Energy and time by kernel / op name and by collective (type, size, process group), largest energy first, with
   * "(idle)" and "(network static)" rows: the rows add up to energyJ part by part (by-name.ts). Present where the
   * engine saw the nodes (replay); absent where only per-rank times were known (energy --astra-sim-log).
   */
  byName?: ByNameRow[];
}

/**
 * The ASTRA-sim 2.x input files tracewatt reads, as typed values. Keys keep ASTRA-sim's meaning
 * (docs/how-it-works.md, "Replay: conventions"); units are in the field names.
 */
import type { CollectiveKind } from '../../vocab/collectives.js';

export type TopologyKind = 'Ring' | 'Switch' | 'FullyConnected';
export type CollectiveImplName = 'ring' | 'direct' | 'halvingDoubling';

/** network.yml: one entry per dimension; dimension 0 first, rank = x0 + n0·x1 + n0·n1·x2 … */
export interface NetworkDim {
  topology: TopologyKind;
  npus: number;
  /** As written in network.yml ("GB/s"); see BandwidthUnit for how it is read. */
  bandwidthGBps: number;
  latencyNs: number;
}
export interface NetworkConfig {
  file: string;
  dims: NetworkDim[];
}

/** system.json */
export interface SystemConfig {
  file: string;
  schedulingPolicy: 'LIFO' | 'FIFO';
  endpointDelayNs: number;
  activeChunksPerDimension: number;
  preferredDatasetSplits: number;
  /** Per collective, one implementation per network dimension (validated against the network). */
  implementations: Record<CollectiveKind, CollectiveImplName[] | undefined>;
  collectiveOptimization: 'localBWAware' | 'baseline';
  /** local-mem-bw in GB/s, i.e. bytes per ns (not read as GiB/s: ASTRA-sim does not). */
  localMemBandwidthGBps: number;
  peakPerfTFlops: number;
  rooflineEnabled: boolean;
  replayOnly: boolean;
}

export type MemoryType =
  | 'NO_MEMORY_EXPANSION'
  | 'PER_NPU_MEMORY_EXPANSION'
  | 'PER_NODE_MEMORY_EXPANSION'
  | 'MEMORY_POOL';
/** Remote memory JSON. */
export interface RemoteMemoryConfig {
  file: string;
  memoryType: MemoryType;
  latencyNs: number;
  bandwidthGBps: number;
}

/** Comm-group JSON: pg_name → member ranks (in ring order). */
export interface CommGroupConfig {
  file: string;
  groups: Map<string, number[]>;
}

/** power.json (tracewatt's own format, documented in calibration/power/README.md). */
export interface PowerConfig {
  file: string;
  name: string;
  gpu: {
    /** Power while a GPU compute node without energy_j runs (static draw included), W. */
    activePowerW: number;
    /**
     * Static draw at frequencyMHz with nothing running, W: from an idle measurement or the datasheet, never the active
     * fit's intercept. Charged while the GPU runs neither a compute node nor communication (engines/replay/ledger.ts).
     */
    idlePowerW: number;
    /** Where idlePowerW comes from (e.g. "nvidia-smi idle samples", "datasheet"); printed with the results. */
    idleSource?: string;
    /**
     * GPU power while only communication (a collective, send or receive) runs on the rank, W. When absent:
     * idlePowerW + 0.3 × (activePowerW − idlePowerW), a stated assumption (engines/replay/ledger.ts commPowerW).
     */
    commPowerW?: number;
    /** SM clock the powers apply at (written by annotate). */
    frequencyMHz?: number;
    /** Power of each component at utilization 1, above idle, at frequencyMHz (written by annotate). */
    componentPowersW?: Record<string, number>;
  };
  memory: { energyPjPerBit: number; remoteEnergyPjPerBit: number };
  /** One entry per network dimension (dimension 0 first); extra entries are ignored. */
  network: { name: string; energyPjPerBit: number; bandwidthGBps?: number }[];
  /** Optional static power of the network ports of one rank, counted over the whole makespan. */
  networkIdlePowerWPerRank: number;
  /** Optional power of one rank's host (CPU) while a CPU node runs on it, W; 0 (absent): host energy not modelled. */
  hostPowerWPerRank?: number;
}

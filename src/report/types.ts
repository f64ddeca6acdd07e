/**
 * Result records that the engines write as JSON and `tracewatt report` reads back.
 *
 * Every record is one JSON object with a `kind` discriminator and `schemaVersion: 1`. A results file holds one
 * record or an array of records. Units are in the field names (J, s, ns, MHz, GB/s, pJ/bit); shares and
 * fractions are plain numbers in 0..1 and percentages end in `Pct`. Energy and time figures in these records are
 * modelled (replayed traces with calibrated power models), i.e. estimates, not measurements; only
 * {@link AccuracyTable} compares the model with measurements.
 */

export const RESULT_SCHEMA_VERSION = 1;

/** Energy of one run split by where it is spent, in joules (estimated). */
export interface EnergyBreakdownJ {
  /** Active GPU compute energy (kernels running). */
  compute: number;
  /** Memory energy (HBM / remote memory traffic). */
  memory: number;
  /** Network energy, all dimensions together (bytes moved × energy per bit, plus link power if modelled). */
  network: number;
  /** Energy drawn while devices wait (idle power × idle time). */
  idle: number;
  /** compute + memory + network + idle. */
  total: number;
}

/**
 * Where the time of a run goes, in seconds (estimated), like the replay engine's `timeS`: `makespan` is wall
 * time; every other part is summed over ranks (rank-seconds), each a union of intervals per rank, so parts overlap.
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
  /** Time with memory operations (MEM_LOAD/STORE, remote memory) running, when the engine reports it. */
  memory?: number;
  /** Time devices do nothing, when the engine reports it. */
  idle?: number;
}

/** Replay numbers of one rank (NPU). */
export interface RankResult {
  rank: number;
  /** When this rank finished, ns from start. */
  finishNs: number;
  exposedCommNs: number;
  energyJ: EnergyBreakdownJ;
}

/** One replay of a trace set on a cluster (`tracewatt replay --json`). */
export interface ReplayResult {
  kind: 'replay';
  schemaVersion: 1;
  /** What was replayed, e.g. the trace prefix and cluster. */
  label: string;
  makespanNs: number;
  /** Cluster totals. */
  energyJ: EnergyBreakdownJ;
  timeS: TimeBreakdownS;
  /** Exposed communication of the rank that finishes last, ns. */
  exposedCommNs: number;
  /** timeS.overlap / timeS.communication, 0..1: the share of communication hidden behind compute. */
  overlapShare: number;
  /** Per rank; extra fields the engine writes (gpuComputeNs, commNs …) are kept and ignored. */
  ranks: RankResult[];
  /** Bytes sent per network dimension, all ranks together; index = dimension (0 = first in the network config). */
  bytesSentPerDim: number[];
  /** Network energy per dimension, J (estimated); index = dimension. */
  networkEnergyPerDimJ?: number[];
  /** Names of the dimensions, e.g. ["scale-up (Switch 8)", "scale-out (Ring 4)"]. */
  dimensionNames?: string[];
}

/** One SM clock of a GPU clock sweep. */
export interface GpuClockPoint {
  clockMHz: number;
  /** Makespan at this clock, s (estimated). */
  timeS: number;
  energyJ: EnergyBreakdownJ;
  /** On the time–energy Pareto front (no other point is both faster and cheaper). */
  pareto: boolean;
}

/** `tracewatt sweep gpu`: time and energy per SM clock. */
export interface GpuClockSweepResult {
  kind: 'gpu-clock-sweep';
  schemaVersion: 1;
  label: string;
  /** Sorted by clockMHz ascending. */
  points: GpuClockPoint[];
  /** Clock with the lowest total energy. */
  energyOptimalMHz: number;
  /** Clock with the shortest time. */
  timeOptimalMHz: number;
}

/** Marginal efficiency between a sweep point and its neighbour at the next higher scale. */
export interface MarginalEfficiency {
  /** Scale of the neighbour the deltas are taken against. */
  fromScale: number;
  /** E(this) − E(neighbour), J; negative = this point saves energy. */
  deltaEnergyJ: number;
  /** T(this) − T(neighbour), s; positive = this point is slower. */
  deltaTimeS: number;
  /** ΔE/ΔT, J/s (= W); null when ΔT is 0. */
  energyPerTimeW: number | null;
  /** Energy saved (% of the neighbour's) per 1 % slowdown; null when there is no slowdown. */
  energySavedPctPerSlowdownPct: number | null;
}

/** One frequency scale of a network DVFS sweep. */
export interface NetworkSweepPoint {
  /** Frequency scale s of the swept dimension (1 = nominal). */
  scale: number;
  /** Bandwidth of the swept dimension at this scale, GB/s. */
  bandwidthGBps: number;
  /** Energy per bit of the swept dimension at this scale, pJ/bit. */
  energyPerBitPJ: number;
  /** V(s)/V(1) from the voltage–frequency curve. */
  voltageRatio: number;
  makespanNs: number;
  energyJ: EnergyBreakdownJ;
  /** Network energy per dimension, J; index = dimension. Sums to energyJ.network. */
  networkByDimensionJ: number[];
  /** Against the neighbour at the next higher scale; null for the highest scale. */
  marginal: MarginalEfficiency | null;
  /** Another point is at least as fast and as cheap, and better in one: never worth taking. */
  dominated: boolean;
}

/** `tracewatt sweep network`: energy and makespan per frequency scale of one network dimension. */
export interface NetworkSweepResult {
  kind: 'network-sweep';
  schemaVersion: 1;
  label: string;
  /** The swept dimension (0-based). */
  dimension: number;
  /** Sorted by scale ascending. */
  points: NetworkSweepPoint[];
}

/** Model error at one SM clock against measurements. Signed: positive = the model overestimates. */
export interface AccuracyRow {
  frequencyMHz: number;
  timeErrorPct: number;
  /** null when power was not measured at this clock. */
  powerErrorPct: number | null;
  energyErrorPct: number;
  /** Number of kernels / runs compared. */
  n: number;
}

/** `tracewatt calibrate --validate`: model accuracy per frequency. */
export interface AccuracyTable {
  kind: 'accuracy';
  schemaVersion: 1;
  label: string;
  /** Clock the profile was taken at, MHz (the one the model extrapolates from). */
  referenceClockMHz?: number;
  frequencies: AccuracyRow[];
}

/** `tracewatt case-study`: the numbers that say whether scale-out network DVFS pays off, and why. */
export interface CaseStudySummary {
  kind: 'case-study';
  schemaVersion: 1;
  label: string;
  /** One line per system fact, e.g. "32 × H100, active 700 W, idle 80 W". */
  system: string[];
  shares: {
    /** Direct network energy / total energy, 0..1. */
    networkEnergyShare: number;
    /** Share of communication time hidden behind compute, 0..1. */
    overlap: number;
    /** Idle energy / total energy, 0..1. */
    idleEnergyShare: number;
  };
  /** The lowest-energy network scale of the sweep, against nominal (scale 1). */
  bestNetworkScale?: { scale: number; energySavedPct: number; slowdownPct: number };
  /** The conclusion in one or two sentences. */
  finding: string;
}

export type ReportResult = ReplayResult | GpuClockSweepResult | NetworkSweepResult | AccuracyTable | CaseStudySummary;

export type ResultKind = ReportResult['kind'];

export const RESULT_KINDS: readonly ResultKind[] = ['replay', 'gpu-clock-sweep', 'network-sweep', 'accuracy', 'case-study'];

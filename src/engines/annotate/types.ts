/** Result records of `annotateTrace`. Every modelled figure (energy, power, duration) is an estimate. */
import type { DiagnosticSummary } from '../../diagnostics.js';

/** Nodes outside each physics bound. */
export interface PhysicsCounts {
  aboveCap: number;
  belowIdle: number;
  belowBestEnergyPerFlop: number;
}

/** How a GPU compute node got its figures. */
export type MatchLevel = 'exact' | 'normalized' | 'base' | 'op';

export interface NameCount {
  name: string;
  count: number;
}

/** Per rank and target SM clock. */
export interface RankFrequencyResult {
  frequencyMHz: number;
  /** Output file of this rank at this clock. */
  file: string;
  /** Σ energy_j written on this rank's nodes, J (estimate). */
  computeEnergyJ: number;
  /** Σ energy_memory_j (the DRAM part of those energies), J (estimate). */
  memoryEnergyJ: number;
  /** Σ predicted duration of the annotated nodes, ns (estimate). */
  annotatedDurationNs: number;
}

export interface RankAnnotation {
  rank: number;
  file: string;
  /** Every node of the rank (metadata frame excluded). */
  nodes: number;
  compNodes: number;
  /** COMP_NODEs with is_cpu_op set: host-side ops, left untouched. */
  cpuOps: number;
  /** COMP_NODEs that run on the GPU: the nodes matching is attempted on. */
  gpuCompNodes: number;
  /** GPU compute nodes matched to a profiled kernel, by the most specific key that matched. */
  matched: Record<MatchLevel, number>;
  /** Of the matched nodes, memcpy and memset (matched to the profile's Memcpy/Memset events). */
  memcpy: number;
  /** GPU compute nodes matched to no profiled kernel (roofline + unmatched estimated + untouched ones among them). */
  unmatched: number;
  /** Matched nodes whose key had several profiled kernels (picked by invocation order). */
  byInvocation: number;
  /** Unmatched nodes estimated from num_ops / tensor_size (estimated_from = roofline). */
  roofline: number;
  /**
   * Nodes annotated from their own duration and the calibration's assumed power (estimated_from =
   * node-duration,calibration-power): matched to a profile with durations only, or unmatched without num_ops /
   * tensor_size.
   */
  estimated: number;
  /**
   * GPU compute nodes left as they were: unmatched with no num_ops, tensor_size or duration (or matched, lasting 0 µs).
   */
  untouched: number;
  /** matched / gpuCompNodes; null when the rank has no GPU compute node. */
  matchRate: number | null;
  /** Names of unmatched GPU compute nodes, most frequent first (at most 20). */
  unmatchedNames: NameCount[];
  /** Nodes encoded through the full decoder because their wire layout was not the canonical one. */
  slowPathNodes: number;
  /**
   * Annotated nodes whose DRAM part nothing tells (a duration estimate, a counter-free calibration, a profile
   * without DRAM utilization): energy_memory_j written as 0.
   */
  memorySplitUnknown: number;
  /**
   * Annotated nodes whose modelled figures break a physics bound at some target clock (model/physics-checks.ts;
   * each also a diagnostic): power above the calibration's cap, below the device's idle power, energy per FLOP
   * below the device's best.
   */
  physics: PhysicsCounts;
  perFrequency: RankFrequencyResult[];
}

export interface OutputSet {
  frequencyMHz: number;
  /** Prefix of the annotated rank files (<prefix>.<rank>.et). */
  prefix: string;
  /** The power configuration written beside them (replay --power format). */
  powerFile: string;
  computeEnergyJ: number;
  /** Σ energy_memory_j of the annotated nodes, J (a part of computeEnergyJ). */
  memoryEnergyJ: number;
  /** gpu.activePowerW written to the power file, W (estimate). */
  activePowerW: number;
  /** gpu.idlePowerW written: the calibration's idle power at this clock, W. */
  idlePowerW: number;
  /** gpu.commPowerW written: the power while only communication runs, W. */
  commPowerW: number;
}

export interface AnnotateResult {
  trace: string;
  calibration: { device: string; kind: string; file: string | null };
  referenceClockMHz: number;
  profileKernels: number;
  /** What each profile's reader assumed or converted (e.g. the SM clock given to a Kineto trace), by profile. */
  profileNotes: { profile: string; notes: string[] }[];
  /** What building the plan assumed (the reference clock's origin, the power of nodes known by duration only). */
  notes: string[];
  /** Loud warnings: nothing annotated (and why), and the like. */
  warnings: string[];
  outputs: OutputSet[];
  ranks: RankAnnotation[];
  total: Omit<RankAnnotation, 'rank' | 'file' | 'perFrequency'>;
  /** How ranks were run: in threads (how many, the calling thread included) or in-process. */
  parallelism: { mode: 'workers' | 'in-process'; threads: number; reason?: string };
  diagnostics: DiagnosticSummary[];
  estimate: true;
}

export interface AnnotateProgress {
  bytesDone: number;
  bytesTotal: number;
  ranksDone: number;
  ranks: number;
}

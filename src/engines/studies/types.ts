/**
 * Result records the studies produce, and the shapes `tracewatt report` reads (src/report/types.ts imports them):
 * each has a `kind`, `schemaVersion: 1` and a `label`. Units are in the field names (J, s, ns, MHz, GB/s, pJ/bit);
 * shares are plain numbers in 0..1 and percentages end in `Pct`. All energies and times are estimates.
 */
import type { EnergyBandJ, EnergyBreakdownJ, RESULT_SCHEMA_VERSION } from '../replay/types.js';

export type { EnergyBandJ, EnergyBreakdownJ, TimeBreakdownS, ReplayResult } from '../replay/types.js';

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
export interface NetworkSweepRecord {
  kind: 'network-sweep';
  schemaVersion: typeof RESULT_SCHEMA_VERSION;
  label: string;
  /** The swept dimension (0-based). */
  dimension: number;
  /** Sorted by scale ascending. */
  points: NetworkSweepPoint[];
  /** Extra (ignored by the report): the V–f curve used and the nominal point's figures. */
  vfCurve: string;
  estimate: true;
}

/** One SM clock of a GPU clock sweep. */
export interface GpuClockPoint {
  clockMHz: number;
  /** Makespan at this clock, s (estimated). */
  timeS: number;
  energyJ: EnergyBreakdownJ;
  /**
   * 10–90 % band of this clock's energy, as replay gives it (engines/replay/energy-band.ts): present when the
   * annotated nodes carry energy bands (a calibration with a band model).
   */
  energyBandJ?: GpuPointBandJ;
  /** On the time–energy Pareto front (no other point is both faster and cheaper). */
  pareto: boolean;
}

/** A sweep point's energy band: replay's, without what it is made of. */
export type GpuPointBandJ = Omit<EnergyBandJ, 'sums'>;

/** One row of "energy saved vs runtime penalty", against the fastest point. */
export interface TradeoffRow {
  clockMHz: number;
  timeS: number;
  energyJ: number;
  energySavedPct: number;
  runtimePenaltyPct: number;
}

/** `tracewatt sweep gpu`: time and energy per SM clock. */
export interface GpuClockSweepRecord {
  kind: 'gpu-clock-sweep';
  schemaVersion: typeof RESULT_SCHEMA_VERSION;
  label: string;
  /** Sorted by clockMHz ascending. */
  points: GpuClockPoint[];
  /** Clock with the lowest total energy. */
  energyOptimalMHz: number;
  /** Clock with the shortest time. */
  timeOptimalMHz: number;
  /** Extra: Pareto points from the fastest to the lowest-energy one, against the fastest. */
  tradeoff: TradeoffRow[];
  /** Extra: the clock each requested selector picks. */
  selections: { selector: string; clockMHz: number }[];
  estimate: true;
}

/** `tracewatt case-study`: the numbers that say whether scale-out network DVFS pays off, and why. */
export interface CaseStudyRecord {
  kind: 'case-study';
  schemaVersion: typeof RESULT_SCHEMA_VERSION;
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

/**
 * Result records the studies produce, and the shapes `tracewatt report` reads (src/report/types.ts imports them):
 * each has a `kind`, `schemaVersion: 1` and a `label`. Units are in the field names (J, s, ns, MHz, GB/s, pJ/bit);
 * shares are plain numbers in 0..1 and percentages end in `Pct`. All energies and times are estimates.
 */
import type { EnergyBandJ, EnergyBreakdownJ, RESULT_SCHEMA_VERSION } from '../replay/types.js';

export type { EnergyBandJ, EnergyBreakdownJ } from '../replay/types.js';

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

/** One setting of one knob of the case study, against the layout's nominal point. All figures are estimates. */
export interface KnobPoint {
  /** The knob's setting: a frequency scale (× nominal) for the network knobs, an SM clock (MHz) for the GPU. */
  setting: number;
  makespanS: number;
  energyJ: EnergyBreakdownJ;
  networkByDimensionJ: number[];
  /** (T − T₀)/T₀, %: positive = slower than nominal. */
  timeChangePct: number;
  /** (E − E₀)/E₀, %: negative = saves energy. */
  energyChangePct: number;
  /** 10–90 % band of energyChangePct from the knob's stated uncertainty (see Knob.uncertainty); [x, x] when none. */
  energyChangeBandPct: [number, number];
  /** Band of timeChangePct, as above. */
  timeChangeBandPct: [number, number];
  /** ΔE/ΔT against nominal, J/s = W; null when ΔT = 0. */
  deltaEnergyPerDeltaTimeW: number | null;
  /** Energy saved (%) per 1 % slowdown against nominal; null unless the point is slower. */
  energySavedPctPerSlowdownPct: number | null;
}

/** One knob swept around the nominal point of a layout. */
export interface Knob {
  id: 'scale-out' | 'scale-up' | 'gpu-clock';
  name: string;
  /** Unit of `setting`: "× nominal" or "MHz". */
  settingUnit: string;
  nominalSetting: number;
  /** Sorted by setting ascending; the nominal point included. */
  points: KnobPoint[];
  /**
   * Lowest-energy setting against nominal; `atEdge` when it is the highest or lowest setting swept (the optimum may lie
   * beyond).
   */
  best: {
    setting: number;
    energyChangePct: number;
    timeChangePct: number;
    energyChangeBandPct: [number, number];
    atEdge: 'top' | 'bottom' | null;
  };
  /** What the bands stand for, in one sentence. */
  uncertainty: string;
}

/** One parallel layout of the case study at the full global batch (extrapolated; see CaseStudyLayout.extrapolation). */
export interface CaseStudyLayout {
  name: string;
  dp: number;
  tp: number;
  pp: number;
  /** Micro-batches per pipeline (data-parallel replica) of the full global batch. */
  microBatches: number;
  nominal: {
    makespanS: number;
    energyJ: EnergyBreakdownJ;
    /** Index = network dimension (0 scale-up, 1 scale-out). */
    networkByDimensionJ: number[];
    bytesSentPerDimGB: number[];
    shares: {
      /** Direct network energy (both dimensions) / total energy, 0..1. */
      networkEnergy: number;
      /** Scale-out link energy / total energy, 0..1. */
      scaleOutEnergy: number;
      /** Communication time hidden behind compute / all communication time, summed over ranks, 0..1. */
      hiddenCommunication: number;
      /**
       * Exposed communication (running with no GPU compute) / all communication time, summed over ranks, 0..1 (1 −
       * hidden).
       */
      exposedCommunication: number;
      /** Communication energy (GPU power while only communication runs) / total energy, 0..1. */
      communicationEnergy: number;
      /** Idle energy / total energy, 0..1. */
      idleEnergy: number;
    };
  };
  knobs: Knob[];
  /**
   * How the full batch was reached: every point replayed at two micro-batch counts and extrapolated linearly in
   * the micro-batch count (exact in steady state: each extra micro-batch adds the same work; the all-reduce,
   * pipeline fill and drain and optimizer step are fixed); checked against a third replay at the nominal point.
   */
  extrapolation: {
    replayedMicroBatches: [number, number];
    checkMicroBatches: number;
    makespanErrorPct: number;
    energyErrorPct: number;
  };
  /**
   * Per rank at the nominal point, from the larger replayed iteration, the ledger's time split (s; they add up to the
   * makespan): GPU compute, exposed communication (no GPU compute running), host (CPU or remote memory only),
   * waiting; and all communication time (the denominator of the hidden and exposed shares).
   */
  ranks: {
    rank: number;
    computeS: number;
    exposedCommS: number;
    hostS: number;
    waitS: number;
    communicationS: number;
  }[];
  /** Whether scale-out DVFS gives an efficiency gain here, and why, in plain sentences. */
  finding: string;
  /** The poster's finding (raising the scale-out links' V–f saves energy) holds for this layout. */
  reproducesPoster: boolean;
}

/** `tracewatt case-study`: scale-out DVFS, scale-up DVFS and the GPU SM clock as energy knobs, per layout. */
export interface CaseStudyRecord {
  kind: 'case-study';
  schemaVersion: typeof RESULT_SCHEMA_VERSION;
  label: string;
  /** One line per system fact, e.g. "32 × H100, active 700 W, idle 80 W". */
  system: string[];
  /** Definitions of the figures (marginal efficiency, shares, bands). */
  definitions: string[];
  layouts: CaseStudyLayout[];
  /** The answer to the poster's question over all layouts, in plain sentences. */
  finding: string;
  /** Where in global batch, scale-out bandwidth and layout scale-out DVFS pays (absent with --no-map). */
  sensitivity?: SensitivityMap;
}

/**
 * One cell of the sensitivity map: one layout at one global batch and one provisioned scale-out bandwidth, its best
 * scale-out DVFS setting against s = 1 at that same cell, and the shares at s = 1 that explain it. All estimates.
 */
export interface SensitivityRow {
  layout: string;
  globalBatchSequences: number;
  microBatchesPerPipeline: number;
  /** Provisioned scale-out link bandwidth at s = 1 (energy per bit unchanged). */
  scaleOutBandwidthGBps: number;
  /** The case study's own point (its global batch at the preset's scale-out bandwidth). */
  realBatchPoint: boolean;
  nominalMakespanS: number;
  nominalEnergyJ: number;
  /** Lowest-energy frequency scale of the scale-out links (× nominal); 1 when no setting saves. */
  bestScale: number;
  /** The best scale is the highest or lowest swept: the optimum may lie beyond. */
  bestAtEdge: 'top' | 'bottom' | null;
  energyChangePct: number;
  timeChangePct: number;
  /** ΔE/ΔT of the best setting against s = 1, J/s = W; null when ΔT = 0 (also at s = 1). */
  deltaEnergyPerDeltaTimeW: number | null;
  /** Energy saved (%) per 1 % slowdown; null unless the best setting is slower. */
  energySavedPctPerSlowdownPct: number | null;
  /** Direct network energy (both dimensions, static included) / total at s = 1, %. */
  networkEnergySharePct: number;
  /** Scale-out link energy / total at s = 1, %. */
  scaleOutEnergySharePct: number;
  /** Communication time hidden behind compute / all communication time (summed over ranks) at s = 1, %. */
  hiddenCommunicationSharePct: number;
  /** Idle energy / total at s = 1, %. */
  idleEnergySharePct: number;
  /** Every swept scale against s = 1 at this cell. */
  byScale: { scale: number; energyChangePct: number; timeChangePct: number }[];
}

export interface SensitivityMap {
  batchesSequences: number[];
  scaleOutBandwidthsGBps: number[];
  scales: number[];
  /** |ΔE| above which the knob is said to move energy, %. */
  thresholdPct: number;
  rows: SensitivityRow[];
  /** Where the knob moves energy by more than thresholdPct, in plain sentences. */
  finding: string;
  definitions: string[];
}

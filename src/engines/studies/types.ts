/**
 * Result records the studies produce. They have the shapes of src/report/types.ts (kind, schemaVersion 1,
 * label), declared here because engines do not import from the report layer; the CLI hands them to the report
 * as they are, and the compiler checks that the shapes agree there. All energies and times are estimates.
 */

export interface EnergyBreakdownJ {
  compute: number;
  memory: number;
  network: number;
  idle: number;
  total: number;
}

export interface TimeBreakdownS {
  makespan: number;
  compute: number;
  communication: number;
  exposedCommunication: number;
  overlap: number;
}

export interface ReplayRecord {
  kind: 'replay';
  schemaVersion: 1;
  label: string;
  makespanNs: number;
  energyJ: EnergyBreakdownJ;
  timeS: TimeBreakdownS;
  exposedCommNs: number;
  overlapShare: number;
  ranks: { rank: number; finishNs: number; exposedCommNs: number; energyJ: EnergyBreakdownJ }[];
  bytesSentPerDim: number[];
  networkEnergyPerDimJ: number[];
  dimensionNames: string[];
}

export interface MarginalEfficiency {
  fromScale: number;
  deltaEnergyJ: number;
  deltaTimeS: number;
  energyPerTimeW: number | null;
  energySavedPctPerSlowdownPct: number | null;
}

export interface NetworkSweepPoint {
  scale: number;
  bandwidthGBps: number;
  energyPerBitPJ: number;
  voltageRatio: number;
  makespanNs: number;
  energyJ: EnergyBreakdownJ;
  networkByDimensionJ: number[];
  marginal: MarginalEfficiency | null;
  dominated: boolean;
}

export interface NetworkSweepRecord {
  kind: 'network-sweep';
  schemaVersion: 1;
  label: string;
  dimension: number;
  points: NetworkSweepPoint[];
  /** Extra (ignored by the report): the V–f curve used and the nominal point's figures. */
  vfCurve: string;
  estimate: true;
}

export interface GpuClockPoint {
  clockMHz: number;
  timeS: number;
  energyJ: EnergyBreakdownJ;
  pareto: boolean;
}

/** One row of "energy saved vs runtime penalty", against the fastest point. */
export interface TradeoffRow {
  clockMHz: number;
  timeS: number;
  energyJ: number;
  energySavedPct: number;
  runtimePenaltyPct: number;
}

export interface GpuClockSweepRecord {
  kind: 'gpu-clock-sweep';
  schemaVersion: 1;
  label: string;
  points: GpuClockPoint[];
  energyOptimalMHz: number;
  timeOptimalMHz: number;
  /** Extra: Pareto points from the fastest to the lowest-energy one, against the fastest. */
  tradeoff: TradeoffRow[];
  /** Extra: the clock each requested selector picks. */
  selections: { selector: string; clockMHz: number }[];
  estimate: true;
}

export interface CaseStudyRecord {
  kind: 'case-study';
  schemaVersion: 1;
  label: string;
  system: string[];
  shares: { networkEnergyShare: number; overlap: number; idleEnergyShare: number };
  bestNetworkScale?: { scale: number; energySavedPct: number; slowdownPct: number };
  finding: string;
}

/**
 * The `plan` result record (`tracewatt plan --json`, read by `tracewatt report`). Times in seconds and energies in
 * joules per training iteration, in the units of the input (a Perseus stage profile: one GPU per stage, the
 * profile's time scale); every figure is an estimate (a plan composed from per-computation measurements or models,
 * with blocking power while a GPU waits).
 */
import type { ExtrinsicSaving } from './extrinsic.js';
import type { RESULT_SCHEMA_VERSION, EnergyBreakdownJ } from '../replay/index.js';

export interface IterationPoint {
  timeS: number;
  energyJ: number;
}

export interface PlanPointRecord extends IterationPoint {
  /** Iteration time the plan was made for, s (its own time is ≤ this). */
  deadlineS: number;
  computeEnergyJ: number;
  blockingEnergyJ: number;
  /** Two-clock plan at the deadline (the relaxation; a lower bound for one-clock plans), J. */
  splitEnergyJ: number;
}

/** A point against the all-max-clock baseline. */
export interface Saving extends IterationPoint {
  /** 1 − energy / baseline energy, %. */
  savingPct: number;
  /** time / baseline time − 1, %. */
  timeChangePct: number;
}

/** One computation of a plan. */
export interface PlannedComputation {
  stage: number;
  instruction: 'forward' | 'backward';
  microBatch: number;
  clockMHz: number;
  timeS: number;
  energyJ: number;
}

/**
 * One computation of a two-clock plan: the first `shareAtFirst` of its work at `clockMHz`, the rest at
 * `secondClockMHz`.
 */
export interface SplitComputation extends PlannedComputation {
  secondClockMHz: number;
  shareAtFirst: number;
}

export interface NamedPlan {
  name: string;
  deadlineS: number;
  timeS: number;
  energyJ: number;
  computations: PlannedComputation[];
}

/** A replayed iteration: makespan and the replay's energy (all ranks). */
export interface ReplayedIteration {
  timeS: number;
  /** energyBreakdownJ.total. */
  energyJ: number;
  /** The energy ledger's parts (engines/replay/ledger.ts). */
  energyBreakdownJ: EnergyBreakdownJ;
}

export interface ReplayCheck {
  baseline: ReplayedIteration;
  plan: ReplayedIteration & { savingPct: number; timeChangePct: number };
  /**
   * Share of each planned slowdown applied (1 = the plan as made): lowered until the replayed iteration is within
   * `tolerancePct` of the baseline's time (the planning model leaves out some of the replay's communication).
   */
  slowdownShare: number;
  tolerancePct: number;
  replays: number;
  /** Clock per (rank, micro-batch, pass) group: every GPU compute node of the group runs at it. */
  groups: number;
}

export interface PlanRecord {
  kind: 'plan';
  schemaVersion: typeof RESULT_SCHEMA_VERSION;
  label: string;
  source: {
    /** profile: measured options; fit: modelled from `fitClocksMHz`; trace: an annotated Chakra trace. */
    mode: 'profile' | 'fit' | 'trace';
    file: string;
    fitClocksMHz?: number[];
    /** Clocks the planner chose from, MHz. */
    clocksMHz: number[];
  };
  schedule: string;
  stages: number;
  microBatches: number;
  /** Blocking power of one stage (all its GPUs), W. */
  blockingPowerW: number;
  /** Stages, each drawing blocking power while it waits. */
  lanes: number;
  /** GPUs per stage whose energies the figures sum (1 for a stage profile; tensor × data parallel for a trace). */
  gpusPerStage: number;
  /** Every computation at the highest clock. */
  baseline: IterationPoint & { computeEnergyJ: number; blockingEnergyJ: number };
  /**
   * One clock per computation: the Pareto plans, fastest first, from the fastest iteration the options allow (every
   * computation at its fastest option, which is faster than all-max clocks where a computation was measured faster at
   * a lower clock) to the lowest-energy one.
   */
  frontier: PlanPointRecord[];
  /** Two clocks per computation (time-sharing two hull clocks): breakpoints of the exact frontier, fastest first. */
  splitFrontier: IterationPoint[];
  /** At the all-max-clock iteration time (no slowdown): intrinsic energy bloat removed. */
  intrinsic: Saving & { split: Saving };
  /** Lowest-energy plan on the frontier. */
  minEnergy: Saving & { split: Saving };
  /** Fastest plan on the frontier (time change < 0 where some computations run faster below their highest clock). */
  fastest: Saving & { split: Saving };
  /** The EnvPipe-style baseline (envelope at the highest clock). */
  envPipe: Saving;
  /** Given --straggler-slowdown or --deadline-s: the other pipelines' plan. */
  extrinsic?: ExtrinsicSaving & { splitSavingPct: number };
  /** Savings per non-straggler pipeline for straggler slowdowns 1.00 … 1.50 (Perseus Figure 8). */
  extrinsicCurve: { slowdownFactor: number; savingPct: number; extrinsicSavingPct: number; splitSavingPct: number }[];
  /** Trace mode: the intrinsic plan applied to the annotated trace and replayed. */
  replayCheck?: ReplayCheck;
  /** Fit mode with the other clocks measured too: the intrinsic plan's clocks on the measurements. */
  measuredCheck?: { baseline: IterationPoint; intrinsic: Saving; missing: number };
  /** Plans per computation: at the all-max-clock time, and for the straggler deadline when given. */
  plans: NamedPlan[];
  /** The intrinsic plan with two clocks per computation. */
  splitPlan: SplitComputation[];
  solver: { steps: number; plansRealized: number };
  notes: string[];
  estimate: true;
}

/**
 * Result records that the engines write as JSON and `tracewatt report` reads back. The replay and study records are
 * defined once, by the engines that produce them (src/engines/replay/types.ts, src/engines/studies/types.ts,
 * src/engines/calibrate/accuracy.ts); this
 * module names the fields the report reads from them (the engines write more, which the report ignores).
 *
 * Every record is one JSON object with a `kind` discriminator and `schemaVersion: 1`. A results file holds one
 * record or an array of records. Units are in the field names (J, s, ns, MHz, GB/s, pJ/bit); shares and
 * fractions are plain numbers in 0..1 and percentages end in `Pct`. Energy and time figures in these records are
 * modelled (replayed traces with calibrated power models), i.e. estimates, not measurements; only
 * {@link AccuracyTable} compares the model with measurements.
 */
import type { AccuracyResult, AccuracyRow as EngineAccuracyRow } from '../engines/calibrate/index.js';
import type { RankResult, ReplayResult as EngineReplayResult } from '../engines/replay/types.js';
import type { AsMeasuredResult } from '../engines/replay/as-measured.js';
import type { MeasuredEnergy, PowerLogEnergy } from '../engines/replay/measured-power.js';
import type { CaseStudyRecord, GpuClockSweepRecord, NetworkSweepRecord } from '../engines/studies/types.js';
import type { PlanRecord } from '../engines/plan/types.js';
import type { LayerClockStudyRecord } from '../engines/studies/a30-layers-record.js';

import { RESULT_SCHEMA_VERSION } from '../engines/replay/types.js';

export { RESULT_SCHEMA_VERSION };
export type { EnergyBandJ, EnergyBreakdownJ, TimeBreakdownS } from '../engines/replay/types.js';
export type { GpuClockPoint, MarginalEfficiency, NetworkSweepPoint } from '../engines/studies/types.js';

/**
 * The fields of a replay rank the report reads; an imported trace's ranks also carry the measured iteration
 * (`replay --json` and `replay --as-measured --json`, ns; null where the import recorded none).
 */
export type ReplayRankRecord = Pick<RankResult, 'rank' | 'finishNs' | 'exposedCommNs' | 'waitNs' | 'energyJ'> & {
  measuredIterationNs?: number | null;
};

/**
 * The fields of the replay engine's result (`tracewatt replay --json`) the report reads; the per-dimension network
 * energy and names may be absent in files from other producers.
 */
export type ReplayRecord = Pick<
  EngineReplayResult,
  | 'kind'
  | 'schemaVersion'
  | 'label'
  | 'makespanNs'
  | 'energyJ'
  | 'timeS'
  | 'exposedCommNs'
  | 'overlapShare'
  | 'bytesSentPerDim'
> &
  Partial<
    Pick<EngineReplayResult, 'networkEnergyPerDimJ' | 'dimensionNames' | 'energyBandJ' | 'settings' | 'byName'>
  > & {
    ranks: ReplayRankRecord[];
    /** 'as-measured' for `replay --as-measured` (every node at its measured duration); absent for a modelled replay. */
    mode?: AsMeasuredResult['mode'];
    /** With --as-measured --power-log: the log's energy over each rank's measured iteration. */
    powerLog?: Pick<PowerLogEnergy, 'file' | 'gpu' | 'notes'> & { ranks: Pick<MeasuredEnergy, 'rank' | 'energyJ'>[] };
  };

/** `tracewatt sweep gpu`: the fields the report reads (the engine adds the trade-off table and selections). */
export type GpuClockSweepResult = Omit<GpuClockSweepRecord, 'tradeoff' | 'selections' | 'estimate'>;

/** `tracewatt sweep network`: the fields the report reads (the engine adds the V–f curve's name). */
export type NetworkSweepResult = Omit<NetworkSweepRecord, 'vfCurve' | 'estimate'>;

/** `tracewatt case-study`: the summary record. */
export type CaseStudySummary = CaseStudyRecord;

/**
 * Model error at one SM clock against measurements (signed: positive = the model overestimates): the fields the report
 * reads.
 */
export type AccuracyRow = Pick<
  EngineAccuracyRow,
  'frequencyMHz' | 'timeErrorPct' | 'powerErrorPct' | 'energyErrorPct' | 'n'
> &
  Partial<Pick<EngineAccuracyRow, 'timeCoveragePct' | 'energyCoveragePct'>>;

/**
 * `tracewatt accuracy --json`: model accuracy per frequency, the fields the report reads (band coverage and advice when
 * present).
 */
export type AccuracyTable = Pick<AccuracyResult, 'kind' | 'schemaVersion' | 'label' | 'referenceClockMHz'> &
  Partial<Pick<AccuracyResult, 'advice'>> & {
    frequencies: AccuracyRow[];
  };

/** `tracewatt plan --json`: the fields the report reads (the plans per computation are left to the CSV files). */
export type PlanSummary = Pick<
  PlanRecord,
  | 'kind'
  | 'schemaVersion'
  | 'label'
  | 'schedule'
  | 'stages'
  | 'microBatches'
  | 'blockingPowerW'
  | 'baseline'
  | 'frontier'
  | 'splitFrontier'
  | 'intrinsic'
  | 'minEnergy'
  | 'envPipe'
  | 'extrinsic'
  | 'extrinsicCurve'
  | 'source'
>;

/** `tracewatt case-study a30-layers`: the layer-level SM-clock study against its published table. */
export type LayerStudySummary = LayerClockStudyRecord;

export type ReportResult =
  | ReplayRecord
  | GpuClockSweepResult
  | NetworkSweepResult
  | AccuracyTable
  | CaseStudySummary
  | PlanSummary
  | LayerStudySummary;

/** The kinds of result record; each has its check, HTML section and text and CSV views in kinds.ts. */
export type ResultKind = ReportResult['kind'];

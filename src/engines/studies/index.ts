/** What-if studies: network DVFS sweeps, GPU clock sweeps, Pareto fronts and selectors, the LLaMA-2-70B case study. */
export * from './types.js';
export { parseRange } from './range.js';
export { DEFAULT_SERDES_VF_CURVE, loadVfCurve, validateVfCurve, voltageRatio, energyPerBitFactor, type VfCurve, type VfPoint } from './vf-curve.js';
export { dominates, markDominated, paretoFront, marginal, type TimeEnergy, type Marginal } from './pareto.js';
export { minimumEnergy, minimumTime, maxSlowdown, energyTimeCost, parseSelector, type Selector, type OperatingPoint } from './selectors.js';
export { runPoint, llmSources, type PointTask, type TraceSpec, type LlmTraceOptions } from './replay-point.js';
export { runPoints, type PoolOptions, type PoolRun } from './pool.js';
export {
  sweepNetwork, networkSweepPoints, networkSweepRecord, scaledConfigs, type NetworkSweepInput, type NetworkSweepOutput, type NetworkSweepBasePoint,
} from './network-sweep.js';
export { runCaseStudy, CASE_STUDY_DEFAULTS, CASE_STUDY_LAYOUTS, type CaseStudyOptions, type CaseStudyOutput, type LayoutSpec } from './case-study.js';
export {
  sweepGpu, gpuSweepPoints, gpuSweepRecord, sweepClocks, sweepPointOf, tradeoffTable, type GpuSweepInput, type GpuSweepOutput, type GpuSweepRawPoint,
} from './gpu-sweep.js';
export {
  parseShard, shardIndices, inputDigests, makePartial, checkPartial, mergePartials, type Shard, type SweepIdentity, type SweepKind, type SweepPartial,
} from './shard.js';
export { loadPartial, mergeSweepFiles, type NetworkSweepRecordOptions, type GpuSweepRecordOptions } from './merge.js';
export { runA30LayerStudy, a30ClocksMHz, A30_LAYERS, A30_SEQ_LENS, A30_PUBLISHED, A30_PUBLISHED_SOURCE, A30_STUDY_DEFAULTS, type A30StudyOptions, type A30StudyOutput } from './a30-layers.js';
export {
  rowOf, bottomWidthPct, meanAbsDifference, observations, spearman,
  type LayerClockStudyRecord, type LayerStudyRow, type LayerSweep, type Observation, type PublishedCell, type Verdict,
} from './a30-layers-record.js';

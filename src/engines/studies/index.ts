/** What-if studies: network DVFS sweeps, GPU clock sweeps, Pareto fronts and selectors, the LLaMA-2-70B case study. */
export * from './types.js';
export {
  DEFAULT_SERDES_VF_CURVE,
  loadVfCurve,
  validateVfCurve,
  voltageRatio,
  energyPerBitFactor,
} from './vf-curve.js';
export { markDominated, paretoFront, marginal } from './pareto.js';
export {
  minimumEnergy,
  minimumTime,
  maxSlowdown,
  energyTimeCost,
  parseSelector,
  type OperatingPoint,
} from './selectors.js';
export { runPoint } from './replay-point.js';
export { runPoints } from './pool.js';
export {
  sweepNetwork,
  scaledConfigs,
  type NetworkSweepOutput,
} from './network-sweep.js';
export { MAP_DEFAULTS, atScaleOutBandwidth } from './case-study-map.js';
export {
  runCaseStudy,
  CASE_STUDY_DEFAULTS,
  CASE_STUDY_LAYOUTS,
  type CaseStudyOutput,
} from './case-study.js';
export {
  sweepGpu,
  gpuSweepRecord,
  sweepPointOf,
  tradeoffTable,
  type GpuSweepOutput,
} from './gpu-sweep.js';
export {
  parseShard,
  shardIndices,
} from './shard.js';
export {
  runA30LayerStudy,
  a30ClocksMHz,
  A30_PUBLISHED,
  type A30StudyOutput,
} from './a30-layers.js';
export {
  rowOf,
  meanAbsDifference,
  observations,
  spearman,
  type LayerSweep,
} from './a30-layers-record.js';
export {
  runNetworkSweep,
  runGpuSweep,
  mergeSweep,
  type SweepRun,
} from './sweep-run.js';
export { writeStudyFolder, type StudyRun } from './study-folder.js';

export { replay, type ReplayOptions } from './engine.js';
export { summarizeRun, rankTotalsOf, type RankTotals } from './result.js';
export {
  replayFiles,
  rankSourcesFromFiles,
  measuredRankStarts,
  presetPath,
  resolvePower,
  loadClusterConfigs,
  POWER_PRESETS,
  DEFAULT_POWER_PRESET,
  type ReplayFilesInput,
  type ClusterFiles,
} from './load.js';
export type { BandwidthUnit } from './network.js';
export type * from './types.js';
export { RESULT_SCHEMA_VERSION } from './types.js';
export { TimelineRecorder, POWER_COUNTER } from './timeline.js';
export * from './ledger.js';
export {
  ByNameLedger,
  sumRows,
  topByName,
} from './by-name.js';
export {
  replayFilesAsMeasured,
  measuredIterations,
  measuredStartOffsets,
} from './as-measured.js';

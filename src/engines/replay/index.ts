export { replay, type ReplayOptions } from './engine.js';
export { summarizeRun, rankTotalsOf, type RankTotals, type RunSummaryContext } from './result.js';
export {
  replayFiles, rankSourcesFromFiles, measuredRankStarts, presetPath, resolvePower, loadClusterConfigs, POWER_PRESETS, DEFAULT_POWER_PRESET,
  type ReplayFilesInput, type ClusterFiles, type ClusterConfigs,
} from './load.js';
export { CollectiveModel, type CollectiveModelOptions, type CollectivePlan, type PlanRequest } from './collective.js';
export { makeCluster, messageNs, p2pNs, route, coordinates, type BandwidthUnit, type Cluster } from './network.js';
export type * from './types.js';
export { RESULT_SCHEMA_VERSION } from './types.js';
export { TimelineRecorder, POWER_COUNTER } from './timeline.js';
export * from './ledger.js';
export { ByNameLedger, collectiveName, p2pName, sumRows, topByName, type ByNameKind, type ByNameRow } from './by-name.js';
export { replayFilesAsMeasured, replayAsMeasured, measuredIterations, measuredStartOffsets, summarizeAsMeasured, type AsMeasuredResult, type AsMeasuredRank } from './as-measured.js';

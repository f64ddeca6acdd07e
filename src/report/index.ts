export * from './types.js';
export {
  formatTable,
  toCsv,
  formatRows,
  formatCell,
  fixed,
  grouped,
  significant,
  type Cell,
  type Column,
} from './tables.js';
export { buildReport, escapeHtml, type ReportOptions } from './html.js';
export { parseResults, loadResults } from './validate.js';
export { tracewattVersion } from './version.js';
export * from './plots/index.js';
export {
  replayRanks,
  replayText,
  networkSweepRows,
  networkSweepText,
  gpuSweepRows,
  gpuSweepText,
  MAX_RANK_ROWS,
  type RowSet,
} from './text.js';
export { RESULT_KIND_VIEWS, RESULT_KINDS, type ResultKindViews } from './kinds.js';

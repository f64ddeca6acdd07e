export * from './types.js';
export { formatTable, toCsv, formatRows, formatCell, fixed, type Cell, type Column } from './tables.js';
export { buildReport, escapeHtml, type ReportOptions } from './html.js';
export { parseResults, loadResults } from './validate.js';
export { tracewattVersion } from './version.js';
export * from './plots/index.js';

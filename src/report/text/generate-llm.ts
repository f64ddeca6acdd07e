/**
 * What `tracewatt generate llm` prints: the layout in one line, one row per pipeline stage (work and estimated
 * compute time per rank), the iteration's work and size, and the files written; --json prints {@link generateLlmJson}.
 */
import type { WriteLlmResult } from '../../engines/generate/index.js';
import { fixed, formatTable, wrapText, type TableOptions } from '../tables.js';
import type { RowSet } from '../text.js';

/** One row per pipeline stage. */
export function generateLlmRows(r: WriteLlmResult): RowSet {
  return {
    columns: [
      { header: 'stage' },
      { header: 'layers' },
      { header: 'nodes per rank' },
      { header: 'work per rank (TFLOP)', format: fixed(1) },
      { header: 'compute time per rank (ms, est.)', format: fixed(1) },
    ],
    rows: r.stages.map((s) => [s.stage, s.layers, s.nodesPerRank, s.flopsPerRank / 1e12, s.computeMicrosPerRank / 1e3]),
  };
}

export function generateLlmText(r: WriteLlmResult, layout: TableOptions = {}): string {
  const p = r.plan;
  const width = layout.width;
  const t = generateLlmRows(r);
  return (
    wrapText(
      `${p.model.name}: dp ${p.dp} × tp ${p.tp} × pp ${p.pp} = ${r.ranks} ranks, ${p.microBatches} ` +
        `micro-batches (${p.schedule}), ${p.dtype} on ${p.gpu.name}`,
      width,
    ) +
    `\n` +
    formatTable(t.columns, t.rows, layout) +
    wrapText(
      `iteration: ${(r.flopsPerIteration / 1e15).toFixed(2)} PFLOP; durations (estimated): ${p.timeModel.label}` +
        `; ${r.nodes} nodes, ${(r.bytes / 1e6).toFixed(1)} MB`,
      width,
    ) +
    `\n` +
    `wrote ${r.traceFiles.first} … ${r.traceFiles.last}, ${r.networkFile}, ${r.systemFile}\n`
  );
}

/** The result as --json prints it (the plan's figures by stage, not the whole plan). */
export function generateLlmJson(r: WriteLlmResult): Record<string, unknown> {
  return {
    ranks: r.ranks,
    microBatches: r.plan.microBatches,
    nodes: r.nodes,
    bytes: r.bytes,
    flopsPerIteration: r.flopsPerIteration,
    traceFiles: r.traceFiles,
    networkFile: r.networkFile,
    systemFile: r.systemFile,
    stages: r.stages,
  };
}

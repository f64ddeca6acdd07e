/**
 * `tracewatt case-study a30-layers`: GPT decoder layers on an NVIDIA A30 swept over every SM clock and held against
 * the published layer-level table — results.json and a self-contained report.html. Options that belong to the
 * LLaMA-2-70B study are refused here, so none is silently ignored.
 */
import { runA30LayerStudy } from '../../engines/studies/index.js';
import { layerStudyRows, layerStudyText } from '../../report/a30-layers-text.js';
import type { CommandIO } from '../command.js';
import { writeStudy } from './study-output.js';

/** The options a30-layers reads (case-study.ts refuses those of the LLaMA-2-70B study). */
export interface A30LayersOptions {
  out?: string;
  calibration?: string;
  microBatch?: number;
  threads?: number;
  json?: boolean;
  csv?: boolean;
  wide?: boolean;
}

export async function runA30LayersCommand(opts: A30LayersOptions, io: CommandIO): Promise<number> {
  return writeStudy({ ...opts }, io, {
    out: opts.out ?? 'case-study-a30',
    label: 'a30 layers',
    title: 'tracewatt case study: GPT decoder layers on an NVIDIA A30 against the published SM-clock table (estimated)',
    run: (onPoint) =>
      runA30LayerStudy({
        calibration: opts.calibration,
        microBatch: opts.microBatch,
        threads: opts.threads,
        onPoint,
      }),
    text: layerStudyText,
    rows: layerStudyRows,
    json: (record) => ({
      rows: record.rows,
      meanAbsDifference: record.meanAbsDifference,
      observations: record.observations,
    }),
  });
}

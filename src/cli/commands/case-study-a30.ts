/**
 * `tracewatt case-study a30-layers`: GPT decoder layers on an NVIDIA A30 swept over every SM clock and held against
 * the published layer-level table — results.json and a self-contained report.html. Options that belong to the
 * LLaMA-2-70B study are refused here, so none is silently ignored.
 */
import { runA30LayerStudy } from '../../engines/studies/index.js';
import { InputError } from '../../errors.js';
import { layerStudyRows, layerStudyText } from '../../report/a30-layers-text.js';
import type { CommandIO } from '../command.js';
import { flagOf, int, str } from '../io.js';
import { writeStudy } from './study-output.js';

/**
 * `llamaOnly`: the options (camelCase key, commander default) that only the LLaMA-2-70B study reads; one given with
 * another value than its default is refused.
 */
export async function runA30LayersCommand(
  opts: Record<string, unknown>,
  io: CommandIO,
  llamaOnly: readonly { key: string; default?: unknown }[],
): Promise<number> {
  for (const o of llamaOnly) {
    if (opts[o.key] !== undefined && String(opts[o.key]) !== String(o.default)) {
      throw new InputError(
        `${flagOf(o.key)} belongs to the llama2-70b case study; a30-layers sweeps fixed layers, sequence lengths and clocks`,
      );
    }
  }
  return writeStudy(opts, io, {
    out: str(opts, 'out') ?? 'case-study-a30',
    label: 'a30 layers',
    title: 'tracewatt case study: GPT decoder layers on an NVIDIA A30 against the published SM-clock table (estimated)',
    run: (onPoint) =>
      runA30LayerStudy({
        calibration: str(opts, 'calibration'),
        microBatch: int(opts, 'microBatch', { min: 1 }),
        threads: int(opts, 'threads', { min: 1 }),
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

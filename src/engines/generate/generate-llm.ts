/**
 * `tracewatt generate llm` from what the command line names: the model (a preset or a JSON file), durations from the
 * GPU preset's roofline or from a calibration's time model at one SM clock, and the traces written under the prefix
 * (an output error names the prefix).
 */
import { resolveModel } from './models.js';
import { outputErrorUnder } from '../../formats/output.js';
import { loadCalibration } from '../../model/calibration.js';
import { calibratedTimeModel } from './calibrated-time.js';
import { writeLlmTraces, type WriteLlmOptions, type WriteLlmResult } from './llm.js';

export interface GenerateLlmRequest extends Omit<WriteLlmOptions, 'model' | 'timeModel'> {
  /** A model preset name or a JSON model file. */
  model: string;
  /** Take durations from this calibration's time model at `clockMHz` instead of the GPU preset's roofline. */
  calibration?: { file: string; clockMHz: number };
}

export async function generateLlm(req: GenerateLlmRequest): Promise<WriteLlmResult> {
  const model = await resolveModel(req.model);
  const timeModel = req.calibration
    ? calibratedTimeModel(await loadCalibration(req.calibration.file), req.calibration.clockMHz, req.dtype ?? 'bf16')
    : undefined;
  return writeLlmTraces({ ...req, model, timeModel }).catch((e: unknown) => {
    throw outputErrorUnder(req.outPrefix, e);
  });
}

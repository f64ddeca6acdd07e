/**
 * tracewatt as a library: the same layers the CLI uses, bottom to top. Every modelled number these
 * functions return is an estimate; errors are typed (TracewattError and its subclasses).
 */
export { TracewattError, ChakraDecodeError, InputError, FormatError, type ByteLocation } from './errors.js';
export { Diagnostics, type DiagnosticSummary, type DiagnosticSample } from './diagnostics.js';

// Formats: Chakra traces, profiler outputs, ASTRA-sim configs.
export * as chakra from './formats/chakra/index.js';
export {
  readProfile,
  readProfileInto,
  listProfileFormats,
  detectFormat,
  integratePower,
  type ReadProfileOptions,
  type ProfileFormat,
} from './formats/profiles/index.js';
export type { KernelSample, ProfileTable } from './vocab/kernel-sample.js';
export * as astra from './formats/astra/index.js';

// Engines.
export { inspectTrace, type Inspection, type RankInspection } from './engines/trace/inspect.js';
export { validateTrace, type ValidationReport, type Problem } from './engines/trace/validate.js';
export { convertTrace } from './engines/trace/convert.js';
export {
  fitCalibration,
  readCalibrateInput,
  accuracy,
  calibrationOnlyAccuracy,
  predictProfile,
  loadCalibration,
  saveCalibration,
  validateCalibration,
  predictKernel,
  estimateFromRoofline,
  type Calibration,
  type AccuracyResult,
  type KernelPrediction,
  predictKernelBand,
  fitCalibrationWithBands,
  fitUncertainty,
  type BandedPrediction,
  type PredictionBand,
} from './engines/calibrate/index.js';
export { annotateTrace, stripAnnotation, type AnnotateOptions } from './engines/annotate/index.js';
export { ANNOTATION_ATTRS, UTIL_PREFIX } from './vocab/attributes.js';
export { replay, replayFiles, type ReplayOptions } from './engines/replay/index.js';
export { generateLlmTraces, writeLlmTraces } from './engines/generate/index.js';
export { sweepNetwork, sweepGpu, runCaseStudy, parseSelector } from './engines/studies/index.js';
export {
  planPipeline,
  planTrace,
  measuredStageOptions,
  fittedStageOptions,
  quantizeOptions,
  pipelineGraph,
  graphFrontier,
  sweep as sweepRelaxation,
  type PlanRecord,
  type PipelinePlanInput,
  type TracePlanInput,
  type StageOptions,
} from './engines/plan/index.js';

// Reports.
export { buildReport, loadResults, formatTable, toCsv } from './report/index.js';

/** Calibrate / predict / accuracy engines, and the model API other engines use. */
export { fitCalibration, readCalibrateInput, readProfileMerged, sha256File, DEFAULT_LAUNCH_OVERHEAD_NS, type CalibrateInput, type CalibrateOptions } from './calibrate.js';
export { accuracy, calibrationOnlyAccuracy, type AccuracyResult, type AccuracyRow, type AccuracyOptions } from './accuracy.js';
export { predictProfile, type PredictResult, type PredictionRow } from './predict.js';
export { fitUncertainty, fitCalibrationWithBands, benchmarkOf, collectResiduals, bandParameters, bandModel } from './uncertainty.js';
export { transferAccuracy, transferFromResiduals, type TransferAccuracy, type TransferSet } from './accuracy-transfer.js';
export { bandAdvice, describeAdvice, totalEnergyBands, type BandAdvice, type TotalBand } from './advice.js';
export { readIdleMeasurement, measuredIdle, publishedIdle, idleRows, type IdleMeasurement } from './idle.js';
export { predictKernelBand, type BandedPrediction, type PredictionBand } from '../../model/predict-band.js';
export { loadCalibration, validateCalibration, saveCalibration, checkTargetClock, maxSmClock, type Calibration } from '../../model/calibration.js';
export { predictKernel, estimateFromRoofline, type KernelPrediction, type KernelProfile, type RooflineWork } from '../../model/predict.js';

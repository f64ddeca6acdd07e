/** Calibrate / predict / accuracy engines, and the model API other engines use. */
export {
  fitCalibration,
  readCalibrateInput,
  readProfileMerged,
  sha256File,
} from './calibrate.js';
export {
  accuracy,
  calibrationOnlyAccuracy,
  type AccuracyResult,
  type AccuracyRow,
} from './accuracy.js';
export { predictProfile } from './predict.js';
export {
  fitUncertainty,
  fitCalibrationWithBands,
} from './uncertainty.js';
export {
  transferAccuracy,
  type TransferAccuracy,
  type TransferSet,
} from './accuracy-transfer.js';
export { describeAdvice } from './advice.js';
export { readIdleMeasurement, measuredIdle, idleRows, type IdleMeasurement } from './idle.js';
export { predictKernelBand, type BandedPrediction, type PredictionBand } from '../../model/predict-band.js';
export {
  loadCalibration,
  validateCalibration,
  saveCalibration,
  checkTargetClock,
  type Calibration,
} from '../../model/calibration.js';
export {
  predictKernel,
  estimateFromRoofline,
  type KernelPrediction,
} from '../../model/predict.js';

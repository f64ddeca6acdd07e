/**
 * `tracewatt accuracy --bands-from`: do the 10–90 % bands hold on a GPU they were not fitted on? The band
 * parameters (per mode and quantity: counter-distance widening and held-out inflation, engines/calibrate/
 * uncertainty.ts) are fitted on one GPU's calibration profiles (`train`); the GPU under test (`evaluate`) supplies
 * only what any calibration of it has, its own leave-one-benchmark-out residual tables. Coverage is then measured
 * two ways, each kernel profiled once at its highest clock and predicted at every lower one:
 *
 * - left-out benchmarks: each benchmark of `evaluate` predicted by the calibration fitted without it, its band from
 *   the residuals of the other benchmarks only (no kernel is judged by a band its own residuals shaped);
 * - held-out kernels (optional): another profile of the GPU under test (e.g. real applications), predicted by the
 *   calibration fitted on all of `evaluate`.
 *
 * With `train` and `evaluate` the same profiles this is the GPU's own band model, judged the same way.
 */
import type { ProfileTable } from '../../vocab/kernel-sample.js';
import { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import { groupKernels, type KernelSeries } from '../../model/kernels.js';
import type { KernelProfile } from '../../model/predict.js';
import { fitCalibration, type CalibrateInput } from './calibrate.js';
import {
  kernelRegimes,
  regimeTable,
  tabulate,
  type AccuracyRow,
  type Comparison,
  type KernelRegime,
  type RegimeRow,
} from './accuracy-table.js';
import { referenceComparisons } from './accuracy.js';
import {
  bandModel,
  bandParameters,
  collectResiduals,
  timedBenchmarks,
  type BandParameters,
  type ResidualSet,
} from './uncertainty.js';

export interface TransferSet {
  label: string;
  frequencies: AccuracyRow[];
  regimes: RegimeRow[];
  kernelRegimes: KernelRegime[];
}

export interface TransferAccuracy {
  kind: 'band-transfer';
  schemaVersion: 1;
  /** Profiles the band parameters were fitted on, the profiles of the GPU under test, and its held-out profile. */
  trainedOn: string[];
  evaluatedOn: string[];
  heldOutFile: string | null;
  parameters: BandParameters;
  leftOutBenchmarks: TransferSet;
  heldOut: TransferSet | null;
  notes: string[];
  estimate: true;
}

const usable = (s: KernelSeries) =>
  s.points.filter((p) => p.durationNs !== null && p.durationNs > 0 && p.powerW !== null);
const asProfile = (p: KernelSeries['points'][number]): KernelProfile => ({
  smClockMHz: p.smClockMHz,
  durationNs: p.durationNs!,
  powerW: p.powerW,
  utilization: p.utilization,
});

/** Kernels profiled once at their highest clock. */
function atHighestClock(series: KernelSeries[]) {
  return series
    .filter((s) => usable(s).length >= 2)
    .map((s) => {
      const top = usable(s).at(-1)!;
      return { key: s.key, series: s, profiles: [asProfile(top)], refMHz: top.smClockMHz };
    });
}

function set(label: string, cmp: Comparison[]): TransferSet {
  return { label, frequencies: tabulate(cmp), regimes: regimeTable(cmp), kernelRegimes: kernelRegimes(cmp) };
}

/**
 * Left-out benchmarks of the GPU under test, each judged by the fold calibration and a band made without its residuals.
 */
function leftOutComparisons(evalSet: ResidualSet, params: BandParameters): Comparison[] {
  const out: Comparison[] = [];
  evalSet.folds.forEach((fold, i) => {
    const cal = { ...fold.calibration, uncertainty: bandModel(evalSet, params, i) };
    for (const k of atHighestClock(fold.leftOut))
      out.push(...referenceComparisons(cal, [k], [k.refMHz], 'ratio', cal.powerCap.powerW));
  });
  return out;
}

export interface TransferOptions {
  /** Names for the report (the files); default the inputs' files. */
  trainFiles?: string[];
  evaluateFiles?: string[];
  heldOutLabel?: string;
}

/**
 * Leave-one-GPU-out coverage from residual sets already collected (collectResiduals): band parameters from
 * `trainSet`, coverage on `evalSet`'s left-out benchmarks and, when given, on `heldOut`, predicted by the
 * calibration fitted on all of `evaluate` (the inputs `evalSet` was collected from).
 */
export function transferFromResiduals(
  trainSet: ResidualSet,
  evalSet: ResidualSet,
  evaluate: CalibrateInput[],
  heldOut: ProfileTable | null,
  options: TransferOptions = {},
): TransferAccuracy {
  const params = bandParameters(trainSet);
  const notes: string[] = [];
  if (trainSet === evalSet)
    notes.push("band parameters fitted on the profiles under test: the GPU's own band model, not a transfer");
  let held: TransferSet | null = null;
  if (heldOut) {
    const cal = { ...fitCalibration(evaluate).calibration, uncertainty: bandModel(evalSet, params) };
    const kernels = atHighestClock(groupKernels(heldOut.samples, new Diagnostics()));
    if (kernels.length === 0)
      throw new InputError(`--held-out: ${options.heldOutLabel ?? 'profile'}: no kernel timed at two or more clocks`);
    const cmp = kernels.flatMap((k) => referenceComparisons(cal, [k], [k.refMHz], 'ratio', cal.powerCap.powerW));
    held = set('held-out kernels', cmp);
  }
  return {
    kind: 'band-transfer',
    schemaVersion: 1,
    trainedOn: options.trainFiles ?? [],
    evaluatedOn: options.evaluateFiles ?? evaluate.map((t) => t.file),
    heldOutFile: heldOut ? (options.heldOutLabel ?? heldOut.samples[0]?.source.file ?? null) : null,
    parameters: params,
    leftOutBenchmarks: set('left-out benchmarks', leftOutComparisons(evalSet, params)),
    heldOut: held,
    notes,
    estimate: true,
  };
}

const tooFew = (what: string, inputs: CalibrateInput[]) =>
  new InputError(
    `${what}: ${inputs.map((t) => t.file).join(', ')}: fewer than two benchmarks with kernels timed (and ` +
      `powered) at two or more clocks: no band model can be fitted (a profile without kernel times, such as the ` +
      `gpmTOOL Titan X/V sets, cannot judge time or energy bands)`,
  );

/**
 * Leave-one-GPU-out coverage: band parameters fitted on `train`, coverage measured on `evaluate`'s left-out
 * benchmarks and, when given, on `heldOut` (another profile of the GPU under test).
 */
export function transferAccuracy(
  train: CalibrateInput[],
  evaluate: CalibrateInput[],
  heldOut: ProfileTable | null,
  options: TransferOptions = {},
): TransferAccuracy {
  if (timedBenchmarks(train) < 2) throw tooFew('--bands-from', train);
  if (timedBenchmarks(evaluate) < 2) throw tooFew('--profile', evaluate);
  const trainSet = collectResiduals(train)!;
  const same = train.length === evaluate.length && train.every((t, i) => t.sha256 === evaluate[i]!.sha256);
  const evalSet = same ? trainSet : collectResiduals(evaluate)!;
  return transferFromResiduals(trainSet, evalSet, evaluate, heldOut, {
    trainFiles: train.map((t) => t.file),
    ...options,
  });
}

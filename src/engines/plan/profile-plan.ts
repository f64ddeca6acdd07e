/**
 * Clock plans for a stage profile (Perseus' CSV, or any format naming stage<N>/forward|backward): the measured
 * options per stage, or, with `fit`, options at every clock of a grid modelled from a few measured clocks (profile
 * once, plan everywhere), optionally floored to Perseus' time quantum, then the pipeline planned on them.
 * The twin of `planTrace` (trace-plan.ts), which plans an annotated Chakra trace.
 */
import path from 'node:path';
import { Diagnostics } from '../../diagnostics.js';
import { readProfile, type ReadProfileOptions } from '../../formats/profiles/index.js';
import { loadCalibration } from '../calibrate/index.js';
import type { PipelineSchedule } from '../generate/plan.js';
import { planPipeline } from './plan-pipeline.js';
import { clockGrid, fittedStageOptions, measuredStageOptions, quantizeOptions } from './stage-options.js';
import type { PlanRecord } from './types.js';

type ProfileTable = Awaited<ReturnType<typeof readProfile>>;

export interface ProfilePlanInput {
  /** The stage profile. */
  file: string;
  /** How to read it (format, generic column mapping). */
  read?: ReadProfileOptions;
  /** Pipeline stages: the profile must have stages 0 … stages − 1. */
  stages: number;
  microBatches: number;
  schedule: PipelineSchedule;
  /** Power a GPU draws while it waits on pipeline communication, W. */
  blockingPowerW: number;
  /** Plan from these clocks only: per-stage t(f), P(f) fitted on them give every clock of the grid. */
  fit?: {
    clocksMHz: number[];
    /** Grid step from the lowest to the highest fit clock, MHz (default 15). */
    clockStepMHz?: number;
    /** Power cap, W; without it, the calibration's (when given), else none. */
    powerCapW?: number;
    calibration?: string;
  };
  /** Floor every computation's time to a multiple of this, s (Perseus' solver's convention). */
  timeQuantumS?: number;
  /** Plans realized between the fastest and the slowest iteration time (default 400). */
  points?: number;
  stragglerSlowdown?: number;
  deadlineS?: number;
  /** Called once the profile is read: its notes and the readers' diagnostics, before any planning. */
  onRead?: (table: ProfileTable, diagnostics: Diagnostics) => void;
}

export async function planProfile(input: ProfilePlanInput): Promise<PlanRecord> {
  const { file, fit } = input;
  const diagnostics = new Diagnostics();
  const table = await readProfile(file, { ...input.read, diagnostics });
  const measured = measuredStageOptions(table, input.stages, file, diagnostics);
  input.onRead?.(table, diagnostics);
  let planned = measured;
  let clocksMHz = [...new Set(measured.flatMap((s) => [...s.forward, ...s.backward].map((o) => o.clockMHz)))].sort(
    (a, b) => a - b,
  );
  const notes: string[] = [];
  if (fit) {
    clocksMHz = clockGrid(Math.min(...fit.clocksMHz), Math.max(...fit.clocksMHz), fit.clockStepMHz ?? 15);
    let capW = fit.powerCapW ?? null;
    if (capW === null && fit.calibration !== undefined) capW = (await loadCalibration(fit.calibration)).powerCap.powerW;
    planned = fittedStageOptions(measured, fit.clocksMHz, clocksMHz, file, capW);
    notes.push(
      `options at ${clocksMHz.length} clocks modelled from ${fit.clocksMHz.join(', ')} MHz (t = A + B/f, P ` +
        `quadratic in f per stage and pass; ` +
        `${capW === null ? 'no power cap' : `power cap ${capW.toFixed(1)} W`})`,
    );
  }
  const quantumS = input.timeQuantumS;
  if (quantumS !== undefined) {
    planned = quantizeOptions(planned, quantumS);
    notes.push(
      `every computation's time floored to a multiple of ${quantumS} s (Perseus' convention): iterations look ` +
        `shorter than they are`,
    );
  }
  return planPipeline({
    label: path.basename(file),
    source: { mode: fit ? 'fit' : 'profile', file, ...(fit ? { fitClocksMHz: fit.clocksMHz } : {}), clocksMHz },
    stages: planned,
    ...(fit ? { measured } : {}),
    microBatches: input.microBatches,
    schedule: input.schedule,
    blockingPowerW: input.blockingPowerW,
    points: input.points,
    stragglerSlowdown: input.stragglerSlowdown,
    deadlineS: input.deadlineS,
    notes,
  });
}

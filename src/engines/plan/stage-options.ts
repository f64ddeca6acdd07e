/**
 * Per-stage forward and backward options from a profile: Perseus' stage CSV (`stage,instruction,frequency,time,
 * energy`), or any profile whose samples name a stage and a pass (`stage<N>/forward`, `stage 3 backward`, or the
 * `stage` / `instruction` columns the Perseus reader keeps), with time and energy (or power) at several clocks.
 *
 * With fit clocks ("profile once, plan everywhere"): only the samples at those clocks are read; per stage and pass
 * the counter-free models of `accuracy --fit-frequencies` (t(f) = A + B/f, P(f) quadratic; src/model/stage-fit.ts)
 * give time and energy at every candidate clock, which are then estimates.
 */
import type { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import type { KernelSample, ProfileTable } from '../../vocab/kernel-sample.js';
import { fitStage, predictStage } from '../../model/stage-fit.js';
import type { ClockOption } from './curve.js';
import type { Pass } from './pipeline.js';

export interface StageOptions {
  forward: ClockOption[];
  backward: ClockOption[];
}

const PASS_NAMES: Record<string, Pass> = {
  forward: 'forward',
  fwd: 'forward',
  f: 'forward',
  backward: 'backward',
  bwd: 'backward',
  b: 'backward',
};

/** Stage and pass of a sample, or null when it names neither. */
export function stageOf(s: KernelSample): { stage: number; pass: Pass } | null {
  const stageText = s.extra?.stage;
  const passText = s.extra?.instruction;
  if (stageText !== undefined && passText !== undefined) {
    const pass = PASS_NAMES[String(passText).trim().toLowerCase()];
    const stage = Number(stageText);
    if (pass && Number.isInteger(stage) && stage >= 0) return { stage, pass };
  }
  const m = /stage[\s_-]*(\d+)\W+(forward|backward|fwd|bwd)\b/i.exec(s.kernelName);
  return m ? { stage: Number(m[1]), pass: PASS_NAMES[m[2]!.toLowerCase()]! } : null;
}

function sampleOption(s: KernelSample): ClockOption | null {
  if (s.smClockMHz === null || s.durationNs === null) return null;
  const energyJ = s.energyJ ?? (s.powerW !== null ? (s.powerW * s.durationNs) / 1e9 : null);
  if (energyJ === null) return null;
  return { clockMHz: s.smClockMHz, timeS: s.durationNs / 1e9, energyJ };
}

/**
 * Measured options of stages 0 … stages−1. Samples of the same stage, pass and clock are averaged (counted in
 * diagnostics as `repeated-clock`); samples naming no stage, or stages beyond `stages`, are counted and skipped.
 */
export function measuredStageOptions(
  table: ProfileTable,
  stages: number,
  file: string,
  diagnostics?: Diagnostics,
): StageOptions[] {
  const groups = new Map<string, { stage: number; pass: Pass; clockMHz: number; timeS: number[]; energyJ: number[] }>();
  for (const s of table.samples) {
    const at = stageOf(s);
    if (!at) {
      diagnostics?.add('plan-unnamed-sample', {
        file,
        message: `row ${s.source.row}: "${s.kernelName}" names no pipeline stage and pass`,
      });
      continue;
    }
    if (at.stage >= stages) {
      diagnostics?.add('plan-extra-stage', {
        file,
        message: `row ${s.source.row}: stage ${at.stage} is beyond --stages ${stages}`,
      });
      continue;
    }
    const o = sampleOption(s);
    if (!o) {
      diagnostics?.add('plan-incomplete-sample', { file, message: `row ${s.source.row}: no clock, time or energy` });
      continue;
    }
    const key = `${at.stage}|${at.pass}|${o.clockMHz}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ...at, clockMHz: o.clockMHz, timeS: [], energyJ: [] }));
    else
      diagnostics?.add('repeated-clock', {
        file,
        message: `stage ${at.stage} ${at.pass} at ${o.clockMHz} MHz appears more than once: averaged`,
      });
    g.timeS.push(o.timeS);
    g.energyJ.push(o.energyJ);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const out: StageOptions[] = Array.from({ length: stages }, () => ({ forward: [], backward: [] }));
  for (const g of groups.values())
    out[g.stage]![g.pass].push({ clockMHz: g.clockMHz, timeS: mean(g.timeS), energyJ: mean(g.energyJ) });
  out.forEach((o, s) => {
    for (const pass of ['forward', 'backward'] as const) {
      if (o[pass].length === 0)
        throw new InputError(
          `${file}: no ${pass} samples of stage ${s} (expected stages 0–${stages - 1}, each with forward and ` +
            `backward at several clocks)`,
        );
      o[pass].sort((a, b) => a.clockMHz - b.clockMHz);
    }
  });
  return out;
}

/**
 * Options at every candidate clock from models fitted on the `fitClocksMHz` samples only; `powerCapW` (the
 * calibration's detected cap, as `accuracy --fit-frequencies` uses it) marks fitted points near it as capped, so the
 * model keeps time and power flat above the clock where the cap is reached. Throws InputError when a stage was not
 * measured at two or more of the fit clocks.
 */
export function fittedStageOptions(
  measured: StageOptions[],
  fitClocksMHz: number[],
  candidateClocksMHz: number[],
  file: string,
  powerCapW: number | null = null,
): StageOptions[] {
  const near = (f: number) => fitClocksMHz.some((g) => Math.abs(g - f) < 0.5);
  return measured.map((stage, s) => {
    const fitted: StageOptions = { forward: [], backward: [] };
    for (const pass of ['forward', 'backward'] as const) {
      const pts = stage[pass].filter((o) => near(o.clockMHz));
      if (pts.length < 2)
        throw new InputError(
          `${file}: stage ${s} ${pass} was measured at ${pts.length} of the fit clocks ` +
            `${fitClocksMHz.join(', ')} MHz (need at least 2)`,
        );
      const fit = fitStage(
        pts.map((o) => ({ smClockMHz: o.clockMHz, durationNs: o.timeS * 1e9, powerW: o.energyJ / o.timeS })),
        powerCapW,
      );
      fitted[pass] = candidateClocksMHz.map((f) => {
        const p = predictStage(fit, f);
        return { clockMHz: f, timeS: p.durationNs / 1e9, energyJ: p.energyJ };
      });
    }
    return fitted;
  });
}

/**
 * Every option's time floored to a multiple of `quantumS`, as Perseus' solver quantizes (its `unit_time`; its frontier
 * files use 0.0001 s on A40 and 0.001 s on A100): only to compare with those files — it makes iterations look
 * shorter than they are. Throws InputError for a time below one quantum.
 */
export function quantizeOptions(stages: StageOptions[], quantumS: number): StageOptions[] {
  const q = (o: ClockOption): ClockOption => {
    const timeS = Math.floor(o.timeS / quantumS + 1e-9) * quantumS;
    if (!(timeS > 0))
      throw new InputError(`--time-quantum ${quantumS}: longer than a computation (${o.timeS} s at ${o.clockMHz} MHz)`);
    return { ...o, timeS };
  };
  return stages.map((s) => ({ forward: s.forward.map(q), backward: s.backward.map(q) }));
}

/** Clocks from `lowMHz` to `highMHz` in steps of `stepMHz` (both ends included). */
export function clockGrid(lowMHz: number, highMHz: number, stepMHz: number): number[] {
  const out: number[] = [];
  for (let f = highMHz; f >= lowMHz - 1e-9; f -= stepMHz) out.push(Math.round(f * 1000) / 1000);
  return out.reverse();
}

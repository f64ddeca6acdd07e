/**
 * Extrinsic energy bloat (Perseus §3): when another pipeline straggles, every other pipeline waits for it at the end
 * of each iteration anyway, drawing blocking power. A pipeline planned for the straggler's iteration time T′ runs
 * the cheapest plan that finishes by T′ and then waits; the baseline runs at the maximum clock and waits longer.
 * Energies are per pipeline and iteration, up to T′.
 */
export interface FrontierPoint {
  timeS: number;
  energyJ: number;
}

export interface ExtrinsicSaving {
  /** Iteration time of the straggler, s. */
  deadlineS: number;
  /** T′ / T(all max clock). */
  slowdownFactor: number;
  /** All-max-clock plan, then blocking until T′, J. */
  baselineEnergyJ: number;
  /** Plan without slowdown (intrinsic), then blocking until T′, J. */
  intrinsicEnergyJ: number;
  /** Cheapest frontier plan that finishes by T′, then blocking until T′, J. */
  plannedEnergyJ: number;
  /** Iteration time of that plan, s. */
  plannedTimeS: number;
  /** Saving against the baseline, %. */
  savingPct: number;
  /** Saving against the intrinsic plan (the part a straggler adds), %. */
  extrinsicSavingPct: number;
}

/** `lanes × blockingPowerW` is drawn per second of waiting. `frontier` must contain the intrinsic point. */
export function extrinsicSaving(
  frontier: readonly FrontierPoint[],
  baseline: FrontierPoint,
  intrinsic: FrontierPoint,
  deadlineS: number,
  lanes: number,
  blockingPowerW: number,
): ExtrinsicSaving | null {
  const tol = 1e-9 * baseline.timeS; // rounding of iteration times summed over thousands of computations
  if (!(deadlineS >= baseline.timeS - tol)) return null;
  const waitW = lanes * blockingPowerW;
  const until = (p: FrontierPoint) => p.energyJ + waitW * Math.max(0, deadlineS - p.timeS);
  let best: FrontierPoint | null = null;
  for (const p of frontier) if (p.timeS <= deadlineS + tol && (best === null || until(p) < until(best))) best = p;
  if (!best) return null;
  const baselineEnergyJ = until(baseline);
  const intrinsicEnergyJ = until(intrinsic);
  const plannedEnergyJ = until(best);
  return {
    deadlineS,
    slowdownFactor: deadlineS / baseline.timeS,
    baselineEnergyJ,
    intrinsicEnergyJ,
    plannedEnergyJ,
    plannedTimeS: best.timeS,
    savingPct: 100 * (1 - plannedEnergyJ / baselineEnergyJ),
    extrinsicSavingPct: 100 * (1 - plannedEnergyJ / intrinsicEnergyJ),
  };
}

/** Time–energy trade-offs of sweep points: dominance, the Pareto front, marginal efficiency between neighbours. */

export interface TimeEnergy {
  timeS: number;
  energyJ: number;
}

/** a dominates b: at least as fast and as cheap, strictly better in one. */
export function dominates(a: TimeEnergy, b: TimeEnergy): boolean {
  return a.timeS <= b.timeS && a.energyJ <= b.energyJ && (a.timeS < b.timeS || a.energyJ < b.energyJ);
}

/** For each point, whether another point dominates it (never worth taking). O(n²); sweeps are small. */
export function markDominated(points: readonly TimeEnergy[]): boolean[] {
  return points.map((p) => points.some((q) => q !== p && dominates(q, p)));
}

/** Indices of the Pareto-optimal points (not dominated), ordered from fastest to lowest energy. */
export function paretoFront(points: readonly TimeEnergy[]): number[] {
  const dom = markDominated(points);
  const idx = points.map((_, i) => i).filter((i) => !dom[i]);
  // Equal (time, energy) duplicates are all kept; order by time, then energy.
  return idx.sort((a, b) => points[a].timeS - points[b].timeS || points[a].energyJ - points[b].energyJ);
}

export interface Marginal {
  deltaEnergyJ: number;
  deltaTimeS: number;
  /** ΔE/ΔT (W); null when ΔT = 0. */
  energyPerTimeW: number | null;
  /** (energy saved, % of the reference) / (slowdown, % of the reference); null when there is no slowdown. */
  energySavedPctPerSlowdownPct: number | null;
}

/** Deltas of `point` against `reference` (e.g. its neighbour at the next higher frequency). */
export function marginal(point: TimeEnergy, reference: TimeEnergy): Marginal {
  const dE = point.energyJ - reference.energyJ;
  const dT = point.timeS - reference.timeS;
  const savedPct = reference.energyJ !== 0 ? (-100 * dE) / reference.energyJ : 0;
  const slowPct = reference.timeS !== 0 ? (100 * dT) / reference.timeS : 0;
  return {
    deltaEnergyJ: dE,
    deltaTimeS: dT,
    energyPerTimeW: dT !== 0 ? dE / dT : null,
    energySavedPctPerSlowdownPct: slowPct > 0 ? savedPct / slowPct : null,
  };
}

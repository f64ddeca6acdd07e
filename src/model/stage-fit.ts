/**
 * Counter-free fits for per-stage sweeps (Perseus-style: time and energy per stage at a few clocks, no
 * utilization counters). Per stage:
 *
 *   t(f) = A + B/f                        (clock-independent and clock-bound parts; least squares, A, B ≥ 0)
 *   P(f) = c0 + c1·f + c2·f²              (through the fitted clocks; f in GHz)
 *
 * A power cap is handled, not extrapolated through: fitted points drawing ≥ 97% of the cap are treated as capped;
 * the time fit uses the uncapped points, and a capped point contributes its *effective* clock (the clock at which
 * the uncapped time model gives its measured time) with power = cap. Above the clock where modelled power reaches
 * the cap, predictions stay at that effective clock: time stops improving and power stays at the cap.
 */
import { nnls } from './nnls.js';
import { fitTwoPart } from './time-model.js';

export interface StagePoint {
  smClockMHz: number;
  durationNs: number;
  powerW: number;
}

export interface StageFit {
  aNs: number;
  bNsMHz: number;
  /** P(f) = c[0] + c[1]·f + c[2]·f², f in GHz. */
  powerCoefficients: number[];
  capW: number | null;
  /** Lowest clock at which the modelled power reaches the cap (null: never within 2× the fitted range). */
  capClockMHz: number | null;
  cappedPoints: number;
}

function powerBasis(fMHz: number, terms: number): number[] {
  const g = fMHz / 1000;
  return [1, g, g * g].slice(0, terms);
}

export function fitStage(points: StagePoint[], capW: number | null): StageFit {
  const isCapped = (p: StagePoint) => capW !== null && p.powerW >= 0.97 * capW;
  let free = points.filter((p) => !isCapped(p));
  if (free.length < 2) free = points;
  const t = fitTwoPart(free);
  const powerPts = free.map((p) => ({ f: p.smClockMHz, p: p.powerW }));
  let cappedPoints = 0;
  for (const p of points) {
    if (!isCapped(p) || free.includes(p)) continue;
    cappedPoints++;
    if (p.durationNs > t.aNs && t.bNsMHz > 0) powerPts.push({ f: t.bNsMHz / (p.durationNs - t.aNs), p: capW! });
  }
  const terms = Math.min(3, powerPts.length);
  const x = powerPts.map((q) => powerBasis(q.f, terms));
  const y = powerPts.map((q) => q.p);
  // The linear and constant terms may take either sign; the quadratic (dynamic) term may not.
  const c = nnls(x, y, { unconstrained: terms === 3 ? [0, 1] : [0] });
  const fit: StageFit = { aNs: t.aNs, bNsMHz: t.bNsMHz, powerCoefficients: c, capW, capClockMHz: null, cappedPoints };
  if (capW !== null) {
    const maxF = Math.max(...points.map((p) => p.smClockMHz)) * 2;
    const minF = Math.min(...points.map((p) => p.smClockMHz)) / 2;
    for (let f = minF; f <= maxF; f += 1) {
      if (uncappedPower(fit, f) >= capW) {
        fit.capClockMHz = f;
        break;
      }
    }
  }
  return fit;
}

function uncappedPower(fit: StageFit, fMHz: number): number {
  return powerBasis(fMHz, fit.powerCoefficients.length).reduce((s, b, i) => s + b * fit.powerCoefficients[i]!, 0);
}

export function predictStage(fit: StageFit, smClockMHz: number): { durationNs: number; powerW: number; energyJ: number; effectiveClockMHz: number } {
  const fEff = fit.capClockMHz !== null ? Math.min(smClockMHz, fit.capClockMHz) : smClockMHz;
  const durationNs = fit.aNs + fit.bNsMHz / fEff;
  let powerW = uncappedPower(fit, fEff);
  if (fit.capW !== null) powerW = Math.min(powerW, fit.capW);
  return { durationNs, powerW, energyJ: (powerW * durationNs) / 1e9, effectiveClockMHz: fEff };
}

/** Clock with the lowest energy among `clocksMHz` (ties: the faster clock). */
export function energyOptimalClock(energyAt: (f: number) => number, clocksMHz: number[]): { smClockMHz: number; energyJ: number } {
  let best = { smClockMHz: clocksMHz[0]!, energyJ: energyAt(clocksMHz[0]!) };
  for (const f of clocksMHz) {
    const e = energyAt(f);
    if (e < best.energyJ || (e === best.energyJ && f > best.smClockMHz)) best = { smClockMHz: f, energyJ: e };
  }
  return best;
}

/**
 * Counter-free fits for per-stage sweeps (Perseus-style: time and energy per stage at a few clocks, no
 * utilization counters). Per stage:
 *
 *   t(f) = (M^p + (C/f)^p)^(1/p)          (clock-independent and clock-bound parts, least squares, M, C ≥ 0; p = 1 by
 *                                          default: t = A + B/f, which `accuracy` uses)
 *   P(f) = c0 + c1·f + c2·f²              (through the fitted clocks; f in GHz)
 *
 * A power cap is handled, not extrapolated through: fitted points drawing ≥ 98% of the cap (the ±2% band in which
 * detectPowerCap calls power flat) are treated as capped; the time fit uses the uncapped points, and a capped point
 * contributes its *effective* clock (the clock at which the uncapped time model gives its measured time, kept
 * between the highest uncapped fitted clock and the clock requested: the firmware only lowers the clock) with
 * power = cap. Above the clock where modelled power reaches the cap (searched upward from the highest uncapped
 * fitted clock, where the power fit is an interpolation), predictions stay at that effective clock: time stops
 * improving and power stays at the cap.
 */
import { nnls } from './nnls.js';
import { CAP_BAND } from './power-cap.js';
import { fitMultiClock, multiClockDurationNs, type MultiClockFit } from './multi-clock-time.js';

export interface StagePoint {
  smClockMHz: number;
  durationNs: number;
  powerW: number;
}

export interface StageFit {
  time: MultiClockFit;
  /** P(f) = c[0] + c[1]·f + c[2]·f², f in GHz. */
  powerCoefficients: number[];
  capW: number | null;
  /**
   * Lowest clock above the highest uncapped fitted clock at which the modelled power reaches the cap (null: never up to
   * 2× the highest fitted clock).
   */
  capClockMHz: number | null;
  cappedPoints: number;
}

function powerBasis(fMHz: number, terms: number): number[] {
  const g = fMHz / 1000;
  return [1, g, g * g].slice(0, terms);
}

/** The clock at which the time model gives `durationNs` (null when no clock does). */
function clockForDuration(t: MultiClockFit, durationNs: number): number | null {
  const clockPart = durationNs ** t.exponent - t.memTermNsP;
  if (!(clockPart > 0) || !(t.clockTermNsMHzP > 0)) return null;
  return (t.clockTermNsMHzP / clockPart) ** (1 / t.exponent);
}

export function fitStage(points: StagePoint[], capW: number | null, exponent = 1): StageFit {
  const isCapped = (p: StagePoint) => capW !== null && p.powerW >= CAP_BAND * capW;
  let free = points.filter((p) => !isCapped(p));
  if (free.length < 2) free = points;
  const time = fitMultiClock(free, exponent);
  const powerPts = free.map((p) => ({ f: p.smClockMHz, p: p.powerW }));
  let cappedPoints = 0;
  const highestFreeMHz = Math.max(...free.map((p) => p.smClockMHz));
  for (const p of points) {
    if (!isCapped(p) || free.includes(p)) continue;
    cappedPoints++;
    const f = clockForDuration(time, p.durationNs);
    if (f !== null) powerPts.push({ f: Math.min(p.smClockMHz, Math.max(highestFreeMHz + 1, f)), p: capW! });
  }
  const terms = Math.min(3, powerPts.length);
  const x = powerPts.map((q) => powerBasis(q.f, terms));
  const y = powerPts.map((q) => q.p);
  // The linear and constant terms may take either sign; the quadratic (dynamic) term may not.
  const c = nnls(x, y, { unconstrained: terms === 3 ? [0, 1] : [0] });
  const fit: StageFit = { time, powerCoefficients: c, capW, capClockMHz: null, cappedPoints };
  if (capW !== null) {
    const maxF = Math.max(...points.map((p) => p.smClockMHz)) * 2;
    for (let f = highestFreeMHz; f <= maxF; f += 1) {
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

export function predictStage(
  fit: StageFit,
  smClockMHz: number,
): { durationNs: number; powerW: number; energyJ: number; effectiveClockMHz: number } {
  const fEff = fit.capClockMHz !== null ? Math.min(smClockMHz, fit.capClockMHz) : smClockMHz;
  const durationNs = multiClockDurationNs(fit.time, fEff);
  let powerW = uncappedPower(fit, fEff);
  if (fit.capW !== null) powerW = Math.min(powerW, fit.capW);
  return { durationNs, powerW, energyJ: (powerW * durationNs) / 1e9, effectiveClockMHz: fEff };
}

/** Clock with the lowest energy among `clocksMHz` (ties: the faster clock). */
export function energyOptimalClock(
  energyAt: (f: number) => number,
  clocksMHz: number[],
): { smClockMHz: number; energyJ: number } {
  let best = { smClockMHz: clocksMHz[0]!, energyJ: energyAt(clocksMHz[0]!) };
  for (const f of clocksMHz) {
    const e = energyAt(f);
    if (e < best.energyJ || (e === best.energyJ && f > best.smClockMHz)) best = { smClockMHz: f, energyJ: e };
  }
  return best;
}

/**
 * Voltage–frequency model per device: V is flat below a knee and rises linearly above it (normalised so that
 * V = 1 at and below the knee). Power of a fixed utilization mix follows
 *
 *   P(f) = P_const + P_static·V(f) + k_dyn·V(f)²·f        (f in GHz)
 *
 * fitted on the calibration's modelled power of the mean utilization vector at each profiled clock. It is used
 * for clocks that were never profiled: each per-clock coefficient is divided by its V–f shape (V²f for component
 * coefficients, the whole curve for the intercept), interpolated in f between the neighbouring profiled clocks,
 * and multiplied back by the shape at the target clock; outside the profiled range the nearest clock's reduced
 * value is used, so extrapolation follows the physics instead of a straight line.
 */
import { nnls } from './nnls.js';
import { evaluatePower, type ClockPowerModel } from './power-model.js';

export interface VfModel {
  kneeMHz: number;
  /** dV/V per GHz above the knee. */
  slopePerGHz: number;
  constW: number;
  staticW: number;
  dynamicWPerGHz: number;
  fit: { rmseW: number; n: number };
}

export function voltageAt(vf: Pick<VfModel, 'kneeMHz' | 'slopePerGHz'>, smClockMHz: number): number {
  return 1 + (vf.slopePerGHz * Math.max(0, smClockMHz - vf.kneeMHz)) / 1000;
}

export function vfPower(vf: VfModel, smClockMHz: number): number {
  const v = voltageAt(vf, smClockMHz);
  return vf.constW + vf.staticW * v + vf.dynamicWPerGHz * v * v * (smClockMHz / 1000);
}

/** Dynamic-power shape V²·f (GHz) at a clock. */
export function dynamicShape(vf: VfModel, smClockMHz: number): number {
  const v = voltageAt(vf, smClockMHz);
  return v * v * (smClockMHz / 1000);
}

/** Grid search over (knee, slope), non-negative least squares for the three power terms. */
export function fitVf(points: { smClockMHz: number; powerW: number }[]): VfModel | null {
  if (points.length < 3) return null;
  const fs = points.map((p) => p.smClockMHz);
  const lo = Math.min(...fs);
  const hi = Math.max(...fs);
  let best: VfModel | null = null;
  for (let knee = lo; knee <= hi; knee += Math.max(5, (hi - lo) / 60)) {
    for (let slope = 0; slope <= 3; slope += 0.02) {
      const x = points.map((p) => {
        const v = voltageAt({ kneeMHz: knee, slopePerGHz: slope }, p.smClockMHz);
        return [1, v, v * v * (p.smClockMHz / 1000)];
      });
      const y = points.map((p) => p.powerW);
      const b = nnls(x, y);
      const rmse = Math.sqrt(
        x.reduce((s, row, i) => s + (row[0]! * b[0]! + row[1]! * b[1]! + row[2]! * b[2]! - y[i]!) ** 2, 0) / y.length,
      );
      if (!best || rmse < best.fit.rmseW - 1e-9)
        best = {
          kneeMHz: knee,
          slopePerGHz: slope,
          constW: b[0]!,
          staticW: b[1]!,
          dynamicWPerGHz: b[2]!,
          fit: { rmseW: rmse, n: points.length },
        };
    }
  }
  return best;
}

/** Modelled power of a fixed utilization mix at each fitted clock: the curve the V–f model is fitted on. */
export function referenceCurve(
  perClock: ClockPowerModel[],
  meanUtilization: Record<string, number>,
): { smClockMHz: number; powerW: number }[] {
  return perClock.map((m) => ({ smClockMHz: m.smClockMHz, powerW: evaluatePower(m, meanUtilization) }));
}

/**
 * Power-model coefficients at any clock: the fitted ones at a profiled clock, V–f-shaped interpolation between
 * (or beyond) them otherwise. Without a V–f model the interpolation is linear and clamped.
 */
export function coefficientsAt(
  perClock: ClockPowerModel[],
  vf: VfModel | null,
  smClockMHz: number,
): Pick<ClockPowerModel, 'interceptW' | 'coefficientsW'> & { interpolated: boolean } {
  const sorted = [...perClock].sort((a, b) => a.smClockMHz - b.smClockMHz);
  const exact = sorted.find((m) => Math.abs(m.smClockMHz - smClockMHz) < 0.5);
  if (exact) return { interceptW: exact.interceptW, coefficientsW: exact.coefficientsW, interpolated: false };
  let lo = sorted[0]!;
  let hi = sorted[sorted.length - 1]!;
  for (const m of sorted) {
    if (m.smClockMHz <= smClockMHz) lo = m;
    if (m.smClockMHz >= smClockMHz) {
      hi = m;
      break;
    }
  }
  if (smClockMHz < sorted[0]!.smClockMHz) hi = lo = sorted[0]!;
  if (smClockMHz > sorted[sorted.length - 1]!.smClockMHz) lo = hi = sorted[sorted.length - 1]!;
  const w = hi.smClockMHz === lo.smClockMHz ? 0 : (smClockMHz - lo.smClockMHz) / (hi.smClockMHz - lo.smClockMHz);
  const shapeI = (f: number) => (vf ? vfPower(vf, f) : 1);
  const shapeD = (f: number) => (vf ? dynamicShape(vf, f) : 1);
  const interp = (a: number, b: number, shape: (f: number) => number) => {
    const ra = a / shape(lo.smClockMHz);
    const rb = b / shape(hi.smClockMHz);
    return (ra + w * (rb - ra)) * shape(smClockMHz);
  };
  const comps = new Set([...Object.keys(lo.coefficientsW), ...Object.keys(hi.coefficientsW)]);
  const coefficientsW: Record<string, number> = {};
  for (const c of comps) coefficientsW[c] = interp(lo.coefficientsW[c] ?? 0, hi.coefficientsW[c] ?? 0, shapeD);
  return { interceptW: interp(lo.interceptW, hi.interceptW, shapeI), coefficientsW, interpolated: true };
}

/**
 * The calibrated power model at any SM clock: the per-clock models at the calibration's main memory clock, shaped
 * between (and beyond) the fitted clocks by the V–f model (vf-model.ts coefficientsAt). One definition for predict,
 * annotate's power configuration and the physics checks.
 */
import type { Calibration } from './calibration.js';
import { evaluatePower, type ClockPowerModel } from './power-model.js';
import { coefficientsAt } from './vf-model.js';

/** Per-clock models at one memory clock: the most common one when memory clocks were swept too. */
export function modelsAtMainMemClock(cal: Calibration): ClockPowerModel[] {
  if (cal.clocks.memClocksMHz.length <= 1) return cal.power.perClock;
  const counts = new Map<number | null, number>();
  for (const m of cal.power.perClock) counts.set(m.memClockMHz, (counts.get(m.memClockMHz) ?? 0) + 1);
  const main = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  return cal.power.perClock.filter((m) => m.memClockMHz === main);
}

/** P0 (all utilizations zero) and W per unit utilization of each component at SM clock f. */
export function componentPowersAt(
  cal: Calibration,
  smClockMHz: number,
): { interceptW: number; coefficientsW: Record<string, number> } {
  const c = coefficientsAt(modelsAtMainMemClock(cal), cal.vf, smClockMHz);
  return { interceptW: c.interceptW, coefficientsW: { ...c.coefficientsW } };
}

/** The calibrated power model at SM clock f (main memory clock), W, for utilizations u. */
export function modelPower(cal: Calibration, smClockMHz: number, u: Record<string, number>): number {
  return evaluatePower(coefficientsAt(modelsAtMainMemClock(cal), cal.vf, smClockMHz), u);
}

/**
 * The DRAM part of the modelled power at f for utilizations u, W: the dram_active component's β·u; null when the
 * calibration has no DRAM component or the kernel no DRAM utilization (nothing tells the part).
 */
export function dramPowerW(cal: Calibration, smClockMHz: number, u: Record<string, number>): number | null {
  if (!cal.components.includes('dram_active')) return null;
  const du = u.dram_active;
  if (typeof du !== 'number' || !Number.isFinite(du)) return null;
  const beta = coefficientsAt(modelsAtMainMemClock(cal), cal.vf, smClockMHz).coefficientsW.dram_active ?? 0;
  return beta * du;
}

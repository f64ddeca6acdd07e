/**
 * Physics bounds a modelled kernel must respect at a clock: at most the calibration's power cap, at least the
 * device's idle power there (a kernel cannot draw less than the GPU doing nothing), and, for a compute kernel
 * whose FLOPs are known, at least the device's best energy per FLOP at its precision (a purely compute-bound
 * kernel at the pipe's peak rate, at the most efficient clock of the device's range, by the calibration's own
 * model). A figure outside them is counted and warned (diagnostic codes below), never printed as if sound.
 */
import { clockRange, type Calibration } from './calibration.js';
import { idlePowerAt } from './idle-power.js';
import { estimateFromRoofline, type RooflineWork } from './predict.js';

export const PHYSICS_CODES = {
  aboveCap: 'node-power-above-cap',
  belowIdle: 'node-power-below-idle',
  belowBestEnergyPerFlop: 'node-energy-below-best-j-per-flop',
} as const;

/** Flags of a modelled node (a bit mask). */
export const ABOVE_CAP = 1;
export const BELOW_IDLE = 2;
export const BELOW_BEST_J_PER_FLOP = 4;

/** Relative slack before a figure counts as outside a bound (rounding of the models, not physics). */
const SLACK = 1e-3;

export interface ClockBounds {
  smClockMHz: number;
  capW: number | null;
  idleW: number | null;
}

export function boundsAt(cal: Calibration, smClockMHz: number): ClockBounds {
  return { smClockMHz, capW: cal.powerCap.powerW, idleW: idlePowerAt(cal, smClockMHz)?.powerW ?? null };
}

/** ABOVE_CAP | BELOW_IDLE of a modelled power at the bounds' clock. */
export function powerFlags(powerW: number, b: ClockBounds): number {
  let f = 0;
  if (b.capW !== null && powerW > b.capW * (1 + SLACK)) f |= ABOVE_CAP;
  if (b.idleW !== null && powerW < b.idleW * (1 - SLACK)) f |= BELOW_IDLE;
  return f;
}

export interface BestEnergyPerFlop {
  joulesPerFlop: number;
  atClockMHz: number;
  precision: NonNullable<RooflineWork['precision']>;
}

/**
 * The device's best energy per FLOP at a precision: the roofline estimate of a purely compute-bound kernel
 * (bytes 0, launch overhead negligible) over the device's clock range, its lowest J/FLOP. Null without datasheet
 * facts (no peak FLOP/s).
 */
export function bestEnergyPerFlop(
  cal: Calibration,
  precision: NonNullable<RooflineWork['precision']>,
): BestEnergyPerFlop | null {
  if (!cal.datasheet) return null;
  const r = clockRange(cal);
  const clocks = new Set<number>(cal.clocks.smClocksMHz.filter((f) => f >= r.minMHz && f <= r.maxMHz));
  const steps = 120;
  for (let i = 0; i <= steps; i++) clocks.add(r.minMHz + ((r.maxMHz - r.minMHz) * i) / steps);
  const flops = 1e18;
  let best: BestEnergyPerFlop | null = null;
  for (const f of clocks) {
    const j = estimateFromRoofline(cal, { flops, bytes: 0, precision }, f).energyJ / flops;
    if (best === null || j < best.joulesPerFlop) best = { joulesPerFlop: j, atClockMHz: f, precision };
  }
  return best;
}

/** BELOW_BEST_J_PER_FLOP when a node of `flops` FLOPs is modelled at less energy than the device's best allows. */
export function energyPerFlopFlag(energyJ: number, flops: number, best: BestEnergyPerFlop | null): number {
  return best !== null && flops > 0 && energyJ < flops * best.joulesPerFlop * (1 - SLACK) ? BELOW_BEST_J_PER_FLOP : 0;
}

/** The message of a flagged node, naming it, the figure and the bound. */
export function describeFlag(
  flag: number,
  node: string,
  at: { powerW: number; energyJ: number; flops: number },
  b: ClockBounds,
  best: BestEnergyPerFlop | null,
): string {
  const w = (x: number) => `${Number(x.toPrecision(4))} W`;
  if (flag === ABOVE_CAP)
    return (
      `${node}: modelled power ${w(at.powerW)} at ${b.smClockMHz} MHz is above the calibration's power cap ` +
      `${w(b.capW ?? 0)} (a measurement above the cap, scaled)`
    );
  if (flag === BELOW_IDLE)
    return (
      `${node}: modelled power ${w(at.powerW)} at ${b.smClockMHz} MHz is below the device's idle power there, ` +
      w(b.idleW ?? 0)
    );
  return (
    `${node}: ${Number(((at.energyJ / at.flops) * 1e12).toPrecision(4))} pJ/FLOP at ${b.smClockMHz} MHz is below ` +
    `the device's best, ${Number(((best?.joulesPerFlop ?? 0) * 1e12).toPrecision(4))} pJ/FLOP (${best?.precision} ` +
    `at ${best?.atClockMHz.toFixed(0)} MHz): its num_ops or duration is off`
  );
}

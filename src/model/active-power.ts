/**
 * The power assumed for a GPU kernel of which nothing but its duration is known (a Kineto trace without counters
 * or power log, a trace node without a profile): the calibration's active power at the clock. With datasheet facts,
 * the datasheet's active power at the highest clock, scaled to the clock by the calibration's power model at full
 * utilization; without them, that model itself; never above the power cap. An estimate, and said to be one.
 */
import { maxSmClock, type Calibration } from './calibration.js';
import { modelPower } from './model-power.js';

export interface AssumedPower {
  powerW: number;
  /** What was assumed, in words. */
  basis: string;
}

export function assumedKernelPowerW(cal: Calibration, frequencyMHz: number): AssumedPower {
  const full = Object.fromEntries(cal.components.map((c) => [c, 1]));
  const cap = cal.powerCap.powerW ?? Infinity;
  const atF = modelPower(cal, frequencyMHz, full);
  const capNote = (p: number) => (p > cap ? `, held at the ${cap} W power cap` : '');
  if (cal.datasheet) {
    const fmax = maxSmClock(cal).mhz;
    const top = modelPower(cal, fmax, full);
    const p = top > 0 ? (cal.datasheet.activePowerW * atF) / top : cal.datasheet.activePowerW;
    return {
      powerW: Math.min(cap, p),
      basis:
        `the datasheet active power of ${cal.device.name} (${cal.datasheet.activePowerW} W at ${fmax} MHz), ` +
        `scaled to other clocks by the calibration's power model at full utilization${capNote(p)}`,
    };
  }
  return {
    powerW: Math.min(cap, atF),
    basis:
      `the calibration's modelled power of ${cal.device.name} at ${frequencyMHz} MHz with every utilization at 1` +
      capNote(atF),
  };
}

/**
 * Idle power at an SM clock: what the GPU draws while it computes nothing, held at that clock (between kernels, or
 * while a job waits), from the calibration's idle block (an idle measurement or a published figure; never the
 * active fit at zero utilization). At a measured clock the measurement; between measured clocks and beyond them
 * static ∝ V: each point is divided by V at its clock (the calibration's V–f model), the reduced value interpolated
 * linearly in f (held at the nearest point outside), and multiplied by V at the target clock. Without a V–f model
 * V is taken as 1 (the figure is the same at every clock outside the measured ones).
 */
import type { Calibration, IdleFacts, IdlePoint } from './calibration.js';
import { voltageAt } from './vf-model.js';

export interface IdleAt {
  powerW: number;
  /** Where the figure comes from (the calibration's source sentence), for outputs that must say it. */
  source: string;
  /** How the figure at this clock was obtained from the measured ones, in words. */
  how: string;
}

/** The calibration's idle block, or for files written before it, one made from the datasheet's idle figure. */
export function idleFacts(cal: Calibration): IdleFacts | null {
  if (cal.idle) return cal.idle;
  const ds = cal.datasheet;
  if (!ds) return null;
  return {
    powerW: ds.idlePowerW,
    smClockMHz: ds.maxSmClockMHz,
    basis: 'published',
    perClock: [{ smClockMHz: ds.maxSmClockMHz, memClockMHz: null, powerW: ds.idlePowerW, samples: 1 }],
    source:
      `the datasheet block's idle figure (${ds.idlePowerW} W; the calibration predates idle blocks: re-run ` +
      `tracewatt calibrate for a sourced one): ${ds.source}`,
  };
}

/** The memory clock most per-clock power models use (the one the calibration's predictions are made at). */
function mainMemClock(cal: Calibration): number | null {
  const counts = new Map<number | null, number>();
  for (const m of cal.power.perClock) counts.set(m.memClockMHz, (counts.get(m.memClockMHz) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

/** Idle points at the calibration's main memory clock (all of them when none was recorded there), by SM clock. */
function pointsOf(cal: Calibration, idle: IdleFacts): IdlePoint[] {
  const mem = mainMemClock(cal);
  const atMem = idle.perClock.filter((p) => mem === null || p.memClockMHz === null || p.memClockMHz === mem);
  return [...(atMem.length ? atMem : idle.perClock)].sort((a, b) => a.smClockMHz - b.smClockMHz);
}

/** Idle power at SM clock f (W, an estimate), or null when the calibration has no idle figure at all. */
export function idlePowerAt(cal: Calibration, smClockMHz: number): IdleAt | null {
  const idle = idleFacts(cal);
  if (!idle) return null;
  const pts = pointsOf(cal, idle);
  const v = (f: number) => (cal.vf ? voltageAt(cal.vf, f) : 1);
  const exact = pts.find((p) => Math.abs(p.smClockMHz - smClockMHz) < 0.5);
  if (exact)
    return {
      powerW: exact.powerW,
      source: idle.source,
      how: `${idle.basis === 'measured' ? 'measured' : 'the published figure'} at ${exact.smClockMHz} MHz`,
    };
  const scaled = (p: IdlePoint) => p.powerW / v(p.smClockMHz);
  const shape = cal.vf
    ? "∝ V (static power, the calibration's V–f model)"
    : 'with V taken as 1 (the calibration has no V–f model)';
  let reduced: number;
  let how: string;
  const first = pts[0]!;
  const last = pts[pts.length - 1]!;
  if (smClockMHz < first.smClockMHz || smClockMHz > last.smClockMHz) {
    const near = smClockMHz < first.smClockMHz ? first : last;
    reduced = scaled(near);
    how = `${near.powerW} W at ${near.smClockMHz} MHz scaled to ${smClockMHz} MHz ${shape}`;
  } else {
    const i = pts.findIndex((p) => p.smClockMHz > smClockMHz);
    const a = pts[i - 1]!;
    const b = pts[i]!;
    const w = (smClockMHz - a.smClockMHz) / (b.smClockMHz - a.smClockMHz);
    reduced = scaled(a) + w * (scaled(b) - scaled(a));
    how = `interpolated between ${a.smClockMHz} and ${b.smClockMHz} MHz ${shape}`;
  }
  return { powerW: reduced * v(smClockMHz), source: idle.source, how };
}

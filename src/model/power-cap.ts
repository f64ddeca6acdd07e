/**
 * Power-cap detection: a GPU at its power limit stops drawing more power as the requested clock rises, and its
 * time stops improving (the firmware lowers the real clock). A kernel is capped at clock f_hi when, against the
 * next lower clock, its power changes by < 2% while its time improves by < 25% of what the clock ratio allows,
 * and its power is within 10% of the highest power seen — a robust highest ({@link highPowerW}: one glitched reading
 * does not move it). The cap is declared when at least two kernels and 20% of the kernels with a sweep show it; its
 * level is the median power of the capped points.
 */
import type { PowerCap } from './calibration.js';

/** Relative change under which power between two clocks is called flat. */
const FLAT = 0.02;
/**
 * A point drawing at least this fraction of the cap level counts as capped (the band in which power is called flat).
 */
export const CAP_BAND = 1 - FLAT;

export interface CapSeries {
  label: string;
  points: { smClockMHz: number; durationNs: number; powerW: number }[];
}

/**
 * The high power reading the cap test compares with: the highest that at least `share` of the readings (and never
 * fewer than `minCount`) reach — a high percentile that a few glitched readings cannot move.
 */
export const HIGH_POWER = { share: 0.005, minCount: 3 };

/**
 * The highest power the readings show, robust to glitches ({@link HIGH_POWER}): the k-th highest reading, k =
 * max(minCount, share × readings). A single spike (one energy written ×3) is not it. Fewer than k readings: the
 * lowest. 0 with none.
 */
export function highPowerW(readings: number[]): number {
  const sorted = readings.filter((w) => Number.isFinite(w)).sort((a, b) => b - a);
  if (sorted.length === 0) return 0;
  const k = Math.max(HIGH_POWER.minCount, Math.ceil(HIGH_POWER.share * sorted.length));
  return sorted[Math.min(k, sorted.length) - 1]!;
}

export function detectPowerCap(series: CapSeries[], profileLimitW: number | null = null): PowerCap {
  const readings = series.flatMap((s) => s.points.map((p) => p.powerW));
  const maxP = highPowerW(readings);
  const capped: number[] = [];
  const labels: string[] = [];
  let swept = 0;
  for (const s of series) {
    const pts = [...s.points].sort((a, b) => a.smClockMHz - b.smClockMHz);
    if (pts.length < 3) continue;
    swept++;
    let hit = false;
    for (let i = 1; i < pts.length; i++) {
      const a = pts[i - 1]!;
      const b = pts[i]!;
      const allowed = 1 - a.smClockMHz / b.smClockMHz;
      const gained = 1 - b.durationNs / a.durationNs;
      if (b.powerW >= 0.9 * maxP && Math.abs(b.powerW / a.powerW - 1) < FLAT && gained < 0.25 * allowed) {
        capped.push(b.powerW);
        hit = true;
      }
    }
    if (hit) labels.push(s.label);
  }
  if (capped.length && labels.length >= 2 && labels.length >= 0.2 * swept) {
    const sorted = capped.sort((a, b) => a - b);
    const level = sorted[Math.floor(sorted.length / 2)]!;
    return {
      detected: true,
      powerW: Math.min(level, profileLimitW ?? Infinity),
      source: 'detected',
      evidence:
        `${labels.length} of ${swept} kernels keep power flat (±${FLAT * 100}%) near ${level.toFixed(1)} W while ` +
        `time stops improving, e.g. ${labels.slice(0, 3).join(', ')}`,
    };
  }
  if (profileLimitW)
    return {
      detected: false,
      powerW: profileLimitW,
      source: 'profile',
      evidence: `power limit ${profileLimitW} W reported by the profile; no capped kernels seen`,
    };
  return {
    detected: false,
    powerW: null,
    source: 'none',
    evidence:
      `no kernel showed flat power with stalled time (${swept} kernels with ≥3 clocks, highest power ` +
      `${Math.max(0, ...readings).toFixed(1)} W)`,
  };
}

/** The cap a prediction uses after checking the calibration's cap against measured powers. */
export interface CapInForce {
  /** W; null when no cap applies (none known, or the one given was refuted by a measurement). */
  powerW: number | null;
  /** True when a measured power above the calibration's cap set it aside. */
  overridden: boolean;
  /** One sentence for the output when the cap was set aside; null otherwise. */
  note: string | null;
}

/**
 * A measured power above the calibration's cap (beyond the ±2% band in which the detector calls power flat) is
 * evidence that the cap is wrong for this GPU (a datasheet guess, another board, another power limit): the
 * measurement wins and the cap is set aside (powerW null), with a note. Measurements never lower a cap here: only
 * flat power with stalled time does that ({@link detectPowerCap}).
 */
export function capInForce(cap: PowerCap, measured: { powerW: number; where: string }[]): CapInForce {
  if (cap.powerW === null) return { powerW: null, overridden: false, note: null };
  let top: { powerW: number; where: string } | null = null;
  for (const m of measured) if (Number.isFinite(m.powerW) && (top === null || m.powerW > top.powerW)) top = m;
  if (top === null || top.powerW <= cap.powerW * (1 + FLAT))
    return { powerW: cap.powerW, overridden: false, note: null };
  return {
    powerW: null,
    overridden: true,
    note:
      `measured ${top.powerW.toFixed(1)} W (${top.where}) is above the calibration's power cap ` +
      `${cap.powerW.toFixed(1)} W (source: ${cap.source}) by more than ${FLAT * 100}%: the measurement wins and ` +
      `that cap is not applied`,
  };
}

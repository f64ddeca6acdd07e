import { describe, expect, it } from 'vitest';
import { CAP_BAND } from '../../src/model/power-cap.js';
import { fitStage, predictStage } from '../../src/model/stage-fit.js';

describe('counter-free stage fit with a power cap', () => {
  // Two uncapped clocks and one capped clock whose time barely improved: its effective clock is just above 1305 MHz,
  // so the quadratic power fit is steep there and rises again far below the fitted clocks.
  const pts = [
    { smClockMHz: 1005, durationNs: 1.2e6, powerW: 200 },
    { smClockMHz: 1305, durationNs: 1.0e6, powerW: 240 },
    { smClockMHz: 1605, durationNs: 0.99e6, powerW: 300 },
  ];
  const fit = fitStage(pts, 300);

  it('takes a point within the detector band of the cap as capped', () => {
    expect(CAP_BAND).toBe(0.98);
    expect(fit.cappedPoints).toBe(1);
    expect(fitStage([...pts.slice(0, 2), { ...pts[2]!, powerW: 0.975 * 300 }], 300).cappedPoints).toBe(0);
  });
  it('searches for the cap clock only above the highest uncapped fitted clock', () => {
    expect(fit.capClockMHz).toBeGreaterThan(1305);
    expect(fit.capClockMHz).toBeLessThanOrEqual(1605);
    const low = predictStage(fit, 1005);
    expect(low.effectiveClockMHz).toBe(1005);
    expect(low.powerW).toBeCloseTo(200, 6);
    expect(low.durationNs).toBeCloseTo(1.2e6, 0);
  });
  it('keeps time and power at the cap above it', () => {
    const hi = predictStage(fit, 1700);
    expect(hi.powerW).toBe(300);
    expect(hi.effectiveClockMHz).toBe(fit.capClockMHz);
  });
});

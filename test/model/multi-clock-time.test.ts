import { describe, expect, it } from 'vitest';
import { fitMultiClock, fitRoofExponent, multiClockDurationNs } from '../../src/model/multi-clock-time.js';

const roofline = (memNs: number, clockNsMHz: number, p: number) => (f: number) =>
  (memNs ** p + (clockNsMHz / f) ** p) ** (1 / p);

describe('smooth roofline from two or more clocks', () => {
  it('passes through both profiled clocks for any exponent', () => {
    const pts = [
      { smClockMHz: 1710, durationNs: 1.0e6 },
      { smClockMHz: 870, durationNs: 1.3e6 },
    ];
    for (const p of [1, 2, 3.5, 8]) {
      const fit = fitMultiClock(pts, p);
      for (const q of pts) expect(multiClockDurationNs(fit, q.smClockMHz)).toBeCloseTo(q.durationNs, -1);
    }
  });
  it('is the additive form A + B/f at exponent 1', () => {
    const fit = fitMultiClock(
      [900, 1200, 1500].map((f) => ({ smClockMHz: f, durationNs: 2e5 + 3e8 / f })),
      1,
    );
    expect(fit.memTermNsP).toBeCloseTo(2e5, 0);
    expect(fit.clockTermNsMHzP).toBeCloseTo(3e8, -2);
  });
  it('keeps a kernel memory-bound at the high clock flat until its clock-bound part catches up (large exponent)', () => {
    const t = roofline(1e6, 1.5e6 * 870, 8);
    const pts = [1710, 870].map((f) => ({ smClockMHz: f, durationNs: t(f) }));
    const sharp = fitMultiClock(pts, 8);
    const additive = fitMultiClock(pts, 1);
    expect(multiClockDurationNs(sharp, 1200)).toBeCloseTo(t(1200), -2);
    expect(multiClockDurationNs(additive, 1200) / t(1200)).toBeGreaterThan(1.005);
  });
  it('keeps both terms non-negative (a kernel faster at a lower clock keeps a constant time)', () => {
    const fit = fitMultiClock(
      [
        { smClockMHz: 1700, durationNs: 1e6 },
        { smClockMHz: 900, durationNs: 0.9e6 },
      ],
      3,
    );
    expect(fit.clockTermNsMHzP).toBe(0);
    // The constant is the mean in t^p: ((1e6³ + 0.9e6³) / 2)^(1/3).
    expect(multiClockDurationNs(fit, 1200)).toBeCloseTo(((1e18 + 0.729e18) / 2) ** (1 / 3), -1);
    expect(multiClockDurationNs(fit, 1200)).toBe(multiClockDurationNs(fit, 1600));
  });
});

describe('roofline exponent fitted on calibration kernels', () => {
  it('recovers the exponent the kernels were generated with', () => {
    const clocks = [705, 870, 945, 1110, 1215, 1305, 1410, 1500, 1605, 1710];
    const kernels = [0.1, 0.3, 0.5, 0.7, 0.9, 1.1].map((share) => {
      const t = roofline(1e6 * share, 1e6 * 1710 * (1.2 - share), 3);
      return clocks.map((f) => ({ smClockMHz: f, durationNs: t(f) }));
    });
    const fit = fitRoofExponent(kernels)!;
    expect(fit.exponent).toBe(3);
    expect(fit.mapePct).toBeLessThan(0.01);
    expect(fit.additiveMapePct).toBeGreaterThan(fit.mapePct);
  });
  it('returns null when no kernel has three clocks', () => {
    expect(
      fitRoofExponent([
        [
          { smClockMHz: 900, durationNs: 1 },
          { smClockMHz: 1800, durationNs: 0.5 },
        ],
      ]),
    ).toBeNull();
  });
});

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCalibration, validateCalibration } from '../../src/model/calibration.js';
import { datasheetCalibration } from '../../src/model/datasheet-calibration.js';
import { capInForce } from '../../src/model/power-cap.js';
import { modelPower } from '../../src/model/model-power.js';
import { predictKernelBand } from '../../src/model/predict-band.js';
import {
  bandAround,
  buildCounterSpace,
  clockGeometry,
  counterDistance,
  exponentEnvelope,
  exponentRange,
  fitQuantityBand,
  heldOutInflation,
  residualOutside,
  type ResidualCase,
} from '../../src/model/uncertainty.js';
import { describeRegime } from '../../src/model/predict-band.js';
import { fitMultiClock, kernelRoofExponents, multiClockDurationNs } from '../../src/model/multi-clock-time.js';
import { repoRoot } from '../helpers/shared.js';
import * as tw from '../../src/index.js';
import { predictProfile } from '../../src/engines/calibrate/predict.js';
import { newSample } from '../../src/vocab/kernel-sample.js';

/** A deterministic spread of standard values in (−1, 1) with known quantiles (uniform: q10 ≈ −0.8, q90 ≈ 0.8). */
const uniform = (n: number) => Array.from({ length: n }, (_, i) => -1 + (2 * (i + 0.5)) / n);
/** Within 1% (relative) of the expected value. */
const near = (actual: number, expected: number) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(0.01 * Math.abs(expected) + 1e-12);

describe('clock geometry', () => {
  it('names the way a clock is predicted and its distance from the profiled clock(s)', () => {
    expect(clockGeometry([1710], 1710)).toEqual({ mode: 'profiled', distance: 0 });
    expect(clockGeometry([1710], 870)).toMatchObject({ mode: 'one-clock-down' });
    expect(clockGeometry([1710], 870).distance).toBeCloseTo(Math.log(1710 / 870), 12);
    expect(clockGeometry([870], 1710).mode).toBe('one-clock-up');
    expect(clockGeometry([870, 1710], 705)).toMatchObject({ mode: 'two-clock-outside' });
    // Two clocks: the product of the log distances to the two profiled clocks (bracketing the target, or the two
    // nearest outside them), as the error of a curve through two points grows: zero at either, largest between.
    expect(clockGeometry([870, 1710], 705).distance).toBeCloseTo(Math.log(870 / 705) * Math.log(1710 / 705), 12);
    const inside = clockGeometry([870, 1710], 1215);
    const a = Math.log(1215 / 870);
    const b = Math.log(1710 / 1215);
    expect(inside.mode).toBe('two-clock-inside');
    expect(inside.distance).toBeCloseTo(a * b, 12);
    expect(clockGeometry([870, 1710], 900).distance).toBeLessThan(inside.distance);
    expect(clockGeometry([705, 870, 1710], 1215).distance).toBeCloseTo(a * b, 12);
    expect(clockGeometry([705, 870, 1710], 600).distance).toBeCloseTo(Math.log(705 / 600) * Math.log(870 / 600), 12);
    // Files written before `twoClockDistance`: a·b/(a+b) inside, the nearest clock's log distance outside.
    expect(clockGeometry([870, 1710], 1215, 'harmonic').distance).toBeCloseTo((a * b) / (a + b), 12);
    expect(clockGeometry([870, 1710], 705, 'harmonic').distance).toBeCloseTo(Math.log(870 / 705), 12);
    // Near a profiled clock the product shrinks with the span: the pair 1500 + 1710 is surer at 1605 than 870 + 1710 at
    // 945.
    expect(clockGeometry([1500, 1710], 1605).distance).toBeLessThan(clockGeometry([870, 1710], 945).distance / 4);
  });
});

describe('exponent envelope of two-clock times', () => {
  const hi = { smClockMHz: 1710, durationNs: 1.0e6 };
  const lo = { smClockMHz: 870, durationNs: 1.5e6 };
  it("spans the kernel's curves over the exponent range, around the calibration's exponent", () => {
    const range = { p10: 2, p90: 8, kernels: 20 };
    const env = exponentEnvelope([hi, lo], 1215, 3.25, range);
    expect(env.lo).toBeLessThan(1);
    expect(env.hi).toBeGreaterThan(1);
    const t = (p: number) =>
      multiClockDurationNs(fitMultiClock([hi, lo], p), 1215) /
      multiClockDurationNs(fitMultiClock([hi, lo], 3.25), 1215);
    expect([env.lo, env.hi].sort()).toEqual([t(2), t(8)].sort());
    // A purely clock-bound kernel (t ∝ 1/f) is the same curve at every exponent: no envelope.
    const pure = exponentEnvelope([hi, { smClockMHz: 855, durationNs: 2.0e6 }], 1215, 3.25, range);
    expect(pure.lo).toBeCloseTo(1, 9);
    expect(pure.hi).toBeCloseTo(1, 9);
  });

  it('residuals outside an envelope are zero inside it and the log distance to the nearer edge outside', () => {
    expect(residualOutside(0.9, 1.1, 1)).toBe(0);
    expect(residualOutside(0.9, 1.1, 0.8)).toBeCloseTo(Math.log(0.9 / 0.8), 12);
    expect(residualOutside(0.9, 1.1, 1.2)).toBeCloseTo(Math.log(1.1 / 1.2), 12);
  });

  it('learns the 10–90 % range from kernels whose error depends on the exponent, and needs ten of them', () => {
    const clocks = [855, 1005, 1155, 1305, 1455, 1605, 1710];
    // Kernels on t = (M^p + (C/f)^p)^(1/p) with p = 2 … 6, and pure clock-bound ones (any p fits them).
    const kernel = (p: number) =>
      clocks.map((f) => ({ smClockMHz: f, durationNs: (1e6 ** p + (1.2e9 / f) ** p) ** (1 / p) }));
    const pure = clocks.map((f) => ({ smClockMHz: f, durationNs: 1.2e9 / f }));
    const found = kernelRoofExponents([...[2, 3, 4, 5, 6].flatMap((p) => [kernel(p), kernel(p)]), pure, pure]);
    expect(found.kernels).toBe(12);
    expect(found.exponents).toEqual([2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
    expect(exponentRange(found.exponents)).toEqual({ p10: 2, p90: 6, kernels: 10 });
    expect(exponentRange(found.exponents.slice(1))).toBeNull();
  });
});

describe('band fitted from residuals', () => {
  // Residuals r = x·z with z uniform in (−1, 1) at four clock distances: q10(x) = −0.8x, q90(x) = 0.8x.
  const xs = [0.1, 0.2, 0.4, 0.8];
  const cases: ResidualCase[] = xs.flatMap((x) =>
    uniform(200).map((z) => ({ distance: x, counterDistance: 0, residual: x * z })),
  );

  it(
    'recovers the quantiles per distance, held flat below the nearest bin (a floor), proportional beyond the ' + 'last',
    () => {
      const band = fitQuantityBand(cases)!;
      expect(band.distance).toHaveLength(5);
      band.distance.forEach((x, i) => expect(x).toBeCloseTo([0, ...xs][i]!, 12));
      band.distance.forEach((x, i) => {
        near(band.q10[i]!, -0.8 * Math.max(x, xs[0]!));
        near(band.q90[i]!, 0.8 * Math.max(x, xs[0]!));
      });
      // The floor: a clock nearer than any case is as uncertain as the nearest bin, not surer.
      near(bandAround(band, 0.02, 0, 1).p90, Math.exp(0.8 * 0.1));
      expect(band.widening).toBe(0);
      // measured = predicted · e^(−r): the measurement's band around p50 = 1.
      const b = bandAround(band, 0.3, 0, 1);
      near(b.p10, Math.exp(-0.8 * 0.3));
      near(b.p90, Math.exp(0.8 * 0.3));
      near(bandAround(band, 1.6, 0, 1).p90, Math.exp(0.8 * 1.6));
    },
  );

  it('widens with the distance in counter space, as far as the cases reach and no farther', () => {
    // |r| grows as 1 + 2·d: the fitted widening is 2, and z = r / (1 + 2d) has the uniform quantiles again.
    const wide: ResidualCase[] = xs.flatMap((x) =>
      [0, 0.5, 1].flatMap((d) =>
        uniform(100).map((z) => ({ distance: x, counterDistance: d, residual: x * z * (1 + 2 * d) })),
      ),
    );
    const band = fitQuantityBand(wide)!;
    expect(band.widening).toBeCloseTo(2, 6);
    expect(band.maxCounterDistance).toBe(1);
    near(band.q90[band.q90.length - 1]!, 0.8 * 0.8);
    const close = bandAround(band, 0.4, 0, 1);
    const far = bandAround(band, 0.4, 1, 1);
    expect(far.p90 - far.p10).toBeGreaterThan(2.5 * (close.p90 - close.p10));
    expect(bandAround(band, 0.4, 50, 1)).toEqual(far);
  });

  it('never trusts a farther clock more, and needs enough cases', () => {
    // The middle distance has a narrow spread: the table keeps the wider band of the nearer clock.
    const bumpy = [
      ...cases.filter((c) => c.distance !== 0.4),
      ...uniform(200).map((z) => ({ distance: 0.4, counterDistance: 0, residual: 0.01 * z })),
    ];
    const band = fitQuantityBand(bumpy)!;
    for (let i = 1; i < band.q90.length; i++) {
      expect(band.q90[i]).toBeGreaterThanOrEqual(band.q90[i - 1]!);
      expect(band.q10[i]).toBeLessThanOrEqual(band.q10[i - 1]!);
    }
    expect(fitQuantityBand(cases.slice(0, 5))).toBeNull();
  });

  it('is symmetric by default: a bias the calibration kernels share does not make one side narrower', () => {
    // r = x·(z + 0.5): the kernels run faster than predicted; |r|/x has its 80 % quantile at 1.1.
    const biased: ResidualCase[] = xs.flatMap((x) =>
      uniform(200).map((z) => ({ distance: x, counterDistance: 0, residual: x * (z + 0.5) })),
    );
    const sym = fitQuantityBand(biased)!;
    sym.q90.forEach((h, i) => expect(sym.q10[i]).toBe(-h));
    near(sym.q90[sym.q90.length - 1]!, 1.1 * 0.8);
    // Per side: the 10 % and 90 % quantiles of r, as two-clock tables keep them.
    const sided = fitQuantityBand(biased, { symmetric: false })!;
    expect(sided.q10[sided.q10.length - 1]).toBeCloseTo(-0.3 * 0.8, 2);
    expect(sided.q90[sided.q90.length - 1]).toBeCloseTo(1.3 * 0.8, 2);
    expect(sym.maxDistance).toBe(0.8);
  });

  it('inflates by what a left-out fold needs: 1 when the folds agree, more when some are wider than the rest', () => {
    const fold = (f: number, scale: number) =>
      xs.flatMap((x) =>
        uniform(60).map((z) => ({ distance: x, counterDistance: 0, residual: scale * x * z, fold: f })),
      );
    expect(heldOutInflation([0, 1, 2, 3].flatMap((f) => fold(f, 1)))).toBeCloseTo(1, 9);
    // Two of four folds three times as wide: each, left out, reaches past the band of the other three, by more
    // than the narrow folds fall short of theirs (the 80 % quantile of the pooled ratios |r| / h).
    const k = heldOutInflation([...fold(0, 1), ...fold(1, 1), ...fold(2, 3), ...fold(3, 3)]);
    expect(k).toBeGreaterThan(1.1);
    expect(k).toBeLessThan(3);
    // Two folds cannot be left out in turn against the rest: no inflation.
    expect(heldOutInflation([0, 1].flatMap((f) => fold(f, 1 + f)))).toBe(1);
    const inflated = fitQuantityBand(
      [0, 1, 2, 3].flatMap((f) => fold(f, 1)),
      { inflation: 1.5 },
    )!;
    expect(
      inflated.q90[inflated.q90.length - 1]! / fitQuantityBand([0, 1, 2, 3].flatMap((f) => fold(f, 1)))!.q90.at(-1)!,
    ).toBeCloseTo(1.5, 9);
  });
});

describe('counter distance', () => {
  it('is the mean distance to the nearest calibration kernels in standard units; 0 without counters', () => {
    const space = buildCounterSpace(
      [
        { a: 0, b: 0 },
        { a: 1, b: 0 },
        { a: 0, b: 1 },
        { a: 1, b: 1 },
      ],
      1,
    )!;
    expect(space.scale).toEqual([0.5, 0.5]);
    expect(counterDistance(space, { a: 0, b: 0 })).toBe(0);
    expect(counterDistance(space, { a: 0.5, b: 0 })).toBeCloseTo(1, 6);
    expect(counterDistance(null, { a: 3 })).toBe(0);
    expect(buildCounterSpace([{}, {}])).toBeNull();
  });
});

describe('a measured power above the calibration cap', () => {
  const cap = { detected: false, powerW: 400, source: 'datasheet' as const, evidence: '' };
  it('sets the cap aside, and says so; a measurement within the ±2% band keeps it', () => {
    expect(capInForce(cap, [{ powerW: 405, where: 'a' }])).toEqual({ powerW: 400, overridden: false, note: null });
    const r = capInForce(cap, [
      { powerW: 300, where: 'a' },
      { powerW: 475, where: 'stage3/forward at 1410 MHz' },
    ]);
    expect(r.powerW).toBeNull();
    expect(r.overridden).toBe(true);
    expect(r.note).toMatch(
      /475\.0 W \(stage3\/forward at 1410 MHz\) is above the calibration's power cap 400\.0 W \(source: datasheet\)/,
    );
    expect(capInForce({ ...cap, powerW: null, source: 'none' }, [{ powerW: 900, where: 'a' }]).powerW).toBeNull();
  });
});

describe('predict with a measured power above the calibration cap', () => {
  it('does not cap any kernel at the refuted cap, and says why', () => {
    const cal = datasheetCalibration('A100');
    const sample = (name: string, powerW: number) =>
      newSample(
        name,
        { file: 'p.csv', row: 1, format: 'test' },
        {
          smClockMHz: 1410,
          durationNs: 2e6,
          powerW,
          utilization: { sm_active: 1, tensor_active: 0.9, dram_active: 0.5 },
        },
      );
    const table = { format: 'test', device: null, notes: [], samples: [sample('hot', 475), sample('warm', 390)] };
    const r = predictProfile(cal, table, { referenceClocksMHz: [1410], targetClocksMHz: [1410] });
    expect(r.notes.join()).toMatch(
      /measured 475\.0 W \(hot at 1410 MHz\) is above the calibration's power cap 400\.0 W/,
    );
    expect(r.rows.find((x) => x.kernel === 'hot')!.powerW).toBeCloseTo(475, 6);
    expect(r.rows.every((x) => !x.capped)).toBe(true);
    expect(r.advice).toBeNull();
    expect(r.rows[0]!.energyJP10).toBeNull();
  });
});

describe('calibration files and bands', () => {
  it('a file without a band model still loads (written before bands existed); its predictions carry no band', () => {
    const cal = datasheetCalibration('H100');
    expect(cal.uncertainty).toBeUndefined();
    expect(() => validateCalibration(cal, 'x.json')).not.toThrow();
    const p = predictKernelBand(
      cal,
      { smClockMHz: 1980, durationNs: 1e6, powerW: 500, utilization: { sm_active: 0.9 } },
      1200,
    );
    expect(p.band).toBeNull();
    expect(p.durationNs).toBeGreaterThan(1e6);
  });

  it('names a bad field of the band model', async () => {
    const cal = await loadCalibration(path.join(repoRoot, 'calibration/rtx8000.json'));
    const bad = structuredClone(cal) as any;
    bad.uncertainty.modes['one-clock-down'].energy.q10[2] = 0.5;
    expect(() => validateCalibration(bad, 'x.json')).toThrow(
      /x\.json: uncertainty\.modes\.one-clock-down\.energy: expected q10 ≤ 0 ≤ q90/,
    );
    const bad2 = structuredClone(cal) as any;
    bad2.uncertainty.modes['three-clock'] = bad2.uncertainty.modes['one-clock-down'];
    expect(() => validateCalibration(bad2, 'x.json')).toThrow(/uncertainty\.modes\.three-clock: unknown mode/);
    const bad3 = structuredClone(cal) as any;
    bad3.uncertainty.twoClockDistance = 'euclid';
    expect(() => validateCalibration(bad3, 'x.json')).toThrow(
      /x\.json: uncertainty\.twoClockDistance: expected one of product, harmonic, found/,
    );
    const bad4 = structuredClone(cal) as any;
    bad4.uncertainty.roofExponentRange = { p10: 4, p90: 2, kernels: 30 };
    expect(() => validateCalibration(bad4, 'x.json')).toThrow(
      /: uncertainty\.roofExponentRange\.p90: expected p90 ≥ p10/,
    );
    const bad5 = structuredClone(cal) as any;
    bad5.uncertainty.memoryCeiling = structuredClone(cal.uncertainty!.modes['one-clock-down']);
    expect(() => validateCalibration(bad5, 'x.json')).not.toThrow();
    bad5.uncertainty.memoryCeiling.time.q90[1] = -0.1;
    expect(() => validateCalibration(bad5, 'x.json')).toThrow(
      /x\.json: uncertainty\.memoryCeiling\.time: expected q10 ≤ 0 ≤ q90/,
    );
    const bad6 = structuredClone(cal) as any;
    bad6.uncertainty.powerMisfitMax = -1;
    expect(() => validateCalibration(bad6, 'x.json')).toThrow(/uncertainty.*powerMisfitMax/);
  });

  it('a band model written before twoClockDistance reads its two-clock tables by the old distance', async () => {
    const cal = await loadCalibration(path.join(repoRoot, 'calibration/rtx8000.json'));
    const legacy = structuredClone(cal);
    delete legacy.uncertainty!.twoClockDistance;
    delete legacy.uncertainty!.roofExponentRange;
    const profiles = [
      { smClockMHz: 1710, durationNs: 1.0e6, powerW: 200, utilization: { dram_active: 0.4, sm_active: 0.9 } },
      { smClockMHz: 870, durationNs: 1.6e6, powerW: 120, utilization: { dram_active: 0.3, sm_active: 0.9 } },
    ];
    const a = Math.log(1215 / 870);
    const b = Math.log(1710 / 1215);
    expect(predictKernelBand(legacy, profiles, 1215).band!.clockDistance).toBeCloseTo((a * b) / (a + b), 12);
    expect(predictKernelBand(cal, profiles, 1215).band!.clockDistance).toBeCloseTo(a * b, 12);
  });

  it(
    "two profiled clocks: the time band starts from the kernel's exponent envelope, and a clock-bound kernel has " +
      'none',
    async () => {
      const cal = await loadCalibration(path.join(repoRoot, 'calibration/rtx8000.json'));
      const range = cal.uncertainty!.roofExponentRange!;
      expect(range.p10).toBeLessThan(range.p90);
      const u = { dram_active: 0.3, sm_active: 0.9, fp32_active: 0.3 };
      const mixed = [
        { smClockMHz: 1710, durationNs: 1.0e6, powerW: 200, utilization: u },
        { smClockMHz: 870, durationNs: 1.5e6, powerW: 120, utilization: u },
      ];
      const clockBound = [mixed[0]!, { ...mixed[1]!, durationNs: (1.0e6 * 1710) / 870 }];
      const width = (p: typeof mixed) => {
        const t = predictKernelBand(cal, p, 1215).band!.durationNs;
        return t.p90 / t.p10;
      };
      const noEnvelope = structuredClone(cal);
      noEnvelope.uncertainty!.roofExponentRange = null;
      const env = exponentEnvelope(mixed, 1215, cal.time.roofExponent!.exponent, range);
      expect(env.hi / env.lo).toBeGreaterThan(1.01);
      expect(width(mixed)).toBeGreaterThan(width(clockBound) * 1.01);
      const without = predictKernelBand(noEnvelope, clockBound, 1215).band!.durationNs;
      const withEnv = predictKernelBand(cal, clockBound, 1215).band!.durationNs;
      for (const k of ['p10', 'p50', 'p90'] as const) expect(withEnv[k] / without[k]).toBeCloseTo(1, 12);
    },
  );

  it(
    'a kernel whose DRAM activity is above the memory ceiling at the target: the band of the kernels that ' +
      "crossed it, never narrower than its mode's; without that table, it reaches the clock-bound time",
    async () => {
      const cal = await loadCalibration(path.join(repoRoot, 'calibration/v100.json'));
      const ceiling = cal.uncertainty!.memoryCeiling!;
      // Six V100 microbenchmarks cross the ceiling: enough for a table of their own (MIN_CEILING_FOLDS).
      expect(ceiling.time.n).toBeGreaterThan(100);
      // The V100's calibrated ceiling falls from 0.93 at 1380 MHz to 0.63 at 705 MHz.
      const u = { dram_active: 0.9, sm_active: 0.95, sm_occupancy: 0.5, fp32_active: 0.05 };
      const profile = { smClockMHz: 1380, durationNs: 1.0e6, powerW: 200, utilization: u };
      const heavy = predictKernelBand(cal, profile, 705);
      const b = heavy.band!;
      expect(b.regime).toMatchObject({ memoryCeiling: true, clock: 'far' });
      expect(heavy.durationNs).toBeLessThan(1.0e6 * (1380 / 705) * 0.9);
      const fromTable = bandAround(ceiling.time, b.clockDistance, b.counterDistance, heavy.durationNs);
      const fromMode = bandAround(
        cal.uncertainty!.modes['one-clock-down']!.time,
        b.clockDistance,
        b.counterDistance,
        heavy.durationNs,
      );
      expect(b.durationNs.p90).toBeCloseTo(Math.max(fromTable.p90, fromMode.p90), 6);
      expect(b.durationNs.p10).toBeCloseTo(Math.min(fromTable.p10, fromMode.p10), 6);
      expect(describeRegime(b)).toBe(`one-clock-down · >40 % · counters ${b.regime.counter} · memory ceiling`);
      // Without the table (files written before it, or fewer than five benchmarks crossed): the clock-bound reach.
      const old = { ...cal, uncertainty: { ...cal.uncertainty!, memoryCeiling: undefined } };
      expect(predictKernelBand(old, profile, 705).band!.durationNs.p90).toBeGreaterThanOrEqual(1.0e6 * (1380 / 705));
      // The same kernel near the profiled clock, and a light one at 705 MHz: the band is the tables' alone.
      expect(predictKernelBand(cal, profile, 1237).band!.regime.memoryCeiling).toBe(false);
      const light = predictKernelBand(cal, { ...profile, utilization: { ...u, dram_active: 0.2 } }, 705).band!;
      expect(light.regime.memoryCeiling).toBe(false);
      expect(light.durationNs.p90 / light.durationNs.p50).toBeLessThan(1380 / 705);
      // Two profiled clocks: the kernel's own curve, no reach.
      expect(
        predictKernelBand(cal, [profile, { ...profile, smClockMHz: 945, durationNs: 1.4e6 }], 705).band!.regime
          .memoryCeiling,
      ).toBe(false);
    },
  );

  it(
    "a kernel whose profiled power the power model cannot explain: its power and energy bands reach the model's " +
      'figure',
    async () => {
      const cal = await loadCalibration(path.join(repoRoot, 'calibration/rtx8000.json'));
      const u = { dram_active: 0.03, sm_active: 0.95, sm_occupancy: 0.84, fp32_active: 0.9 };
      const modelW = (f: number, p: { utilization: Record<string, number> }) => modelPower(cal, f, p.utilization);
      const explained = {
        smClockMHz: 1710,
        durationNs: 2.6e6,
        powerW: modelW(1710, { utilization: u }),
        utilization: u,
      };
      expect(predictKernelBand(cal, explained, 1305).band!.regime.powerUnexplained).toBe(false);
      // mixbench-cuda-alt int input001 on the RTX 8000 reads 121 W at 1710 MHz and 243 W at 1605 MHz: half the model's.
      const glitch = { ...explained, powerW: explained.powerW * Math.exp(-1.2 * cal.uncertainty!.powerMisfitMax!) };
      const p = predictKernelBand(cal, glitch, 1305);
      expect(p.band!.regime.powerUnexplained).toBe(true);
      expect(describeRegime(p.band!)).toContain('power unexplained');
      const atTarget = Math.min(cal.powerCap.powerW ?? Infinity, modelPower(cal, p.effectiveClockMHz, p.utilization));
      expect(p.band!.powerW.p90).toBeGreaterThanOrEqual(atTarget);
      expect(p.band!.energyJ.p90).toBeGreaterThanOrEqual((atTarget * p.durationNs) / 1e9);
    },
  );

  it('the library entry exposes the band API', () => {
    expect(tw.predictKernelBand).toBe(predictKernelBand);
    expect(typeof tw.fitCalibrationWithBands).toBe('function');
  });

  it('gives p10 ≤ p50 ≤ p90 away from the profiled clock and the measurement itself at it', async () => {
    const cal = await loadCalibration(path.join(repoRoot, 'calibration/rtx8000.json'));
    const profile = {
      smClockMHz: 1710,
      durationNs: 1.0e6,
      powerW: 200,
      utilization: { dram_active: 0.4, fp32_active: 0.3, sm_active: 0.9, sm_occupancy: 0.5 },
    };
    const at = predictKernelBand(cal, profile, 1710);
    expect(at.band!.mode).toBe('profiled');
    expect(at.band!.energyJ).toEqual({ p10: at.energyJ, p50: at.energyJ, p90: at.energyJ });
    const near = predictKernelBand(cal, profile, 1605).band!;
    const far = predictKernelBand(cal, profile, 870).band!;
    for (const b of [near, far])
      for (const q of [b.durationNs, b.powerW, b.energyJ])
        expect(q.p10).toBeLessThanOrEqual(q.p50), expect(q.p50).toBeLessThanOrEqual(q.p90);
    expect(far.energyJ.p90 / far.energyJ.p10).toBeGreaterThan(near.energyJ.p90 / near.energyJ.p10);
    expect(far.mode).toBe('one-clock-down');
    // A second profiled clock narrows the band between the two.
    const two = predictKernelBand(cal, [profile, { ...profile, smClockMHz: 870, durationNs: 1.6e6, powerW: 120 }], 1215)
      .band!;
    const one = predictKernelBand(cal, profile, 1215).band!;
    expect(two.mode).toBe('two-clock-inside');
    expect(two.energyJ.p90 / two.energyJ.p10).toBeLessThan(one.energyJ.p90 / one.energyJ.p10);
  });
});

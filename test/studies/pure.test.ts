/** Pure parts of the studies: V–f curves, dominance and Pareto fronts, marginal efficiency, selectors. */
import { describe, expect, it } from 'vitest';
import { InputError, FormatError } from '../../src/errors.js';
import {
  DEFAULT_SERDES_VF_CURVE,
  energyPerBitFactor,
  energyTimeCost,
  gpuSweepRecord,
  marginal,
  markDominated,
  maxSlowdown,
  minimumEnergy,
  minimumTime,
  paretoFront,
  parseSelector,
  tradeoffTable,
  validateVfCurve,
  voltageRatio,
  type OperatingPoint,
} from '../../src/engines/studies/index.js';

describe('V–f curves', () => {
  it('default SerDes curve is V(s)/V(1) = 0.6 + 0.4·s below nominal', () => {
    for (const s of [0.25, 0.5, 0.65, 0.8, 1]) {
      expect(voltageRatio(DEFAULT_SERDES_VF_CURVE, s)).toBeCloseTo(0.6 + 0.4 * s, 12);
      expect(energyPerBitFactor(DEFAULT_SERDES_VF_CURVE, s)).toBeCloseTo((0.6 + 0.4 * s) ** 2, 12);
    }
  });
  it('normalises absolute voltages by V(1) and interpolates linearly', () => {
    const c = validateVfCurve({
      points: [
        { scale: 0.5, voltage: 0.55 },
        { scale: 1, voltage: 0.75 },
      ],
    });
    expect(voltageRatio(c, 0.75)).toBeCloseTo(0.65 / 0.75, 12);
    expect(voltageRatio(c, 1)).toBe(1);
  });
  it('rejects scales outside the curve', () => {
    expect(() => voltageRatio(DEFAULT_SERDES_VF_CURVE, 0.1)).toThrow(/outside the V–f curve/);
  });
  it.each([
    [{}, 'points'],
    [{ points: [{ scale: 1, voltage: 1 }] }, 'points'],
    [
      {
        points: [
          { scale: 0.5, voltage: 1 },
          { scale: 0.4, voltage: 1.1 },
        ],
      },
      'points[1].scale',
    ],
    [
      {
        points: [
          { scale: 0.5, voltage: 1 },
          { scale: 1, voltage: 0.9 },
        ],
      },
      'points[1].voltage',
    ],
    [
      {
        points: [
          { scale: 0.5, voltage: -1 },
          { scale: 1, voltage: 1 },
        ],
      },
      'points[0].voltage',
    ],
    [
      {
        points: [
          { scale: 0.25, voltage: 0.5 },
          { scale: 0.5, voltage: 0.6 },
        ],
      },
      'cover scale 1',
    ],
  ])('names the bad field of %j', (json, where) => {
    expect(() => validateVfCurve(json, 'vf.json')).toThrow(FormatError);
    expect(() => validateVfCurve(json, 'vf.json')).toThrow(where);
  });
});

/** Brute-force definition, written independently of the module: q dominates p. */
function dominatedBrute(pts: { timeS: number; energyJ: number }[]): boolean[] {
  return pts.map((p, i) =>
    pts.some(
      (q, j) =>
        j !== i && q.timeS <= p.timeS && q.energyJ <= p.energyJ && (q.timeS !== p.timeS || q.energyJ !== p.energyJ),
    ),
  );
}

describe('dominance and Pareto front', () => {
  // Deterministic pseudo-random clouds with ties.
  const clouds = [1, 2, 3, 4].map((seed) => {
    let x = seed;
    const rnd = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    return Array.from({ length: 40 }, () => ({ timeS: Math.round(rnd() * 20) / 10, energyJ: Math.round(rnd() * 20) }));
  });
  it.each(clouds.map((c, i) => [i, c] as const))('cloud %i: marks exactly the dominated points', (_i, pts) => {
    expect(markDominated(pts)).toEqual(dominatedBrute(pts));
    const front = paretoFront(pts);
    const brute = dominatedBrute(pts);
    expect(new Set(front)).toEqual(new Set(pts.map((_, k) => k).filter((k) => !brute[k])));
    // Along the front, time rises and energy falls.
    for (let k = 1; k < front.length; k++) {
      expect(pts[front[k]].timeS).toBeGreaterThanOrEqual(pts[front[k - 1]].timeS);
      expect(pts[front[k]].energyJ).toBeLessThanOrEqual(pts[front[k - 1]].energyJ);
    }
  });
  it('equal points do not dominate each other', () => {
    expect(
      markDominated([
        { timeS: 1, energyJ: 1 },
        { timeS: 1, energyJ: 1 },
      ]),
    ).toEqual([false, false]);
  });
});

describe('marginal efficiency', () => {
  it('ΔE/ΔT and energy saved per % slowdown against the reference', () => {
    const m = marginal({ timeS: 1.1, energyJ: 90 }, { timeS: 1, energyJ: 100 });
    expect(m.deltaEnergyJ).toBeCloseTo(-10, 12);
    expect(m.deltaTimeS).toBeCloseTo(0.1, 12);
    expect(m.energyPerTimeW).toBeCloseTo(-100, 9);
    expect(m.energySavedPctPerSlowdownPct).toBeCloseTo(10 / 10, 9);
  });
  it('is null where there is no slowdown', () => {
    const m = marginal({ timeS: 1, energyJ: 90 }, { timeS: 1, energyJ: 100 });
    expect(m.energyPerTimeW).toBeNull();
    expect(m.energySavedPctPerSlowdownPct).toBeNull();
  });
});

describe('selectors', () => {
  // A U-shaped energy curve over clocks; time falls with the clock until 1500 MHz, then flat.
  const pts: OperatingPoint[] = [600, 900, 1200, 1500, 1800].map((c) => ({
    setting: c,
    timeS: 1500 / Math.min(c, 1500),
    energyJ: 100 + ((c - 1100) / 100) ** 2,
  }));
  const byEnergy = [...pts].sort((a, b) => a.energyJ - b.energyJ);
  it('minimum energy and minimum time', () => {
    expect(minimumEnergy().select(pts)).toBe(byEnergy[0]);
    // 1500 and 1800 are equally fast; the cheaper one wins.
    expect(minimumTime().select(pts).setting).toBe(1500);
  });
  it('maximum slowdown: the cheapest point within the allowed slowdown', () => {
    for (const pct of [0, 10, 30, 100, 200]) {
      const allowed = pts.filter((p) => p.timeS <= 1 * (1 + pct / 100) + 1e-12);
      const expected = allowed.reduce((a, p) => (p.energyJ < a.energyJ ? p : a));
      expect(maxSlowdown(pct).select(pts)).toBe(expected);
    }
  });
  it('η·E + (1 − η)·P_max·T reaches both ends', () => {
    expect(energyTimeCost(1, 700).select(pts)).toBe(minimumEnergy().select(pts));
    expect(energyTimeCost(0, 700).select(pts).timeS).toBe(1);
    const eta = 0.5;
    const expected = [...pts].sort(
      (a, b) => eta * a.energyJ + (1 - eta) * 700 * a.timeS - (eta * b.energyJ + (1 - eta) * 700 * b.timeS),
    )[0];
    expect(energyTimeCost(eta, 700).select(pts)).toBe(expected);
  });
  it.each([
    () => maxSlowdown(-1),
    () => maxSlowdown(Number.NaN),
    () => energyTimeCost(1.5, 700),
    () => energyTimeCost(-0.1, 700),
    () => energyTimeCost(0.5, 0),
    () => parseSelector('fastest'),
    () => parseSelector('max-slowdown'),
    () => parseSelector('cost:0.5'),
    () => parseSelector('min-energy:3'),
    () => minimumEnergy().select([]),
  ])('rejects bad arguments (%#)', (make) => {
    expect(make).toThrow(InputError);
  });
  it('parses the command-line spellings', () => {
    expect(parseSelector('max-slowdown:10').select(pts)).toBe(maxSlowdown(10).select(pts));
    expect(parseSelector('cost:0.3:500').name).toBe(energyTimeCost(0.3, 500).name);
    expect(parseSelector('cost:0.3', 500).name).toBe(energyTimeCost(0.3, 500).name);
  });
});

describe('GPU sweep record', () => {
  const e = (total: number) => ({ compute: total * 0.8, memory: total * 0.1, network: 0, idle: total * 0.1, total });
  const raw = [
    { clockMHz: 1500, timeS: 1.0, energyJ: e(120) },
    { clockMHz: 600, timeS: 2.1, energyJ: e(125) },
    { clockMHz: 1200, timeS: 1.15, energyJ: e(100) },
    { clockMHz: 900, timeS: 1.5, energyJ: e(105) },
    { clockMHz: 1800, timeS: 1.0, energyJ: e(140) },
  ];
  const r = gpuSweepRecord('t', raw, [maxSlowdown(10), minimumEnergy()]);
  it('sorts by clock, flags the Pareto points, finds the optimal clocks', () => {
    expect(r.points.map((p) => p.clockMHz)).toEqual([600, 900, 1200, 1500, 1800]);
    expect(r.points.map((p) => p.pareto)).toEqual(
      dominatedBrute(r.points.map((p) => ({ timeS: p.timeS, energyJ: p.energyJ.total }))).map((d) => !d),
    );
    expect(r.energyOptimalMHz).toBe(1200);
    expect(r.timeOptimalMHz).toBe(1500);
    expect(r.selections).toEqual([
      { selector: 'max-slowdown 10%', clockMHz: 1500 },
      { selector: 'min-energy', clockMHz: 1200 },
    ]);
  });
  it('energy saved vs runtime penalty runs from the fastest to the lowest-energy Pareto point', () => {
    const t = tradeoffTable(r.points.map((p) => ({ setting: p.clockMHz, timeS: p.timeS, energyJ: p.energyJ.total })));
    expect(t.map((x) => x.clockMHz)).toEqual([1500, 1200]);
    expect(t[0].energySavedPct).toBe(0);
    expect(t[1].energySavedPct).toBeCloseTo((100 * (120 - 100)) / 120, 9);
    expect(t[1].runtimePenaltyPct).toBeCloseTo(15, 9);
    expect(r.tradeoff).toEqual(t);
  });
});

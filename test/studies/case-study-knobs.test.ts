/**
 * The GPU clock knob's band: a prediction's band grows with the distance from the reference clock; the reference itself
 * is the nominal point, so its change is exactly zero.
 */
import { describe, expect, it } from 'vitest';
import { loadCalibration } from '../../src/engines/calibrate/index.js';
import { clockBand, knobPoint, type PointFigures } from '../../src/engines/studies/case-study-knobs.js';

const figures = (energyJ: number, makespanS: number): PointFigures => ({
  makespanS,
  energyJ: {
    compute: energyJ * 0.8,
    memory: 0,
    network: 0,
    idle: energyJ * 0.2,
    total: energyJ,
  } as PointFigures['energyJ'],
  networkByDimensionJ: [],
  bytesSentPerDim: [],
  communicationS: 0,
  overlapS: 0,
});

describe('case study: the GPU clock band', () => {
  it('is zero at the reference clock and opens away from it', async () => {
    const bands = (await loadCalibration('calibration/a40.json')).uncertainty!.modes['one-clock-down']!;
    const nominal = figures(1000, 10);
    const atRef = knobPoint(
      1980,
      nominal,
      nominal,
      clockBand(nominal, nominal, { energy: bands.energy!, time: bands.time! }, 1980, 1980),
    );
    expect(atRef.energyChangeBandPct).toEqual([0, 0]);
    expect(atRef.timeChangeBandPct).toEqual([0, 0]);
    const slow = figures(800, 14);
    const down = knobPoint(
      1080,
      slow,
      nominal,
      clockBand(slow, nominal, { energy: bands.energy!, time: bands.time! }, 1080, 1980),
    );
    expect(down.energyChangeBandPct[0]).toBeLessThan(down.energyChangePct);
    expect(down.energyChangeBandPct[1]).toBeGreaterThan(down.energyChangePct);
  });
});

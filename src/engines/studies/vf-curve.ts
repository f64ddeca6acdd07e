/**
 * Voltage–frequency curves for network DVFS. Link energy per bit is dominated by dynamic switching energy,
 * C·V² per bit, so scaling a link's frequency by s scales its energy per bit by (V(s)/V(1))²; bandwidth scales
 * with s and static power is ignored (estimates, not measurements).
 *
 * Default SerDes curve (an assumption, documented here and in the README): voltage falls linearly with
 * frequency down to a floor, V(s)/V(1) = 0.6 + 0.4·s for 0.25 ≤ s ≤ 1, and rises more steeply above nominal
 * (overdrive, +0.5·(s − 1)) up to s = 1.25. This is the usual shape of CMOS V–f curves above the
 * near-threshold region: a 7 nm logic/SerDes rail nominally at ≈0.75 V is run down to ≈0.45–0.5 V at low
 * clocks. At s = 0.5 the energy per bit is 0.8² = 0.64 × nominal.
 *
 * Override with a JSON file: { "name": "...", "points": [ { "scale": 0.5, "voltage": 0.6 }, … ] } — scales
 * strictly increasing, voltages positive and non-decreasing, absolute (V) or relative; only V(s)/V(1) is
 * used, interpolated linearly, and the curve must cover s = 1 and every swept scale. Scales and voltages are
 * range-checked ({@link VF_LIMITS}) so that no energy per bit derived from them leaves the finite numbers.
 */
import { parseJsonText, readTextFile } from '../../formats/text-file.js';
import { InputError } from '../../errors.js';
import { jsonPath, JsonShape } from '../../formats/json-shape.js';

export interface VfPoint {
  /** Frequency scale, 1 = nominal. */
  scale: number;
  /** Supply voltage at that scale, V or relative to any reference. */
  voltage: number;
}

export interface VfCurve {
  name: string;
  /** Scales strictly increasing. */
  points: VfPoint[];
}

export const DEFAULT_SERDES_VF_CURVE: VfCurve = {
  name: 'default SerDes curve: V(s)/V(1) = 0.6 + 0.4·s below nominal, +0.5·(s − 1) above (assumed)',
  points: [
    { scale: 0.25, voltage: 0.7 },
    { scale: 1, voltage: 1 },
    { scale: 1.25, voltage: 1.125 },
  ],
};

/** The ranges a curve's numbers must lie in (scales × nominal frequency; voltages in V or relative, any reference). */
export const VF_LIMITS = { scale: { min: 1e-3, max: 1e3 }, voltage: { min: 1e-6, max: 1e6 }, points: 10_000 } as const;

/** Checks a curve's shape; throws FormatError naming the field's JSON path. */
export function validateVfCurve(value: unknown, file = 'V–f curve'): VfCurve {
  const c = new JsonShape(file);
  const o = c.object(value, '', 'a JSON object with "points"');
  const raw = c.list(o, 'points', '', 2, `a list of 2 to ${VF_LIMITS.points} { "scale", "voltage" } objects`);
  if (raw.length > VF_LIMITS.points)
    c.fail('points', `expected at most ${VF_LIMITS.points} points, found ${raw.length}`);
  const points: VfPoint[] = raw.map((p, i) => {
    const at = jsonPath('points', i);
    const q = c.object(p, at, 'an object { "scale", "voltage" }');
    return {
      scale: c.number(q, 'scale', at, { ...VF_LIMITS.scale, unit: '× nominal' }),
      voltage: c.number(q, 'voltage', at, VF_LIMITS.voltage),
    };
  });
  for (let i = 1; i < points.length; i++) {
    if (points[i].scale <= points[i - 1].scale) c.fail(`points[${i}].scale`, 'scales must be strictly increasing');
    if (points[i].voltage < points[i - 1].voltage)
      c.fail(`points[${i}].voltage`, 'voltage must not fall as frequency rises');
  }
  if (points[0].scale > 1 || points[points.length - 1].scale < 1)
    c.fail('points', 'the curve must cover scale 1 (nominal)');
  return { name: typeof o.name === 'string' ? o.name : file, points };
}

export async function loadVfCurve(file: string): Promise<VfCurve> {
  return validateVfCurve(parseJsonText(file, await readTextFile(file)), file);
}

function voltageAt(curve: VfCurve, scale: number): number {
  const p = curve.points;
  if (scale < p[0].scale || scale > p[p.length - 1].scale) {
    throw new InputError(
      `scale ${scale} is outside the V–f curve "${curve.name}" (${p[0].scale}..${p[p.length - 1].scale}); give ` +
        `a --vf-curve that covers it`,
    );
  }
  let i = 1;
  while (p[i].scale < scale) i++;
  const a = p[i - 1];
  const b = p[i];
  return a.voltage + ((b.voltage - a.voltage) * (scale - a.scale)) / (b.scale - a.scale);
}

/** V(s)/V(1). */
export function voltageRatio(curve: VfCurve, scale: number): number {
  return voltageAt(curve, scale) / voltageAt(curve, 1);
}

/** Energy-per-bit factor at scale s: (V(s)/V(1))². */
export function energyPerBitFactor(curve: VfCurve, scale: number): number {
  const r = voltageRatio(curve, scale);
  return r * r;
}

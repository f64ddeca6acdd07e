/**
 * The arithmetic of the case study, kept apart from the replays: extrapolating two replays to the full batch,
 * each knob's points against nominal (ΔT %, ΔE %, ΔE/ΔT, energy saved per % slowdown) with their uncertainty
 * bands, and the lowest-energy setting flagged when it sits at the edge of the swept range.
 */
import type { Band, QuantityBand } from '../../model/uncertainty.js';
import { bandAround } from '../../model/uncertainty.js';
import { breakdown } from '../replay/ledger.js';
import type { EnergyBreakdownJ, ReplayResult } from '../replay/types.js';
import type { Knob, KnobPoint } from './types.js';

/** The figures of one point the case study keeps, at some micro-batch count. */
export interface PointFigures {
  makespanS: number;
  energyJ: EnergyBreakdownJ;
  networkByDimensionJ: number[];
  bytesSentPerDim: number[];
  communicationS: number;
  overlapS: number;
}

export function figuresOf(r: ReplayResult): PointFigures {
  return {
    makespanS: r.makespanNs * 1e-9,
    energyJ: { ...r.energyJ },
    networkByDimensionJ: [...r.networkEnergyPerDimJ],
    bytesSentPerDim: [...r.bytesSentPerDim],
    communicationS: r.timeS.communication,
    overlapS: r.timeS.overlap,
  };
}

/** q(m) from q(m1) and q(m2), linear in the micro-batch count m. */
const line = (a: number, b: number, m1: number, m2: number, m: number) => b + ((b - a) * (m - m2)) / (m2 - m1);

/** Every figure extrapolated linearly from replays at m1 and m2 micro-batches to m. */
export function extrapolate(a: PointFigures, b: PointFigures, m1: number, m2: number, m: number): PointFigures {
  const l = (x: number, y: number) => line(x, y, m1, m2, m);
  const e = (k: keyof EnergyBreakdownJ) => l(a.energyJ[k], b.energyJ[k]);
  return {
    makespanS: l(a.makespanS, b.makespanS),
    energyJ: breakdown({
      compute: e('compute'),
      memory: e('memory'),
      communication: e('communication'),
      network: e('network'),
      idle: e('idle'),
      host: e('host'),
    }),
    networkByDimensionJ: b.networkByDimensionJ.map((y, i) => l(a.networkByDimensionJ[i] ?? 0, y)),
    bytesSentPerDim: b.bytesSentPerDim.map((y, i) => l(a.bytesSentPerDim[i] ?? 0, y)),
    communicationS: l(a.communicationS, b.communicationS),
    overlapS: l(a.overlapS, b.overlapS),
  };
}

/**
 * One end of a point's band: the point's energy and time, and the nominal point's, as they would be if the
 * uncertain input sat at that end (a configured energy per bit moves the nominal point too).
 */
export interface BandEnd {
  energyJ: number;
  makespanS: number;
  nominalEnergyJ: number;
  nominalMakespanS: number;
}

export interface PointBand {
  low: BandEnd;
  high: BandEnd;
}

const pctChange = (x: number, x0: number) => (x0 !== 0 ? (100 * (x - x0)) / x0 : 0);

export function knobPoint(setting: number, p: PointFigures, nominal: PointFigures, band: PointBand | null): KnobPoint {
  const dT = p.makespanS - nominal.makespanS;
  const dE = p.energyJ.total - nominal.energyJ.total;
  const timeChangePct = pctChange(p.makespanS, nominal.makespanS);
  const energyChangePct = pctChange(p.energyJ.total, nominal.energyJ.total);
  const sorted = (a: number, b: number): [number, number] => (a <= b ? [a, b] : [b, a]);
  return {
    setting,
    makespanS: p.makespanS,
    energyJ: p.energyJ,
    networkByDimensionJ: p.networkByDimensionJ,
    timeChangePct,
    energyChangePct,
    energyChangeBandPct: band
      ? sorted(
          pctChange(band.low.energyJ, band.low.nominalEnergyJ),
          pctChange(band.high.energyJ, band.high.nominalEnergyJ),
        )
      : [energyChangePct, energyChangePct],
    timeChangeBandPct: band
      ? sorted(
          pctChange(band.low.makespanS, band.low.nominalMakespanS),
          pctChange(band.high.makespanS, band.high.nominalMakespanS),
        )
      : [timeChangePct, timeChangePct],
    deltaEnergyPerDeltaTimeW: dT !== 0 ? dE / dT : null,
    energySavedPctPerSlowdownPct: timeChangePct > 0 ? -energyChangePct / timeChangePct : null,
  };
}

/**
 * Network knobs: link energy per bit is a configured figure, not a measured one; the band takes it from
 * `low` × to `high` × its value on every dimension (time unchanged: the analytical network's times do not depend on
 * it).
 */
export function energyPerBitBand(p: PointFigures, nominal: PointFigures, low: number, high: number): PointBand {
  const end = (k: number): BandEnd => ({
    energyJ: p.energyJ.total + (k - 1) * p.energyJ.network,
    makespanS: p.makespanS,
    nominalEnergyJ: nominal.energyJ.total + (k - 1) * nominal.energyJ.network,
    nominalMakespanS: nominal.makespanS,
  });
  return { low: end(low), high: end(high) };
}

/**
 * GPU clock knob: the 10–90 % bands a fitted calibration measured for predictions one clock down from the
 * profiled one (leave-one-benchmark-out), at this clock's distance ln(f_ref / f), applied to the compute energy and
 * to the iteration time as if every kernel erred the same way (fully correlated: wider than independent errors).
 */
export function clockBand(
  p: PointFigures,
  nominal: PointFigures,
  bands: { energy: QuantityBand; time: QuantityBand },
  clockMHz: number,
  referenceMHz: number,
): PointBand {
  const x = Math.abs(Math.log(referenceMHz / clockMHz));
  const n = { nominalEnergyJ: nominal.energyJ.total, nominalMakespanS: nominal.makespanS };
  // The reference clock is the nominal point itself: its change against nominal is exactly zero, not a prediction.
  if (x === 0)
    return {
      low: { energyJ: p.energyJ.total, makespanS: p.makespanS, ...n },
      high: { energyJ: p.energyJ.total, makespanS: p.makespanS, ...n },
    };
  const e: Band = bandAround(bands.energy, x, 0, p.energyJ.compute);
  const t: Band = bandAround(bands.time, x, 0, p.makespanS);
  const rest = p.energyJ.total - p.energyJ.compute;
  return {
    low: { energyJ: rest + e.p10, makespanS: t.p10, ...n },
    high: { energyJ: rest + e.p90, makespanS: t.p90, ...n },
  };
}

/** The knob record from its points (any order; the nominal among them). */
export function knobRecord(
  id: Knob['id'],
  name: string,
  settingUnit: string,
  nominalSetting: number,
  points: KnobPoint[],
  uncertainty: string,
): Knob {
  const sorted = [...points].sort((a, b) => a.setting - b.setting);
  const nominal = sorted.find((p) => p.setting === nominalSetting);
  if (!nominal) throw new Error(`knob ${name}: no point at the nominal setting ${nominalSetting}`);
  const best = sorted.reduce((a, p) => (p.energyJ.total < a.energyJ.total ? p : a), nominal);
  const atEdge =
    best === nominal ? null : best === sorted[sorted.length - 1] ? 'top' : best === sorted[0] ? 'bottom' : null;
  return {
    id,
    name,
    settingUnit,
    nominalSetting,
    points: sorted,
    uncertainty,
    best: {
      setting: best.setting,
      energyChangePct: best.energyChangePct,
      timeChangePct: best.timeChangePct,
      energyChangeBandPct: best.energyChangeBandPct,
      atEdge,
    },
  };
}

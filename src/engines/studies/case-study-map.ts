/**
 * The case study's sensitivity map: where, in global batch, provisioned scale-out bandwidth and layout, scale-out
 * network DVFS moves the iteration's energy. The global batch costs no replay: every figure is linear in the
 * micro-batch count (the case study's extrapolation, exact in steady state), so the two replays of one
 * (layout, bandwidth, scale) point give every batch. Only bandwidth × scale × layout is replayed, and the preset
 * bandwidth's points are the scale-out knob's own. All figures are estimates.
 */
import { InputError } from '../../errors.js';
import type { NetworkConfig, PowerConfig } from '../../formats/astra/index.js';
import { extrapolate, type PointFigures } from './case-study-knobs.js';
import type { SensitivityMap, SensitivityRow } from './types.js';

export const MAP_DEFAULTS = {
  batchesSequences: [16, 32, 64, 128, 256, 512, 1024],
  scaleOutBandwidthsGBps: [25, 50, 100, 200, 400],
  thresholdPct: 1,
} as const;

/** Scale-out dimension of the case study's network (0 = scale-up). */
const OUT = 1;

/**
 * The network and power with the scale-out links provisioned at `bandwidthGBps` (energy per bit and latency unchanged).
 */
export function atScaleOutBandwidth(
  network: NetworkConfig,
  power: PowerConfig,
  bandwidthGBps: number,
): { network: NetworkConfig; power: PowerConfig } {
  return {
    network: { ...network, dims: network.dims.map((d, i) => (i === OUT ? { ...d, bandwidthGBps } : d)) },
    power: { ...power, network: power.network.map((n, i) => (i === OUT ? { ...n, bandwidthGBps } : n)) },
  };
}

/**
 * The batches that a layout with `dp` replicas can take whole and at least `m1` micro-batches per pipeline, else an
 * error.
 */
export function checkMapBatches(
  batches: readonly number[],
  layouts: readonly { name: string; dp: number }[],
  m1Of: (name: string) => number,
): number[] {
  const sorted = [...new Set(batches)].sort((a, b) => a - b);
  for (const B of sorted) {
    for (const L of layouts) {
      const m = B / L.dp;
      if (!Number.isInteger(m) || m < m1Of(L.name)) {
        throw new InputError(
          `map batch ${B} gives ${m} micro-batches per replica for ${L.name}: need a whole number ≥ ${m1Of(L.name)}`,
        );
      }
    }
  }
  return sorted;
}

const pct = (x: number, x0: number) => (x0 !== 0 ? (100 * (x - x0)) / x0 : 0);

/**
 * One cell: the replays at m1 and m2 of every scale (scales sorted, 1 among them) extrapolated to `microBatches`,
 * each against s = 1.
 */
export function mapCell(
  head: Pick<
    SensitivityRow,
    'layout' | 'globalBatchSequences' | 'microBatchesPerPipeline' | 'scaleOutBandwidthGBps' | 'realBatchPoint'
  >,
  scales: readonly number[],
  replays: readonly [PointFigures, PointFigures][],
  m1: number,
  m2: number,
): SensitivityRow {
  const full = replays.map(([a, b]) => extrapolate(a, b, m1, m2, head.microBatchesPerPipeline));
  const i0 = scales.indexOf(1);
  if (i0 < 0) throw new Error('sensitivity map: no point at s = 1');
  const n = full[i0]!;
  const e0 = n.energyJ.total;
  const byScale = full.map((p, i) => ({
    scale: scales[i]!,
    energyChangePct: pct(p.energyJ.total, e0),
    timeChangePct: pct(p.makespanS, n.makespanS),
  }));
  const ib = full.reduce((best, p, i) => (p.energyJ.total < full[best]!.energyJ.total ? i : best), i0);
  const b = full[ib]!;
  const dT = b.makespanS - n.makespanS;
  const best = byScale[ib]!;
  return {
    ...head,
    nominalMakespanS: n.makespanS,
    nominalEnergyJ: e0,
    bestScale: best.scale,
    bestAtEdge: ib === i0 ? null : ib === scales.length - 1 ? 'top' : ib === 0 ? 'bottom' : null,
    energyChangePct: best.energyChangePct,
    timeChangePct: best.timeChangePct,
    deltaEnergyPerDeltaTimeW: dT !== 0 ? (b.energyJ.total - e0) / dT : null,
    energySavedPctPerSlowdownPct: best.timeChangePct > 0 ? -best.energyChangePct / best.timeChangePct : null,
    networkEnergySharePct: (100 * n.energyJ.network) / e0,
    scaleOutEnergySharePct: (100 * (n.networkByDimensionJ[OUT] ?? 0)) / e0,
    hiddenCommunicationSharePct: n.communicationS > 0 ? (100 * n.overlapS) / n.communicationS : 0,
    idleEnergySharePct: (100 * n.energyJ.idle) / e0,
    byScale,
  };
}

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)} %`;
const cellName = (r: SensitivityRow) => `${r.globalBatchSequences} sequences at ${r.scaleOutBandwidthGBps} GB/s`;

/**
 * Where the knob's best setting saves more than the threshold, and where any setting moves energy by more, per layout.
 */
export function mapFinding(rows: readonly SensitivityRow[], layouts: readonly string[], thresholdPct: number): string {
  const per = layouts.map((name) => {
    const rs = rows.filter((r) => r.layout === name);
    const pays = rs.filter((r) => r.energyChangePct < -thresholdPct);
    const moves = rs.filter((r) => r.byScale.some((s) => Math.abs(s.energyChangePct) > thresholdPct));
    const top = rs.reduce((a, r) => (r.energyChangePct < a.energyChangePct ? r : a));
    const real = rs.find((r) => r.realBatchPoint);
    const paysText =
      pays.length === 0
        ? `no cell saves more than ${thresholdPct} %`
        : `the best setting saves more than ${thresholdPct} % in ${pays.length} of ${rs.length} cells, at most ` +
          `${Math.max(...pays.map((r) => r.globalBatchSequences))} sequences ` +
          `(${[...new Set(pays.map((r) => r.globalBatchSequences))].join(', ')} sequences; ` +
          `${[...new Set(pays.map((r) => r.scaleOutBandwidthGBps))].sort((a, b) => a - b).join(', ')} GB/s)`;
    const atPreset = real ? rs.filter((r) => r.scaleOutBandwidthGBps === real.scaleOutBandwidthGBps) : [];
    const trend =
      atPreset.length > 1
        ? `; at ${real!.scaleOutBandwidthGBps} GB/s the best setting gives ` +
          `${signed(atPreset[0]!.energyChangePct)} at ${atPreset[0]!.globalBatchSequences} sequences and ` +
          `${signed(atPreset[atPreset.length - 1]!.energyChangePct)} at ` +
          String(atPreset[atPreset.length - 1]!.globalBatchSequences)
        : '';
    const hidden = rs.map((r) => r.hiddenCommunicationSharePct);
    const idle = Math.max(...rs.map((r) => r.idleEnergySharePct));
    return (
      `${name}: ${paysText}; largest saving ${signed(top.energyChangePct)} at s = ${top.bestScale} (` +
      `${cellName(top)}, time ${signed(top.timeChangePct)}); ` +
      `some setting moves energy by more than ${thresholdPct} % in ${moves.length} of ${rs.length} cells` +
      (real
        ? `; at the real batch (${cellName(real)}) ` +
          (real.bestScale === 1 ? 'no setting saves' : `s = ${real.bestScale} gives ${signed(real.energyChangePct)}`)
        : '') +
      `${trend}; communication hidden behind compute ${Math.min(...hidden).toFixed(0)}–` +
      `${Math.max(...hidden).toFixed(0)} %, idle energy at most ${idle.toFixed(1)} % of the total`
    );
  });
  const top = rows.filter((r) => r.bestAtEdge === 'top');
  const edge = top.length
    ? ` The best setting is the top of the range swept (s = ${top[0]!.bestScale}) in ${top.length} of ` +
      `${rows.length} cells, so larger savings may lie beyond it.`
    : '';
  return (
    `${per.join('. ')}.${edge} Where the knob pays, faster scale-out links shorten exposed communication and ` +
    `so the GPUs' communication-time energy ` +
    '(idle is small everywhere: GPU power while only communication runs is counted as communication energy, ' +
    'not idle); ' +
    `direct network energy is at most ${Math.max(...rows.map((r) => r.networkEnergySharePct)).toFixed(1)} % of ` +
    `the total in any cell.`
  );
}

export const MAP_DEFINITIONS = [
  'Sensitivity map: each cell is one layout at one global batch (sequences per iteration) and one provisioned ' +
    'scale-out link bandwidth (at s = 1; energy per bit and latency unchanged), ' +
    'every scale-out DVFS setting compared with s = 1 at that same cell; best = the lowest-energy setting. ' +
    "Batch costs no replay: figures are linear in the micro-batch count (the case study's extrapolation).",
  'Map shares at s = 1: network = direct network energy (both dimensions, static included) / total; hidden = ' +
    'communication time hidden behind compute / all communication time; idle = idle energy / total; all %.',
];

/** The map record from its rows. */
export function sensitivityMap(
  rows: SensitivityRow[],
  layouts: readonly string[],
  batches: number[],
  bandwidths: number[],
  scales: number[],
  thresholdPct: number,
): SensitivityMap {
  return {
    batchesSequences: batches,
    scaleOutBandwidthsGBps: bandwidths,
    scales,
    thresholdPct,
    rows,
    finding: mapFinding(rows, layouts, thresholdPct),
    definitions: [...MAP_DEFINITIONS],
  };
}

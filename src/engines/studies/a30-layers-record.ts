/**
 * The layer-level SM-clock study as a record: per layer and sequence length the energy saving and runtime penalty of
 * the lowest-energy Pareto point against the fastest one, beside a published measurement and the difference per cell;
 * the mean absolute difference per column; and each published qualitative observation confirmed or refuted by the
 * model's own sweeps, in a sentence. Pure arithmetic on the clock sweeps (gpu-sweep.ts records); no replays here.
 * All modelled figures are estimates.
 */
import { corr } from '../../model/power-model.js';
import type { RESULT_SCHEMA_VERSION } from '../replay/types.js';
import type { GpuClockSweepRecord } from './types.js';

/** One cell of the published table: (energy saving %, runtime penalty %) of a layer at a sequence length. */
export interface PublishedCell {
  model: string;
  seqLen: number;
  energySavingPct: number;
  runtimePenaltyPct: number;
}

/** One layer at one sequence length: tracewatt's figures beside the published ones. */
export interface LayerStudyRow {
  /** Model preset, e.g. "gpt3-1.3b". */
  model: string;
  /** Display name, e.g. "GPT 1.3B". */
  layer: string;
  seqLen: number;
  /**
   * Energy saved by the lowest-energy Pareto point against the fastest one, % of the fastest point's energy
   * (estimated).
   */
  energySavingPct: number;
  /** Extra runtime of the lowest-energy Pareto point against the fastest one, % of the fastest runtime (estimated). */
  runtimePenaltyPct: number;
  /** Clock of the fastest Pareto point (shortest runtime; of equal runtimes the lowest energy). */
  fastestClockMHz: number;
  lowestEnergyClockMHz: number;
  publishedEnergySavingPct: number;
  publishedRuntimePenaltyPct: number;
  /** tracewatt − published, percentage points. */
  energySavingDiffPts: number;
  runtimePenaltyDiffPts: number;
  /** Mean modelled power of the layer pass at the fastest point, W (estimated). */
  fastestPowerW: number;
  /**
   * Highest power any kernel of the layer would draw at the top clock with no cap, W (estimated): whether the cap can
   * bind.
   */
  maxKernelPowerW: number;
  /** Runtime of one layer pass at the fastest point, µs (estimated). */
  fastestTimeUs: number;
  /**
   * Width of the bottom of the energy curve: the runtime span (% of the fastest runtime) of the clocks whose energy is
   * within 2 % of the lowest. Small = a sharp V, large = a flat U.
   */
  bottomWidthPct: number;
}

export type Verdict = 'confirmed' | 'partly confirmed' | 'refuted';

export interface Observation {
  id: 'u-shaped-energy' | 'v-to-u-fronts' | 'optimum-shifts-with-seq' | 'fastest-below-max-clock';
  /** The published observation. */
  published: string;
  verdict: Verdict;
  /** What the model shows, in one sentence with its numbers. */
  sentence: string;
}

/** One layer's sweep, as the GPU clock sweep wrote it. */
export interface LayerSweep {
  model: string;
  layer: string;
  seqLen: number;
  sweep: GpuClockSweepRecord;
  /** Highest power any kernel of the layer would draw at the top clock with no cap, W (estimated). */
  maxKernelPowerW: number;
}

/** `tracewatt case-study a30-layers`: the layer-level SM-clock study against its published A30 table. */
export interface LayerClockStudyRecord {
  kind: 'layer-clock-study';
  schemaVersion: typeof RESULT_SCHEMA_VERSION;
  label: string;
  /** One line per fact of the set-up (device, calibration, traces, clocks, replay). */
  system: string[];
  /** Definitions of every figure. */
  definitions: string[];
  /** Where the published table comes from and how it was measured. */
  publishedSource: string;
  rows: LayerStudyRow[];
  /** Mean over the cells of |tracewatt − published|, percentage points, per column; and the target. */
  meanAbsDifference: { energySavingPts: number; runtimePenaltyPts: number; targetPts: number };
  observations: Observation[];
  /** What the model gets and misses, in plain sentences. */
  limits: string[];
  layers: LayerSweep[];
  estimate: true;
}

/** Figures of one sweep the table needs. */
export function rowOf(s: LayerSweep, published: PublishedCell): LayerStudyRow {
  const front = s.sweep.tradeoff;
  if (front.length === 0) throw new Error(`${s.layer} S = ${s.seqLen}: the sweep has no Pareto front`);
  const fastest = front[0]!;
  const lowest = front[front.length - 1]!;
  return {
    model: s.model,
    layer: s.layer,
    seqLen: s.seqLen,
    energySavingPct: lowest.energySavedPct,
    runtimePenaltyPct: lowest.runtimePenaltyPct,
    fastestClockMHz: fastest.clockMHz,
    lowestEnergyClockMHz: lowest.clockMHz,
    publishedEnergySavingPct: published.energySavingPct,
    publishedRuntimePenaltyPct: published.runtimePenaltyPct,
    energySavingDiffPts: lowest.energySavedPct - published.energySavingPct,
    runtimePenaltyDiffPts: lowest.runtimePenaltyPct - published.runtimePenaltyPct,
    fastestPowerW: fastest.energyJ / fastest.timeS,
    maxKernelPowerW: s.maxKernelPowerW,
    fastestTimeUs: fastest.timeS * 1e6,
    bottomWidthPct: bottomWidthPct(s.sweep, fastest.timeS),
  };
}

/** Runtime span (% of the fastest runtime) of the clocks whose energy is within 2 % of the lowest. */
export function bottomWidthPct(sweep: GpuClockSweepRecord, fastestTimeS: number): number {
  const minE = Math.min(...sweep.points.map((p) => p.energyJ.total));
  const near = sweep.points.filter((p) => p.energyJ.total <= 1.02 * minE).map((p) => p.timeS);
  return (100 * (Math.max(...near) - Math.min(...near))) / fastestTimeS;
}

export function meanAbsDifference(
  rows: readonly LayerStudyRow[],
  targetPts: number,
): LayerClockStudyRecord['meanAbsDifference'] {
  const mean = (f: (r: LayerStudyRow) => number) => rows.reduce((a, r) => a + Math.abs(f(r)), 0) / rows.length;
  return {
    energySavingPts: mean((r) => r.energySavingDiffPts),
    runtimePenaltyPts: mean((r) => r.runtimePenaltyDiffPts),
    targetPts,
  };
}

/** Spearman rank correlation (average ranks for ties); 0 when either side is constant. */
export function spearman(x: readonly number[], y: readonly number[]): number {
  const ranks = (v: readonly number[]) => {
    const order = v.map((value, i) => ({ value, i })).sort((a, b) => a.value - b.value);
    const r = new Array<number>(v.length);
    for (let k = 0; k < order.length; ) {
      let j = k;
      while (j + 1 < order.length && order[j + 1]!.value === order[k]!.value) j++;
      for (let m = k; m <= j; m++) r[order[m]!.i] = (k + j) / 2;
      k = j + 1;
    }
    return r;
  };
  return corr(ranks(x), ranks(y));
}

const f1 = (x: number) => x.toFixed(1);
const signed2 = (x: number) => `${x < 0 ? '−' : ''}${Math.abs(x).toFixed(2)}`;
const span = (xs: number[]) =>
  Math.min(...xs) === Math.max(...xs) ? `${xs[0]}` : `${Math.min(...xs)}–${Math.max(...xs)}`;

/**
 * The four published observations, each tested on the sweeps (`models` and `seqLens` in ascending size, as the rows
 * are ordered). A runtime counts as slower at the highest clock only beyond 0.5 % (the replay times kernels in whole
 * µs).
 */
export function observations(
  layers: readonly LayerSweep[],
  rows: readonly LayerStudyRow[],
  models: readonly string[],
  seqLens: readonly number[],
  capW: number | null,
): Observation[] {
  // U shape: the lowest energy strictly inside the clock range, both ends at least 5 % above it.
  const u = layers.filter((l) => {
    const e = l.sweep.points.map((p) => p.energyJ.total);
    const minE = Math.min(...e);
    const at = e.indexOf(minE);
    return at > 0 && at < e.length - 1 && e[0]! >= 1.05 * minE && e[e.length - 1]! >= 1.05 * minE;
  });
  const optClocks = rows.map((r) => r.lowestEnergyClockMHz);
  const uVerdict: Verdict = u.length === layers.length ? 'confirmed' : u.length > 0 ? 'partly confirmed' : 'refuted';

  // V softening to U: the bottom width grows with layer size and with sequence length (rank correlations).
  const width = rows.map((r) => r.bottomWidthPct);
  const bySize = spearman(
    rows.map((r) => models.indexOf(r.model)),
    width,
  );
  const bySeq = spearman(
    rows.map((r) => seqLens.indexOf(r.seqLen)),
    width,
  );
  const grows = [bySize > 0.3, bySeq > 0.3].filter(Boolean).length;
  const vVerdict: Verdict = grows === 2 ? 'confirmed' : grows === 1 ? 'partly confirmed' : 'refuted';

  // The lowest-energy clock moves with the sequence length: by at least two clock steps (30 MHz) within a model.
  const shifts = models.map((m) => {
    const c = rows.filter((r) => r.model === m).map((r) => r.lowestEnergyClockMHz);
    return { m, layer: rows.find((r) => r.model === m)?.layer ?? m, by: Math.max(...c) - Math.min(...c) };
  });
  const moved = shifts.filter((s) => s.by >= 30);
  const sVerdict: Verdict =
    moved.length === shifts.length ? 'confirmed' : moved.length > 0 ? 'partly confirmed' : 'refuted';

  // Fastest runtime below the highest clock: strictly slower at the top clock, or (weaker) a flat top.
  const slowerAtTop = layers.filter((l) => {
    const top = l.sweep.points[l.sweep.points.length - 1]!;
    return top.timeS > 1.005 * Math.min(...l.sweep.points.map((p) => p.timeS));
  });
  const topClock = Math.max(...layers.flatMap((l) => l.sweep.points.map((p) => p.clockMHz)));
  const flatTop = rows.filter((r) => r.fastestClockMHz < topClock);
  const fVerdict: Verdict = slowerAtTop.length > 0 ? 'confirmed' : flatTop.length > 0 ? 'partly confirmed' : 'refuted';
  const maxKernelW = Math.max(...rows.map((r) => r.maxKernelPowerW));

  const cell = (r: Pick<LayerStudyRow, 'layer' | 'seqLen'>) => `${r.layer} S = ${r.seqLen}`;
  return [
    {
      id: 'u-shaped-energy',
      published: 'energy against SM clock is U-shaped',
      verdict: uVerdict,
      sentence:
        `${uVerdict === 'confirmed' ? 'Confirmed' : uVerdict === 'refuted' ? 'Refuted' : 'Partly confirmed'}: ` +
        `${u.length} of ${layers.length} layers have their lowest energy inside the clock range with both ends at ` +
        `least 5 % above it; the lowest-energy clocks are ${span(optClocks)} MHz.`,
    },
    {
      id: 'v-to-u-fronts',
      published: 'time–energy Pareto fronts are V-shaped and soften to U for larger layers and longer sequences',
      verdict: vVerdict,
      sentence:
        `${vVerdict === 'confirmed' ? 'Confirmed' : vVerdict === 'refuted' ? 'Refuted' : 'Partly confirmed'}: ` +
        `the bottom of the energy curve (runtime span within 2 % of the lowest energy) is ` +
        `${span(width.map((w) => Number(f1(w))))} % of the fastest runtime; its rank correlation with layer size ` +
        `is ${signed2(bySize)} and with sequence length ${signed2(bySeq)} (softening: both above 0.3).`,
    },
    {
      id: 'optimum-shifts-with-seq',
      published: 'the energy-optimal clock shifts with sequence length',
      verdict: sVerdict,
      sentence:
        `${sVerdict === 'confirmed' ? 'Confirmed' : sVerdict === 'refuted' ? 'Refuted' : 'Partly confirmed'}: ` +
        `across S = ${seqLens.join(' / ')} the lowest-energy clock moves by ` +
        `${shifts.map((s) => `${s.by} MHz (${s.layer})`).join(', ')}; a shift of at least two clock steps (30 ` +
        `MHz) counts.`,
    },
    {
      id: 'fastest-below-max-clock',
      published: 'the fastest runtime is not always at the highest clock',
      verdict: fVerdict,
      sentence:
        fVerdict === 'confirmed'
          ? `Confirmed: ${slowerAtTop.map((l) => cell(l)).join(', ')} run more than 0.5 % slower at ${topClock} ` +
            `MHz than at their fastest clock.`
          : `${fVerdict === 'refuted' ? 'Refuted' : 'Partly confirmed'}: no layer runs slower at ${topClock} MHz ` +
            `— no kernel draws more than ${f1(maxKernelW)} W there` +
            `${capW !== null ? `, ${maxKernelW > capW ? 'above' : 'under'} the ${capW} W cap` : ''}, and the ` +
            `roofline estimate never lowers the clock for the cap` +
            (flatTop.length
              ? `; memory-bound layers reach their fastest runtime below ${topClock} MHz and stay flat above it: ` +
                flatTop.map((r) => `${cell(r)} at ${r.fastestClockMHz} MHz`).join(', ')
              : '') +
            `.`,
    },
  ];
}

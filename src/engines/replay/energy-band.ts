/**
 * The 10–90 % band of a run's compute energy, from the per-node bands `annotate` writes beside energy_j
 * (energy_j_p10 ≤ energy_j ≤ energy_j_p90, J).
 *
 * How node bands add up: a trace runs the same kernel many times (every layer, every iteration, every rank), and each
 * run of it is predicted the same way, so its errors are one error repeated: nodes of the same name are taken as
 * fully correlated (their distances from energy_j add). Different names are taken as independent, as `predict` and
 * `accuracy` combine kernels (calibrate/advice.ts): each side of the band is the root of the summed squares of the
 * names' distances. The widest reading, every node erring the same way at once (Σ p10, Σ p90), is given beside it.
 * Nodes without a band count at their estimate with no width; the band says how many there are.
 */
import type { Diagnostics } from '../../diagnostics.js';
import type { EnergyBandJ, EnergyBreakdownJ } from './types.js';
import { ANNOTATION_ATTRS } from '../../vocab/attributes.js';

const { energyJ: ENERGY, energyJP10: P10, energyJP90: P90 } = ANNOTATION_ATTRS;

/** What the band of the compute energy is made of; plain data (it crosses worker threads inside results). */
export interface ComputeBandSums {
  /** √Σ over names of (Σ energy_j − p10)², J; likewise above with p90. */
  belowJ: number;
  aboveJ: number;
  /** Σ (energy_j − p10), Σ (p90 − energy_j) over all banded nodes, J. */
  correlatedBelowJ: number;
  correlatedAboveJ: number;
  bandedNodes: number;
  /** GPU compute nodes, banded or not. */
  gpuNodes: number;
  /** Σ energy_j of the banded nodes, J. */
  bandedEnergyJ: number;
  /** Distinct names among the banded nodes. */
  kernels: number;
}

/** Collects node bands while a replay classifies its nodes (the band does not depend on when nodes run). */
export class ComputeBandCollector {
  private readonly byName = new Map<string, { below: number; above: number }>();
  private correlatedBelow = 0;
  private correlatedAbove = 0;
  private banded = 0;
  private gpu = 0;
  private bandedEnergy = 0;

  constructor(private readonly diag: Diagnostics) {}

  /**
   * A GPU compute node: its energy_j (undefined when absent) and band attributes (undefined when absent). `where`
   * names the node for a diagnostic.
   */
  add(
    name: string,
    energyJ: number | undefined,
    p10: number | undefined,
    p90: number | undefined,
    where: () => string,
    file: string,
  ): void {
    this.gpu++;
    if (p10 === undefined && p90 === undefined) return;
    if (
      energyJ === undefined ||
      p10 === undefined ||
      p90 === undefined ||
      !(p10 >= 0 && p10 <= energyJ && energyJ <= p90 && Number.isFinite(p90))
    ) {
      this.diag.add('replay.energy-band-unusable', {
        file,
        message:
          `${where()}: energy band ${P10} = ${p10 ?? 'absent'}, ${ENERGY} = ${energyJ ?? 'absent'}, ${P90} = ` +
          `${p90 ?? 'absent'} ` +
          `is not ${P10} ≤ ${ENERGY} ≤ ${P90}: the node counts at its estimate without a band`,
      });
      return;
    }
    const below = energyJ - p10;
    const above = p90 - energyJ;
    let g = this.byName.get(name);
    if (!g) this.byName.set(name, (g = { below: 0, above: 0 }));
    g.below += below;
    g.above += above;
    this.correlatedBelow += below;
    this.correlatedAbove += above;
    this.banded++;
    this.bandedEnergy += energyJ;
  }

  /** A GPU compute node without a band (what add does with neither p10 nor p90, without its arguments). */
  addUnbanded(): void {
    this.gpu++;
  }

  /** Null when no node carried a band. */
  sums(): ComputeBandSums | null {
    if (this.banded === 0) return null;
    let below = 0;
    let above = 0;
    for (const g of this.byName.values()) {
      below += g.below * g.below;
      above += g.above * g.above;
    }
    return {
      belowJ: Math.sqrt(below),
      aboveJ: Math.sqrt(above),
      correlatedBelowJ: this.correlatedBelow,
      correlatedAboveJ: this.correlatedAbove,
      bandedNodes: this.banded,
      gpuNodes: this.gpu,
      bandedEnergyJ: this.bandedEnergy,
      kernels: this.byName.size,
    };
  }
}

/** The band of a run's energy breakdown: compute at its band, every other part as estimated. */
export function energyBand(sums: ComputeBandSums, e: EnergyBreakdownJ): EnergyBandJ {
  const rest = e.memory + e.communication + e.network + e.idle + e.host;
  const computeP10 = Math.max(0, e.compute - sums.belowJ);
  const computeP90 = e.compute + sums.aboveJ;
  return {
    computeP10,
    computeP90,
    totalP10: computeP10 + rest,
    totalP90: computeP90 + rest,
    correlatedComputeP10: Math.max(0, e.compute - sums.correlatedBelowJ),
    correlatedComputeP90: e.compute + sums.correlatedAboveJ,
    bandedNodes: sums.bandedNodes,
    gpuNodes: sums.gpuNodes,
    kernels: sums.kernels,
    bandedShare: e.compute > 0 ? Math.min(1, sums.bandedEnergyJ / e.compute) : 0,
    sums,
  };
}

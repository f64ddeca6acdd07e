/**
 * Network DVFS sweep: for each frequency scale s of one network dimension, bandwidth × s, energy per bit ×
 * (V(s)/V(1))² from a V–f curve, latency unchanged; every point is replayed and compared with its neighbour at the
 * next higher scale (ΔE/ΔT, energy saved per % slowdown). Points dominated in time and energy are marked.
 * Everything is an estimate of the replay engine's models.
 */
import { InputError } from '../../errors.js';
import type { NetworkConfig, PowerConfig } from '../../formats/astra/index.js';
import type { ReplayResult } from '../replay/index.js';
import { marginal, markDominated } from './pareto.js';
import { runPoints, type PoolRun } from './pool.js';
import type { PointTask } from './replay-point.js';
import type { NetworkSweepPoint, NetworkSweepRecord } from './types.js';
import { DEFAULT_SERDES_VF_CURVE, energyPerBitFactor, voltageRatio, type VfCurve } from './vf-curve.js';

export interface NetworkSweepInput extends PointTask {
  label: string;
  /** Swept network dimension, 0-based. */
  dimension: number;
  /** Frequency scales (1 = nominal); sorted and de-duplicated here. */
  scales: readonly number[];
  vfCurve?: VfCurve;
  threads?: number;
  onPoint?: (done: number, total: number) => void;
}

export interface NetworkSweepOutput {
  record: NetworkSweepRecord;
  /** Replay of each point, in the order of record.points. */
  replays: ReplayResult[];
  parallelism: PoolRun['parallelism'];
}

/** The network and power configurations of one point. */
export function scaledConfigs(
  network: NetworkConfig,
  power: PowerConfig,
  dimension: number,
  scale: number,
  curve: VfCurve,
): { network: NetworkConfig; power: PowerConfig } {
  const f = energyPerBitFactor(curve, scale);
  return {
    network: {
      ...network,
      dims: network.dims.map((d, i) => (i === dimension ? { ...d, bandwidthGBps: d.bandwidthGBps * scale } : d)),
    },
    power: {
      ...power,
      network: power.network.map((n, i) =>
        i === dimension
          ? {
              ...n,
              energyPjPerBit: n.energyPjPerBit * f,
              bandwidthGBps: n.bandwidthGBps === undefined ? undefined : n.bandwidthGBps * scale,
            }
          : n,
      ),
    },
  };
}

export function checkSweepInput(
  network: NetworkConfig,
  power: PowerConfig,
  dimension: number,
  scales: readonly number[],
  curve: VfCurve,
): number[] {
  if (!Number.isInteger(dimension) || dimension < 0 || dimension >= network.dims.length) {
    throw new InputError(
      `--dimension ${dimension} is not a dimension of ${network.file} (0..${network.dims.length - 1})`,
    );
  }
  if (power.network.length <= dimension)
    throw new InputError(`${power.file}: no "network" entry for dimension ${dimension}`);
  const sorted = [...new Set(scales)].sort((a, b) => a - b);
  if (sorted.length === 0) throw new InputError('the sweep has no scales');
  for (const s of sorted) {
    if (!(s > 0) || !Number.isFinite(s)) throw new InputError(`frequency scale ${s} must be a positive number`);
    voltageRatio(curve, s); // throws when outside the curve
  }
  return sorted;
}

/** A sweep point before it is compared with its neighbours. */
export type NetworkSweepBasePoint = Omit<NetworkSweepPoint, 'marginal' | 'dominated'>;

/**
 * Replays the points of the sweep at `indices` of its sorted scales (default: all); a shard of a sharded sweep
 * computes every N-th point.
 */
export async function networkSweepPoints(
  input: NetworkSweepInput,
  indices?: readonly number[],
): Promise<{
  scales: number[];
  points: NetworkSweepBasePoint[];
  replays: ReplayResult[];
  parallelism: PoolRun['parallelism'];
}> {
  const curve = input.vfCurve ?? DEFAULT_SERDES_VF_CURVE;
  const scales = checkSweepInput(input.network, input.power, input.dimension, input.scales, curve);
  const picked = (indices ?? scales.map((_, i) => i)).map((i) => scales[i]);
  const configs = picked.map((s) => scaledConfigs(input.network, input.power, input.dimension, s, curve));
  const tasks: PointTask[] = configs.map((c) => ({
    trace: input.trace,
    system: input.system,
    network: c.network,
    power: c.power,
    memory: input.memory,
    commGroups: input.commGroups,
    bandwidthUnit: input.bandwidthUnit,
    windowNodes: input.windowNodes,
  }));
  let done = 0;
  const run = await runPoints(tasks, { threads: input.threads, onDone: () => input.onPoint?.(++done, tasks.length) });
  const points = run.results.map((res, i) => ({
    scale: picked[i],
    bandwidthGBps: configs[i].network.dims[input.dimension].bandwidthGBps,
    energyPerBitPJ: configs[i].power.network[input.dimension].energyPjPerBit,
    voltageRatio: voltageRatio(curve, picked[i]),
    makespanNs: res.makespanNs,
    energyJ: res.energyJ,
    networkByDimensionJ: res.networkEnergyPerDimJ,
  }));
  return { scales, points, replays: run.results, parallelism: run.parallelism };
}

/** The sweep record from all its points (sorted by scale): each against its neighbour, dominated ones marked. */
export function networkSweepRecord(
  label: string,
  dimension: number,
  vfCurve: string,
  base: readonly NetworkSweepBasePoint[],
): NetworkSweepRecord {
  const te = base.map((p) => ({ timeS: p.makespanNs * 1e-9, energyJ: p.energyJ.total }));
  const dominated = markDominated(te);
  const points: NetworkSweepPoint[] = base.map((p, i) => {
    if (i === base.length - 1) return { ...p, marginal: null, dominated: dominated[i] };
    return { ...p, marginal: { fromScale: base[i + 1].scale, ...marginal(te[i], te[i + 1]) }, dominated: dominated[i] };
  });
  return { kind: 'network-sweep', schemaVersion: 1, label, dimension, points, vfCurve, estimate: true };
}

export async function sweepNetwork(input: NetworkSweepInput): Promise<NetworkSweepOutput> {
  const run = await networkSweepPoints(input);
  return {
    record: networkSweepRecord(
      input.label,
      input.dimension,
      (input.vfCurve ?? DEFAULT_SERDES_VF_CURVE).name,
      run.points,
    ),
    replays: run.replays,
    parallelism: run.parallelism,
  };
}

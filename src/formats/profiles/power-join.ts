/**
 * Joins kernels that have start times (an Nsight Systems cuda_gpu_trace, a Kineto trace) with a power time series
 * (power.ts) for per-kernel energy. Sensor caveats, said in the notes: NVML-class sensors refresh every ~100 ms and
 * report a moving average, so one kernel shorter than that period sees a stale reading; such kernels are aggregated
 * by name (below), and the two clocks are aligned only as well as the offset given or inferred.
 */
import type { KernelSample } from '../../vocab/kernel-sample.js';
import { estimateSensorPeriodNs, integratePower, type PowerSeries } from './power.js';
import type { ReaderContext } from './types.js';

/** Sensor update period assumed when it cannot be estimated from the series (NVML: ~100 ms). */
export const DEFAULT_SENSOR_PERIOD_NS = 100e6;

export interface TraceKernel {
  sample: KernelSample;
  /** Start, ns on the trace's time axis. */
  startNs: number;
}

/** How the trace's time axis was placed on the power series' axis, when the reader worked it out itself. */
export interface PowerAlignment {
  /** Trace time 0, ns after the series' first sample. */
  offsetNs: number;
  note: string;
}

/**
 * Attaches energy to kernels from a power series. A kernel at least one sensor period long gets its own
 * integral. Kernels of a name whose median duration is shorter than the sensor period are aggregated:
 * one sample per name with the mean duration, energyJ = mean of the per-invocation integrals,
 * powerW = Σ energy / Σ time, extra.invocations = count — a single short interval sees a stale reading,
 * while many invocations spread over the log average the sensor out.
 */
export function joinPower(
  file: string,
  kernels: TraceKernel[],
  series: PowerSeries,
  ctx: ReaderContext,
  notes: string[],
  alignment: PowerAlignment | null,
): KernelSample[] {
  const { diagnostics, options } = ctx;
  const offsetNs = options.powerOffsetNs ?? alignment?.offsetNs ?? 0;
  const estimated = estimateSensorPeriodNs(series);
  const periodNs = options.sensorPeriodNs ?? estimated ?? DEFAULT_SENSOR_PERIOD_NS;
  notes.push(...series.notes.map((n) => `power: ${n}`));
  notes.push(
    options.powerOffsetNs !== undefined
      ? `trace time 0 placed ${offsetNs} ns after the first power sample`
      : alignment
        ? alignment.note
        : `power series ${series.source.file} (${series.source.format}) assumed to start with the trace (no ` +
          `common clock; set powerOffsetNs)`,
    `sensor update period ${(periodNs / 1e6).toFixed(1)} ms (` +
      (options.sensorPeriodNs !== undefined
        ? 'given'
        : estimated !== null
          ? 'estimated from reading changes'
          : 'default') +
      `)`,
    'energy by trapezoidal integration of linearly interpolated power over each kernel interval',
  );
  const byName = new Map<string, TraceKernel[]>();
  for (const k of kernels) {
    const list = byName.get(k.sample.kernelName) ?? [];
    list.push(k);
    byName.set(k.sample.kernelName, list);
  }
  const out: KernelSample[] = [];
  let outside = 0;
  let aggregatedNames = 0;
  let aggregatedKernels = 0;
  for (const [name, list] of byName) {
    const durs = list.map((k) => k.sample.durationNs!).sort((a, b) => a - b);
    const medianNs = durs[durs.length >> 1]!;
    const energies = list.map((k) => {
      const e = integratePower(series, k.startNs + offsetNs, k.startNs + offsetNs + k.sample.durationNs!);
      if (e === null) {
        outside++;
        diagnostics.add('kernel-outside-power-series', {
          file,
          message: `row ${k.sample.source.row}: kernel '${name}' lies outside the power series`,
        });
      }
      return e;
    });
    if (medianNs >= periodNs) {
      list.forEach((k, i) => {
        const e = energies[i]!;
        if (e !== null) {
          k.sample.energyJ = e;
          k.sample.powerW = k.sample.durationNs! > 0 ? e / (k.sample.durationNs! / 1e9) : null;
        }
        out.push(k.sample);
      });
      continue;
    }
    let eSum = 0,
      tSum = 0,
      n = 0,
      durAll = 0;
    list.forEach((k, i) => {
      durAll += k.sample.durationNs!;
      const e = energies[i];
      if (e === null || e === undefined) return;
      eSum += e;
      tSum += k.sample.durationNs!;
      n++;
    });
    aggregatedNames++;
    aggregatedKernels += list.length;
    const first = list[0]!.sample;
    out.push({
      ...first,
      invocation: null,
      durationNs: durAll / list.length,
      powerW: n && tSum > 0 ? eSum / (tSum / 1e9) : null,
      energyJ: n ? eSum / n : null,
      extra: {
        ...first.extra,
        invocations: list.length,
        invocationsWithPower: n,
        aggregated: 'mean over invocations (shorter than the sensor period)',
      },
    });
  }
  if (aggregatedNames) {
    notes.push(
      `${aggregatedKernels} invocations of ${aggregatedNames} kernel names shorter than the sensor period were ` +
        `aggregated by name: one sample each with mean duration, mean energy per invocation and power = Σ energy ` +
        `/ Σ time`,
    );
  }
  if (outside) notes.push(`${outside} kernel invocations fall outside the power series: no energy for them`);
  return out;
}

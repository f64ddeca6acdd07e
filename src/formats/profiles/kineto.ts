/**
 * Kineto / PyTorch-profiler traces as a kernel profile: one sample per GPU kernel, memcpy and memset, with its name,
 * duration, start, stream, correlation id, device and distributed rank; counters from CUPTI range-profiler ranges
 * when the trace has them (mapped like Nsight Compute metrics). Kineto records no SM clock: each sample gets
 * `options.referenceClockMHz` (--reference-frequency), else the device's default (maximum boost) clock, and a note
 * says which; a device with neither keeps a null clock and a note saying how to give one.
 * With a power log (options.power) every kernel gets the power integrated over its interval (power-join.ts).
 */
import { defaultSmClockMHz } from '../kineto/clocks.js';
import {
  mainDevice,
  readKinetoTrace,
  type KinetoDevice,
  type KinetoGpuEvent,
  type KinetoTrace,
} from '../kineto/trace.js';
import { newSample, type KernelSample, type ProfileTable } from '../../vocab/kernel-sample.js';
import { NCU_METRIC_MAP } from './ncu.js';
import { readPowerSeries, type PowerSeries } from './power.js';
import { joinPower, type PowerAlignment, type TraceKernel } from './power-join.js';
import { numberInvocations } from './sample.js';
import type { ReaderContext } from './types.js';

import { KINETO_FORMAT } from './format-ids.js';

export { KINETO_FORMAT };

/** Canonical utilization from CUPTI range counters named like ncu metrics (percent metrics ÷ 100). */
function utilizationOf(counters: Record<string, number>): Record<string, number> {
  const u: Record<string, number> = {};
  for (const rule of NCU_METRIC_MAP) {
    if (rule.quantity !== 'percent') continue;
    const metric = rule.metrics.find((m) => counters[m] !== undefined);
    if (metric) u[rule.target] = Math.min(Math.max(counters[metric]! / 100, 0), 1.5);
  }
  return u;
}

function sampleOf(file: string, g: KinetoGpuEvent, smClockMHz: number | null, rank: number | null): KernelSample {
  const extra: Record<string, number | string> = { startNs: g.tsNs, kind: g.kind };
  if (g.stream !== null) extra.stream = g.stream;
  if (g.correlation !== null)
    extra.correlationId = typeof g.correlation === 'bigint' ? String(g.correlation) : g.correlation;
  if (g.device !== null) extra.device = g.device;
  if (g.bytes !== null) extra.bytes = g.bytes;
  if (rank !== null) extra.rank = rank;
  // Row: the event's index in traceEvents (1-based), so a message points at the event.
  return newSample(
    g.name,
    { file, row: g.index + 1, format: KINETO_FORMAT },
    {
      durationNs: g.durNs,
      smClockMHz,
      utilization: g.counters ? utilizationOf(g.counters) : {},
      extra,
    },
  );
}

/** The device properties a user checks against the calibration: " (compute capability 7.0, 80 SMs, 31.7 GiB)". */
export function deviceSummary(dev: KinetoDevice): string {
  const parts: string[] = [];
  if (Number.isInteger(dev.computeMajor) && Number.isInteger(dev.computeMinor))
    parts.push(`compute capability ${dev.computeMajor}.${dev.computeMinor}`);
  if (Number.isInteger(dev.numSms)) parts.push(`${dev.numSms} SMs`);
  if (typeof dev.totalGlobalMem === 'number' && dev.totalGlobalMem > 0)
    parts.push(`${(dev.totalGlobalMem / 2 ** 30).toFixed(1)} GiB`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** The SM clock samples are given, and the note saying where it came from. */
export function kinetoClock(trace: KinetoTrace, given: number | undefined): { mhz: number | null; note: string } {
  const dev = mainDevice(trace);
  if (given !== undefined)
    return {
      mhz: given,
      note: `SM clock ${given} MHz for every sample (given: --reference-frequency); Kineto records no clock`,
    };
  const d = defaultSmClockMHz(dev?.name ?? null);
  if (d) {
    return {
      mhz: d.mhz,
      note:
        `SM clock ${d.mhz} MHz assumed for every sample: the maximum boost clock of ${d.entry} (${dev!.name}), ` +
        `which GPU Boost runs at unless power or temperature limit it; Kineto records no clock (pass ` +
        `--reference-frequency if the run was clock-locked)`,
    };
  }
  return {
    mhz: null,
    note:
      `NO SM CLOCK: Kineto records none and device "${dev?.name ?? 'unknown'}" has no default clock in ` +
      `tracewatt's table; pass --reference-frequency MHz, or the samples cannot be used for matching`,
  };
}

/**
 * Wall-clock time (ms since the Unix epoch) of the trace's base stamp, or null when the trace has none. Older PyTorch
 * writes ts as µs since the epoch; newer PyTorch (2.x) writes ts on another clock and the epoch of its zero as the
 * top-level `baseTimeNanoseconds`.
 */
export function wallClockStartMs(trace: KinetoTrace): number | null {
  if (trace.baseUs >= 1e15) return trace.baseUs / 1000; // 1e15 µs ≈ 2001: epoch stamps
  const base = trace.meta.baseTimeNanoseconds;
  // Read through a double: exact to well under a µs at today's epoch, far finer than any power sensor.
  if (typeof base === 'number' && Number.isFinite(base) && base >= 1e18) return base / 1e6 + trace.baseUs / 1000;
  return null;
}

/**
 * Places the trace on the power series' clock: an explicit offset wins; else, when both are wall-clock stamped
 * (Kineto: µs since the epoch; the log: absolute timestamps), by those stamps. nvidia-smi writes local time without a
 * zone: when the trace does not fall inside the log, the whole-hour shift (time zone) that puts it there is taken, and
 * said.
 */
export function alignPower(trace: KinetoTrace, series: PowerSeries, kernels: TraceKernel[]): PowerAlignment | null {
  const traceStartMs = wallClockStartMs(trace);
  if (series.originEpochMs === null || traceStartMs === null) return null;
  const offsetMs = traceStartMs - series.originEpochMs;
  // A loop, not Math.min(...list): spreading more than ~125k kernels overflows the call stack.
  let first = Infinity;
  let last = -Infinity;
  for (const k of kernels) {
    first = Math.min(first, k.startNs);
    last = Math.max(last, k.startNs + (k.sample.durationNs ?? 0));
  }
  const endNs = series.timeNs[series.timeNs.length - 1]!;
  const inside = (shiftMs: number) => {
    const off = (offsetMs + shiftMs) * 1e6;
    return first + off >= 0 && last + off <= endNs;
  };
  if (inside(0))
    return {
      offsetNs: offsetMs * 1e6,
      note:
        `trace placed on the power log by wall-clock stamps (trace start ${new Date(traceStartMs).toISOString()}` +
        `; log stamps read as UTC)`,
    };
  for (let h = 1; h <= 14; h++) {
    for (const s of [h, -h]) {
      if (inside(s * 3600e3)) {
        return {
          offsetNs: (offsetMs + s * 3600e3) * 1e6,
          note:
            `trace placed on the power log by wall-clock stamps shifted by ${s > 0 ? '+' : ''}${s} h: the log's ` +
            `stamps are local time without a zone (assumed; pass --power-offset-ns to place it yourself)`,
        };
      }
    }
  }
  return null;
}

export async function readKineto(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  const { options, diagnostics } = ctx;
  const trace = await readKinetoTrace(file, { hostEvents: false });
  const dev = mainDevice(trace);
  const clock = kinetoClock(trace, options.referenceClockMHz);
  const rank = trace.distributed?.rank ?? null;
  const notes = [clock.note, ...trace.notes];
  const counts = { kernel: 0, memcpy: 0, memset: 0 };
  const kernels: TraceKernel[] = trace.gpu.map((g) => {
    counts[g.kind]++;
    if (g.durNs === 0) diagnostics.add('zero-duration', { file, message: `event ${g.index}: ${g.name} lasts 0 ns` });
    return { sample: sampleOf(file, g, clock.mhz, rank), startNs: g.tsNs };
  });
  notes.push(
    `${counts.kernel} kernels, ${counts.memcpy} memcpy and ${counts.memset} memset events` +
      (rank !== null ? ` of rank ${rank}` : '') +
      (dev ? ` on ${dev.name}${deviceSummary(dev)}` : ''),
  );
  if (![...trace.gpu].some((g) => g.counters))
    notes.push('no counters (no CUPTI range-profiler events): samples carry duration only, no utilization or power');
  const samples = kernels.map((k) => k.sample);
  numberInvocations(samples);
  const device = dev?.name || null;
  if (!options.power) return { format: KINETO_FORMAT, device, samples, notes };
  const series = await readPowerSeries(options.power, options, diagnostics);
  const joined = joinPower(
    file,
    kernels,
    series,
    ctx,
    notes,
    options.powerOffsetNs === undefined ? alignPower(trace, series, kernels) : null,
  );
  return { format: KINETO_FORMAT, device: device ?? series.device, samples: joined, notes };
}

/** Shared types of the profile readers. */
import type { Diagnostics } from '../../diagnostics.js';
import type { KernelSample, ProfileTable } from '../../vocab/kernel-sample.js';
import type { ColumnMapping } from './generic.js';

/** Every format id readProfile understands (also the values of `--format`). */
export const PROFILE_FORMATS = [
  'ncu-csv',
  'ncu-raw',
  'nsys-gpu-trace',
  'nsys-kern-sum',
  'nv-dvfs-benchmark',
  'perseus',
  'gpmtool',
  'zeus',
  'zeus-profile',
  'accelwattch',
  'kineto',
  'generic',
] as const;
export type ProfileFormat = (typeof PROFILE_FORMATS)[number];

/** Power time-series formats that can be joined with an Nsight Systems GPU trace. */
export const POWER_FORMATS = ['nvidia-smi', 'dcgmi-dmon', 'zeus-monitor', 'power-csv'] as const;
export type PowerFormat = (typeof POWER_FORMATS)[number];

export interface ReadProfileOptions {
  /** Force a format instead of sniffing the header. */
  format?: ProfileFormat;
  /** Column mapping for the generic reader: a JSON/YAML file path or the mapping itself. */
  mapping?: string | ColumnMapping;
  /** Odd-but-usable rows are counted here (a fresh one is used when absent). */
  diagnostics?: Diagnostics;
  /** Power time series (file) to join with an Nsight Systems cuda_gpu_trace. */
  power?: string;
  /** Force the power file's format instead of sniffing it. */
  powerFormat?: PowerFormat;
  /**
   * Time of the trace's zero on the power series' clock, ns after the series' first sample.
   * Default 0: the series is assumed to start with the trace (said in notes).
   */
  powerOffsetNs?: number;
  /** Power sensor update period, ns. Default: estimated from the series (value changes), else 100 ms. */
  sensorPeriodNs?: number;
  /** For multi-GPU power logs: which GPU index to take. Default: the first one seen. */
  gpuIndex?: number;
  /** Sample interval of a dcgmi dmon table (it has no timestamps), ms. Default 1000 (dmon's default). */
  dmonIntervalMs?: number;
  /** SM clock (MHz) to give samples whose file records none (Kineto); default: the device's default clock. */
  referenceClockMHz?: number;
}

/** Where a reader puts its samples as it reads them (an array by default; a streaming consumer merges them). */
export interface SampleSink {
  add(sample: KernelSample): void;
}

export interface ReaderContext {
  diagnostics: Diagnostics;
  options: ReadProfileOptions;
  /**
   * Readers that make one sample per row hand each to the sink as they read it, and return no samples, so a
   * streaming consumer (readProfileInto) holds none of them; readers that need the whole file first (invocation
   * numbering, a power join) return their samples.
   */
  sink: SampleSink;
}

export type ProfileReader = (file: string, ctx: ReaderContext) => Promise<ProfileTable>;

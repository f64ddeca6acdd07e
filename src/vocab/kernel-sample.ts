/**
 * The canonical per-kernel sample table that every profiler-output reader
 * (src/formats/profiles/*) produces and the power/time models consume.
 *
 * Conventions: utilizations are fractions in [0, 1]; clocks in MHz; durations in
 * nanoseconds; power in watts (average over the kernel); energy in joules.
 * `null` means "not present in the source", never "zero".
 */

/** Component utilization keys. Known keys are listed; producers may add others. */
export type Component =
  | 'sm_active'
  | 'sm_occupancy'
  | 'tensor_active'
  | 'fp16_active'
  | 'fp32_active'
  | 'fp64_active'
  | 'dram_active'
  | 'pcie_active'
  | 'nvlink_active'
  | 'l2_active'
  | 'int_active'
  | 'sfu_active'
  | 'ldst_active'
  | string;

export interface KernelSample {
  /** Kernel (or stage/instruction) name as the producer printed it (mangled or demangled). */
  kernelName: string;
  /** Ordinal among samples of the same kernel name, when known. */
  invocation: number | null;
  /** SM clock the sample ran at (nominal or measured), MHz. */
  smClockMHz: number | null;
  /** Memory clock, MHz. */
  memClockMHz: number | null;
  /** Kernel duration, ns. */
  durationNs: number | null;
  /** Component utilizations, each 0–1. */
  utilization: Partial<Record<Component, number>>;
  /** Average power during the kernel, W. */
  powerW: number | null;
  /** Energy of the kernel, J. */
  energyJ: number | null;
  /** Power limit in force, W, when the producer reports it. */
  powerLimitW?: number | null;
  /** Other numeric (or string) columns worth keeping, e.g. dram bytes, flops. Units in the key name. */
  extra?: Record<string, number | string>;
  /** Provenance: file, 1-based data row (or line) number, format id. */
  source: { file: string; row: number; format: string };
}

export interface ProfileTable {
  /** Format id of the reader that produced it (e.g. 'ncu-csv', 'nv-dvfs-benchmark'). */
  format: string;
  /** Device name when the input says it, else null. */
  device: string | null;
  samples: KernelSample[];
  /**
   * Rows the samples stand for, when a consumer merged repeats while reading (readProfileInto); absent when
   * `samples` holds one sample per row.
   */
  rows?: number;
  /** Human-readable notes: what was aggregated, assumed or converted. */
  notes: string[];
}

/** A sample with every measurement unset; each reader fills in what its format has. */
export function newSample(
  kernelName: string,
  source: KernelSample['source'],
  fields: Partial<Omit<KernelSample, 'kernelName' | 'source'>> = {},
): KernelSample {
  return {
    kernelName,
    invocation: null,
    smClockMHz: null,
    memClockMHz: null,
    durationNs: null,
    utilization: {},
    powerW: null,
    energyJ: null,
    ...fields,
    source,
  };
}

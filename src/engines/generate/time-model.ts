/**
 * How long a kernel takes. The generator asks a TimeModel for every COMP node's duration, so a
 * calibrated model (from a calibration file, at a chosen clock frequency) can replace the roofline
 * without touching the generator.
 */
import { type Dtype, type GpuPreset, peakFlopsPerSecond } from './gpus.js';
import type { OpCost } from './ops.js';

export interface TimeModel {
  /** One line naming the model and its parameters, recorded in the trace metadata. */
  readonly label: string;
  durationNs(op: OpCost): number;
  /** Energy of the kernel, J (estimate), when the model has a power model too; written as `energy_j` on compute nodes. */
  energyJ?(op: OpCost): number;
  /** Set when the model is a plain roofline that ASTRA-sim can reproduce from num_ops and tensor_size. */
  readonly roofline?: { peakTflops: number; memBandwidthGBps: number };
}

/**
 * Roofline: max(FLOPs / peak, bytes / bandwidth). The same rule ASTRA-sim applies with
 * roofline-enabled, so replaying with or without it gives the same times (up to µs rounding).
 */
export function rooflineTimeModel(gpu: GpuPreset, dtype: Dtype): TimeModel {
  const peak = peakFlopsPerSecond(gpu, dtype);
  const bw = gpu.memBandwidthGBps * 1e9;
  return {
    roofline: { peakTflops: peak / 1e12, memBandwidthGBps: gpu.memBandwidthGBps },
    label: `roofline ${gpu.name} ${dtype}: ${peak / 1e12} TFLOP/s, ${gpu.memBandwidthGBps} GB/s`,
    durationNs(op: OpCost): number {
      return Math.max(op.flops / peak, op.bytes / bw) * 1e9;
    },
  };
}

/**
 * How long a kernel takes. The generator asks a TimeModel for every COMP node's duration, so a
 * calibrated model (from a calibration file, at a chosen clock frequency) can replace the roofline
 * without touching the generator.
 */
import { rooflineTime } from '../../vocab/roofline.js';
import { type Dtype, type GpuPreset, peakFlopsPerSecond } from './gpus.js';
import type { OpCost } from './ops.js';

export interface TimeModel {
  /** One line naming the model and its parameters, recorded in the trace metadata. */
  readonly label: string;
  durationNs(op: OpCost): number;
  /**
   * Energy of the kernel, J (estimate), when the model has a power model too; written as `energy_j` on compute nodes.
   */
  energyJ?(op: OpCost): number;
  /** Set when the model is a plain roofline that ASTRA-sim can reproduce from num_ops and tensor_size. */
  readonly roofline?: { peakTflops: number; memBandwidthGBps: number };
}

/**
 * Roofline (vocab/roofline.ts): max(FLOPs / peak, bytes / bandwidth). The same rule ASTRA-sim applies with
 * roofline-enabled, so replaying with or without it gives the same times (up to µs rounding).
 */
export function rooflineTimeModel(gpu: GpuPreset, dtype: Dtype): TimeModel {
  const peak = peakFlopsPerSecond(gpu, dtype);
  const bw = gpu.device.memoryBandwidthBytesPerS;
  const bwGBps = bw / 1e9;
  return {
    roofline: { peakTflops: peak / 1e12, memBandwidthGBps: bwGBps },
    label: `roofline ${gpu.name} ${dtype}: ${peak / 1e12} TFLOP/s, ${bwGBps} GB/s`,
    durationNs(op: OpCost): number {
      return rooflineTime(op.flops, op.bytes, peak, bw).ns;
    },
  };
}

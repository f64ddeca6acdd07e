/**
 * GPU presets for roofline durations and the generated network/system files. Peak numbers are the
 * vendors' dense (no structured sparsity) datasheet figures; bandwidths are per direction.
 */
import { InputError } from '../../errors.js';

export type Dtype = 'bf16' | 'fp16' | 'fp32';

export const DTYPE_BYTES: Readonly<Record<Dtype, number>> = { bf16: 2, fp16: 2, fp32: 4 };

export function parseDtype(text: string): Dtype {
  if (text === 'bf16' || text === 'fp16' || text === 'fp32') return text;
  throw new InputError(`unknown dtype "${text}": use bf16, fp16 or fp32`);
}

export interface GpuPreset {
  name: string;
  /** Dense peak per dtype in TFLOP/s (tensor cores for 16-bit, CUDA cores for fp32); absent = unsupported. */
  peakTflops: Partial<Record<Dtype, number>>;
  /** HBM bandwidth in GB/s (10^9 bytes/s). */
  memBandwidthGBps: number;
  /** NVLink bandwidth per GPU per direction in GB/s (the tensor-parallel dimension). */
  nvlinkGBps: number;
  /** Scale-out bandwidth per GPU per direction in GB/s (one NIC per GPU, the outer dimensions). */
  networkGBps: number;
  source: string;
}

export const GPU_PRESETS: Readonly<Record<string, GpuPreset>> = {
  h100: {
    name: 'NVIDIA H100 SXM5 80GB',
    peakTflops: { bf16: 989.4, fp16: 989.4, fp32: 66.9 },
    memBandwidthGBps: 3350,
    nvlinkGBps: 450,
    networkGBps: 50,
    source:
      'NVIDIA H100 Tensor Core GPU datasheet (SXM5: BF16 1,979 TFLOPS with sparsity = 989.4 dense, FP32 67, HBM3 3.35 TB/s, NVLink 900 GB/s bidirectional); 400 Gb/s NDR InfiniBand per GPU',
  },
  a100: {
    name: 'NVIDIA A100 SXM4 80GB',
    peakTflops: { bf16: 312, fp16: 312, fp32: 19.5 },
    memBandwidthGBps: 2039,
    nvlinkGBps: 300,
    networkGBps: 25,
    source:
      'NVIDIA A100 Tensor Core GPU datasheet (SXM 80GB: BF16 312 TFLOPS dense, FP32 19.5, HBM2e 2,039 GB/s, NVLink 600 GB/s bidirectional); 200 Gb/s HDR InfiniBand per GPU',
  },
  v100: {
    name: 'NVIDIA V100 SXM2 32GB',
    peakTflops: { fp16: 125, fp32: 15.7 },
    memBandwidthGBps: 900,
    nvlinkGBps: 150,
    networkGBps: 12.5,
    source:
      'NVIDIA V100 Tensor Core GPU datasheet (SXM2: FP16 tensor 125 TFLOPS, FP32 15.7, HBM2 900 GB/s, NVLink 300 GB/s bidirectional; no BF16); 100 Gb/s EDR InfiniBand per GPU',
  },
};

export function gpuPresetNames(): string[] {
  return Object.keys(GPU_PRESETS);
}

export function resolveGpu(name: string): GpuPreset {
  const g = GPU_PRESETS[name.toLowerCase()];
  if (!g) throw new InputError(`unknown GPU "${name}": use one of ${gpuPresetNames().join(', ')}`);
  return g;
}

/** Peak FLOP/s of the GPU for a dtype; throws when the GPU has no such arithmetic. */
export function peakFlopsPerSecond(gpu: GpuPreset, dtype: Dtype): number {
  const t = gpu.peakTflops[dtype];
  if (t === undefined)
    throw new InputError(`${gpu.name} has no ${dtype} arithmetic: use ${Object.keys(gpu.peakTflops).join(' or ')}`);
  return t * 1e12;
}

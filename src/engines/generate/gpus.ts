/**
 * GPU presets of generated traces: a board from the device table (vocab/devices.ts: peaks, memory and NVLink
 * bandwidth) as the generated files name it, with the scale-out network its node is given. Dtypes are the
 * generator's arithmetic precisions.
 */
import { InputError } from '../../errors.js';
import { DEVICES, type DeviceFacts } from '../../vocab/devices.js';

export type Dtype = 'bf16' | 'fp16' | 'fp32';

export const DTYPE_BYTES: Readonly<Record<Dtype, number>> = { bf16: 2, fp16: 2, fp32: 4 };
const DTYPES: readonly Dtype[] = ['bf16', 'fp16', 'fp32'];

export interface GpuPreset {
  /** The board as generated traces and their notes name it. */
  name: string;
  /** The board's facts; a preset's board has NVLink (the tensor-parallel dimension). */
  device: DeviceFacts & { nvlinkBytesPerS: number };
  /** Scale-out bandwidth per GPU per direction (one NIC per GPU, the outer dimensions), bytes/s. */
  networkBytesPerS: number;
}

export const GPU_PRESETS: Readonly<Record<string, GpuPreset>> = {
  // 400 Gb/s NDR InfiniBand per GPU
  h100: { name: 'NVIDIA H100 SXM5 80GB', device: DEVICES.h100, networkBytesPerS: 50e9 },
  // 200 Gb/s HDR InfiniBand per GPU
  a100: { name: 'NVIDIA A100 SXM4 80GB', device: DEVICES.a100, networkBytesPerS: 25e9 },
  // 100 Gb/s EDR InfiniBand per GPU
  v100: { name: 'NVIDIA V100 SXM2 32GB', device: DEVICES['v100-sxm2'], networkBytesPerS: 12.5e9 },
};

export function gpuPresetNames(): string[] {
  return Object.keys(GPU_PRESETS);
}

export function resolveGpu(name: string): GpuPreset {
  const g = GPU_PRESETS[name.toLowerCase()];
  if (!g) throw new InputError(`unknown GPU "${name}": use one of ${gpuPresetNames().join(', ')}`);
  return g;
}

/** Dense peak FLOP/s of the board for a dtype (tensor cores for 16-bit, CUDA cores for fp32), or undefined: none. */
export function peakFlopsOf(gpu: GpuPreset, dtype: Dtype): number | undefined {
  const { peakFlopsPerS, bf16 } = gpu.device;
  if (dtype === 'fp32') return peakFlopsPerS.fp32;
  return dtype === 'bf16' && !bf16 ? undefined : peakFlopsPerS.fp16Tensor;
}

/** Peak FLOP/s of the GPU for a dtype; throws when the GPU has no such arithmetic. */
export function peakFlopsPerSecond(gpu: GpuPreset, dtype: Dtype): number {
  const peak = peakFlopsOf(gpu, dtype);
  if (peak === undefined) {
    const have = DTYPES.filter((d) => peakFlopsOf(gpu, d) !== undefined);
    throw new InputError(`${gpu.name} has no ${dtype} arithmetic: use ${have.join(' or ')}`);
  }
  return peak;
}

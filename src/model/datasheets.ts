/**
 * Datasheet-level facts per device (vendor datasheets; idle powers marked where they are estimates). Used for
 * roofline estimates, and as the only content of the datasheet-default calibrations (H100, A100, A30).
 */
import type { DatasheetFacts } from './calibration.js';

const T = 1e12;
const G = 1e9;

export const DATASHEETS: { match: RegExp; name: string; facts: DatasheetFacts }[] = [
  { match: /h100/i, name: 'NVIDIA H100 SXM5', facts: { tdpW: 700, idlePowerW: 80, activePowerW: 700, maxSmClockMHz: 1980, memoryBandwidthBytesPerS: 3350 * G, peakFlopsPerS: { fp16Tensor: 989 * T, fp32: 67 * T, fp64: 34 * T }, source: 'NVIDIA H100 datasheet (SXM5, dense); idle 80 W as in the AstraWattch case study' } },
  { match: /a100/i, name: 'NVIDIA A100 SXM4 80GB', facts: { tdpW: 400, idlePowerW: 60, activePowerW: 400, maxSmClockMHz: 1410, memoryBandwidthBytesPerS: 2039 * G, peakFlopsPerS: { fp16Tensor: 312 * T, fp32: 19.5 * T, fp64: 9.7 * T }, source: 'NVIDIA A100 datasheet (SXM4 80GB, dense); idle 60 W is an estimate, not a datasheet value' } },
  { match: /a30/i, name: 'NVIDIA A30', facts: { tdpW: 165, idlePowerW: 30, activePowerW: 165, maxSmClockMHz: 1440, memoryBandwidthBytesPerS: 933 * G, peakFlopsPerS: { fp16Tensor: 165 * T, fp32: 10.3 * T, fp64: 5.2 * T }, source: 'NVIDIA A30 Tensor Core GPU datasheet (PCIe, dense): 24 GB HBM2 at 933 GB/s, max TDP 165 W, BF16/FP16 tensor 165 TFLOP/s, TF32 tensor 82 TFLOP/s, FP32 10.3, FP64 5.2; SM clocks 210–1440 MHz in 15 MHz steps and HBM at 1215 MHz as nvidia-smi lists the supported clocks (the clocks of the published A30 decoder-layer study); idle 30 W is an estimate (public nvidia-smi readings of idle A30 boards at P0 show 28–35 W), not a datasheet value' } },
  { match: /a40/i, name: 'NVIDIA A40', facts: { tdpW: 300, idlePowerW: 70.38, activePowerW: 300, maxSmClockMHz: 1740, memoryBandwidthBytesPerS: 696 * G, peakFlopsPerS: { fp16Tensor: 149.7 * T, fp32: 37.4 * T, fp64: 0.58 * T }, source: 'NVIDIA A40 datasheet; idle = power while blocked on P2P measured by Perseus (70.38 W)' } },
  { match: /v100/i, name: 'Tesla V100-PCIE', facts: { tdpW: 250, idlePowerW: 30, activePowerW: 250, maxSmClockMHz: 1380, memoryBandwidthBytesPerS: 900 * G, peakFlopsPerS: { fp16Tensor: 112 * T, fp32: 14 * T, fp64: 7 * T }, source: 'NVIDIA V100 PCIe datasheet; idle 30 W is an estimate' } },
  { match: /rtx ?8000/i, name: 'Quadro RTX 8000', facts: { tdpW: 260, idlePowerW: 30, activePowerW: 260, maxSmClockMHz: 1770, memoryBandwidthBytesPerS: 672 * G, peakFlopsPerS: { fp16Tensor: 130.5 * T, fp32: 16.3 * T, fp64: 0.51 * T }, source: 'NVIDIA Quadro RTX 8000 datasheet; idle 30 W is an estimate' } },
  { match: /titan ?x/i, name: 'GeForce GTX Titan X', facts: { tdpW: 250, idlePowerW: 20, activePowerW: 250, maxSmClockMHz: 1164, memoryBandwidthBytesPerS: 336.5 * G, peakFlopsPerS: { fp32: 6.6 * T, fp64: 0.21 * T }, source: 'NVIDIA GTX Titan X (Maxwell) specifications; max clock from the gpmTOOL sweep; idle 20 W is an estimate' } },
];

export function datasheetFor(deviceName: string | null): { name: string; facts: DatasheetFacts } | null {
  if (!deviceName) return null;
  return DATASHEETS.find((d) => d.match.test(deviceName)) ?? null;
}

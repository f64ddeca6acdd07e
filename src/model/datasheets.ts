/**
 * Datasheet-level facts per device (vendor datasheets), with each device's published idle figure and, where one
 * was at hand, the lowest clock of its clock table. Used for roofline estimates, as the only content of the
 * datasheet-default calibrations (H100, A100, A30), and as the idle figure of a calibration given no idle measurement.
 */
import type { DatasheetFacts } from './calibration.js';

const T = 1e12;
const G = 1e9;

/** A device's idle draw held at an SM clock (a job's GPU between kernels), from a measurement others published. */
export interface PublishedIdle {
  powerW: number;
  /** The clock the figure applies at (where the source gives none: the clock the sentence says was assumed). */
  smClockMHz: number;
  source: string;
}

export interface DeviceSheet {
  match: RegExp;
  name: string;
  facts: DatasheetFacts;
  idle: PublishedIdle;
}

/** The H100's idle draw, measured on an H200 (same GH100 chip) by the project: see calibration/README.md. */
const H100_IDLE: PublishedIdle = {
  powerW: 118.22,
  smClockMHz: 1980,
  source:
    "measured by the tracewatt project on an NVIDIA H200 (same GH100 chip, 141 GB HBM3e against the H100's 80 GB HBM3): median of the 525 samples with no kernel running (utilization.gpu 0 %) at 1980 MHz in traces/pytorch-real/h200-gpt/nvidia-smi.csv",
};
const A100_IDLE: PublishedIdle = {
  powerW: 83.64,
  smClockMHz: 1410,
  source:
    "Perseus (SOSP '24): power of an A100 blocked on P2P communication, computing nothing, 83.64 W; its clock is not given: taken at the highest clock, 1410 MHz (a job's GPU runs at its application clock)",
};

export const DATASHEETS: DeviceSheet[] = [
  {
    match: /h100/i,
    name: 'NVIDIA H100 SXM5',
    idle: H100_IDLE,
    facts: {
      tdpW: 700,
      idlePowerW: H100_IDLE.powerW,
      activePowerW: 700,
      maxSmClockMHz: 1980,
      minSmClockMHz: 210,
      memoryBandwidthBytesPerS: 3350 * G,
      peakFlopsPerS: { fp16Tensor: 989 * T, fp32: 67 * T, fp64: 34 * T },
      source:
        'NVIDIA H100 datasheet (SXM5, dense); SM clock table 210 MHz upwards in 15 MHz steps (nvidia-smi supported clocks of the H100); idle: see calibration idle',
    },
  },
  {
    match: /a100/i,
    name: 'NVIDIA A100 SXM4 80GB',
    idle: A100_IDLE,
    facts: {
      tdpW: 400,
      idlePowerW: A100_IDLE.powerW,
      activePowerW: 400,
      maxSmClockMHz: 1410,
      minSmClockMHz: 210,
      memoryBandwidthBytesPerS: 2039 * G,
      peakFlopsPerS: { fp16Tensor: 312 * T, fp32: 19.5 * T, fp64: 9.7 * T },
      source:
        'NVIDIA A100 datasheet (SXM4 80GB, dense); SM clock table 210–1410 MHz in 15 MHz steps (nvidia-smi supported clocks of the A100); idle: see calibration idle',
    },
  },
  {
    match: /a30/i,
    name: 'NVIDIA A30',
    idle: {
      powerW: 30,
      smClockMHz: 1440,
      source:
        'an estimate, not a datasheet value: public nvidia-smi readings of idle A30 boards at P0 show 28–35 W; the clock is not shown: taken at the highest clock, 1440 MHz',
    },
    facts: {
      tdpW: 165,
      idlePowerW: 30,
      activePowerW: 165,
      maxSmClockMHz: 1440,
      minSmClockMHz: 210,
      memoryBandwidthBytesPerS: 933 * G,
      peakFlopsPerS: { fp16Tensor: 165 * T, fp32: 10.3 * T, fp64: 5.2 * T },
      source:
        'NVIDIA A30 Tensor Core GPU datasheet (PCIe, dense): 24 GB HBM2 at 933 GB/s, max TDP 165 W, BF16/FP16 tensor 165 TFLOP/s, TF32 tensor 82 TFLOP/s, FP32 10.3, FP64 5.2; SM clocks 210–1440 MHz in 15 MHz steps and HBM at 1215 MHz as nvidia-smi lists the supported clocks (the clocks of the published A30 decoder-layer study); idle: see calibration idle',
    },
  },
  {
    match: /a40/i,
    name: 'NVIDIA A40',
    idle: {
      powerW: 70.38,
      smClockMHz: 1740,
      source:
        "Perseus (SOSP '24): power of an A40 blocked on P2P communication, computing nothing, 70.38 W; its clock is not given: taken at the highest clock, 1740 MHz (a job's GPU runs at its application clock)",
    },
    facts: {
      tdpW: 300,
      idlePowerW: 70.38,
      activePowerW: 300,
      maxSmClockMHz: 1740,
      memoryBandwidthBytesPerS: 696 * G,
      peakFlopsPerS: { fp16Tensor: 149.7 * T, fp32: 37.4 * T, fp64: 0.58 * T },
      source: 'NVIDIA A40 datasheet; idle: see calibration idle',
    },
  },
  {
    match: /v100/i,
    name: 'Tesla V100-PCIE',
    idle: {
      powerW: 34,
      smClockMHz: 1380,
      source:
        "nvidia-smi (driver 440.64) of a Tesla V100-PCIE-16GB in P0 at 0 % utilization with a python3 process holding 15.4 GB, published in a GitHub repository: 34 W (boards with no process read 27–33 W); the clock is not shown: taken at the highest clock, 1380 MHz (a job's GPU runs at its application clock)",
    },
    facts: {
      tdpW: 250,
      idlePowerW: 34,
      activePowerW: 250,
      maxSmClockMHz: 1380,
      memoryBandwidthBytesPerS: 900 * G,
      peakFlopsPerS: { fp16Tensor: 112 * T, fp32: 14 * T, fp64: 7 * T },
      source: 'NVIDIA V100 PCIe datasheet; idle: see calibration idle',
    },
  },
  {
    match: /rtx ?8000/i,
    name: 'Quadro RTX 8000',
    idle: {
      powerW: 61,
      smClockMHz: 1770,
      source:
        "nvidia-smi of a Quadro RTX 8000 in P0 at 0 % utilization with a process holding 4.9 GB, published in a GitHub repository: 61 W (16–26 W in P8 with no process); the clock is not shown: taken at the highest clock, 1770 MHz (a job's GPU runs at its application clock)",
    },
    facts: {
      tdpW: 260,
      idlePowerW: 61,
      activePowerW: 260,
      maxSmClockMHz: 1770,
      memoryBandwidthBytesPerS: 672 * G,
      peakFlopsPerS: { fp16Tensor: 130.5 * T, fp32: 16.3 * T, fp64: 0.51 * T },
      source: 'NVIDIA Quadro RTX 8000 datasheet; idle: see calibration idle',
    },
  },
  {
    match: /titan ?x/i,
    name: 'GeForce GTX Titan X',
    idle: {
      powerW: 93.5025,
      smClockMHz: 1164,
      source:
        'gpmTOOL (Guerreiro et al.): the GTX Titan X idle row at 1164 MHz core, 4005 MHz memory in titanx_micro_peak_idle_HPCAandCF.csv (gpmTOOL published measurement set)',
    },
    facts: {
      tdpW: 250,
      idlePowerW: 93.5025,
      activePowerW: 250,
      maxSmClockMHz: 1164,
      memoryBandwidthBytesPerS: 336.5 * G,
      peakFlopsPerS: { fp32: 6.6 * T, fp64: 0.21 * T },
      source:
        'NVIDIA GTX Titan X (Maxwell) specifications; max clock from the gpmTOOL sweep; idle: see calibration idle',
    },
  },
];

export function datasheetFor(deviceName: string | null): DeviceSheet | null {
  if (!deviceName) return null;
  return DATASHEETS.find((d) => d.match.test(deviceName)) ?? null;
}

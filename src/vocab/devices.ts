/**
 * Device facts: one row per board, in one set of units (FLOP/s, bytes/s, W, MHz). Peaks are the vendors' dense
 * figures (no structured sparsity); bandwidths are per direction. Generate's GPU presets (engines/generate/gpus.ts:
 * roofline durations, system.json, network.yml) and the datasheet calibrations (model/datasheets.ts: `calibrate
 * --datasheet`, the idle figure of a calibration given no idle measurement) both read this table, and a duration
 * from these facts comes from the one roofline (roofline.ts).
 */

/** A device's idle draw held at an SM clock (a job's GPU between kernels), from a measurement others published. */
export interface PublishedIdle {
  powerW: number;
  /** The clock the figure applies at (where the source gives none: the clock the sentence says was assumed). */
  smClockMHz: number;
  source: string;
}

export interface DeviceFacts {
  /** The board's name as calibrations and messages print it. */
  name: string;
  /** Device names (a profile's, nvidia-smi's) this row answers to; absent: reached by its key only. */
  match?: RegExp;
  /** Dense peak FLOP/s: tensor cores at fp16 (absent: none), CUDA cores at fp32 and fp64. */
  peakFlopsPerS: { fp16Tensor?: number; fp32: number; fp64: number };
  /** Whether the tensor cores run bf16 too (at the fp16 rate). */
  bf16: boolean;
  memoryBandwidthBytesPerS: number;
  /** NVLink bandwidth per GPU per direction, bytes/s, where the board has NVLink and a preset uses it. */
  nvlinkBytesPerS?: number;
  /**
   * Board power limit (datasheet TDP), W, and the SM clock table, MHz; with `idle`, what a datasheet calibration needs.
   */
  tdpW?: number;
  maxSmClockMHz?: number;
  /** Lowest SM clock of the clock table, MHz, where one was at hand. */
  minSmClockMHz?: number;
  idle?: PublishedIdle;
  source: string;
}

/** The H100's idle draw, measured on an H200 (same GH100 chip) by the project: see calibration/README.md. */
const H100_IDLE: PublishedIdle = {
  powerW: 118.22,
  smClockMHz: 1980,
  source:
    "measured by the tracewatt project on an NVIDIA H200 (same GH100 chip, 141 GB HBM3e against the H100's 80 " +
    'GB HBM3): median of the 525 samples with no kernel running (utilization.gpu 0 %) at 1980 MHz in ' +
    'traces/pytorch-real/h200-gpt/nvidia-smi.csv',
};

/** Every board tracewatt knows; the datasheet calibrations list those with power facts in this order. */
export const DEVICES = {
  h100: {
    name: 'NVIDIA H100 SXM5',
    match: /h100/i,
    // NVIDIA H100 Tensor Core GPU datasheet (SXM5): BF16/FP16 1,979 TFLOPS with sparsity = 989.4 dense; FP32 66.9.
    peakFlopsPerS: { fp16Tensor: 989.4e12, fp32: 66.9e12, fp64: 34e12 },
    bf16: true,
    memoryBandwidthBytesPerS: 3350e9,
    nvlinkBytesPerS: 450e9, // NVLink 900 GB/s bidirectional
    tdpW: 700,
    maxSmClockMHz: 1980,
    minSmClockMHz: 210,
    idle: H100_IDLE,
    source:
      'NVIDIA H100 datasheet (SXM5, dense); SM clock table 210 MHz upwards in 15 MHz steps (nvidia-smi ' +
      'supported clocks of the H100); idle: see calibration idle',
  },
  a100: {
    name: 'NVIDIA A100 SXM4 80GB',
    match: /a100/i,
    peakFlopsPerS: { fp16Tensor: 312e12, fp32: 19.5e12, fp64: 9.7e12 },
    bf16: true,
    memoryBandwidthBytesPerS: 2039e9,
    nvlinkBytesPerS: 300e9, // NVLink 600 GB/s bidirectional
    tdpW: 400,
    maxSmClockMHz: 1410,
    minSmClockMHz: 210,
    idle: {
      powerW: 83.64,
      smClockMHz: 1410,
      source:
        "Perseus (SOSP '24): power of an A100 blocked on P2P communication, computing nothing, 83.64 W; its " +
        "clock is not given: taken at the highest clock, 1410 MHz (a job's GPU runs at its application clock)",
    },
    source:
      'NVIDIA A100 datasheet (SXM4 80GB, dense); SM clock table 210–1410 MHz in 15 MHz steps (nvidia-smi ' +
      'supported clocks of the A100); idle: see calibration idle',
  },
  a30: {
    name: 'NVIDIA A30',
    match: /a30/i,
    peakFlopsPerS: { fp16Tensor: 165e12, fp32: 10.3e12, fp64: 5.2e12 },
    bf16: true,
    memoryBandwidthBytesPerS: 933e9,
    tdpW: 165,
    maxSmClockMHz: 1440,
    minSmClockMHz: 210,
    idle: {
      powerW: 30,
      smClockMHz: 1440,
      source:
        'an estimate, not a datasheet value: public nvidia-smi readings of idle A30 boards at P0 show 28–35 W; ' +
        'the clock is not shown: taken at the highest clock, 1440 MHz',
    },
    source:
      'NVIDIA A30 Tensor Core GPU datasheet (PCIe, dense): 24 GB HBM2 at 933 GB/s, max TDP 165 W, BF16/FP16 ' +
      'tensor 165 TFLOP/s, TF32 tensor 82 TFLOP/s, FP32 10.3, FP64 5.2; SM clocks 210–1440 MHz in 15 MHz steps ' +
      'and HBM at 1215 MHz as nvidia-smi lists the supported clocks (the clocks of the published A30 ' +
      'decoder-layer study); idle: see calibration idle',
  },
  a40: {
    name: 'NVIDIA A40',
    match: /a40/i,
    peakFlopsPerS: { fp16Tensor: 149.7e12, fp32: 37.4e12, fp64: 0.58e12 },
    bf16: true,
    memoryBandwidthBytesPerS: 696e9,
    tdpW: 300,
    maxSmClockMHz: 1740,
    idle: {
      powerW: 70.38,
      smClockMHz: 1740,
      source:
        "Perseus (SOSP '24): power of an A40 blocked on P2P communication, computing nothing, 70.38 W; its " +
        "clock is not given: taken at the highest clock, 1740 MHz (a job's GPU runs at its application clock)",
    },
    source: 'NVIDIA A40 datasheet; idle: see calibration idle',
  },
  'v100-sxm2': {
    name: 'NVIDIA V100 SXM2 32GB',
    // No `match`: a device name saying V100 takes the PCIe row's facts, as it always has.
    peakFlopsPerS: { fp16Tensor: 125e12, fp32: 15.7e12, fp64: 7.8e12 },
    bf16: false,
    memoryBandwidthBytesPerS: 900e9,
    nvlinkBytesPerS: 150e9, // NVLink 300 GB/s bidirectional
    source:
      'NVIDIA V100 Tensor Core GPU datasheet (SXM2: FP16 tensor 125 TFLOPS, FP32 15.7, FP64 7.8, HBM2 900 ' +
      'GB/s, NVLink 300 GB/s bidirectional; no BF16)',
  },
  'v100-pcie': {
    name: 'Tesla V100-PCIE',
    match: /v100/i,
    peakFlopsPerS: { fp16Tensor: 112e12, fp32: 14e12, fp64: 7e12 },
    bf16: false,
    memoryBandwidthBytesPerS: 900e9,
    tdpW: 250,
    maxSmClockMHz: 1380,
    idle: {
      powerW: 34,
      smClockMHz: 1380,
      source:
        'nvidia-smi (driver 440.64) of a Tesla V100-PCIE-16GB in P0 at 0 % utilization with a python3 process ' +
        'holding 15.4 GB, published in a GitHub repository: 34 W (boards with no process read 27–33 W); the ' +
        "clock is not shown: taken at the highest clock, 1380 MHz (a job's GPU runs at its application clock)",
    },
    source: 'NVIDIA V100 PCIe datasheet; idle: see calibration idle',
  },
  rtx8000: {
    name: 'Quadro RTX 8000',
    match: /rtx ?8000/i,
    peakFlopsPerS: { fp16Tensor: 130.5e12, fp32: 16.3e12, fp64: 0.51e12 },
    bf16: false,
    memoryBandwidthBytesPerS: 672e9,
    tdpW: 260,
    maxSmClockMHz: 1770,
    idle: {
      powerW: 61,
      smClockMHz: 1770,
      source:
        'nvidia-smi of a Quadro RTX 8000 in P0 at 0 % utilization with a process holding 4.9 GB, published in ' +
        'a GitHub repository: 61 W (16–26 W in P8 with no process); the clock is not shown: taken at the ' +
        "highest clock, 1770 MHz (a job's GPU runs at its application clock)",
    },
    source: 'NVIDIA Quadro RTX 8000 datasheet; idle: see calibration idle',
  },
  titanx: {
    name: 'GeForce GTX Titan X',
    match: /titan ?x/i,
    peakFlopsPerS: { fp32: 6.6e12, fp64: 0.21e12 },
    bf16: false,
    memoryBandwidthBytesPerS: 336.5e9,
    tdpW: 250,
    maxSmClockMHz: 1164,
    idle: {
      powerW: 93.5025,
      smClockMHz: 1164,
      source:
        'gpmTOOL (Guerreiro et al.): the GTX Titan X idle row at 1164 MHz core, 4005 MHz memory in ' +
        'titanx_micro_peak_idle_HPCAandCF.csv (gpmTOOL published measurement set)',
    },
    source: 'NVIDIA GTX Titan X (Maxwell) specifications; max clock from the gpmTOOL sweep; idle: see calibration idle',
  },
} satisfies Record<string, DeviceFacts>;

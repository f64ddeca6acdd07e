/**
 * The roofline: a kernel of `flops` FLOPs that moves `bytes` bytes takes the longer of its compute time at the peak
 * and its memory time at the bandwidth. Generate's roofline time model and a calibration's roofline estimate
 * (model/predict.ts, which scales the peak and bandwidth with the clock and adds the launch overhead) both time a
 * kernel through it. (Replay reproduces ASTRA-sim's own roofline, engines/replay/classify.ts, in ASTRA-sim's
 * arithmetic, so that its times match ASTRA-sim's to the ns.)
 */
export interface RooflineTime {
  /** FLOPs at the peak, ns (0 where the peak is 0). */
  computeNs: number;
  /** Bytes at the bandwidth, ns (0 where the bandwidth is 0). */
  memoryNs: number;
  /** The bound: the larger of the two, ns. */
  ns: number;
}

export function rooflineTime(
  flops: number,
  bytes: number,
  peakFlopsPerS: number,
  bandwidthBytesPerS: number,
): RooflineTime {
  const computeNs = peakFlopsPerS > 0 ? (flops / peakFlopsPerS) * 1e9 : 0;
  const memoryNs = bandwidthBytesPerS > 0 ? (bytes / bandwidthBytesPerS) * 1e9 : 0;
  return { computeNs, memoryNs, ns: Math.max(computeNs, memoryNs) };
}

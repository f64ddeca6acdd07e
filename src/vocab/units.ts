/**
 * The one rounding rule for Chakra's duration_micros (a whole number of µs): a duration in ns is written as the
 * nearest whole µs, halves up (`roundMicros`). A kernel that ran, measured (import) or predicted (annotate), is
 * written as at least 1 µs (`kernelMicros`), so that no kernel that took time vanishes from the timeline. Host ops
 * (import) and generated kernels (generate: a modelled duration, which ASTRA-sim's roofline recomputes from num_ops
 * and tensor_size anyway) take the plain rule, so a generated kernel under 0.5 µs is written as 0 µs. Timestamps
 * (start_time_micros) are truncated where they are written, not rounded.
 */

const NS_PER_US = 1000;

/** `ns` as the nearest whole µs (halves up). */
export function roundMicros(ns: number): number {
  return Math.round(ns / NS_PER_US);
}

/** A kernel's duration_micros: the nearest whole µs, at least 1 µs for a duration above 0; 0 stays 0. */
export function kernelMicros(ns: number): number {
  return ns > 0 ? Math.max(1, roundMicros(ns)) : 0;
}

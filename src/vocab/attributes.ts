/**
 * The names of the attributes `annotate` writes on a Chakra node, and that replay, export and generate read (units in
 * the names; what each means is in the README's annotate section). Every module names them through this table, so a
 * name is spelt once.
 */
export const ANNOTATION_ATTRS = {
  /** Modelled energy of the node, J (estimate). */
  energyJ: 'energy_j',
  /** The DRAM part of energy_j, J (a part of it, never added on top). */
  energyMemoryJ: 'energy_memory_j',
  powerW: 'power_w',
  /** The SM clock the node was annotated at, MHz. */
  frequencyMHz: 'frequency_mhz',
  /** The clock a power cap leaves the node at, MHz (written only when it is below frequency_mhz). */
  frequencyEffectiveMHz: 'frequency_effective_mhz',
  /** The clock the node's profiled duration was recorded at, MHz. */
  frequencyRefMHz: 'frequency_ref_mhz',
  /** Where the figures come from: profile, roofline, or the node's own duration with the calibration's power. */
  estimatedFrom: 'estimated_from',
  /** duration_micros before annotation, µs (restored by stripAnnotation). */
  durationRefMicros: 'duration_micros_ref',
  /** The 10–90 % band of energy_j and of the duration (energy_j_p10 ≤ energy_j ≤ energy_j_p90). */
  energyJP10: 'energy_j_p10',
  energyJP90: 'energy_j_p90',
  durationNsP10: 'duration_ns_p10',
  durationNsP90: 'duration_ns_p90',
} as const;

/** Prefix of the per-component utilization attributes (util_sm_active, util_dram_active, …; fractions 0–1). */
export const UTIL_PREFIX = 'util_';

/**
 * Chakra's attributes that replay (and ASTRA-sim) read as an integer: one of another kind is read as absent, which
 * validate reports and export repairs.
 */
export const CHAKRA_INTEGER_ATTRS: readonly string[] = [
  'num_ops',
  'tensor_size',
  'comm_type',
  'comm_size',
  'comm_src',
  'comm_dst',
  'comm_tag',
  'comm_priority',
];

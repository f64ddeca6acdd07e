/**
 * Built-in cluster descriptions for a one-rank replay, so that a one-GPU run needs no hand-written files:
 * `--network none` is one NPU and no network; with it, `--system` may be left out for ASTRA-sim's defaults (ring
 * collectives, 10 ns endpoint delay, roofline off: node durations from the trace). Parsed by the same parsers as
 * the files, so they are checked like any other.
 */
import { parseNetworkConfig, parseSystemConfig } from './parse.js';
import type { NetworkConfig, SystemConfig } from './types.js';

/** The `--network` value that asks for {@link oneNpuNetwork}. */
export const NO_NETWORK = 'none';

const ONE_NPU_YAML = 'topology: [ Switch ]\nnpus_count: [ 1 ]\nbandwidth: [ 1 ]\nlatency: [ 0 ]\n';

const DEFAULT_SYSTEM_JSON = JSON.stringify({
  'scheduling-policy': 'LIFO',
  'endpoint-delay': 10,
  'active-chunks-per-dimension': 1,
  'preferred-dataset-splits': 1,
  'all-reduce-implementation': ['ring'],
  'all-gather-implementation': ['ring'],
  'reduce-scatter-implementation': ['ring'],
  'all-to-all-implementation': ['ring'],
  'collective-optimization': 'baseline',
  'local-mem-bw': 1600,
  'roofline-enabled': 0,
});

/**
 * One NPU, no links: every collective is a group of one (no traffic). Named "none (one NPU)" in labels and messages.
 */
export function oneNpuNetwork(): NetworkConfig {
  return parseNetworkConfig('none (one NPU)', ONE_NPU_YAML);
}

/** The system a one-rank replay uses when no --system is given. */
export function defaultSystem(): SystemConfig {
  return parseSystemConfig('default system (ring, roofline off)', DEFAULT_SYSTEM_JSON);
}

/**
 * The small cluster the in-memory replay tests run on: 4 NPUs on one ring (50 GB/s, 500 ns), ring collectives,
 * ASTRA-sim's example system settings (the benchmark's BENCH_SYSTEM, scripts/replay-traces.mjs).
 */
import { BENCH_SYSTEM } from '../../scripts/replay-traces.mjs';
import { parseNetworkConfig, parseSystemConfig, type SystemConfig } from '../../src/formats/astra/index.js';

/** ASTRA-sim's example system with ring collectives on `dims` dimensions, and `extra` keys over it. */
export function ringSystem(dims: number, extra: object = {}): SystemConfig {
  const rings = Array.from({ length: dims }, () => 'ring');
  return parseSystemConfig(
    'sys.json',
    JSON.stringify({
      ...BENCH_SYSTEM,
      'all-reduce-implementation': rings,
      'all-gather-implementation': rings,
      'reduce-scatter-implementation': rings,
      'all-to-all-implementation': rings,
      ...extra,
    }),
  );
}

export function ringCluster() {
  const net = parseNetworkConfig('net.yml', 'topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n');
  return { sys: ringSystem(1), net };
}

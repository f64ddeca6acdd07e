/**
 * The small cluster the in-memory replay tests run on: 4 NPUs on one ring (50 GB/s, 500 ns), ring collectives,
 * ASTRA-sim's example system settings.
 */
import { parseNetworkConfig, parseSystemConfig } from '../../src/formats/astra/index.js';

export function ringCluster() {
  const sys = parseSystemConfig(
    'sys.json',
    JSON.stringify({
      'scheduling-policy': 'LIFO',
      'endpoint-delay': 10,
      'active-chunks-per-dimension': 1,
      'preferred-dataset-splits': 4,
      'all-reduce-implementation': ['ring'],
      'all-gather-implementation': ['ring'],
      'reduce-scatter-implementation': ['ring'],
      'all-to-all-implementation': ['ring'],
      'collective-optimization': 'localBWAware',
      'local-mem-bw': 1600,
      'peak-perf': 900,
    }),
  );
  const net = parseNetworkConfig('net.yml', 'topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n');
  return { sys, net };
}

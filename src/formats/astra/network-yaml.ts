/**
 * network.yml as ASTRA-sim 2.x reads it (its analytical backends): one list entry per dimension, dimension 0 first,
 * bandwidth in "GB/s" (which ASTRA-sim reads as GiB/s) and latency in ns; `#` comments above the keys.
 */
import type { NetworkDim } from './types.js';

/** `comments` become `# ` lines above the keys (a line break inside one starts another comment line). */
export function networkYamlText(dims: readonly NetworkDim[], comments: readonly string[] = []): string {
  const list = (xs: (string | number)[]) => `[ ${xs.join(', ')} ]`;
  return [
    ...comments.flatMap((c) => c.split('\n')).map((c) => (c ? `# ${c}` : '#')),
    `topology: ${list(dims.map((d) => d.topology))}`,
    `npus_count: ${list(dims.map((d) => d.npus))}`,
    `bandwidth: ${list(dims.map((d) => d.bandwidthGBps))}  # GB/s (ASTRA-sim reads GiB/s)`,
    `latency: ${list(dims.map((d) => d.latencyNs))}  # ns`,
    '',
  ].join('\n');
}

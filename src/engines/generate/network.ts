/**
 * ASTRA-sim network.yml and system.json matching a generated layout: one network dimension per
 * parallel degree above 1, tensor-parallel first. Bandwidths come from the GPU preset (NVLink on
 * the tensor-parallel dimension, one NIC per GPU on the outer ones); latencies and topologies are
 * starting points for the user to edit.
 */
import { peakFlopsOf } from './gpus.js';
import type { LlmPlan } from './plan.js';

const tflops = (flopsPerS: number | undefined) => (flopsPerS === undefined ? undefined : flopsPerS / 1e12);

export interface NetworkConfig {
  topology: ('Switch' | 'Ring' | 'FullyConnected')[];
  npusCount: number[];
  /** Per dimension, GB/s (ASTRA-sim reads these as GiB/s). */
  bandwidthGBps: number[];
  latencyNs: number[];
}

export function networkConfig(plan: LlmPlan): NetworkConfig {
  const dims = plan.networkDims.length > 0 ? plan.networkDims : [{ parallel: 'tp' as const, size: 1 }];
  return {
    // Tensor-parallel ranks share an NVLink switch; pipeline neighbours and data-parallel replicas sit on rings.
    topology: dims.map((d) => (d.parallel === 'tp' ? 'Switch' : 'Ring')),
    npusCount: dims.map((d) => d.size),
    bandwidthGBps: dims.map(
      (d) => (d.parallel === 'tp' ? plan.gpu.device.nvlinkBytesPerS : plan.gpu.networkBytesPerS) / 1e9,
    ),
    latencyNs: dims.map((d) => (d.parallel === 'tp' ? 500 : 1000)),
  };
}

export function networkYaml(plan: LlmPlan): string {
  const n = networkConfig(plan);
  const list = (xs: (string | number)[]) => `[ ${xs.join(', ')} ]`;
  const names = (plan.networkDims.length > 0 ? plan.networkDims.map((d) => d.parallel) : ['single rank']).join(', ');
  return [
    `# tracewatt generate llm: ${plan.model.name}, dp ${plan.dp} × tp ${plan.tp} × pp ${plan.pp} on ${plan.gpu.name}`,
    `# dimensions (innermost first): ${names}; rank = tp + ${plan.tp}·(dp + ${plan.dp}·pp)`,
    `topology: ${list(n.topology)}`,
    `npus_count: ${list(n.npusCount)}`,
    `bandwidth: ${list(n.bandwidthGBps.map((b) => b.toFixed(1)))}  # GB/s per direction`,
    `latency: ${list(n.latencyNs.map((l) => l.toFixed(1)))}  # ns`,
    '',
  ].join('\n');
}

/**
 * system.json. With a roofline time model, ASTRA-sim's roofline is enabled with the same peak and
 * memory bandwidth (same COMP times at ns rather than µs resolution); otherwise it replays the
 * durations written in the trace.
 */
export function systemConfig(plan: LlmPlan): Record<string, unknown> {
  const dims = Math.max(1, plan.networkDims.length);
  const roof = plan.timeModel.roofline;
  const ring = Array.from({ length: dims }, () => 'ring');
  return {
    'scheduling-policy': 'LIFO',
    'endpoint-delay': 10,
    'active-chunks-per-dimension': 1,
    'preferred-dataset-splits': 4,
    'all-reduce-implementation': ring,
    'all-gather-implementation': ring,
    'reduce-scatter-implementation': ring,
    'all-to-all-implementation': ring,
    'collective-optimization': 'localBWAware',
    'local-mem-bw': roof?.memBandwidthGBps ?? plan.gpu.device.memoryBandwidthBytesPerS / 1e9,
    'boost-mode': 0,
    'roofline-enabled': roof ? 1 : 0,
    'peak-perf': roof?.peakTflops ?? tflops(peakFlopsOf(plan.gpu, plan.dtype)),
  };
}

export function systemJson(plan: LlmPlan): string {
  return `${JSON.stringify(systemConfig(plan), null, 2)}\n`;
}

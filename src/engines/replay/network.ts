/**
 * ASTRA-sim's analytical congestion-unaware network: a message takes
 * ⌊hops·latency + bytes / B′⌋ ns on the first dimension where the two ranks' coordinates differ.
 *
 * Bandwidth quirk (reproduced by default for compatibility): ASTRA-sim reads the "GB/s" of
 * network.yml as GiB/s, i.e. B′ = bandwidth · 2³⁰ / 1e9 bytes per ns (50 GB/s → 53.687 B/ns).
 * `bandwidthUnit: 'GBps'` reads it plainly (50 GB/s → 50 B/ns), which is physically what the
 * file says but no longer matches ASTRA-sim's times.
 */
import type { NetworkConfig, NetworkDim } from '../../formats/astra/index.js';

export type BandwidthUnit = 'astra-sim' | 'GBps';

export interface Cluster {
  dims: NetworkDim[];
  /** Bytes per ns per dimension after the unit choice. */
  bytesPerNs: number[];
  totalNpus: number;
}

export function makeCluster(net: NetworkConfig, unit: BandwidthUnit = 'astra-sim'): Cluster {
  const bytesPerNs = net.dims.map((d) => (unit === 'astra-sim' ? (d.bandwidthGBps * 2 ** 30) / 1e9 : d.bandwidthGBps));
  return { dims: net.dims, bytesPerNs, totalNpus: net.dims.reduce((a, d) => a * d.npus, 1) };
}

/** Coordinates of a rank: rank = x0 + n0·x1 + n0·n1·x2 … */
export function coordinates(cluster: Cluster, rank: number): number[] {
  const out: number[] = [];
  let r = rank;
  for (const d of cluster.dims) {
    out.push(r % d.npus);
    r = Math.floor(r / d.npus);
  }
  return out;
}

/** Hops between positions a and b of one dimension. */
export function hopsInDim(dim: NetworkDim, a: number, b: number): number {
  if (a === b) return 0;
  switch (dim.topology) {
    case 'Ring': {
      const d = Math.abs(a - b);
      return Math.min(d, dim.npus - d);
    }
    case 'Switch':
      return 2;
    case 'FullyConnected':
      return 1;
  }
}

/** Time of one message of `bytes` on dimension `dimIndex` over `hops` hops. */
export function messageNs(cluster: Cluster, dimIndex: number, hops: number, bytes: number): number {
  const d = cluster.dims[dimIndex];
  return Math.floor(hops * d.latencyNs + bytes / cluster.bytesPerNs[dimIndex]);
}

/** The dimension a message between two ranks uses and its hop count (null for the same rank). */
export function route(cluster: Cluster, src: number, dst: number): { dim: number; hops: number } | null {
  const a = coordinates(cluster, src);
  const b = coordinates(cluster, dst);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return { dim: i, hops: hopsInDim(cluster.dims[i], a[i], b[i]) };
  }
  return null;
}

/** Point-to-point message time between two ranks (0 for a rank to itself). */
export function p2pNs(cluster: Cluster, src: number, dst: number, bytes: number): { ns: number; dim: number } {
  const r = route(cluster, src, dst);
  if (!r) return { ns: 0, dim: 0 };
  return { ns: messageNs(cluster, r.dim, r.hops, bytes), dim: r.dim };
}

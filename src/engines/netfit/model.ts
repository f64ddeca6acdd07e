/**
 * What the replay's collective model (replay/collective.ts, the plans of replay/collective-plan.ts) gives for each
 * measured collective on a candidate network: the time from all members issuing it together to the last member
 * finishing it. Nothing here re-derives a formula; a candidate network only changes each dimension's bandwidth and
 * latency.
 */
import { InputError } from '../../errors.js';
import type { CommGroupConfig, NetworkConfig, NetworkDim, SystemConfig } from '../../formats/astra/index.js';
import { CollectiveMatcher } from '../replay/collective-matching.js';
import { CollectiveModel } from '../replay/collective.js';
import { makeCluster, type BandwidthUnit } from '../replay/network.js';
import { groupName, type MeasuredCollective } from './measured.js';

export interface ModelContext {
  system: SystemConfig;
  network: NetworkConfig;
  commGroups?: CommGroupConfig;
  bandwidthUnit: BandwidthUnit;
}

/** Per dimension: latency (ns) and inverse bandwidth (ns per byte, as the replay reads the file's bandwidth). */
export interface LinkParams {
  latencyNs: number[];
  nsPerByte: number[];
}

/** The file's bandwidth ("GB/s", read as the unit says) for `nsPerByte`, and back. */
export function bandwidthOf(nsPerByte: number, unit: BandwidthUnit): number {
  const bytesPerNs = 1 / nsPerByte;
  return unit === 'astra-sim' ? (bytesPerNs * 1e9) / 2 ** 30 : bytesPerNs;
}

export function nsPerByteOf(dim: NetworkDim, unit: BandwidthUnit): number {
  return 1 / makeCluster({ file: '', dims: [dim] }, unit).bytesPerNs[0];
}

export function dimsWith(network: NetworkConfig, p: LinkParams, unit: BandwidthUnit): NetworkDim[] {
  return network.dims.map((d, i) => ({
    ...d,
    latencyNs: p.latencyNs[i],
    bandwidthGBps: bandwidthOf(p.nsPerByte[i], unit),
  }));
}

/** Modelled ns of every collective on the network with these link parameters (equal arrivals). */
export function modelledNs(collectives: MeasuredCollective[], ctx: ModelContext, p: LinkParams): Float64Array {
  return modelledOn(collectives, ctx, dimsWith(ctx.network, p, ctx.bandwidthUnit));
}

/** Per dimension, whether any of the collectives sends bytes over it. */
export function dimensionsCrossed(collectives: MeasuredCollective[], ctx: ModelContext): boolean[] {
  const cluster = makeCluster(ctx.network, ctx.bandwidthUnit);
  const matcher = new CollectiveMatcher(cluster, ctx.commGroups, new CollectiveModel(cluster, ctx.system), () => ({
    file: ctx.network.file,
    nodeId: -1n,
  }));
  const crossed = ctx.network.dims.map(() => false);
  for (const c of collectives) {
    for (const row of matcher.planFor(c.group, c.spec, c.bytes).bytesSentPerDim)
      row.forEach((b, d) => (crossed[d] ||= b > 0));
  }
  return crossed;
}

export function modelledOn(collectives: MeasuredCollective[], ctx: ModelContext, dims: NetworkDim[]): Float64Array {
  const cluster = makeCluster({ file: ctx.network.file, dims }, ctx.bandwidthUnit);
  const model = new CollectiveModel(cluster, ctx.system);
  const matcher = new CollectiveMatcher(cluster, ctx.commGroups, model, () => ({
    file: ctx.network.file,
    nodeId: -1n,
  }));
  const byPlan = new Map<string, number>();
  const out = new Float64Array(collectives.length);
  collectives.forEach((c, i) => {
    const key = `${c.group.planKey}|${c.kind}|${c.bytes}`;
    let ns = byPlan.get(key);
    if (ns === undefined) {
      const plan = matcher.planFor(c.group, c.spec, c.bytes);
      const n = c.group.members.length;
      const finish = new Float64Array(n);
      if (model.finishTimes(plan, new Float64Array(n), finish)) {
        throw new InputError(
          `${ctx.system.file}: the collective model stalls on ${c.kind} of ${c.bytes} B over ` +
            `${groupName(c.group)} even with every member arriving together`,
        );
      }
      ns = finish.reduce((a, b) => Math.max(a, b), 0);
      byPlan.set(key, ns);
    }
    out[i] = ns;
  });
  return out;
}

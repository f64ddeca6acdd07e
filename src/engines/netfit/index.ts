/**
 * `fit network`: each network dimension's bandwidth and latency fitted to the measured collective durations of an
 * imported run (measured.ts), under the system file's collective algorithms as the replay models them (model.ts),
 * by least squares on the relative error (fit.ts). The result holds the fitted dimensions (as network.yml writes
 * them), and per collective kind the error of the modelled times on the given and on the fitted network.
 */
import { Diagnostics, type DiagnosticSummary } from '../../diagnostics.js';
import type { CollectiveKind } from '../../vocab/collectives.js';
import { loadClusterConfigs } from '../replay/load.js';
import type { BandwidthUnit } from '../replay/network.js';
import { errorsByKind, fitLinks, type TypeErrorRow } from './fit.js';
import { readMeasuredCollectives, type MeasuredCollective } from './measured.js';
import { modelledOn, type ModelContext } from './model.js';

export { readMeasuredCollectives } from './measured.js';
export { fitLinks, type TypeErrorRow } from './fit.js';

export interface FitNetworkInput {
  /** <prefix> of the imported run's rank files. */
  trace: string;
  system: string;
  network: string;
  commGroup?: string;
  /** 'astra-sim' (default): the file's "GB/s" read as GiB/s, as ASTRA-sim does; 'GBps': read plainly. */
  bandwidthUnit?: BandwidthUnit;
  keepLatency?: number[];
  keepBandwidth?: number[];
}

export interface FittedDimension {
  dim: number;
  topology: string;
  npus: number;
  /** As network.yml writes it ("GB/s", read as bandwidthUnit says). */
  givenBandwidthGBps: number;
  fittedBandwidthGBps: number;
  givenLatencyNs: number;
  fittedLatencyNs: number;
  /** Which of the two were fitted (the others kept from the network file). */
  fitted: ('latency' | 'bandwidth')[];
}

export interface KindFitRow {
  kind: CollectiveKind;
  instances: number;
  minBytes: number;
  maxBytes: number;
  measuredMeanUs: number;
  given: Omit<TypeErrorRow, 'kind' | 'instances' | 'minBytes' | 'maxBytes' | 'measuredMeanUs'>;
  fitted: Omit<TypeErrorRow, 'kind' | 'instances' | 'minBytes' | 'maxBytes' | 'measuredMeanUs'>;
}

export interface FittedInstance {
  kind: CollectiveKind;
  bytes: number;
  /** pg_name, or '' for a collective of all ranks (or of the ranks along its involved dimensions). */
  group: string;
  ordinal: number;
  /** The shortest member duration, ns (see measured.ts). */
  measuredNs: number;
  /** The member that reached it last (whose duration that is). */
  lastRank: number;
  givenNs: number;
  fittedNs: number;
}

export interface NetworkFitResult {
  kind: 'network-fit';
  trace: string;
  system: string;
  network: string;
  bandwidthUnit: BandwidthUnit;
  ranks: number;
  /** Member kernels of the fitted collectives, all ranks together. */
  kernels: number;
  dims: FittedDimension[];
  byKind: KindFitRow[];
  instances: FittedInstance[];
  /** RMS of the relative error over all instances, %, on the given and the fitted network. */
  rmsErrorPct: { given: number; fitted: number };
  iterations: number;
  /** Collective nodes not fitted to, by name, with why. */
  notes: string[];
  diagnostics: DiagnosticSummary[];
}

export async function fitNetwork(input: FitNetworkInput): Promise<NetworkFitResult> {
  const diagnostics = new Diagnostics();
  const { system, network, commGroups } = await loadClusterConfigs(
    { system: input.system, network: input.network, commGroup: input.commGroup, power: undefined },
    diagnostics,
  );
  const run = await readMeasuredCollectives({ trace: input.trace, system, network, commGroups, diagnostics });
  const notes: string[] = [];
  for (const [name, count] of Object.entries(run.skipped))
    notes.push(`${name} ×${count}: not a collective the model times (replayed from its duration); not fitted to`);
  const zero = run.collectives.filter((c) => c.measuredNs <= 0);
  if (zero.length > 0)
    notes.push(
      `${zero.length} collective(s) measured 0 µs on some member (below the trace's µs resolution): not fitted to`,
    );
  const collectives = run.collectives.filter((c) => c.measuredNs > 0);
  const short = collectives.filter((c) => c.measuredNs < 20_000);
  if (short.length > 0) {
    const worst = Math.min(...short.map((c) => c.measuredNs));
    notes.push(
      `${short.length} collective(s) shorter than 20 µs: the trace holds whole-µs durations, so their measured ` +
        `times carry up to ±${(50_000 / worst).toFixed(0)} % rounding`,
    );
  }
  const ctx: ModelContext = { system, network, commGroups, bandwidthUnit: input.bandwidthUnit ?? 'astra-sim' };
  const given = modelledOn(collectives, ctx, network.dims);
  const fit = fitLinks(collectives, ctx, { keepLatency: input.keepLatency, keepBandwidth: input.keepBandwidth });
  const rmsFitted = rmsPct(collectives, fit.modelledNs);
  if (rmsFitted > 20) {
    notes.push(
      `the fit leaves ${rmsFitted.toFixed(0)} % RMS error: no bandwidth and latency per dimension gives every ` +
        `collective its measured time ` +
        `under ${system.file}'s algorithms (e.g. ASTRA-sim's ring all-to-all takes p(p−1)/2 steps per chunk ` +
        `where NCCL sends to each peer once); ` +
        'compare system files before trusting the fitted figures',
    );
  }
  const before = errorsByKind(collectives, given);
  const after = errorsByKind(collectives, fit.modelledNs);
  const errors = ({ modelledMeanUs, meanErrorPct, meanAbsErrorPct, maxAbsErrorPct }: TypeErrorRow) => ({
    modelledMeanUs,
    meanErrorPct,
    meanAbsErrorPct,
    maxAbsErrorPct,
  });
  return {
    kind: 'network-fit',
    trace: input.trace,
    system: system.file,
    network: network.file,
    bandwidthUnit: ctx.bandwidthUnit,
    ranks: run.ranks,
    kernels: collectives.reduce((a, c) => a + c.members.length, 0),
    dims: network.dims.map((d, i) => ({
      dim: i,
      topology: d.topology,
      npus: d.npus,
      givenBandwidthGBps: d.bandwidthGBps,
      fittedBandwidthGBps: fit.dims[i].bandwidthGBps,
      givenLatencyNs: d.latencyNs,
      fittedLatencyNs: fit.dims[i].latencyNs,
      fitted: fit.fitted.filter((q) => q.dim === i).map((q) => q.what),
    })),
    byKind: before.map((b, i) => ({
      kind: b.kind,
      instances: b.instances,
      minBytes: b.minBytes,
      maxBytes: b.maxBytes,
      measuredMeanUs: b.measuredMeanUs,
      given: errors(b),
      fitted: errors(after[i]),
    })),
    instances: collectives.map((c, i) => ({
      kind: c.kind,
      bytes: c.bytes,
      group: c.spec.group,
      ordinal: c.ordinal,
      measuredNs: c.measuredNs,
      lastRank: c.lastMemberRank,
      givenNs: given[i],
      fittedNs: fit.modelledNs[i],
    })),
    rmsErrorPct: { given: rmsPct(collectives, given), fitted: rmsFitted },
    iterations: fit.iterations,
    notes,
    diagnostics: diagnostics.summary(),
  };
}

/** RMS of (modelled − measured) / measured over the collectives, %. */
function rmsPct(collectives: MeasuredCollective[], model: ArrayLike<number>): number {
  return (
    100 *
    Math.sqrt(
      collectives.reduce((s, c, i) => s + ((model[i] - c.measuredNs) / c.measuredNs) ** 2, 0) / collectives.length,
    )
  );
}

/**
 * Energy of a run that ASTRA-sim timed: the same breakdown `replay` gives, with ASTRA-sim's per-rank times.
 *
 * What each part comes from:
 * - compute and memory energy: the annotated nodes (energy_j, or active power × duration; bytes × pJ/bit), and
 *   network energy: the bytes per dimension of tracewatt's collective model for this system config. These do not
 *   depend on when nodes run, so they are taken from tracewatt's own replay of the trace (its times are dropped);
 * - finish, exposed communication and GPU time (finish − exposed): ASTRA-sim's `sys[i] finished` lines; wall, comm,
 *   CPU and remote-memory time and compute–communication overlap: its statistics lines;
 * - idle energy and the totals: replay's own summary (summarizeRun) of those times.
 * So for ASTRA-sim's congestion-unaware backend, where the times agree, the result equals `replay`'s exactly.
 */
import { Diagnostics } from '../../diagnostics.js';
import { loadAstraSimLog, ranksOfLog, type AstraRankLog, type AstraSimLog } from '../../formats/astra/index.js';
import {
  loadClusterConfigs, rankSourcesFromFiles, rankTotalsOf, replay, summarizeRun, type RankTotals, type ReplayFilesInput, type ReplayResult,
} from '../replay/index.js';

export interface EnergyFromLogInput extends Omit<ReplayFilesInput, 'timeline' | 'onSlice'> {
  /** ASTRA-sim's stdout (or log file) of a run of this trace; or a log already parsed. */
  astraSimLog: string | AstraSimLog;
}

/** A rank's totals with ASTRA-sim's times in place of the replay's. */
function retimed(base: RankTotals, log: AstraRankLog, diag: Diagnostics, file: string): RankTotals {
  const gpuComputeNs = log.exposedCommNs === undefined ? (log.stats?.gpuNs ?? base.gpuComputeNs) : log.finishNs - log.exposedCommNs;
  if (log.exposedCommNs === undefined) {
    diag.add('astra-log.no-exposed-communication', {
      file,
      message: `${file} line ${log.line}: sys[${log.rank}] gives no exposed communication (an older ASTRA-sim); GPU time taken from ${log.stats ? 'its "GPU time" line' : 'the trace'}`,
    });
  }
  if (gpuComputeNs !== base.gpuComputeNs) {
    diag.add('astra-log.gpu-time-differs', {
      file,
      message: `${file} line ${log.line}: ASTRA-sim's GPU time of rank ${log.rank} is ${gpuComputeNs} ns, the trace's GPU nodes take ${base.gpuComputeNs} ns; ` +
        'idle energy uses ASTRA-sim\'s, compute energy the nodes\'',
    });
  }
  const s = log.stats;
  if (!s) {
    diag.add('astra-log.no-statistics', {
      file,
      message: `${file}: no statistics lines (Wall/GPU/Comm time) for rank ${log.rank}; its comm, wall and overlap times are tracewatt's replay (congestion-unaware), its finish and exposed communication ASTRA-sim's`,
    });
  }
  return {
    ...base,
    finishNs: log.finishNs,
    gpuComputeNs,
    cpuComputeNs: s ? s.cpuNs : base.cpuComputeNs,
    commNs: s ? s.commNs : base.commNs,
    remoteMemNs: s ? s.remoteMemNs : base.remoteMemNs,
    wallNs: s ? s.wallNs : base.wallNs,
    overlapNs: s ? s.overlapNs : base.overlapNs,
  };
}

export async function energyFromAstraSimLog(input: EnergyFromLogInput): Promise<ReplayResult> {
  const log = typeof input.astraSimLog === 'string' ? await loadAstraSimLog(input.astraSimLog) : input.astraSimLog;
  const diagnostics = new Diagnostics();
  const cluster = await loadClusterConfigs(input, diagnostics);
  const sources = await rankSourcesFromFiles(input.trace, diagnostics);
  const logRanks = ranksOfLog(log, sources.length);
  const bandwidthUnit = input.bandwidthUnit ?? 'astra-sim';
  const base = await replay(sources, { ...cluster, bandwidthUnit, windowNodes: input.windowNodes, diagnostics });
  const totals = base.ranks.map((r, i) => retimed(rankTotalsOf(r), logRanks[i], diagnostics, log.file));
  return summarizeRun(totals, {
    label: input.label ?? `${input.trace} on ${input.network}, times from ASTRA-sim (${log.file})`,
    network: cluster.network, power: cluster.power, bandwidthUnit, events: base.events, diagnostics: diagnostics.summary(),
    computeBand: base.energyBandJ?.sums,
  });
}

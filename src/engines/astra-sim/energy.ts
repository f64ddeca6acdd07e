/**
 * Energy of a run that ASTRA-sim timed: the same breakdown `replay` gives, with ASTRA-sim's per-rank times.
 *
 * What each part comes from:
 * - compute and memory energy: the annotated nodes (energy_j, or active power × duration; bytes × pJ/bit), and
 *   network energy: the bytes per dimension of tracewatt's collective model for this system config. These do not
 *   depend on when nodes run, so they are taken from tracewatt's own replay of the trace (its times are dropped);
 * - finish, ASTRA-sim's exposed communication and GPU time (finish − exposed): its `sys[i] finished` lines; wall,
 *   comm, CPU and remote-memory time and compute–communication overlap: its statistics lines;
 * - the ledger's split of that time: communication with no GPU compute = Comm − overlap; what is left of the wall
 *   time (wall − GPU − communication-only) is host or remote-memory time, split as the replay split it when the two
 *   agree, else host first (up to the CPU time); without statistics lines, the replay's;
 * - communication, idle energy and the totals: the ledger (summarizeRun) of those times.
 * So for ASTRA-sim's congestion-unaware backend, where the times agree, the result equals `replay`'s exactly.
 *
 * The log must be of a run of this trace on these configs: a log that run.sh wrote starts with the export's
 * fingerprint, checked against the files given; any log is checked against tracewatt's congestion-unaware replay,
 * which ASTRA-sim's analytical backends reproduce (congestion-unaware) or exceed (congestion-aware): a rank that
 * finishes earlier in the log than in that replay ran another trace or config (an all-reduce's log for an all-gather).
 */
import { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import {
  FINGERPRINT_DIGITS,
  loadAstraSimLog,
  ranksOfLog,
  type AstraRankLog,
  type AstraSimLog,
  type ExportFingerprint,
} from '../../formats/astra/index.js';
import { resolveRankFiles } from '../../formats/chakra/index.js';
import { rankFilesDigest, textDigest } from '../../formats/digest.js';
import { readTextFile } from '../../formats/text-file.js';
import {
  loadClusterConfigs,
  rankSourcesFromFiles,
  rankTotalsOf,
  replay,
  summarizeRun,
  type RankTotals,
  type ReplayFilesInput,
  type ReplayResult,
} from '../replay/index.js';

export interface EnergyFromLogInput extends Omit<ReplayFilesInput, 'timeline' | 'onSlice'> {
  /** ASTRA-sim's stdout (or log file) of a run of this trace; or a log already parsed. */
  astraSimLog: string | AstraSimLog;
}

/** A rank's totals with ASTRA-sim's times in place of the replay's. */
function retimed(base: RankTotals, log: AstraRankLog, diag: Diagnostics, file: string): RankTotals {
  const gpuComputeNs =
    log.exposedCommNs === undefined ? (log.stats?.gpuNs ?? base.gpuComputeNs) : log.finishNs - log.exposedCommNs;
  if (log.exposedCommNs === undefined) {
    diag.add('astra-log.no-exposed-communication', {
      file,
      message:
        `${file} line ${log.line}: sys[${log.rank}] gives no exposed communication (an older ASTRA-sim); GPU ` +
        `time taken from ${log.stats ? 'its "GPU time" line' : 'the trace'}`,
    });
  }
  if (gpuComputeNs !== base.gpuComputeNs) {
    diag.add('astra-log.gpu-time-differs', {
      file,
      message:
        `${file} line ${log.line}: ASTRA-sim's GPU time of rank ${log.rank} is ${gpuComputeNs} ns, the trace's ` +
        `GPU nodes take ${base.gpuComputeNs} ns; ` +
        "idle energy uses ASTRA-sim's, compute energy the nodes'",
    });
  }
  const s = log.stats;
  if (!s) {
    diag.add('astra-log.no-statistics', {
      file,
      message:
        `${file}: no statistics lines (Wall/GPU/Comm time) for rank ${log.rank}; its comm, wall and overlap ` +
        `times are tracewatt's replay (congestion-unaware), its finish and exposed communication ASTRA-sim's`,
    });
  }
  if (!s) return { ...base, finishNs: log.finishNs, gpuComputeNs };
  const commOnlyNs = Math.max(0, s.commNs - s.overlapNs);
  const restNs = Math.max(0, s.wallNs - gpuComputeNs - commOnlyNs);
  const sameRest = base.hostOnlyNs + base.remoteMemOnlyNs === restNs;
  const hostOnlyNs = sameRest ? base.hostOnlyNs : Math.min(restNs, s.cpuNs);
  return {
    ...base,
    finishNs: log.finishNs,
    gpuComputeNs,
    cpuComputeNs: s.cpuNs,
    commNs: s.commNs,
    remoteMemNs: s.remoteMemNs,
    wallNs: s.wallNs,
    overlapNs: s.overlapNs,
    commOnlyNs,
    hostOnlyNs,
    remoteMemOnlyNs: restNs - hostOnlyNs,
  };
}

/** The inputs named in the log's fingerprint whose SHA-256 differs from the files given (none given: not compared). */
async function fingerprintDifferences(input: EnergyFromLogInput, fp: ExportFingerprint): Promise<string[]> {
  const given: Record<string, () => Promise<string>> = {
    workload: async () => rankFilesDigest(await resolveRankFiles(input.trace)),
    ...(input.system ? { system: async () => textDigest(await readTextFile(input.system!)) } : {}),
    network: async () => textDigest(await readTextFile(input.network)),
    ...(input.memory ? { memory: async () => textDigest(await readTextFile(input.memory!)) } : {}),
    ...(input.commGroup ? { 'comm-group': async () => textDigest(await readTextFile(input.commGroup!)) } : {}),
  };
  const differ: string[] = [];
  for (const [name, digest] of Object.entries(given)) {
    const logged = fp[name];
    if (logged !== undefined && !(await digest()).startsWith(logged.slice(0, FINGERPRINT_DIGITS))) differ.push(name);
  }
  if (fp['comm-group'] !== undefined && !input.commGroup) differ.push('comm-group (the run had one; none is given)');
  return differ;
}

/** Refuses a log that is not of a run of this trace on these configs (see the header). */
async function checkLogBelongs(
  input: EnergyFromLogInput,
  log: AstraSimLog,
  logRanks: readonly AstraRankLog[],
  base: ReplayResult,
  astraBandwidth: boolean,
): Promise<void> {
  if (log.fingerprint) {
    const differ = await fingerprintDifferences(input, log.fingerprint.inputs);
    if (differ.length > 0) {
      throw new InputError(
        `${log.file} line ${log.fingerprint.line}: the log is of another export: the ${differ.join(', ')} of ` +
          `its run differ${differ.length === 1 ? 's' : ''} from the files given (SHA-256); give the trace and ` +
          `configs of the folder whose run.sh wrote it`,
      );
    }
  }
  // Only where replay reads bandwidths as ASTRA-sim does (not --plain-bandwidth).
  const early = astraBandwidth ? logRanks.find((r, i) => r.finishNs < base.ranks[i]!.finishNs) : undefined;
  if (early) {
    throw new InputError(
      `${log.file} line ${early.line}: sys[${early.rank}] finished at ${early.finishNs} ns, but rank ` +
        `${early.rank} of ${input.trace} on these configs takes at least ` +
        `${base.ranks[early.rank]!.finishNs} ns (tracewatt's congestion-unaware replay, which ASTRA-sim's ` +
        `analytical backends reproduce or exceed): the log is of another run (another trace, system or ` +
        `network)`,
    );
  }
}

export async function energyFromAstraSimLog(input: EnergyFromLogInput): Promise<ReplayResult> {
  const log = typeof input.astraSimLog === 'string' ? await loadAstraSimLog(input.astraSimLog) : input.astraSimLog;
  const diagnostics = new Diagnostics();
  const cluster = await loadClusterConfigs(input, diagnostics);
  const sources = await rankSourcesFromFiles(input.trace, diagnostics);
  const logRanks = ranksOfLog(log, sources.length);
  const bandwidthUnit = input.bandwidthUnit ?? 'astra-sim';
  const base = await replay(sources, { ...cluster, bandwidthUnit, windowNodes: input.windowNodes, diagnostics });
  await checkLogBelongs(input, log, logRanks, base, bandwidthUnit === 'astra-sim');
  const totals = base.ranks.map((r, i) => retimed(rankTotalsOf(r), logRanks[i], diagnostics, log.file));
  return summarizeRun(totals, {
    label: input.label ?? `${input.trace} on ${input.network}, times from ASTRA-sim (${log.file})`,
    network: cluster.network,
    power: cluster.power,
    bandwidthUnit,
    events: base.events,
    diagnostics: diagnostics.summary(),
    computeBand: base.energyBandJ?.sums,
    durationSources: base.durationSources,
  });
}

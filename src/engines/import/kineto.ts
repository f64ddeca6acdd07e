/**
 * `import kineto`: Chakra traces `<out>.<rank>.et` from Kineto (PyTorch profiler) traces alone, one per rank
 * (kineto-rank.ts builds each), the measured iteration recorded in each. The ranks must be one run: each rank once,
 * all of them (or `partial`, said), the same world size, backend, process groups and step, overlapping in wall-clock
 * time, and the same collectives in the same order in each process group (kineto-ranks.ts). A rank file missing,
 * unreadable or from another run is an error naming it; nothing is written unless every rank is.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DiagnosticSummary } from '../../diagnostics.js';
import { InputError, listExcerpt } from '../../errors.js';
import { isRankFileOf, TraceWriter } from '../../formats/chakra/index.js';
import { readHead } from '../../formats/file-chunks.js';
import { looksLikeKineto, mainDevice, readKinetoTrace, type KinetoTrace } from '../../formats/kineto/trace.js';
import { looksLikePytorchEt } from '../../formats/pytorch/et.js';
import { OutputSet } from '../../formats/output.js';
import { checkRun, type RankOfRun } from './kineto-ranks.js';
import { convertKinetoRank, rankNodes, type KinetoRankStats } from './kineto-rank.js';
import type { MeasuredRankStats } from './measure-rank.js';
import { eventSpan, pickStep, stepWindow, userWindow, type MeasuredWindow } from './window.js';

export interface KinetoImportOptions {
  /** Kineto trace files, one per rank. */
  traces?: string[];
  /** A folder holding them (every .json / .json.gz that is a Kineto trace). */
  dir?: string;
  out: string;
  /** The ProfilerStep to take (default: the longest). */
  step?: string;
  /** Instead: START:END, µs as the traces write "ts" (one window for every rank). */
  window?: string;
  /** Write the ranks given even when distributedInfo says the run had more (said in the result). */
  partial?: boolean;
}

export interface KinetoImportRank {
  rank: number;
  kineto: string;
  file: string;
  device: string | null;
  /** "cuda" or "rocm" (HIP runtime calls). */
  platform: 'cuda' | 'rocm';
  /** The measured iteration (null when the trace has no ProfilerStep and no --window was given). */
  iteration: { label: string; ns: number } | null;
  stats: KinetoRankStats;
  measured: Omit<MeasuredRankStats, 'metadata' | 'window'>;
  notes: string[];
  diagnostics: DiagnosticSummary[];
}

export interface KinetoImportResult {
  out: string;
  ranks: KinetoImportRank[];
  /** distributedInfo.world_size (null when the traces do not say). */
  worldSize: number | null;
  /** Ranks of the run with no trace given (only with `partial`). */
  missingRanks: number[];
  /** `<out>.comm-groups.json` (pg_name → ranks, for replay --comm-group), written when collectives name groups. */
  commGroupsFile: string | null;
  /** What a Kineto trace alone cannot tell, and what that costs downstream. */
  cannotKnow: string[];
  notes: string[];
}

/** What `import kineto` cannot know that `import pytorch` (with the execution trace) can. */
export const KINETO_CANNOT_KNOW = [
  'op inputs and outputs: Kineto records at most input shapes and types (record_shapes), not output shapes, ' +
    "tensor identities or values, so host ops depend only on their thread's order (no data dependencies between " +
    'ops) and kernels have no tensor sizes: annotate times them from their measured duration, and FLOP-based ' +
    '(roofline) estimates are not possible',
  'op schemas and the operator tree above what was profiled: ops are nested by time on their thread',
  'GPU work launched before the profiler started, or before the window: its launch is not in the trace (kept, ' +
    'with no launching op, and counted)',
  'process groups on PyTorch < 2.2 (no record_param_comms group): collectives are taken over all ranks',
];

const head = async (file: string) => (await readHead(file, 64 * 1024)).bytes.toString('utf8');

/**
 * The traces given, or the Kineto traces of a folder and (said in a note) its .json / .json.gz files that are neither
 * a Kineto trace nor an execution trace (a corrupt rank file is one).
 */
async function kinetoFiles(o: KinetoImportOptions): Promise<{ files: string[]; others: string[] }> {
  if (o.dir !== undefined && o.traces?.length) throw new InputError('give trace files or --dir, not both');
  if (o.dir === undefined) {
    if (!o.traces?.length) throw new InputError('give the Kineto trace of each rank, or --dir');
    return { files: o.traces, others: [] };
  }
  const names = (
    await readdir(o.dir).catch(() => {
      throw new InputError(`${o.dir}: cannot read the folder`);
    })
  )
    .filter((n) => /\.json(\.gz)?$/.test(n))
    .sort();
  const files: string[] = [];
  const others: string[] = [];
  for (const n of names) {
    const file = path.join(o.dir, n);
    if (!(await stat(file)).isFile()) continue;
    const h = await head(file);
    if (looksLikeKineto(h)) files.push(file);
    else if (!looksLikePytorchEt(h)) others.push(file); // execution traces: import pytorch's, not said here
  }
  if (files.length === 0)
    throw new InputError(`${o.dir}: no Kineto trace (.json / .json.gz with traceEvents) in the folder`);
  return { files, others };
}

function windowOf(trace: KinetoTrace, o: KinetoImportOptions): { window: MeasuredWindow; recorded: boolean } {
  if (o.window !== undefined) return { window: userWindow(trace, o.window), recorded: true };
  const step = pickStep(trace, o.step);
  if (step) return { window: stepWindow(trace, step), recorded: true };
  // No step: the whole trace, with no measured iteration recorded.
  const { first, last } = eventSpan(trace);
  if (!Number.isFinite(first)) throw new InputError(`${trace.file}: no host op and no GPU event: nothing to import`);
  return {
    window: { label: 'whole trace', startNs: first, endNs: last + 1, iterationNs: last + 1 - first, startUnixNs: null },
    recorded: false,
  };
}

const isRocm = (t: KinetoTrace) =>
  t.runtime.some((c) => /^hip/.test(c.name)) || t.devices.some((d) => /AMD|Radeon|Instinct/i.test(d.name));

const ROCM_NOTE =
  'ROCm (HIP) trace: hip* runtime calls read as their CUDA counterparts (hipLaunchKernel, hipMemcpyWithStream, ' +
  'hipDeviceSynchronize, …), streams given as hex strings read as numbers; its kernels carry no grid, block or ' +
  'register arguments and its memcpy events no byte count; no cuda_sync records, so synchronisation is ' +
  'inferred';

export async function importKineto(o: KinetoImportOptions): Promise<KinetoImportResult> {
  const { files, others } = await kinetoFiles(o);
  const ranks: KinetoImportRank[] = [];
  const run: RankOfRun[] = [];
  let commGroupsFile: string | null = null;
  let worldSize: number | null = null;
  let missingRanks: number[] = [];
  const notes: string[] = others.length
    ? [
        `${o.dir}: ${others.length} .json file(s) neither a Kineto trace nor an execution trace, not read: ` +
          listExcerpt(others.map((f) => path.basename(f))),
      ]
    : [];
  await OutputSet.write(o.out, async (set) => {
    set.supersede(
      path.dirname(o.out),
      (name) => isRankFileOf(o.out, name) || name === `${path.basename(o.out)}.comm-groups.json`,
    );
    for (const [index, kineto] of files.entries()) {
      const trace = await readKinetoTrace(kineto);
      const rank = trace.distributed?.rank ?? (files.length === 1 ? 0 : null);
      if (rank === null)
        throw new InputError(
          `${kineto} has no distributedInfo.rank, and ${files.length} traces were given: cannot tell which rank it is`,
        );
      const { window, recorded } = windowOf(trace, o);
      const conv = convertKinetoRank(trace, window, recorded);
      const platform = isRocm(trace) ? 'rocm' : 'cuda';
      const device = mainDevice(trace)?.name || null;
      // What the conversion no longer needs goes before the rank is written (its nodes hold their own events).
      trace.cpuOps = [];
      trace.gpu = [];
      trace.runtime = [];
      trace.launches = new Map();
      trace.syncs = [];
      const rankNotes = [...trace.notes, ...conv.notes];
      if (!trace.distributed)
        rankNotes.push(`${kineto} has no distributedInfo: taken as rank ${rank} of a run of ${files.length} rank(s)`);
      if (!recorded)
        rankNotes.push(
          `${kineto} has no ProfilerStep: the whole trace is written, with no measured iteration (replay ` +
            `--as-measured needs one: import again with --window START:END)`,
        );
      if (platform === 'rocm') rankNotes.push(ROCM_NOTE);
      run.push({
        rank,
        file: kineto,
        index,
        trace: { distributed: trace.distributed, baseUs: trace.baseUs },
        window: recorded ? window : null,
        collectives: conv.collectives,
      });
      const file = `${o.out}.${rank}.et`;
      const w = await TraceWriter.create(file, conv.metadata, { set });
      try {
        await w.writeAll(rankNodes(conv));
      } catch (e) {
        await w.abort();
        throw e;
      }
      await w.close();
      const { metadata: _m, window: _w, ...measured } = conv.measured;
      ranks.push({
        rank,
        kineto,
        file,
        device,
        platform,
        iteration: recorded ? { label: window.label, ns: window.iterationNs } : null,
        stats: conv.stats,
        measured,
        notes: rankNotes,
        diagnostics: conv.diagnostics.summary(),
      });
    }
    const checked = checkRun(run, {
      partial: o.partial ?? false,
      stepGiven: o.step !== undefined || o.window !== undefined,
    });
    worldSize = checked.worldSize;
    missingRanks = checked.missingRanks;
    notes.push(...checked.notes);
    if (checked.commGroups.size > 0) {
      commGroupsFile = `${o.out}.comm-groups.json`;
      await set.put(commGroupsFile, `${JSON.stringify(Object.fromEntries(checked.commGroups), null, 1)}\n`);
    }
  });
  ranks.sort((a, b) => a.rank - b.rank);
  return { out: o.out, ranks, worldSize, missingRanks, commGroupsFile, cannotKnow: KINETO_CANNOT_KNOW, notes };
}

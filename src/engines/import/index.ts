/**
 * `import pytorch`: PyTorch execution traces + Kineto traces of the same run (one pair per rank) → Chakra traces
 * `<out>.<rank>.et`, written through the project's Chakra writer. Pairs are given, or found in a folder (each JSON
 * file told by its content; an ET paired with the Kineto trace of the same process id, else of the same number in
 * the file name). The rank of each pair is the Kineto trace's distributedInfo.rank.
 */
import path from 'node:path';
import type { DiagnosticSummary } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import { isRankFileOf, TraceWriter } from '../../formats/chakra/index.js';
import { OutputSet } from '../../formats/output.js';
import { mainDevice, readKinetoTrace, type KinetoStep, type KinetoTrace } from '../../formats/kineto/trace.js';
import { readExecutionTrace } from '../../formats/pytorch/et.js';
import { convertRank, DELIBERATE_DIFFERENCES, type ConvertedRank } from './convert.js';
import { checkGraph } from './graph-check.js';
import { checkRun, type RankOfRun } from './kineto-ranks.js';
import { linkTraces, type LinkResult, type LinkStats } from './link.js';
import { pairFolder, type ImportPair } from './pair-folder.js';
import type { MeasuredRankStats } from './measure-rank.js';
import { pickStep, stepWindow, userWindow, type MeasuredWindow } from './window.js';

export { linkTraces } from './link.js';
export type { ImportPair } from './pair-folder.js';
export { DELIBERATE_DIFFERENCES, type ConvertedRank } from './convert.js';
export { commInfo } from './comm.js';
export { importKineto } from './kineto.js';

export interface ImportOptions {
  pairs?: ImportPair[];
  /** A folder holding the ET and Kineto files of every rank. */
  dir?: string;
  out: string;
  /** The ProfilerStep to take as the measured iteration (default: the one the execution trace's ops fall in). */
  step?: string;
  /** Instead of a step: START:END, µs as the Kineto trace writes "ts". */
  window?: string;
  /**
   * false: no measured timeline (no measured_* attributes, no synchronisation dependencies, no closing node): the
   * graph as Chakra's converter structures it, e.g. to compare with a recording made of that graph. Default true.
   */
  measured?: boolean;
  /**
   * Import the ranks given although the run had more (distributedInfo.world_size), or, with `dir`, although some
   * Kineto traces have no execution trace: said in the result's notes. Default false: an error naming what is missing.
   */
  partial?: boolean;
}

export interface ImportRankResult {
  rank: number;
  et: string;
  kineto: string;
  etSchema: string;
  device: string | null;
  /** ProfilerStep annotations the linked ops fall in ([] when the trace has none). */
  steps: string[];
  link: LinkStats;
  convert: ConvertedRank['stats'];
  /** The measured iteration and how the timeline was written (null: no ProfilerStep and no --window). */
  measured: MeasuredRankStats | null;
  file: string;
  notes: string[];
  diagnostics: DiagnosticSummary[];
}

export interface ImportResult {
  out: string;
  ranks: ImportRankResult[];
  /** distributedInfo.world_size (null when the traces do not say). */
  worldSize: number | null;
  /** Ranks of the run with no pair given (only with `partial`). */
  missingRanks: number[];
  /** About the run as a whole: files of the folder not read, ranks left out. */
  notes: string[];
  differencesFromChakra: string[];
}

/** The measured iteration of a pair: --window, --step, else the ProfilerStep holding most of the linked ops. */
function measuredWindow(kineto: KinetoTrace, link: LinkResult, o: ImportOptions): MeasuredWindow | null {
  if (o.window !== undefined) return userWindow(kineto, o.window);
  if (o.step !== undefined) return stepWindow(kineto, pickStep(kineto, o.step)!);
  let best: { step: KinetoStep; ops: number } | null = null;
  for (const step of link.steps) {
    let ops = 0;
    for (const op of link.opOf.values()) if (op.tsNs >= step.tsNs && op.tsNs < step.tsNs + step.durNs) ops++;
    if (!best || ops > best.ops) best = { step, ops };
  }
  return best ? stepWindow(kineto, best.step) : null;
}

export async function importPytorch(o: ImportOptions): Promise<ImportResult> {
  const folder = o.dir ? await pairFolder(o.dir, { partial: o.partial }) : null;
  const pairs = folder ? folder.pairs : (o.pairs ?? []);
  if (pairs.length === 0) throw new InputError('give --et and --kineto (one pair per rank) or --dir');
  const ranks: ImportRankResult[] = [];
  const runNotes = [...(folder?.notes ?? [])];
  const run: RankOfRun[] = [];
  let worldSize: number | null = null;
  let missingRanks: number[] = [];
  const seen = new Map<number, string>();
  // The rank files go into place together once every one is written, or not at all.
  await OutputSet.write(o.out, async (set) => {
    set.supersede(path.dirname(o.out), (name) => isRankFileOf(o.out, name));
    for (const [index, pair] of pairs.entries()) {
      const [et, kineto] = await Promise.all([readExecutionTrace(pair.et), readKinetoTrace(pair.kineto)]);
      if (et.pid !== null && kineto.cpuOps.length && kineto.cpuOps.every((k) => k.pid !== et.pid)) {
        throw new InputError(
          `${pair.et} (process ${et.pid}) and ${pair.kineto} (process ${kineto.cpuOps[0]!.pid}) are not of the ` +
            `same run`,
        );
      }
      const notes = [...et.notes, ...kineto.notes];
      let rank = kineto.distributed?.rank ?? null;
      if (rank === null) {
        rank = pairs.length === 1 ? 0 : index;
        notes.push(`${pair.kineto} has no distributedInfo.rank: written as rank ${rank} (its place among the pairs)`);
      }
      const prev = seen.get(rank);
      if (prev) throw new InputError(`rank ${rank} given twice: ${prev} and ${pair.kineto}`);
      seen.set(rank, pair.kineto);
      const link = linkTraces(et, kineto);
      if (link.opOf.size === 0)
        throw new InputError(
          `${pair.et} and ${pair.kineto}: no host op of the execution trace could be found in the Kineto ` +
            `trace; are they of the same run?`,
        );
      const window = o.measured === false ? null : measuredWindow(kineto, link, o);
      if (!window && o.measured !== false)
        notes.push(
          `${pair.kineto} has no ProfilerStep the execution trace falls in: no measured iteration recorded ` +
            `(replay --as-measured needs one: import again with --window START:END)`,
        );
      const conv = convertRank(et, kineto, link, window);
      run.push({
        rank,
        file: pair.kineto,
        index,
        trace: { distributed: kineto.distributed, baseUs: kineto.baseUs },
        window,
        collectives: [],
      });
      const file = `${o.out}.${rank}.et`;
      checkGraph(file, conv.nodes);
      const w = await TraceWriter.create(file, conv.metadata, { set });
      try {
        await w.writeAll(conv.nodes);
      } catch (e) {
        await w.abort();
        throw e;
      }
      await w.close();
      ranks.push({
        rank,
        et: pair.et,
        kineto: pair.kineto,
        etSchema: et.schema,
        device: mainDevice(kineto)?.name ?? null,
        steps: link.steps.map((s) => s.name),
        link: link.stats,
        convert: conv.stats,
        measured: conv.measured,
        file,
        notes: [...notes, ...link.notes],
        diagnostics: conv.diagnostics.summary(),
      });
    }
    // One run: every rank once, all of them (or partial, said), one world size and backend, overlapping iterations.
    const checked = checkRun(run, { partial: o.partial ?? false, stepGiven: true });
    worldSize = checked.worldSize;
    missingRanks = checked.missingRanks;
    runNotes.push(...checked.notes);
  });
  ranks.sort((a, b) => a.rank - b.rank);
  return { out: o.out, ranks, worldSize, missingRanks, notes: runNotes, differencesFromChakra: DELIBERATE_DIFFERENCES };
}

/**
 * Annotates one rank file, streaming: frames are read in 1 MiB chunks through the codec's frame scanner and
 * written to one output per target clock through bounded buffers, so memory does not grow with the trace. What is
 * done to each frame is annotator.ts.
 */
import type { DiagnosticSummary } from '../../diagnostics.js';
import { InputError, TracewattError } from '../../errors.js';
import { FrameScanner } from '../../formats/chakra/frames.js';
import { openTraceBytes } from '../../formats/chakra/source.js';
import { RankAnnotator } from './annotator.js';
import { RawOut } from './out.js';
import { ThreadCache } from './thread-cache.js';
import type { AnnotatePlan } from './plan.js';
import type { NameCount, RankAnnotation } from './types.js';

export { stripAnnotation } from './annotator.js';

export interface RankTask {
  rank: number;
  file: string;
  /** One output file per target clock of the plan, in the same order. */
  outFiles: string[];
  /** false: every annotated node through the full decoder/encoder (for tests comparing the two paths). */
  fastPath?: boolean;
}

export interface RankOutcome {
  /**
   * unmatchedNames holds the candidates for the top 20, unordered: annotateTrace orders and cuts them with
   * topNames, on the calling thread, so that a worker never starts the ICU collator (~15 ms) for it.
   */
  result: RankAnnotation;
  diagnostics: DiagnosticSummary[];
}

const TOP_NAMES = 20;

/** Most frequent first, ties in locale order of the name; at most 20. */
export function topNames(list: NameCount[]): NameCount[] {
  return list.sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)).slice(0, TOP_NAMES);
}

/**
 * The names that can be among topNames(list) whatever the order of ties: those counted at least as often as the 20th.
 */
function topCandidates(list: NameCount[]): NameCount[] {
  if (list.length <= TOP_NAMES) return list;
  const least = list.map((n) => n.count).sort((a, b) => b - a)[TOP_NAMES - 1];
  return list.filter((n) => n.count >= least);
}

/**
 * A file-system failure of a rank (an unwritable output, a folder that is a file, a full disk) as the InputError
 * naming the path that the CLI prints as one line; other errors as they are. The same in every thread.
 */
export function rankFailure(e: unknown): unknown {
  const err = e as NodeJS.ErrnoException;
  if (!(e instanceof TracewattError) && err?.code && /^E[A-Z]+$/.test(err.code) && err.path) {
    return new InputError(`${err.path}: cannot write (${err.code})`);
  }
  return e;
}

/**
 * Streams one rank file through the plan into `task.outFiles`. A thread annotating several ranks passes them one
 * `cache` (buffers, encoded annotations). `yieldOften`: let the event loop run between stretches of work (about
 * every megabyte written), for a thread that also dispatches ranks to workers and reports progress.
 */
export async function annotateRankFile(
  task: RankTask,
  plan: AnnotatePlan,
  onBytes?: (bytesRead: number) => void,
  cache = new ThreadCache(),
  yieldOften = false,
): Promise<RankOutcome> {
  const { file } = task;
  if (task.outFiles.length !== plan.frequenciesMHz.length)
    throw new InputError(
      `rank ${task.rank}: ${task.outFiles.length} output files for ${plan.frequenciesMHz.length} clocks`,
    );
  const source = await openTraceBytes(file, { reuseBuffers: cache.buffers });
  const chunks = source.chunks[Symbol.asyncIterator]();
  const outs: RawOut[] = [];
  const ann = new RankAnnotator(plan, outs, task.fastPath !== false, cache, task.rank);
  const frames = new FrameScanner(file, { knownSize: source.size, pool: cache.buffers, diagnostics: ann.diag });
  try {
    for (const f of task.outFiles) outs.push(await RawOut.open(f, cache.buffers));
    ann.res.rank = task.rank;
    ann.res.file = file;
    /** Annotates the whole frames the scanner holds; true when it stopped to let the outputs flush. */
    const step = (): boolean => {
      if (frames.framesRead === 0 && !ann.first(frames)) return false;
      let due = false;
      while (ann.frames(frames)) {
        if (ann.due()) {
          due = true;
          break;
        }
      }
      // The run of unchanged frames is written before the scanner's buffers move on.
      ann.flushPending();
      return due;
    };
    const flushAll = async () => {
      for (const o of outs) o.flush();
      if (yieldOften) await new Promise(setImmediate);
    };
    try {
      while (await frames.fill(chunks)) {
        while (step()) await flushAll();
        if (ann.due()) await flushAll();
        onBytes?.(source.fileBytesRead());
      }
      while (step()) await flushAll();
    } catch (e) {
      throw frames.error(e);
    }
    // Each output closes once: one that fails leaves the rest to the loop below.
    for (const o of outs) o.close();
    onBytes?.(source.fileBytesRead());
    return { result: ann.finish(task.outFiles, topCandidates), diagnostics: ann.diag.summary() };
  } finally {
    source.close();
    frames.release();
    for (const o of outs) {
      try {
        o.close();
      } catch {
        // already failing: the first error is the one reported
      }
    }
  }
}

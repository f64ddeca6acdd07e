/**
 * What every `case-study` does after parsing its options: run the study (engines/studies writeStudyFolder) behind a
 * progress bar on a terminal, its results.json and report.html written together, then print the JSON, the CSV rows
 * or the text with the run time and the files written.
 */
import { writeStudyFolder, type StudyRun } from '../../engines/studies/index.js';
import { buildReport, type ReportResult } from '../../report/index.js';
import type { RowSet } from '../../report/text.js';
import { studyFooterText, studyJson } from '../../report/text/study-output.js';
import type { CommandIO } from '../command.js';
import { emit } from '../io.js';
import { progressBar } from '../progress.js';

export interface StudyOutput<R extends ReportResult> {
  out: string;
  /** Progress bar label, e.g. "case study". */
  label: string;
  /** Title of the HTML report. */
  title: string;
  run: (onPoint?: (done: number, total: number) => void) => Promise<StudyRun<R>>;
  text: (record: R) => string;
  rows: (record: R) => RowSet;
  /** What --json prints besides the files, parallelism, replays and seconds. */
  json: (record: R) => Record<string, unknown>;
}

export async function writeStudy<R extends ReportResult>(
  opts: Record<string, unknown>,
  io: CommandIO,
  s: StudyOutput<R>,
): Promise<number> {
  const bar =
    io.isTTY && !opts.json && !opts.csv
      ? await progressBar(`${s.label} [{bar}] {percentage}% | {value}/{total} replays | {duration}s`)
      : null;
  const onPoint = bar
    ? (done: number, total: number) => (done === 1 ? bar.start(total, 1) : bar.update(done))
    : undefined;
  const w = await writeStudyFolder(
    s.out,
    async () => {
      try {
        return await s.run(onPoint);
      } finally {
        bar?.stop();
      }
    },
    (record) => buildReport([record], { title: s.title }),
  );
  emit(io, opts, studyJson(w, s.json(w.record)), {
    table: () => s.rows(w.record),
    text: () => s.text(w.record) + studyFooterText(w),
  });
  return 0;
}

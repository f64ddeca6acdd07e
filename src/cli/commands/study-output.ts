/**
 * What every `case-study` does after parsing its options: run the study behind a progress bar (on a terminal),
 * write results.json and report.html together into the output folder (both or neither; the folder is locked
 * meanwhile), then print the JSON, the CSV rows or the text with the run time and the files written.
 */
import path from 'node:path';
import { toJson } from '../../formats/json.js';
import { OutputSet } from '../../formats/output.js';
import { buildReport, type ReportResult } from '../../report/index.js';
import type { RowSet } from '../../report/text.js';
import type { CommandIO } from '../command.js';
import { rowsText } from '../io.js';
import { progressBar } from '../progress.js';

export interface StudyRun<R> {
  record: ReportResult & R;
  replays: number;
  parallelism: unknown;
}

export interface StudyOutput<R> {
  out: string;
  /** Progress bar label, e.g. "case study". */
  label: string;
  /** Title of the HTML report. */
  title: string;
  run: (onPoint?: (done: number, total: number) => void) => Promise<StudyRun<R>>;
  text: (record: StudyRun<R>['record']) => string;
  rows: (record: StudyRun<R>['record']) => RowSet;
  /** What --json prints besides the files, parallelism, replays and seconds. */
  json: (record: StudyRun<R>['record']) => Record<string, unknown>;
}

export async function writeStudy<R>(opts: Record<string, unknown>, io: CommandIO, s: StudyOutput<R>): Promise<number> {
  const started = Date.now();
  const bar =
    io.isTTY && !opts.json && !opts.csv
      ? await progressBar(`${s.label} [{bar}] {percentage}% | {value}/{total} replays | {duration}s`)
      : null;
  const files = { results: path.join(s.out, 'results.json'), report: path.join(s.out, 'report.html') };
  // Both files appear together when both are written, or not at all; the folder is locked meanwhile.
  const r = await OutputSet.write(
    s.out,
    async (set) => {
      let r: StudyRun<R>;
      try {
        r = await s.run(bar ? (done, total) => (done === 1 ? bar.start(total, 1) : bar.update(done)) : undefined);
      } finally {
        bar?.stop();
      }
      const html = await buildReport([r.record], { title: s.title });
      await set.put(files.results, `${toJson([r.record])}\n`);
      await set.put(files.report, html);
      return r;
    },
    { folder: true },
  );
  const seconds = (Date.now() - started) / 1e3;
  if (opts.json) {
    io.out(`${toJson({ files, ...s.json(r.record), parallelism: r.parallelism, replays: r.replays, seconds })}\n`);
    return 0;
  }
  if (opts.csv) {
    const t = s.rows(r.record);
    io.out(rowsText(opts, t.columns, t.rows));
    return 0;
  }
  io.out(s.text(r.record));
  io.out(`\n${r.replays} replays in ${seconds.toFixed(1)} s\nwrote ${files.results}\nwrote ${files.report}\n`);
  return 0;
}

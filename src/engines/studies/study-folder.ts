/**
 * What every case study does once its options are known: run the study and write its record as results.json and
 * its report (rendered by the caller: the HTML report sits a layer above) as report.html, into one folder, both
 * or neither (the folder is locked meanwhile), timing the whole.
 */
import path from 'node:path';
import { toJson } from '../../formats/json.js';
import { OutputSet } from '../../formats/output.js';
import type { PoolRun } from './pool.js';

/** A study's run: its record, the replays it took and how they were spread over threads. */
export interface StudyRun<R> {
  record: R;
  replays: number;
  parallelism: PoolRun['parallelism'];
}

/** The files a study writes into its folder. */
export interface StudyFiles {
  results: string;
  report: string;
}

export interface StudyWritten<R> extends StudyRun<R> {
  files: StudyFiles;
  /** Wall time of the run and the writing, s. */
  seconds: number;
}

/** Runs `run`, then writes [record] as results.json and `report(record)` as report.html into `out`, together. */
export async function writeStudyFolder<R>(
  out: string,
  run: () => Promise<StudyRun<R>>,
  report: (record: R) => Promise<string>,
): Promise<StudyWritten<R>> {
  const started = Date.now();
  const files = { results: path.join(out, 'results.json'), report: path.join(out, 'report.html') };
  const r = await OutputSet.write(
    out,
    async (set) => {
      const r = await run();
      const html = await report(r.record);
      await set.put(files.results, `${toJson([r.record])}\n`);
      await set.put(files.report, html);
      return r;
    },
    { folder: true },
  );
  return { ...r, files, seconds: (Date.now() - started) / 1e3 };
}

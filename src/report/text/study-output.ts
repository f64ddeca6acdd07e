/** What a case study prints once its folder is written: the run's figures after its text, or beside its JSON. */
import type { StudyWritten } from '../../engines/studies/study-folder.js';

/** The lines under a study's text: replays and run time, then the files written. */
export function studyFooterText(w: StudyWritten<unknown>): string {
  return `\n${w.replays} replays in ${w.seconds.toFixed(1)} s\nwrote ${w.files.results}\nwrote ${w.files.report}\n`;
}

/** What --json prints: the files, the study's own `fields`, then parallelism, replays and seconds. */
export function studyJson(w: StudyWritten<unknown>, fields: Record<string, unknown>): Record<string, unknown> {
  return { files: w.files, ...fields, parallelism: w.parallelism, replays: w.replays, seconds: w.seconds };
}

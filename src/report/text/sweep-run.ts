/**
 * What `tracewatt sweep … --shard i/N --out <file>` prints once the shard's partial is written, and the notes and
 * warnings a sweep reports on stderr.
 */
import type { DiagnosticSummary } from '../../diagnostics.js';
import type { ShardWritten } from '../../engines/studies/sweep-run.js';
import type { RowSet } from '../text.js';
import { saidText } from './said.js';

/** "wrote <file>: shard i/N, k of n points". */
export function shardWrittenText(w: ShardWritten): string {
  return `wrote ${w.out}: shard ${w.shard.index}/${w.shard.count}, ${w.points} of ${w.totalPoints} points\n`;
}

/** The same as one CSV row. */
export function shardWrittenRows(w: ShardWritten): RowSet {
  return {
    columns: [{ header: 'out' }, { header: 'shard' }, { header: 'points' }, { header: 'total points' }],
    rows: [[w.out, `${w.shard.index}/${w.shard.count}`, w.points, w.totalPoints]],
  };
}

/** Notes of the profiles read, then one warning line per diagnostic code (its count and first message). */
export function sweepNoticesText(
  profileNotes: readonly { profile: string; notes: readonly string[] }[],
  diagnostics: readonly DiagnosticSummary[],
): string {
  return profileNotes.map((p) => saidText({ source: p.profile, notes: p.notes })).join('') + saidText({ diagnostics });
}

/**
 * Are the Kineto traces given one run, rank by rank? Each rank once; all ranks of distributedInfo.world_size (unless
 * `partial`); one world size, backend and process-group set; the same ProfilerStep (or window) on every rank, the
 * measured iterations overlapping in wall-clock time; in each process group, every member running the same
 * collectives in the same order (matched by group and order, as replay matches them). Any breach is an InputError
 * naming the file; odd but usable differences (sizes of a collective that differ between ranks) are notes.
 */
import { InputError } from '../../errors.js';
import { commTypeName } from '../../formats/chakra/index.js';
import type { KinetoTrace } from '../../formats/kineto/trace.js';
import type { KinetoCollective } from './kineto-rank.js';
import type { MeasuredWindow } from './window.js';

export interface RankOfRun {
  rank: number;
  file: string;
  index: number;
  trace: Pick<KinetoTrace, 'distributed' | 'baseUs'>;
  window: MeasuredWindow | null;
  collectives: KinetoCollective[];
}

export interface RunCheck {
  worldSize: number | null;
  missingRanks: number[];
  /** Process groups other than the default one, by name, for replay --comm-group. */
  commGroups: Map<string, number[]>;
  notes: string[];
}

/** Two ranks' iterations of one run start within this of each other (ranks drift apart by ms, runs by far more). */
const SAME_RUN_SLACK_NS = 10_000_000_000n;

function pgConfigKey(t: RankOfRun['trace']): string | null {
  const cfg = t.distributed?.raw.pg_config;
  if (!Array.isArray(cfg)) return null;
  return JSON.stringify(
    (cfg as Record<string, unknown>[])
      .map((g) => [String(g?.pg_name), Array.isArray(g?.ranks) ? g.ranks : null])
      .sort(),
  );
}

export function checkRun(ranks: RankOfRun[], o: { partial: boolean; stepGiven: boolean }): RunCheck {
  const notes: string[] = [];
  const seen = new Map<number, RankOfRun>();
  for (const r of ranks) {
    const prev = seen.get(r.rank);
    if (prev) throw new InputError(`rank ${r.rank} given twice: ${prev.file} and ${r.file}`);
    seen.set(r.rank, r);
  }
  const first = ranks[0]!;
  const worldSize = first.trace.distributed?.worldSize ?? null;
  for (const r of ranks) {
    const d = r.trace.distributed;
    if ((d?.worldSize ?? null) !== worldSize) {
      throw new InputError(
        `${r.file} is from another run: world size ${d?.worldSize ?? 'not recorded'}, ${first.file} says ` +
          String(worldSize ?? 'not recorded'),
      );
    }
    if ((d?.backend ?? null) !== (first.trace.distributed?.backend ?? null)) {
      throw new InputError(
        `${r.file} is from another run: backend ${d?.backend ?? 'not recorded'}, ${first.file} says ` +
          (first.trace.distributed?.backend ?? 'not recorded'),
      );
    }
    if (pgConfigKey(r.trace) !== pgConfigKey(first.trace))
      throw new InputError(
        `${r.file} is from another run: its process groups (distributedInfo.pg_config) differ from ${first.file}'s`,
      );
    if (worldSize !== null && r.rank >= worldSize)
      throw new InputError(`${r.file}: rank ${r.rank} does not exist in a run of world size ${worldSize}`);
  }
  const expected = worldSize ?? ranks.length;
  const missingRanks: number[] = [];
  for (let k = 0; k < expected; k++) if (!seen.has(k)) missingRanks.push(k);
  if (missingRanks.length) {
    const list =
      missingRanks.slice(0, 12).join(', ') + (missingRanks.length > 12 ? ` … (${missingRanks.length} in all)` : '');
    if (!o.partial) {
      throw new InputError(
        `the run has ${expected} ranks but no trace was given for rank${missingRanks.length > 1 ? 's' : ''} ` +
          `${list} (pass --partial to import only the ranks given; replay --as-measured works on those, a ` +
          `modelled replay needs every rank)`,
      );
    }
    notes.push(`partial run: ${ranks.length} of ${expected} ranks imported; no trace for ranks ${list}`);
  }
  // One step, one time.
  const withWindow = ranks.filter((r) => r.window);
  const labels = new Set(withWindow.map((r) => r.window!.label));
  if (labels.size > 1 && !o.stepGiven) {
    const say = withWindow.map((r) => `rank ${r.rank}: ${r.window!.label}`).join(', ');
    throw new InputError(
      `the ranks' longest ProfilerSteps differ (${say}): pass --step NAME to take the same one on every rank`,
    );
  }
  const timed = withWindow.filter((r) => r.window!.startUnixNs !== null);
  if (timed.length > 1) {
    const ref = timed[0]!;
    const refStart = ref.window!.startUnixNs!;
    for (const r of timed) {
      const gap = r.window!.startUnixNs! - refStart;
      const slack = SAME_RUN_SLACK_NS + BigInt(Math.max(r.window!.iterationNs, ref.window!.iterationNs));
      if (gap > slack || -gap > slack) {
        throw new InputError(
          `${r.file} is from another run: its ${r.window!.label} starts ${fmtGap(gap)} ` +
            `${gap > 0n ? 'after' : 'before'} rank ${ref.rank}'s (${ref.file})`,
        );
      }
    }
  }
  return {
    worldSize,
    missingRanks,
    commGroups: matchCollectives(ranks, seen, worldSize ?? ranks.length, notes),
    notes,
  };
}

const fmtGap = (ns: bigint) => {
  const s = Number(ns < 0n ? -ns : ns) / 1e9;
  return s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(1)} s`;
};

/**
 * The k-th collective of a group on one member is the k-th on every other member: same type in the same order, on
 * every member present. Returns the named groups (not the default group) for a comm-group file.
 */
function matchCollectives(
  ranks: RankOfRun[],
  byRank: Map<number, RankOfRun>,
  world: number,
  notes: string[],
): Map<string, number[]> {
  const groups = new Map<string, { members: number[]; byRank: Map<number, KinetoCollective[]> }>();
  const all = Array.from({ length: world }, (_, i) => i);
  for (const r of ranks) {
    for (const c of r.collectives) {
      const key = c.pgName ?? '';
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { members: c.pgRanks ?? all, byRank: new Map() }));
      const l = g.byRank.get(r.rank);
      if (l) l.push(c);
      else g.byRank.set(r.rank, [c]);
    }
  }
  let sizeDiffers = 0;
  for (const [key, g] of groups) {
    const name = key === '' ? 'all ranks (no group recorded)' : `group "${key}"`;
    const present = g.members.filter((m) => byRank.has(m));
    if (present.length < 2) continue;
    const ref = present[0]!;
    const refList = g.byRank.get(ref) ?? [];
    for (const m of present.slice(1)) {
      const list = g.byRank.get(m) ?? [];
      if (list.length !== refList.length) {
        throw new InputError(
          `${byRank.get(m)!.file}: rank ${m} runs ${list.length} collectives in ${name}, rank ${ref} (` +
            `${byRank.get(ref)!.file}) runs ${refList.length}: the traces are not of the same iteration (or ` +
            `events are missing from one of them)`,
        );
      }
      list.forEach((c, k) => {
        const a = refList[k]!;
        if (c.commType !== a.commType) {
          throw new InputError(
            `${byRank.get(m)!.file}: collective ${k + 1} of ${name} is ${commTypeName(c.commType)} on rank ${m}` +
              ` but ${commTypeName(a.commType)} on rank ${ref}: the traces are not of the same iteration (or ` +
              `events are missing from one of them)`,
          );
        }
        if (c.bytes !== a.bytes) sizeDiffers++;
      });
    }
  }
  if (sizeDiffers)
    notes.push(
      `${sizeDiffers} collectives have a size on some rank that differs from the same collective on the ` +
        `group's first rank (all-to-allv, uneven splits): each rank keeps its own`,
    );
  const named = new Map<string, number[]>();
  for (const [key, g] of groups) if (key !== '' && key !== '0') named.set(key, g.members);
  return named;
}

/**
 * ASTRA-sim's printed results (its stdout/stderr, or the log file it writes): per rank
 *   `sys[i] finished, T cycles, exposed communication E cycles.`  (older builds: `sys[i] finished, T cycles`)
 * and, from 2.x's statistics, `sys[i], Wall time: N`, `GPU time`, `Comm time`, `CPU time`, `Remote mem time`,
 * `Replay time`, `Invalid time` and `Total compute-communication overlap: N` (printed only when > 0).
 * 1 cycle = 1 ns. The spdlog prefix (`[date] [logger] [level]`) and every other line are ignored; a line that
 * starts like one of these but does not parse is a FormatError naming the line.
 * A log written by the run.sh of `export astra-sim` starts with the export's fingerprint ({@link fingerprintLine}):
 * the SHA-256 of the rank files and configs ASTRA-sim ran, which `energy --astra-sim-log` checks against its inputs.
 */
import { readTextFile } from '../text-file.js';
import { excerpt, FormatError, InputError } from '../../errors.js';

/** One rank's figures as ASTRA-sim printed them (ns). Statistics are undefined when the log has none for it. */
export interface AstraRankLog {
  rank: number;
  finishNs: number;
  /** `exposed communication E cycles`; undefined in logs of builds that did not print it. */
  exposedCommNs?: number;
  /** 1-based line of the `finished` line. */
  line: number;
  /** From the statistics lines, when the rank has any (a type ASTRA-sim did not list is 0). */
  stats?: AstraRankStats;
}

export interface AstraRankStats {
  wallNs: number;
  gpuNs: number;
  cpuNs: number;
  commNs: number;
  remoteMemNs: number;
  /** GPU + Comm − Wall as ASTRA-sim computes it; 0 when it printed no overlap line. */
  overlapNs: number;
}

/** Input name (workload, system, network, memory, comm-group) → SHA-256 hex (its first 16 digits at least). */
export type ExportFingerprint = Record<string, string>;

export interface AstraSimLog {
  file: string;
  /** The fingerprint line run.sh writes first, when the log has one; its 1-based line. */
  fingerprint?: { inputs: ExportFingerprint; line: number };
  /** Ranks in the order of their `finished` lines. */
  ranks: AstraRankLog[];
  /** Lines that say ASTRA-sim went wrong ([critical], [error], unreleased nodes, attributes not found), first ones. */
  trouble: { line: number; text: string }[];
}

const FINISHED = /sys\[(\d+)\] finished, (\d+) cycles(?:, exposed communication (\d+) cycles\.?)?\s*$/;
const FINISHED_START = /sys\[\d+\] finished/;
const STAT = /sys\[(\d+)\], (Wall|GPU|CPU|Comm|Remote mem|Replay|Invalid) time: (\d+)\s*$/;
const OVERLAP = /sys\[(\d+)\], Total compute-communication overlap: (\d+)\s*$/;
const STAT_START =
  /sys\[\d+\], (?:(?:Wall|GPU|CPU|Comm|Remote mem|Replay|Invalid) time|Total compute-communication overlap):/;
const TROUBLE = /\[(?:critical|error)\]|unreleased nodes|not found in node|did not finish/i;
const MAX_TROUBLE = 5;
const FINGERPRINT = 'tracewatt export fingerprint (sha256, first 16 hex digits):';
const FINGERPRINT_ENTRY = /^([a-z-]+)=([0-9a-f]{16,64})$/;

/** Digits of each digest a fingerprint line keeps (enough to tell inputs apart, short enough to read). */
export const FINGERPRINT_DIGITS = 16;

/** The line run.sh writes at the top of ASTRA-sim's log: the export's inputs and the start of their SHA-256. */
export function fingerprintLine(fp: ExportFingerprint): string {
  return `${FINGERPRINT} ${Object.entries(fp)
    .map(([k, v]) => `${k}=${v.slice(0, FINGERPRINT_DIGITS)}`)
    .join(' ')}`;
}

function parseFingerprint(file: string, lineNo: number, line: string): ExportFingerprint {
  const inputs: ExportFingerprint = {};
  for (const word of line
    .slice(line.indexOf(FINGERPRINT) + FINGERPRINT.length)
    .trim()
    .split(/\s+/)) {
    const m = FINGERPRINT_ENTRY.exec(word);
    if (!m)
      throw new FormatError(
        file,
        `line ${lineNo}`,
        `expected name=<sha256 digits> in the export fingerprint, found "${excerpt(word)}"`,
      );
    inputs[m[1]!] = m[2]!;
  }
  return inputs;
}

type StatKey = 'wallNs' | 'gpuNs' | 'cpuNs' | 'commNs' | 'remoteMemNs' | 'overlapNs' | null;
const STAT_KEYS: Record<string, StatKey> = {
  Wall: 'wallNs',
  GPU: 'gpuNs',
  CPU: 'cpuNs',
  Comm: 'commNs',
  'Remote mem': 'remoteMemNs',
  Replay: null,
  Invalid: null,
};

function whole(file: string, lineNo: number, text: string, digits: string): number {
  const v = Number(digits);
  if (!Number.isSafeInteger(v))
    throw new FormatError(
      file,
      `line ${lineNo}`,
      `${excerpt(digits)} does not fit an exact number of ns ("${excerpt(text.trim(), 100)}")`,
    );
  return v;
}

export function parseAstraSimLog(file: string, text: string): AstraSimLog {
  const byRank = new Map<number, AstraRankLog>();
  const stats = new Map<number, AstraRankStats>();
  const trouble: AstraSimLog['trouble'] = [];
  let fingerprint: AstraSimLog['fingerprint'];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const lineNo = i + 1;
    if (line.includes(FINGERPRINT)) {
      if (fingerprint)
        throw new FormatError(
          file,
          `line ${lineNo}`,
          `a second export fingerprint (the first is on line ${fingerprint.line}): one ASTRA-sim run per log`,
        );
      fingerprint = { inputs: parseFingerprint(file, lineNo, line), line: lineNo };
      continue;
    }
    if (!line.includes('sys[')) {
      if (trouble.length < MAX_TROUBLE && TROUBLE.test(line)) trouble.push({ line: lineNo, text: line.trim() });
      continue;
    }
    const f = FINISHED.exec(line);
    if (f) {
      const rank = whole(file, lineNo, line, f[1]);
      const prev = byRank.get(rank);
      if (prev)
        throw new FormatError(
          file,
          `line ${lineNo}`,
          `sys[${rank}] finished a second time (first on line ${prev.line}): one ASTRA-sim run per log`,
        );
      const finishNs = whole(file, lineNo, line, f[2]);
      const exposedCommNs = f[3] === undefined ? undefined : whole(file, lineNo, line, f[3]);
      if (exposedCommNs !== undefined && exposedCommNs > finishNs) {
        throw new FormatError(
          file,
          `line ${lineNo}`,
          `exposed communication ${exposedCommNs} is more than the finish time ${finishNs} ("` +
            `${excerpt(line.trim(), 100)}")`,
        );
      }
      byRank.set(rank, { rank, finishNs, exposedCommNs, line: lineNo });
      continue;
    }
    if (FINISHED_START.test(line)) {
      throw new FormatError(
        file,
        `line ${lineNo}`,
        `expected "sys[i] finished, T cycles, exposed communication E cycles.", found "${excerpt(line.trim(), 100)}"`,
      );
    }
    const s = STAT.exec(line);
    const o = s ? null : OVERLAP.exec(line);
    if (s || o) {
      const rank = whole(file, lineNo, line, (s ?? o)![1]);
      let st = stats.get(rank);
      if (!st) stats.set(rank, (st = { wallNs: 0, gpuNs: 0, cpuNs: 0, commNs: 0, remoteMemNs: 0, overlapNs: 0 }));
      const key = s ? STAT_KEYS[s[2]] : 'overlapNs';
      if (key) st[key] = whole(file, lineNo, line, (s ?? o)![s ? 3 : 2]);
      continue;
    }
    if (STAT_START.test(line))
      throw new FormatError(
        file,
        `line ${lineNo}`,
        `expected "sys[i], <kind> time: N", found "${excerpt(line.trim(), 100)}"`,
      );
    if (trouble.length < MAX_TROUBLE && TROUBLE.test(line)) trouble.push({ line: lineNo, text: line.trim() });
  }
  for (const [rank, st] of stats) {
    const r = byRank.get(rank);
    if (r) r.stats = st;
  }
  return { file, ranks: [...byRank.values()], trouble, ...(fingerprint ? { fingerprint } : {}) };
}

export async function loadAstraSimLog(file: string): Promise<AstraSimLog> {
  return parseAstraSimLog(file, await readTextFile(file));
}

/**
 * The log's ranks indexed 0..ranks−1, or an InputError naming the first rank without a `finished` line (with the
 * lines that say why ASTRA-sim stopped, when it printed any) or a rank the trace does not have.
 */
export function ranksOfLog(log: AstraSimLog, ranks: number): AstraRankLog[] {
  const out: (AstraRankLog | undefined)[] = new Array(ranks);
  for (const r of log.ranks) {
    if (r.rank >= ranks)
      throw new FormatError(
        log.file,
        `line ${r.line}`,
        `sys[${r.rank}] finished, but the trace has ${ranks} rank(s) (0..${ranks - 1}): is this the log of ` +
          `another run?`,
      );
    out[r.rank] = r;
  }
  const missing: number[] = [];
  for (let i = 0; i < ranks; i++) if (!out[i]) missing.push(i);
  if (missing.length > 0) {
    const list = `${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ` … (${missing.length} ranks)` : ''}`;
    const why =
      log.trouble.length > 0
        ? `; ASTRA-sim printed: ${log.trouble.map((t) => `line ${t.line}: "${t.text}"`).join('; ')}`
        : '';
    throw new InputError(
      `${log.file}: no "sys[i] finished" line for rank ${list} of the trace's ${ranks} (ASTRA-sim did not ` +
        `finish ${missing.length === 1 ? 'it' : 'them'}, or the log is cut short)${why}`,
    );
  }
  return out as AstraRankLog[];
}

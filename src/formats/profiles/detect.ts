/**
 * Sniffs a file's first lines to tell which reader (or power-series format) it needs: one sniffer per format, in
 * SNIFFERS. Returns null when nothing matches (use --format / --mapping).
 */
import { readHead } from '../file-chunks.js';
import { looksLikeKineto } from '../kineto/trace.js';
import { looksLikePytorchEt } from '../pytorch/et.js';
import { isProfLine } from './csv.js';
import { looksLikeAccelWattch } from './accelwattch.js';
import { looksLikeGpmtool } from './gpmtool.js';
import { looksLikeNvDvfs } from './nv-dvfs.js';
import { looksLikePerseus } from './perseus.js';
import { looksLikeZeus, looksLikeZeusProfile } from './zeus.js';
import { POWER_FORMATS, type PowerFormat, type ProfileFormat } from './types.js';

export type DetectedFormat =
  | { kind: 'profile'; format: ProfileFormat }
  | { kind: 'power'; format: PowerFormat }
  | { kind: 'pytorch-et' };

const SNIFF_BYTES = 64 * 1024;
const SNIFF_LINES = 400;

/** The first maxBytes of a file's text (of its content when gzipped), and whether the file goes on. */
async function headText(file: string, maxBytes = SNIFF_BYTES): Promise<{ text: string; cut: boolean }> {
  const { bytes, cut } = await readHead(file, maxBytes);
  return { text: bytes.toString('utf8'), cut };
}

function splitHead(head: string, cut: boolean): string[] {
  let text = head;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (cut) lines.pop(); // last line may be cut
  return lines.slice(0, SNIFF_LINES);
}

/** Splits a header line on commas outside quotes (enough for sniffing). */
export function splitHeader(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q = false;
  for (const ch of line) {
    if (ch === '"') q = !q;
    else if (ch === ',' && !q) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  out.push(cur.trim());
  return out;
}

/** True for the header line of an Nsight Compute CSV (long or raw page). */
export function isNcuHeader(line: string): boolean {
  return /^"?ID"?,"?Process ID"?,/.test(line);
}
/** True for an Nsight Systems stats / GUI-export header. */
export function isNsysHeader(line: string): boolean {
  const f = splitHeader(line);
  const has = (re: RegExp) => f.some((x) => re.test(x));
  if (has(/^Total Time \(/) && f.includes('Instances') && f.includes('Name')) return true;
  if (has(/^Start \(/) && has(/^Duration \(/) && f.includes('Name') && (f.includes('CorrId') || f.includes('GrdX')))
    return true;
  return f[0] === 'Name' && f.includes('Start') && f.includes('Duration') && f.includes('GPU');
}

/**
 * How each format is told from its head: the JSON documents by their first keys, gpmTOOL by its first lines, the
 * CSVs by a header line (the first such line that any format claims decides). One entry per profile and power
 * format — a format added to PROFILE_FORMATS or POWER_FORMATS without an entry here does not compile; `null` marks
 * a format that is never sniffed (it needs --format or --mapping). Order matters: entries are tried in the order
 * written, most specific signature first.
 */
type Sniff =
  | { json: (head: string) => boolean }
  | { head: (lines: string[]) => boolean }
  | { header: (line: string, fields: string[]) => boolean };

const SNIFFERS: Record<ProfileFormat | PowerFormat, Sniff | null> = {
  kineto: { json: looksLikeKineto },
  gpmtool: { head: (lines) => looksLikeGpmtool(lines.slice(0, 4)) },
  'ncu-csv': { header: (line) => isNcuHeader(line) && /"?Metric Name"?/.test(line) && /"?Metric Value"?/.test(line) },
  'ncu-raw': { header: (line) => isNcuHeader(line) },
  'nsys-kern-sum': { header: (line) => isNsysHeader(line) && /Total Time \(/.test(line) },
  'nsys-gpu-trace': { header: (line) => isNsysHeader(line) },
  'nv-dvfs-benchmark': { header: (_line, f) => looksLikeNvDvfs(f) },
  perseus: { header: (_line, f) => looksLikePerseus(f) },
  zeus: { header: (_line, f) => looksLikeZeus(f) },
  'zeus-profile': { header: (_line, f) => looksLikeZeusProfile(f) },
  accelwattch: { header: (_line, f) => looksLikeAccelWattch(f) },
  'dcgmi-dmon': { header: (line) => /^#\s*Entity\b/.test(line.trim()) },
  'nvidia-smi': { header: (_line, f) => f.some((x) => /^power\.draw(\.average|\.instant)?(\s*\[.*\])?$/.test(x)) },
  'zeus-monitor': { header: (_line, f) => f.length === 2 && f[0] === 'Time' && f[1] === 'Power' },
  'power-csv': {
    header: (_line, f) =>
      f.length >= 2 && f.some((x) => /^(time|timestamp|t)(\b|_)/i.test(x)) && f.some((x) => /^power/i.test(x)),
  },
  generic: null,
};

const POWER = new Set<string>(POWER_FORMATS);
const SNIFF_ORDER = Object.entries(SNIFFERS).filter((e): e is [ProfileFormat | PowerFormat, Sniff] => e[1] !== null);

function detected(format: ProfileFormat | PowerFormat): DetectedFormat {
  return POWER.has(format)
    ? { kind: 'power', format: format as PowerFormat }
    : { kind: 'profile', format: format as ProfileFormat };
}

/** True when the format is told from its head (else it needs --format or --mapping). */
export function isSniffed(format: ProfileFormat): boolean {
  return SNIFFERS[format] !== null;
}

/** JSON documents: a Kineto trace or a PyTorch execution trace, told by their first keys. */
export function detectJsonFormat(head: string): DetectedFormat | null {
  for (const [format, sniff] of SNIFF_ORDER) if ('json' in sniff && sniff.json(head)) return detected(format);
  if (looksLikePytorchEt(head)) return { kind: 'pytorch-et' };
  return null;
}

export function detectFormatFromLines(lines: string[]): DetectedFormat | null {
  for (const [format, sniff] of SNIFF_ORDER) if ('head' in sniff && sniff.head(lines)) return detected(format);
  for (const line of lines) {
    if (!line.trim() || isProfLine(line)) continue;
    const fields = splitHeader(line);
    for (const [format, sniff] of SNIFF_ORDER)
      if ('header' in sniff && sniff.header(line, fields)) return detected(format);
    // A line no format claims decides nothing; keep looking past application output (ncu prints the program's
    // stdout before its CSV).
  }
  return null;
}

/** Sniffs a file. */
export async function detectFormat(file: string): Promise<DetectedFormat | null> {
  const { text, cut } = await headText(file);
  return detectJsonFormat(text) ?? detectFormatFromLines(splitHead(text, cut));
}

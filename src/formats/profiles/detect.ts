/**
 * Sniffs a file's first lines to tell which reader (or power-series format) it needs. Order matters:
 * the most specific signatures come first. Returns null when nothing matches (use --format / --mapping).
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
import type { PowerFormat, ProfileFormat } from './types.js';

export type DetectedFormat = { kind: 'profile'; format: ProfileFormat } | { kind: 'power'; format: PowerFormat } | { kind: 'pytorch-et' };

const SNIFF_BYTES = 64 * 1024;
const SNIFF_LINES = 400;

/** The first maxBytes of a file's text (of its content when gzipped), and whether the file goes on. */
async function headText(file: string, maxBytes = SNIFF_BYTES): Promise<{ text: string; cut: boolean }> {
  const { bytes, cut } = await readHead(file, maxBytes);
  return { text: bytes.toString('utf8'), cut };
}

/** Reads the first lines of a file (BOM and CR stripped; gzip read through). */
export async function headLines(file: string, maxBytes = SNIFF_BYTES): Promise<string[]> {
  const { text, cut } = await headText(file, maxBytes);
  return splitHead(text, cut);
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
  if (has(/^Start \(/) && has(/^Duration \(/) && f.includes('Name') && (f.includes('CorrId') || f.includes('GrdX'))) return true;
  return f[0] === 'Name' && f.includes('Start') && f.includes('Duration') && f.includes('GPU');
}

/** JSON documents: a Kineto trace or a PyTorch execution trace, told by their first keys. */
export function detectJsonFormat(head: string): DetectedFormat | null {
  if (looksLikeKineto(head)) return { kind: 'profile', format: 'kineto' };
  if (looksLikePytorchEt(head)) return { kind: 'pytorch-et' };
  return null;
}

export function detectFormatFromLines(lines: string[]): DetectedFormat | null {
  if (looksLikeGpmtool(lines.slice(0, 4))) return { kind: 'profile', format: 'gpmtool' };
  for (const line of lines) {
    if (!line.trim() || isProfLine(line)) continue;
    if (isNcuHeader(line)) {
      return { kind: 'profile', format: /"?Metric Name"?/.test(line) && /"?Metric Value"?/.test(line) ? 'ncu-csv' : 'ncu-raw' };
    }
    if (isNsysHeader(line)) {
      return { kind: 'profile', format: /Total Time \(/.test(line) ? 'nsys-kern-sum' : 'nsys-gpu-trace' };
    }
    const f = splitHeader(line);
    if (looksLikeNvDvfs(f)) return { kind: 'profile', format: 'nv-dvfs-benchmark' };
    if (looksLikePerseus(f)) return { kind: 'profile', format: 'perseus' };
    if (looksLikeZeus(f)) return { kind: 'profile', format: 'zeus' };
    if (looksLikeZeusProfile(f)) return { kind: 'profile', format: 'zeus-profile' };
    if (looksLikeAccelWattch(f)) return { kind: 'profile', format: 'accelwattch' };
    if (/^#\s*Entity\b/.test(line.trim())) return { kind: 'power', format: 'dcgmi-dmon' };
    if (f.some((x) => /^power\.draw(\.average|\.instant)?(\s*\[.*\])?$/.test(x))) return { kind: 'power', format: 'nvidia-smi' };
    if (f.length === 2 && f[0] === 'Time' && f[1] === 'Power') return { kind: 'power', format: 'zeus-monitor' };
    if (f.length >= 2 && f.some((x) => /^(time|timestamp|t)(\b|_)/i.test(x)) && f.some((x) => /^power/i.test(x))) return { kind: 'power', format: 'power-csv' };
    // The first non-blank, non-preamble line decides only for known headers; keep looking past
    // application output (ncu prints the program's stdout before its CSV).
  }
  return null;
}

/** Sniffs a file. */
export async function detectFormat(file: string): Promise<DetectedFormat | null> {
  const { text, cut } = await headText(file);
  return detectJsonFormat(text) ?? detectFormatFromLines(splitHead(text, cut));
}

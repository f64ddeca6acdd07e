/**
 * Text inputs (JSON and YAML configs, logs): read whole, a UTF-8 byte-order mark dropped, binary data refused by
 * name (never decoded into a message), and JSON syntax errors reported on one line with the file and line:column
 * (YAML: yaml-text.ts, apart so that JSON readers, such as the annotate worker's, do not load the YAML parser).
 * Every failure is an InputError or FormatError naming the file. Nesting deeper than {@link MAX_NESTING} levels is
 * refused before anything walks the value (a config nested 100,000 deep would exhaust the stack of every reader).
 */
import { readFile } from 'node:fs/promises';
import { FormatError } from '../errors.js';
import { fileReadError } from './file-chunks.js';

/** How many leading bytes are checked for binary content. */
const SNIFF_BYTES = 64 * 1024;

/**
 * The offset of the first byte that makes `bytes` binary rather than text: a NUL, or a byte sequence that is not
 * UTF-8, in the first 64 KiB (a sequence cut at that limit is not counted); -1 for text.
 */
export function binaryOffset(bytes: Uint8Array): number {
  const end = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < end; ) {
    const b = bytes[i]!;
    if (b === 0) return i;
    const len = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (len === 0) return i;
    for (let k = 1; k < len; k++) {
      if (i + k >= bytes.length) return i; // cut at the end of the file
      if (i + k >= end) return -1; // cut at the sniffing limit
      if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    }
    i += len;
  }
  return -1;
}

/** Text of a decoded file without its byte-order mark. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Reads a whole text input; a file that cannot be read is an InputError naming it and the reason (ENOENT, EACCES …).
 */
export async function readTextFile(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    throw fileReadError(file, e);
  }
  const bad = binaryOffset(bytes);
  if (bad >= 0)
    throw new FormatError(
      file,
      '',
      `binary data (byte ${bad} is 0x${bytes[bad]!.toString(16).padStart(2, '0')}), not a text file`,
    );
  return withoutBom(bytes.toString('utf8'));
}

/** `line 3:5` of a 0-based offset in `text`. */
export function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const line = before.split('\n').length;
  return `line ${line}:${before.length - before.lastIndexOf('\n')}`;
}

/**
 * How deep the text inputs (configs, calibrations, models, sweep partials, column mappings) may nest objects and lists:
 * the deepest tracewatt reads is about 6 levels; the limit keeps every recursive reader off the end of the stack.
 */
export const MAX_NESTING = 64;

/**
 * The offset of the bracket that opens a level deeper than `max` in JSON (or YAML flow) text, or -1: brackets in
 * strings do not count; with `yaml`, '…' strings and # comments are skipped too.
 */
export function tooDeepAt(text: string, max = MAX_NESTING, yaml = false): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */ || (yaml && c === 0x27) /* ' */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === c) {
          if (c === 0x27 && text.charCodeAt(i + 1) === 0x27)
            i++; // '' inside a YAML '…' string
          else break;
        } else if (d === 0x5c /* \ */ && c === 0x22) i++;
      }
    } else if (yaml && c === 0x23 /* # */ && (i === 0 || /\s/.test(text[i - 1]!))) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a) i++;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return -1;
}

/** The error for text nested past {@link MAX_NESTING} at `offset`. */
export function tooDeepError(file: string, text: string, offset: number): FormatError {
  return new FormatError(
    file,
    offset >= 0 ? lineColumn(text, offset) : '',
    `nested more than ${MAX_NESTING} levels deep (the limit for tracewatt's text inputs)`,
  );
}

/**
 * JSON.parse with one-line errors naming the file and line:column; nesting deeper than {@link MAX_NESTING} is refused.
 */
export function parseJsonText(file: string, text: string): unknown {
  const t = withoutBom(text);
  const deep = tooDeepAt(t);
  if (deep >= 0) throw tooDeepError(file, t, deep);
  try {
    return JSON.parse(t);
  } catch (e) {
    const msg = (e as Error).message;
    const pos = /at position (\d+)/.exec(msg);
    const offset = pos ? Number(pos[1]) : /end of JSON input/.test(msg) ? t.length : null;
    const problem = msg.replace(/ in JSON at position \d+.*$/, '').replace(/, ".*" is not valid JSON$/s, '');
    throw new FormatError(file, offset === null ? '' : lineColumn(t, offset), `not valid JSON: ${problem}`);
  }
}

/**
 * Streaming reader for large JSON documents whose bulk is one or two top-level arrays (a Kineto trace's
 * `traceEvents`, a PyTorch execution trace's `nodes`). The document is scanned in 1 MiB chunks (gzip read
 * transparently) and cut into the top-level values; the elements of the arrays named in `arrays` are handed over one
 * at a time as their own text, so memory holds one element, not the document. Each piece is parsed with JSON.parse.
 *
 * Why not a streaming JSON library: they tokenise every byte in JavaScript and build values token by token, which
 * measured 5–15× slower than cutting the text at element boundaries here and letting V8's native JSON.parse build
 * each element.
 */
import { FormatError } from '../errors.js';
import { fileChunks } from './file-chunks.js';

export type JsonPiece =
  | { kind: 'value'; key: string; value: unknown }
  /** A top-level array named in `arrays` opens (its elements follow, perhaps none). */
  | { kind: 'array'; key: string; offset: number }
  /** One element of a top-level array named in `arrays`; `text` is its JSON text (parse it or not). */
  | { kind: 'element'; key: string; index: number; text: string; offset: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A byte for a message: the character when printable ASCII, else its hex value. */
function describeByte(c: number): string {
  return c >= 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16).padStart(2, '0')}`;
}

/** States of the top-level scanner. */
enum At {
  Open, // before '{'
  Key, // expecting a key or '}'
  Colon,
  Value, // expecting a value
  AfterValue, // expecting ',' or '}'
  ArrayOpen, // inside a streamed array, expecting an element or ']'
  ArrayAfter, // after an element: ',' or ']'
  End,
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Yields the top-level members of a JSON object document: values of ordinary keys whole, and the elements of the
 * keys in `arrays` one by one. Bad JSON is a FormatError naming the byte offset (of the decompressed text).
 */
export async function* readJsonPieces(file: string, arrays: ReadonlySet<string>): AsyncGenerator<JsonPiece> {
  for await (const batch of readJsonPieceBatches(file, arrays)) yield* batch;
}

/**
 * readJsonPieces in batches: the pieces each input chunk completes, in order (one await per chunk rather than per
 * element, which a reader of millions of small elements notices).
 */
export async function* readJsonPieceBatches(file: string, arrays: ReadonlySet<string>): AsyncGenerator<JsonPiece[]> {
  let batch: JsonPiece[] = [];
  let state: At = At.Open;
  let key = '';
  let index = 0;
  // The value (or key) being collected: pieces of chunks, and the scanner's nesting state inside it.
  let parts: Buffer[] = [];
  let collecting = false;
  let collectingKey = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let startOffset = 0;
  let base = 0; // offset of the current chunk's first byte
  const fail = (offset: number, what: string): never => {
    throw new FormatError(file, `byte ${offset}`, what);
  };
  // The collected text ending at chunk[to]: straight from the chunk when it began there (most do), without a view.
  const textTo = (chunk: Buffer, from: number, to: number) => {
    if (parts.length === 0) return chunk.toString('utf8', from, to);
    parts.push(chunk.subarray(from, to));
    const s = Buffer.concat(parts).toString('utf8');
    parts = [];
    return s;
  };
  for await (const chunk of fileChunks(file)) {
    let i = 0;
    const n = chunk.length;
    let from = -1; // start in this chunk of the value being collected
    if (collecting) from = 0;
    while (i < n) {
      if (collecting) {
        // Scan the value: strings skipped with indexOf, brackets counted outside strings.
        if (inString) {
          if (escaped) {
            escaped = false;
            i++;
            continue;
          }
          // The next quote ends the string unless an odd run of backslashes stands before it. Most strings are
          // short (keys, names): a byte loop finds their end sooner than a call to indexOf.
          let q = -1;
          const lim = i + 48 < n ? i + 48 : n;
          let j = i;
          while (j < lim && chunk[j] !== QUOTE && chunk[j] !== BACKSLASH) j++;
          if (j < lim && chunk[j] === QUOTE) q = j;
          else q = chunk.indexOf(QUOTE, i);
          let k = (q < 0 ? n : q) - 1;
          while (k >= i && chunk[k] === BACKSLASH) k--;
          const odd = ((q < 0 ? n : q) - 1 - k) % 2 === 1;
          if (q < 0) {
            escaped = odd; // a backslash at the chunk's end escapes the next chunk's first byte
            i = n;
            continue;
          }
          if (odd) {
            i = q + 1;
            continue;
          }
          i = q + 1;
          inString = false;
          if (collectingKey) {
            const t = textTo(chunk, from, i);
            from = -1;
            collecting = false;
            collectingKey = false;
            const k = JSON.parse(t) as string;
            key = k;
            state = At.Colon;
          } else if (depth === 0) {
            const t = textTo(chunk, from, i);
            from = -1;
            collecting = false;
            batch.push(emit(t));
          }
          continue;
        }
        let c = chunk[i]!;
        if (depth > 0) {
          // Inside the value's brackets only quotes and brackets matter: skip numbers, ':' and ',' in one loop.
          while (c !== QUOTE && c !== 0x7b && c !== 0x5b && c !== 0x7d && c !== 0x5d && ++i < n) c = chunk[i]!;
          if (i === n) continue;
        }
        if (c === QUOTE) {
          inString = true;
          i++;
          continue;
        }
        if (c === 0x7b || c === 0x5b) {
          depth++;
          i++;
          continue;
        }
        if (c === 0x7d || c === 0x5d) {
          if (depth === 0) {
            // The end of a scalar, closed by its container.
            const t = textTo(chunk, from, i);
            from = -1;
            collecting = false;
            batch.push(emit(t));
            continue; // the bracket is read by the outer state
          }
          depth--;
          i++;
          if (depth === 0) {
            const t = textTo(chunk, from, i);
            from = -1;
            collecting = false;
            batch.push(emit(t));
          }
          continue;
        }
        if (depth === 0 && (c === 0x2c || isSpace(c))) {
          const t = textTo(chunk, from, i);
          from = -1;
          collecting = false;
          batch.push(emit(t));
          continue;
        }
        i++;
        continue;
      }
      const c = chunk[i]!;
      if (isSpace(c)) {
        i++;
        continue;
      }
      switch (state as At) {
        case At.Open:
          if (i === 0 && base === 0 && c === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
            i += 3; // BOM
            continue;
          }
          if (c !== 0x7b) fail(base + i, `expected '{' (a JSON object), found ${describeByte(c)}`);
          state = At.Key;
          i++;
          break;
        case At.Key:
          if (c === 0x7d) {
            state = At.End;
            i++;
            break;
          }
          if (c !== QUOTE) fail(base + i, `expected a key, found ${describeByte(c)}`);
          from = startCollect(i, true);
          i++;
          break;
        case At.Colon:
          if (c !== 0x3a) fail(base + i, `expected ':' after key "${key}"`);
          state = At.Value;
          i++;
          break;
        case At.Value:
          if (c === 0x5b && arrays.has(key)) {
            state = At.ArrayOpen;
            index = 0;
            i++;
            batch.push({ kind: 'array', key, offset: base + i - 1 });
            break;
          }
          from = startCollect(i, false);
          break;
        case At.AfterValue:
          state =
            afterItem(c, 0x7d, At.Key, At.End) ?? fail(base + i, `expected ',' or '}' after the value of "${key}"`);
          i++;
          break;
        case At.ArrayOpen:
          if (c === 0x5d && index === 0) {
            state = At.AfterValue;
            i++;
            break;
          }
          from = startCollect(i, false);
          break;
        case At.ArrayAfter:
          state =
            afterItem(c, 0x5d, At.ArrayOpen, At.AfterValue) ??
            fail(base + i, `expected ',' or ']' after element ${index - 1} of "${key}"`);
          i++;
          break;
        case At.End:
          fail(base + i, 'text after the end of the JSON document');
      }
    }
    if (collecting && from >= 0) parts.push(chunk.subarray(from, n));
    base += n;
    if (batch.length) {
      yield batch;
      batch = [];
    }
  }
  if (collecting || state !== At.End) {
    fail(
      base,
      state === At.Open ? 'empty file (expected a JSON object)' : 'the JSON document ends early (file cut short?)',
    );
  }

  /** After an object's value or an array's element: ',' goes on to `next`, the `close` bracket to `closed`. */
  function afterItem(c: number, close: number, next: At, closed: At): At | undefined {
    return c === 0x2c ? next : c === close ? closed : undefined;
  }

  /**
   * Starts collecting a value, or a key (from its opening quote, so inside its string), at chunk[at]; returns `at`,
   * where the collected text begins in this chunk.
   */
  function startCollect(at: number, isKey: boolean): number {
    collecting = true;
    collectingKey = isKey;
    depth = 0;
    inString = isKey;
    escaped = false;
    startOffset = base + at;
    parts = [];
    return at;
  }

  function emit(t: string): JsonPiece {
    if (state === At.ArrayOpen) {
      state = At.ArrayAfter;
      return { kind: 'element', key, index: index++, text: t, offset: startOffset };
    }
    state = At.AfterValue;
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch (e) {
      fail(startOffset, `the value of "${key}" is not valid JSON (${(e as Error).message})`);
    }
    return { kind: 'value', key, value };
  }
}

/** Parses one element's text; a FormatError names the array, element and byte offset. */
export function parseElement(file: string, piece: Extract<JsonPiece, { kind: 'element' }>): unknown {
  try {
    return JSON.parse(piece.text);
  } catch (e) {
    throw new FormatError(
      file,
      `byte ${piece.offset}`,
      `element ${piece.index} of "${piece.key}" is not valid JSON (${(e as Error).message})`,
    );
  }
}

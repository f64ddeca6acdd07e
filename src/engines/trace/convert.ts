/**
 * `convert`: .et ↔ .json (one JSON document) by file extension, and .et ↔ .et.gz (the same frames, compressed or
 * not). .et → .json and .et ↔ .et.gz stream; .json → .et parses the document in memory.
 */
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { InputError } from '../../errors.js';
import { jsonDocument, traceFromJson } from '../../formats/chakra/json.js';
import { openTrace } from '../../formats/chakra/reader.js';
import { openTraceBytes } from '../../formats/chakra/source.js';
import { writeTraceFile } from '../../formats/chakra/writer.js';
import { OutputSet, TEMP_OPEN_FLAGS } from '../../formats/output.js';

export type TraceFormat = 'et' | 'json';

export function formatOf(file: string): TraceFormat {
  if (/\.et(\.gz)?$/i.test(file)) return 'et';
  if (/\.json$/i.test(file)) return 'json';
  throw new InputError(`${file}: unknown trace format; use a .et, .et.gz or .json file name`);
}

/**
 * Converts one trace file by the output discipline (src/formats/output.ts): a failure (bad input, full disk, an
 * interrupt) never leaves a partial file behind.
 */
export async function convertTrace(
  input: string,
  output: string,
): Promise<{ nodes: number; from: TraceFormat; to: TraceFormat }> {
  const from = formatOf(input);
  const to = formatOf(output);
  const gzipOut = /\.gz$/i.test(output);
  if (from === to && (from === 'json' || gzipOut === /\.gz$/i.test(input))) {
    throw new InputError(
      `convert ${input} → ${output}: both are .${from}${from === 'et' ? (gzipOut ? '.gz' : '') : ''}; convert ` +
        `between .et, .et.gz and .json`,
    );
  }
  // Written under a temporary name (locked), renamed when complete: a failure never leaves a partial file behind.
  const nodes = await OutputSet.write(output, (set) =>
    from === 'json'
      ? jsonToEt(input, output, set)
      : to === 'et'
        ? recompress(input, set.file(output), gzipOut)
        : etToJson(input, set.file(output)),
  );
  return { nodes, from, to };
}

async function jsonToEt(input: string, output: string, set: OutputSet): Promise<number> {
  const t = traceFromJson(await readFile(input, 'utf8'), input);
  // TraceWriter decides gzip from the final name, not from the temporary one it writes.
  await writeTraceFile(output, t.metadata, t.nodes, set);
  return t.nodes.length;
}

/**
 * .et ↔ .et.gz: the input is read through the Chakra reader first (a broken trace is refused, as by every other
 * conversion, and its nodes counted), then its frames are copied byte for byte, gzipped or gunzipped.
 */
async function recompress(input: string, output: string, gzip: boolean): Promise<number> {
  const reader = await openTrace(input);
  let nodes = 0;
  for await (const batch of reader.batches()) nodes += batch.length;
  const file = createWriteStream(output, { flags: TEMP_OPEN_FLAGS });
  const head = gzip ? createGzip() : file;
  if (gzip) head.pipe(file);
  let failed: Error | null = null;
  for (const s of new Set([head, file])) s.on('error', (e: Error) => (failed ??= e));
  try {
    // The bytes the reader has just accepted, through the same gzip detection (the Chakra wire layer's).
    for await (const chunk of (await openTraceBytes(input)).chunks) {
      if (failed) throw failed;
      if (!head.write(chunk)) await Promise.race([once(head, 'drain'), once(file, 'close')]);
    }
  } finally {
    head.end();
    await finished(file).catch(() => undefined);
  }
  if (failed) throw failed;
  return nodes;
}

async function etToJson(input: string, output: string): Promise<number> {
  const reader = await openTrace(input);
  const out = createWriteStream(output, { flags: TEMP_OPEN_FLAGS });
  let failed: Error | null = null;
  out.on('error', (e) => {
    failed = e;
  });
  const write = async (s: string) => {
    if (failed) throw failed;
    if (!out.write(s)) await Promise.race([once(out, 'drain'), once(out, 'error')]);
    if (failed) throw failed;
  };
  let nodes = 0;
  try {
    await write(jsonDocument.head(reader.metadata));
    for await (const batch of reader.batches()) {
      let text = '';
      for (const n of batch) text += jsonDocument.node(n, nodes++ === 0);
      await write(text);
    }
    await write(jsonDocument.tail());
  } finally {
    out.end();
    // finished() also settles for a stream that already closed after an error.
    await finished(out).catch(() => undefined);
  }
  if (failed) throw failed;
  return nodes;
}

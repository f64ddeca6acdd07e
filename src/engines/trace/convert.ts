/**
 * `convert`: .et ↔ .json (one JSON document) by file extension. .et → .json streams;
 * .json → .et parses the document in memory.
 */
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { InputError } from '../../errors.js';
import { jsonDocument, traceFromJson } from '../../formats/chakra/json.js';
import { openTrace } from '../../formats/chakra/reader.js';
import { writeTraceFile } from '../../formats/chakra/writer.js';
import { OutputSet } from '../../formats/output.js';

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
export async function convertTrace(input: string, output: string): Promise<{ nodes: number; from: TraceFormat; to: TraceFormat }> {
  const from = formatOf(input);
  const to = formatOf(output);
  if (from === to) throw new InputError(`convert ${input} → ${output}: both are .${from}; convert between .et and .json`);
  // Written under a temporary name (locked), renamed when complete: a failure never leaves a partial file behind.
  const nodes = await OutputSet.write(output, (set) => (from === 'json' ? jsonToEt(input, output, set) : etToJson(input, set.file(output))));
  return { nodes, from, to };
}

async function jsonToEt(input: string, output: string, set: OutputSet): Promise<number> {
  const t = traceFromJson(await readFile(input, 'utf8'), input);
  await writeTraceFile(output, t.metadata, t.nodes, set);
  return t.nodes.length;
}

async function etToJson(input: string, output: string): Promise<number> {
  const reader = await openTrace(input);
  const out = createWriteStream(output);
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

/**
 * `convert`: .et ↔ .json (one JSON document) by file extension. .et → .json streams;
 * .json → .et parses the document in memory.
 */
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import { InputError } from '../../errors.js';
import { jsonDocument, traceFromJson } from '../../formats/chakra/json.js';
import { openTrace } from '../../formats/chakra/reader.js';
import { writeTraceFile } from '../../formats/chakra/writer.js';

export type TraceFormat = 'et' | 'json';

export function formatOf(file: string): TraceFormat {
  if (/\.et(\.gz)?$/i.test(file)) return 'et';
  if (/\.json$/i.test(file)) return 'json';
  throw new InputError(`${file}: unknown trace format; use a .et, .et.gz or .json file name`);
}

export async function convertTrace(input: string, output: string): Promise<{ nodes: number; from: TraceFormat; to: TraceFormat }> {
  const from = formatOf(input);
  const to = formatOf(output);
  if (from === to) throw new InputError(`convert ${input} → ${output}: both are .${from}; convert between .et and .json`);
  if (from === 'json') {
    const t = traceFromJson(await readFile(input, 'utf8'), input);
    await writeTraceFile(output, t.metadata, t.nodes);
    return { nodes: t.nodes.length, from, to };
  }
  const reader = await openTrace(input);
  const out = createWriteStream(output);
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  let nodes = 0;
  await write(jsonDocument.head(reader.metadata));
  for await (const batch of reader.batches()) {
    let text = '';
    for (const n of batch) text += jsonDocument.node(n, nodes++ === 0);
    await write(text);
  }
  await write(jsonDocument.tail());
  out.end();
  await once(out, 'close');
  return { nodes, from, to };
}

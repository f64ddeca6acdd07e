import { readFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertTrace } from '../../src/engines/trace/convert.js';
import { encodeTrace } from '../../src/formats/chakra/encode.js';
import { decodeTraceBuffer, readTraceFile } from '../../src/formats/chakra/reader.js';
import { writeTraceFile } from '../../src/formats/chakra/writer.js';
import { describeShared } from '../helpers/shared.js';
import { sharedTraceFiles, shippedTraceFiles } from '../helpers/traces.js';

function checkInMemory(files: string[]) {
  let nodes = 0;
  for (const f of files) {
    const buf = readFileSync(f);
    const t = decodeTraceBuffer(buf, f);
    nodes += t.nodes.length;
    const again = encodeTrace(t.metadata, t.nodes);
    expect(Buffer.compare(again, buf), f).toBe(0);
  }
  return nodes;
}

describe('decode → encode is byte-identical', () => {
  it('for every trace shipped in traces/', () => {
    expect(shippedTraceFiles.length).toBeGreaterThan(100);
    expect(checkInMemory(shippedTraceFiles)).toBeGreaterThan(10_000);
  });
});

describeShared('decode → encode on ../shared', () => {
  it('reproduces every .et file under ../shared byte for byte', () => {
    expect(sharedTraceFiles.length).toBeGreaterThanOrEqual(300);
    checkInMemory(sharedTraceFiles);
  });

  it('streams through the reader and writer to identical files', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-rt-'));
    for (const [i, f] of sharedTraceFiles.entries()) {
      const t = await readTraceFile(f);
      const out = path.join(dir, `${i}.et`);
      await writeTraceFile(out, t.metadata, t.nodes);
      expect(Buffer.compare(await readFile(out), readFileSync(f)), f).toBe(0);
    }
  });

  it('.et → .json → .et is byte-identical and the JSON is one valid document', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-json-'));
    for (const [i, f] of sharedTraceFiles.entries()) {
      const json = path.join(dir, `${i}.json`);
      const back = path.join(dir, `${i}.et`);
      const a = await convertTrace(f, json);
      const doc = JSON.parse(await readFile(json, 'utf8'));
      expect(Array.isArray(doc.nodes)).toBe(true);
      expect(doc.nodes.length).toBe(a.nodes);
      await convertTrace(json, back);
      expect(Buffer.compare(await readFile(back), readFileSync(f)), f).toBe(0);
    }
  });
});

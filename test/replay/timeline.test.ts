/** The trace-event writer: back-pressure from the file stream, atomic output, and a complete JSON document. */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { TraceEventWriter } from '../../src/formats/trace-event/index.js';

const tmp = () => mkdtemp(path.join(os.tmpdir(), 'tracewatt-timeline-'));

describe('TraceEventWriter', () => {
  it('asks its producer to wait while the file is behind, and writes every event', async () => {
    const file = path.join(await tmp(), 'tl.json');
    const w = await TraceEventWriter.create(file);
    const events = 200_000;
    let waits = 0;
    for (let i = 0; i < events; i++) {
      w.complete({
        name: `kernel ${i}`,
        pid: i % 4,
        tid: 1,
        startNs: i * 1000,
        endNs: i * 1000 + 500,
        args: { nodeId: String(i) },
      });
      const wait = w.pending();
      if (wait) {
        waits++;
        await wait;
        // Drained: the producer may go on without holding more than one chunk.
        expect(w.pending()).toBeUndefined();
      }
    }
    expect(waits).toBeGreaterThan(10);
    expect(existsSync(file)).toBe(false);
    await w.close();
    expect(existsSync(`${file}.tmp`)).toBe(false);
    const doc = JSON.parse(await readFile(file, 'utf8')) as {
      displayTimeUnit: string;
      traceEvents: { name: string; ts: number }[];
    };
    expect(doc.traceEvents).toHaveLength(events);
    expect(doc.traceEvents[events - 1]).toMatchObject({ name: `kernel ${events - 1}`, ts: events - 1 });
  });

  it('abort() leaves neither the file nor its .tmp', async () => {
    const file = path.join(await tmp(), 'tl.json');
    const w = await TraceEventWriter.create(file);
    w.counter({ name: 'estimated power (W)', pid: 0, tsNs: 0, values: { W: 80 } });
    await w.abort();
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });

  it('a path that cannot be written is an InputError naming it', async () => {
    const dir = await tmp();
    await writeFile(path.join(dir, 'f'), 'a file, not a folder');
    const file = path.join(dir, 'f', 'tl.json');
    await expect(TraceEventWriter.create(file)).rejects.toThrow(InputError);
    await expect(TraceEventWriter.create(file)).rejects.toThrow(`${file}: cannot create its folder (ENOTDIR)`);
  });
});

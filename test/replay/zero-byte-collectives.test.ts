/**
 * Zero-byte collectives as ASTRA-sim runs them (astra-sim 518bd51, Sys::determine_chunk_size): a collective other
 * than an all-gather whose chunk would be smaller than the number of NPUs is rounded up to preferred-dataset-splits
 * × NPUs bytes, so an empty all-reduce, reduce-scatter or all-to-all takes the time of that many bytes, latency
 * included (before, replay finished it in 0 ns). An empty all-gather makes no stream and never finishes: refused.
 * Real traces: the shipped ASTRA-sim 4-NPU microbenchmarks with their comm_size changed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayFiles } from '../../src/engines/replay/index.js';
import { makeAttr, NodeType, readTraceFile, setAttr, writeTraceFile } from '../../src/formats/chakra/index.js';
import { shipped } from '../helpers/traces.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-zero-byte-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The shipped 4-NPU trace of `kind` with every collective's comm_size set to `bytes`. */
async function sized(kind: string, bytes: bigint): Promise<string> {
  const prefix = path.join(dir, `${kind}-${bytes}`, kind);
  for (let r = 0; r < 4; r++) {
    const t = await readTraceFile(`${shipped('astra-sim', kind, '4npus_1MB', kind)}.${r}.et`);
    for (const n of t.nodes)
      if (n.type === NodeType.COMM_COLL_NODE) setAttr(n, makeAttr('comm_size', 'int64_val', bytes));
    await writeTraceFile(`${prefix}.${r}.et`, t.metadata, t.nodes);
  }
  return prefix;
}

const network = shipped('configs', 'Ring_4npus.yml');

describe('zero-byte collectives take the time of the size ASTRA-sim rounds them up to', () => {
  it.each([
    ['all_reduce', 'sys_ring_pure.json', 1n],
    ['reduce_scatter', 'sys_ring_pure.json', 1n],
    ['all_to_all', 'sys_ring_pure.json', 1n],
    ['all_reduce', 'Ring_4chunks.json', 4n],
  ])('%s with %s: 0 bytes replay as %i × 4 NPUs bytes, latency included', async (kind, sys, splits) => {
    const system = shipped('configs', sys);
    const empty = await replayFiles({ trace: await sized(kind, 0n), system, network });
    const rounded = await replayFiles({ trace: await sized(kind, splits * 4n), system, network });
    expect(empty.makespanNs).toBeGreaterThan(500);
    expect(empty.ranks.map((r) => r.finishNs)).toEqual(rounded.ranks.map((r) => r.finishNs));
    expect(empty.bytesSentPerDim).toEqual(rounded.bytesSentPerDim);
  });

  it('an empty all-gather is refused, naming the node', async () => {
    await expect(
      replayFiles({ trace: await sized('all_gather', 0n), system: shipped('configs', 'sys_ring_pure.json'), network }),
    ).rejects.toThrow(
      /ALL_GATHER of 0 bytes: ASTRA-sim makes no stream for it and never finishes it \(every rank stalls\)/,
    );
  });
});

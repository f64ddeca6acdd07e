/**
 * The dependency graph (dense integer ids, dependencies settled as nodes stream past, edges kept only for nodes
 * that may be on or behind a cycle) against a plain reference (every edge kept, bigint ids, Kahn's algorithm): the same
 * facts, samples included, on every real trace and on seeded random graphs with forward and dangling dependencies,
 * self-dependencies, duplicate ids, ids above 2^53 and cycles.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DependencyGraph, graphFacts, type GraphFacts } from '../../src/engines/trace/graph.js';
import { encodeTrace } from '../../src/formats/chakra/encode.js';
import { FrameScanner } from '../../src/formats/chakra/frames.js';
import { NodeProbe } from '../../src/formats/chakra/probe.js';
import { decodeTraceBuffer } from '../../src/formats/chakra/reader.js';
import { emptyNode, type ChakraNode } from '../../src/formats/chakra/types.js';
import { rng } from '../helpers/rng.js';
import { describeShared } from '../helpers/shared.js';
import { sharedTraceFiles, shippedTraceFiles } from '../helpers/traces.js';

/** The facts as the plain definition gives them. */
function reference(nodes: ChakraNode[]): GraphFacts {
  const index = new Map<bigint, number>();
  const f: GraphFacts = {
    nodeCount: nodes.length,
    dataEdges: 0,
    ctrlEdges: 0,
    danglingData: 0,
    danglingCtrl: 0,
    danglingSamples: [],
    duplicateCount: 0,
    duplicateIds: [],
    nodesInCycles: 0,
    cycleSample: [],
  };
  nodes.forEach((n, v) => {
    if (index.has(n.id)) {
      f.duplicateCount++;
      if (f.duplicateIds.length < 10) f.duplicateIds.push(n.id);
    } else {
      index.set(n.id, v);
    }
    f.dataEdges += n.dataDeps.length;
    f.ctrlEdges += n.ctrlDeps.length;
  });
  const parents = nodes.map((n) =>
    [...n.dataDeps.map((d) => ['data', d] as const), ...n.ctrlDeps.map((d) => ['ctrl', d] as const)].map(
      ([kind, d]) => {
        const p = index.get(d);
        if (p === undefined) {
          if (kind === 'data') f.danglingData++;
          else f.danglingCtrl++;
          if (f.danglingSamples.length < 10) f.danglingSamples.push({ nodeId: n.id, parentId: d, kind });
          return -1;
        }
        return p;
      },
    ),
  );
  const indeg = parents.map((ps) => ps.filter((p) => p >= 0).length);
  const children = nodes.map(() => [] as number[]);
  parents.forEach((ps, v) => ps.forEach((p) => p >= 0 && children[p].push(v)));
  const queue = indeg.flatMap((d, v) => (d === 0 ? [v] : []));
  for (let h = 0; h < queue.length; h++) for (const w of children[queue[h]]) if (--indeg[w] === 0) queue.push(w);
  f.nodesInCycles = nodes.length - queue.length;
  if (f.nodesInCycles > 0) {
    let v = indeg.findIndex((d) => d > 0);
    const seenAt = new Map<number, number>();
    const path: number[] = [];
    while (v >= 0 && !seenAt.has(v)) {
      seenAt.set(v, path.length);
      path.push(v);
      v = parents[v].find((p) => p >= 0 && indeg[p] > 0) ?? -1;
    }
    f.cycleSample =
      v < 0
        ? []
        : path
            .slice(seenAt.get(v))
            .reverse()
            .map((i) => nodes[i].id)
            .slice(0, 50);
  }
  return f;
}

/**
 * The facts as the graph gives them, its nodes read from the encoded frames by a probe (twice when it asks);
 * `knownLists`: the probe leaves the data dependency lists the graph has classed undecoded (as inspect reads).
 */
let readAgain = 0;
async function streamed(bytes: Buffer, knownLists = false): Promise<GraphFacts> {
  let feeds = 0;
  const facts = await graphFacts((graph) => {
    if (feeds++ > 0) readAgain++;
    const frames = new FrameScanner('<graph>', { knownSize: bytes.length });
    frames.append(bytes);
    frames.finish();
    const probe = new NodeProbe();
    if (knownLists) probe.knownLists = graph.knownLists;
    while (frames.next()) {
      if (frames.isMetadata) continue;
      probe.read(frames.cursor, frames.start, frames.end);
      graph.add(probe);
    }
  });
  return facts;
}

/** A random graph: ids from a pool (some above 2^53, some repeated), deps backward, forward, dangling or self. */
function randomGraph(seed: number, n: number): ChakraNode[] {
  const random = rng(seed);
  const pool = Array.from({ length: n + 5 }, (_, i) =>
    random() < 0.1 ? 2n ** 60n + BigInt(i * 7919) : BigInt(i * (1 + (seed % 3))),
  );
  // Every third graph has its ids out of order, so that some absent-looking ids turn up later.
  if (seed % 3 === 0)
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
  const ids = Array.from({ length: n }, (_, i) => (random() < 0.05 ? pool[Math.floor(random() * n)] : pool[i]));
  return ids.map((id, i) => {
    const node = emptyNode(id, `n${i}`, 4);
    const deps = () =>
      Array.from({ length: Math.floor(random() * 4) }, () => {
        const r = random();
        if (r < 0.7 && i > 0) return ids[Math.floor(random() * i)];
        if (r < 0.8) return pool[n + Math.floor(random() * 5)]; // absent
        if (r < 0.97 - (seed % 2) * 0.05) return ids[Math.min(n - 1, i + 1 + Math.floor(random() * 5))]; // forward
        return id; // itself
      });
    node.dataDeps = deps();
    node.ctrlDeps = deps();
    return node;
  });
}

describe('dependency graph', () => {
  it('gives the reference facts on random graphs, with and without cycles', async () => {
    let withCycles = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const nodes = randomGraph(seed, 20 + seed * 7);
      const expected = reference(nodes);
      if (expected.nodesInCycles > 0) withCycles++;
      expect(await streamed(encodeTrace(null, nodes)), `seed ${seed}`).toEqual(expected);
      expect(await streamed(encodeTrace(null, nodes), true), `seed ${seed}, known lists`).toEqual(expected);
    }
    expect(withCycles).toBeGreaterThan(10);
    // Some graphs had an id presumed dangling turn up later, and were read again.
    expect(readAgain).toBeGreaterThan(3);
  });

  it('gives the reference facts when nodes are added by their bigint ids, exactly in one pass', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const nodes = randomGraph(seed, 20 + seed * 7);
      const graph = new DependencyGraph();
      for (const n of nodes) graph.add(n.id, n.dataDeps, n.ctrlDeps);
      expect(graph.facts(), `seed ${seed}`).toEqual(reference(nodes));
      for (const n of nodes.slice(0, 20)) expect(graph.has(n.id)).toBe(true);
      expect(graph.has(2n ** 62n)).toBe(false);
    }
  });

  it('gives the reference facts when long dependency lists repeat (lists classed once, by their bytes)', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const random = rng(seed);
      // A block of nodes copied several times (ids repeat, as in an iteration written out again), whose long data
      // dependency lists (12–30 ids) come from a few shared lists: on earlier ids, later ones, absent ones, itself.
      const block = 40 + seed * 5;
      const base = seed % 2 === 0 ? 200 : 2 ** 40;
      const idAt = (i: number) => BigInt(base + i * (1 + (seed % 3)));
      const lists = Array.from({ length: 6 }, (_, l) =>
        Array.from({ length: 12 + Math.floor(random() * 19) }, () => {
          const r = random();
          if (r < 0.85) return idAt(Math.floor(random() * block * (l < 3 ? 0.3 : 1)));
          if (r < 0.95) return BigInt(base - 1 - Math.floor(random() * 50)); // absent
          return idAt(block + 3); // absent, above every id
        }),
      );
      const nodes: ChakraNode[] = [];
      for (let copy = 0; copy < 4; copy++) {
        for (let i = 0; i < block; i++) {
          const node = emptyNode(idAt(i), `n${i}`, 4);
          node.dataDeps = lists[Math.floor(random() * lists.length)];
          node.ctrlDeps = random() < 0.3 ? [idAt(Math.floor(random() * block))] : [];
          nodes.push(node);
        }
      }
      const expected = reference(nodes);
      expect(await streamed(encodeTrace(null, nodes)), `seed ${seed}`).toEqual(expected);
      // The probe leaving known lists undecoded: the same facts.
      expect(await streamed(encodeTrace(null, nodes), true), `seed ${seed}, known lists`).toEqual(expected);
    }
  });

  it('gives the reference facts on every shipped trace', async () => {
    for (const file of shippedTraceFiles) {
      const bytes = readFileSync(file);
      const expected = reference(decodeTraceBuffer(bytes, file).nodes);
      expect(await streamed(bytes), file).toEqual(expected);
      expect(await streamed(bytes, true), `${file}, known lists`).toEqual(expected);
    }
  });
});

describeShared('dependency graph on ../shared', () => {
  it('gives the reference facts on every trace in ../shared', async () => {
    for (const file of sharedTraceFiles) {
      const bytes = readFileSync(file);
      expect(await streamed(bytes), file).toEqual(reference(decodeTraceBuffer(bytes, file).nodes));
    }
  });
});

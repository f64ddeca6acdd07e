/**
 * The replay reads rank files with its own reader (src/engines/replay/replay-source.ts: each node read in place by
 * a probe, only the attributes the replay needs); the full decoder's nodes are the other way in (generated traces,
 * the library). One mechanism: both give every trace the same replay (result, diagnostics included) or the same
 * error. Real traces, shipped and in ../shared, and variants of one trace: every attribute layout and member the
 * classifier reads (varints, doubles, floats, a doc_string, a repeated name, wrong members), and each refusal.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Diagnostics } from '../../src/diagnostics.js';
import { loadClusterConfigs, rankSourcesFromFiles, replay, type ClusterFiles } from '../../src/engines/replay/index.js';
import {
  emptyNode,
  makeAttr,
  NodeType,
  readTraceFile,
  setAttr,
  writeTraceFile,
  type Attribute,
  type ChakraNode,
} from '../../src/formats/chakra/index.js';
import * as chakra from '../../src/formats/chakra/index.js';
import { generateLlmTraces } from '../../src/engines/generate/index.js';
import { BENCH_SYSTEM, chainBatches } from '../../scripts/replay-traces.mjs';
import { astraRef, caseFiles, mlpModelParallel, referenceCases } from '../helpers/astra-reference.js';
import { hasShared, shared } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-replay-reader-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The replay of `trace` read one way: its result, or the error's class and message. */
async function replayWith(trace: string, files: ClusterFiles, fullDecoder: boolean): Promise<unknown> {
  const diagnostics = new Diagnostics();
  try {
    const sources = await rankSourcesFromFiles(trace, diagnostics, { fullDecoder });
    if (!fullDecoder) expect(sources.every((s) => s.readNodes)).toBe(true);
    const cluster = await loadClusterConfigs(files, diagnostics);
    return await replay(sources, { ...cluster, diagnostics, label: 'x' });
  } catch (e) {
    return { error: (e as Error).constructor.name, message: (e as Error).message };
  }
}

async function sameBothWays(trace: string, files: ClusterFiles): Promise<unknown> {
  const probed = await replayWith(trace, files, false);
  expect(probed, trace).toEqual(await replayWith(trace, files, true));
  return probed;
}

const ar4 = shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce');
const ring4 = shipped('configs', 'Ring_4npus.yml');
const plain = shipped('configs', 'sys_ring_pure.json');
const roofline = shipped('configs', 'sys_roofline.json');

/** The shipped 4-rank all-reduce with `change` made on every rank; returns the prefix. */
async function variant(change: (nodes: ChakraNode[], rank: number) => ChakraNode[]): Promise<string> {
  const prefix = path.join(dir, `v${++n}`, 'ar');
  for (let r = 0; r < 4; r++) {
    const t = await readTraceFile(`${ar4}.${r}.et`);
    await writeTraceFile(`${prefix}.${r}.et`, t.metadata, change(t.nodes, r));
  }
  return prefix;
}

const coll = (nodes: ChakraNode[]) => nodes.find((x) => x.type === NodeType.COMM_COLL_NODE)!;
const withDoc = (a: Attribute): Attribute => ({ ...a, docString: 'a doc string: not the plain layout' });
/** Compute nodes after the trace's own, depending on its last node, with these attributes. */
const computes =
  (...attrSets: Attribute[][]) =>
  (nodes: ChakraNode[]) => {
    const last = nodes[nodes.length - 1]!.id;
    return [
      ...nodes,
      ...attrSets.map((attrs, i) => {
        const c = emptyNode(1000n + BigInt(i), `gemm${i % 2}`, NodeType.COMP_NODE);
        c.durationMicros = 5n + BigInt(i);
        c.dataDeps = [last];
        c.attrs = attrs;
        return c;
      }),
    ];
  };

describe('the replay reader and the full decoder give the same replay', () => {
  it('shipped ASTRA-sim traces', async () => {
    for (const [coll_, npus, net, sys] of [
      ['all_reduce', '4npus_1MB', 'Ring_4npus.yml', 'sys_ring_pure.json'],
      ['all_reduce', '8npus_1MB', 'Switch_8npus.yml', 'sys_ring_example.json'],
      ['all_gather', '4npus_1MB', 'Ring_4npus.yml', 'sys_ring_pure.json'],
      ['reduce_scatter', '4npus_1MB', 'Ring_4npus.yml', 'sys_hd_pure.json'],
      ['all_to_all', '4npus_1MB', 'Ring_4npus.yml', 'sys_direct_pure.json'],
    ] as const) {
      const res = await sameBothWays(shipped('astra-sim', coll_, npus, coll_), {
        system: shipped('configs', sys),
        network: shipped('configs', net),
      });
      expect(res).toHaveProperty('makespanNs');
    }
  });

  it('every attribute layout and member the classifier reads', async () => {
    const trace = await variant(
      computes(
        [
          makeAttr('energy_j', 'double_val', 0.25),
          makeAttr('energy_memory_j', 'float_val', 0.0625),
          makeAttr('frequency_mhz', 'int64_val', 1410n),
        ],
        [
          withDoc(makeAttr('energy_j', 'double_val', 0.5)),
          makeAttr('energy_j_p10', 'double_val', 0.4),
          makeAttr('energy_j_p90', 'double_val', 0.7),
        ],
        [
          makeAttr('energy_j', 'int32_val', 2),
          makeAttr('tensor_size', 'double_val', 4096),
          makeAttr('num_ops', 'uint64_val', 2n ** 40n),
        ],
        [makeAttr('is_cpu_op', 'bool_val', true), makeAttr('tensor_size', 'uint32_val', 64)],
        [
          makeAttr('is_cpu_op', 'int64_val', 0n),
          makeAttr('is_cpu_op', 'int64_val', 1n),
          makeAttr('tensor_size', 'int64_val', 2n ** 50n),
        ],
        [
          makeAttr('is_cpu_op', 'string_val', 'yes'),
          makeAttr('energy_j', 'string_val', '1 J'),
          makeAttr('tensor_size', 'sint64_val', 12n),
        ],
        [
          withDoc(makeAttr('is_cpu_op', 'bool_val', false)),
          withDoc(makeAttr('tensor_size', 'int64_val', 8n)),
          makeAttr('energy_j_p10', 'double_val', 9),
        ],
        [
          makeAttr('energy_j', 'uint64_val', 2n ** 60n),
          makeAttr('frequency_mhz', 'float_val', 1200.5),
          makeAttr('energy_j_p90', 'int64_val', 3n),
        ],
      ),
    );
    const res = await sameBothWays(trace, { system: plain, network: ring4 });
    expect(res).toHaveProperty('makespanNs');
    const codes = (res as { diagnostics: { code: string }[] }).diagnostics.map((d) => d.code);
    expect(codes).toEqual(
      expect.arrayContaining([
        'integer-attribute-as-float',
        'unexpected-attribute-type',
        'attribute-exceeds-2^53',
        'replay.energy-band-unusable',
      ]),
    );
    // Roofline reads num_ops and tensor_size: it refuses the GPU node with a tensor_size and no num_ops.
    expect(await sameBothWays(trace, { system: roofline, network: ring4 })).toMatchObject({
      message: /roofline-enabled needs num_ops/,
    });
  });

  it('collectives, sends and receives, remote memory', async () => {
    const trace = await variant((nodes, rank) => {
      const c = coll(nodes);
      setAttr(c, withDoc(makeAttr('comm_size', 'uint64_val', 1n << 20n)));
      c.attrs.push(makeAttr('involved_dim', 'bool_list', [true, false]), makeAttr('pg_name', 'string_val', ''));
      const last = nodes[nodes.length - 1]!.id;
      const send = emptyNode(2000n, 'send', NodeType.COMM_SEND_NODE);
      send.attrs = [
        makeAttr('comm_dst', 'int32_val', (rank + 1) % 4),
        makeAttr('comm_size', 'int64_val', 4096n),
        makeAttr('comm_tag', 'int64_val', -7n),
      ];
      const recv = emptyNode(2001n, 'recv', NodeType.COMM_RECV_NODE);
      recv.attrs = [
        makeAttr('comm_src', 'uint32_val', (rank + 3) % 4),
        makeAttr('comm_size', 'int64_val', 4096n),
        makeAttr('comm_tag', 'int64_val', -7n),
      ];
      const load = emptyNode(2002n, 'load', NodeType.MEM_LOAD_NODE);
      load.attrs = [makeAttr('tensor_size', 'int64_val', 1n << 16n)];
      const bcast = emptyNode(2003n, 'bcast', NodeType.COMM_COLL_NODE);
      bcast.durationMicros = 3n;
      bcast.attrs = [makeAttr('comm_type', 'int64_val', 5n)];
      const cpuColl = emptyNode(2004n, 'cpu coll', NodeType.COMM_COLL_NODE);
      cpuColl.attrs = [makeAttr('is_cpu_op', 'bool_val', true)];
      for (const x of [send, recv, load, bcast, cpuColl]) x.dataDeps = [last];
      return [...nodes, send, recv, load, bcast, cpuColl];
    });
    const memory = path.join(dir, 'mem.json');
    await writeFile(
      memory,
      JSON.stringify({ 'memory-type': 'PER_NPU_MEMORY_EXPANSION', 'remote-mem-latency': 100, 'remote-mem-bw': 20 }),
    );
    const res = await sameBothWays(trace, { system: plain, network: ring4, memory });
    expect(res).toHaveProperty('makespanNs');
  });

  it.each([
    [
      'a collective without comm_size',
      (nodes: ChakraNode[]) => ((coll(nodes).attrs = coll(nodes).attrs.filter((a) => a.name !== 'comm_size')), nodes),
      /has no comm_size attribute/,
    ],
    [
      'a comm_type not simulated',
      (nodes: ChakraNode[]) => (setAttr(coll(nodes), makeAttr('comm_type', 'int64_val', 3n)), nodes),
      /is not simulated/,
    ],
    [
      'a collective without comm_type',
      (nodes: ChakraNode[]) => ((coll(nodes).attrs = coll(nodes).attrs.filter((a) => a.name !== 'comm_type')), nodes),
      /has no comm_type attribute/,
    ],
    [
      'involved_dim too short',
      (nodes: ChakraNode[]) => (setAttr(coll(nodes), makeAttr('involved_dim', 'bool_list', [])), nodes),
      /involved_dim has 0 entries/,
    ],
    [
      'an unknown pg_name',
      (nodes: ChakraNode[]) => (setAttr(coll(nodes), makeAttr('pg_name', 'string_val', 'tp')), nodes),
      /pg_name "tp" is not defined/,
    ],
    [
      'comm_size 2^53 + 1',
      (nodes: ChakraNode[]) => (setAttr(coll(nodes), makeAttr('comm_size', 'uint64_val', 2n ** 53n + 1n)), nodes),
      /out of range/,
    ],
    [
      'comm_size −5',
      (nodes: ChakraNode[]) => (setAttr(coll(nodes), makeAttr('comm_size', 'int64_val', -5n)), nodes),
      /out of range/,
    ],
    [
      'a duplicate node id',
      (nodes: ChakraNode[]) => [
        ...nodes,
        Object.assign(emptyNode(nodes[0]!.id, 'again', NodeType.COMP_NODE), { durationMicros: 1n }),
      ],
      /appears twice/,
    ],
    ['a duration too large', computes([]), null],
    [
      'a memory load without a memory model',
      (nodes: ChakraNode[]) => [
        ...nodes,
        Object.assign(emptyNode(3000n, 'load', NodeType.MEM_LOAD_NODE), {
          attrs: [makeAttr('tensor_size', 'int64_val', 64n)],
        }),
      ],
      /needs a remote memory model/,
    ],
    [
      'a send to a rank the trace lacks',
      (nodes: ChakraNode[]) => [
        ...nodes,
        Object.assign(emptyNode(3000n, 's', NodeType.COMM_SEND_NODE), {
          attrs: [makeAttr('comm_dst', 'int32_val', 9), makeAttr('comm_size', 'int64_val', 64n)],
        }),
      ],
      /comm_dst 9 is not a rank/,
    ],
    [
      'a negative peer',
      (nodes: ChakraNode[]) => [
        ...nodes,
        Object.assign(emptyNode(3000n, 'r', NodeType.COMM_RECV_NODE), {
          attrs: [makeAttr('comm_src', 'int32_val', -1), makeAttr('comm_size', 'int64_val', 64n)],
        }),
      ],
      /out of range/,
    ],
  ])('the same refusal: %s', async (_label, change, message) => {
    const trace = await variant((nodes) => {
      const out = change(nodes);
      if (message === null) out[out.length - 1]!.durationMicros = 2n ** 60n;
      return out;
    });
    const res = (await sameBothWays(trace, { system: plain, network: ring4 })) as { error: string; message: string };
    expect(res.error).toBe('InputError');
    expect(res.message).toMatch(message ?? /duration_micros \d+ is too large/);
  });

  it('a node the replay refuses and a bad frame later in its chunk: both report the bad frame', async () => {
    const trace = await variant((nodes) => (setAttr(coll(nodes), makeAttr('comm_type', 'int64_val', 3n)), nodes));
    // A frame whose length runs past the end of the file, after the refused collective.
    const file = `${trace}.0.et`;
    await writeFile(file, Buffer.concat([await readFile(file), Buffer.from([0x40, 0x08, 0x01])]));
    const res = (await sameBothWays(trace, { system: plain, network: ring4 })) as { error: string; message: string };
    expect(res.error).toBe('ChakraDecodeError');
    expect(res.message).toMatch(/runs past end of file/);
  });

  it(
    'many ranks of alike frames, several chunks each (frames met before are loaded from their records: ' +
      'frame-memo.ts)',
    async () => {
      // The benchmark's chain (every rank 10 µs compute / 1 MiB all-reduce) and a generated LLM iteration, as files.
      const chain = path.join(dir, 'chain', 'c');
      for (let rank = 0; rank < 8; rank++) {
        const next = chainBatches(chakra, rank, 6000);
        const nodes: ChakraNode[] = [];
        for (let b = next(); b; b = next()) nodes.push(...b);
        await writeTraceFile(`${chain}.${rank}.et`, { version: '0.0.4', attrs: [] }, nodes);
      }
      const chainNet = path.join(dir, 'chain', 'n.yml');
      await writeFile(
        chainNet,
        'topology: [Switch, Ring]\nnpus_count: [4, 2]\nbandwidth: [50, 50]\nlatency: [500, 500]\n',
      );
      const chainSys = path.join(dir, 'chain', 's.json');
      await writeFile(chainSys, JSON.stringify({ ...BENCH_SYSTEM, 'all-reduce-implementation': ['ring', 'ring'] }));
      expect(await sameBothWays(chain, { system: chainSys, network: chainNet })).toHaveProperty('makespanNs');
      const set = generateLlmTraces({
        model: 'llama2-7b',
        tp: 2,
        pp: 4,
        dp: 4,
        microBatch: 1,
        globalBatch: 16,
        seqLen: 1024,
      });
      const llm = path.join(dir, 'llm', 'l');
      for (let rank = 0; rank < set.ranks; rank++)
        await writeTraceFile(`${llm}.${rank}.et`, { version: '0.0.4', attrs: [] }, set.nodesOf(rank));
      await writeFile(`${llm}.yml`, set.networkYaml());
      await writeFile(`${llm}.json`, set.systemJson());
      const res = await sameBothWays(llm, { system: `${llm}.json`, network: `${llm}.yml` });
      expect(res).toHaveProperty('makespanNs');
    },
  );

  it('the ASTRA-sim reference cases (vendored)', async () => {
    for (const c of referenceCases) {
      const { trace, ...configs } = caseFiles(astraRef(), c);
      await sameBothWays(trace, configs);
    }
  }, 120_000);

  it.runIf(hasShared)(
    '../shared: MLP model-parallel (32 ranks), DLRM (real PyTorch runs)',
    async () => {
      await sameBothWays(mlpModelParallel(), {
        system: astraRef('configs', 'sys2d_ring_pure.json'),
        network: astraRef('configs', 'Switch8_Ring4.yml'),
      });
      const net = path.join(dir, 'switch8.yml');
      await writeFile(net, 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n');
      expect(
        await sameBothWays(shared('traces', 'pytorch-real', 'et', 'dlrm'), { system: plain, network: net }),
      ).toHaveProperty('makespanNs');
    },
    120_000,
  );
});

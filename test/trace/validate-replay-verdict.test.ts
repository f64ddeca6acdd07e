/**
 * validate and replay give a trace one verdict (issue 26): before, validate said "valid" where replay refused —
 * num_ops, tensor_size or comm_size at 2^53 + 1, a negative comm_size, rank files with a gap (.0, .2, .3). The
 * range check is one function (formats/chakra/node-values.ts) that validate, replay and export share; the rank
 * numbering is paths.ts's. Each case is the shipped ASTRA-sim all_reduce 4npus trace with one change.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportAstraSim } from '../../src/engines/astra-sim/index.js';
import { replayFiles } from '../../src/engines/replay/index.js';
import { validateTrace } from '../../src/engines/trace/validate.js';
import { InputError } from '../../src/errors.js';
import {
  emptyNode,
  makeAttr,
  NodeType,
  nodeValueProblem,
  readTraceFile,
  setAttr,
  writeTraceFile,
  type ChakraNode,
} from '../../src/formats/chakra/index.js';
import { shipped } from '../helpers/traces.js';

const src = shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce');
const ring4 = shipped('configs', 'Ring_4npus.yml');
const plain = shipped('configs', 'sys_ring_pure.json');
const roofline = shipped('configs', 'sys_roofline.json');
const TOO_BIG = 2n ** 53n + 1n;

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-verdict-values-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The 4 ranks (or those listed) after `change`; returns the prefix. */
async function variant(change: (nodes: ChakraNode[]) => ChakraNode[], ranks = [0, 1, 2, 3]): Promise<string> {
  const prefix = path.join(dir, `v${++n}`, 'ar');
  for (const r of ranks) {
    const t = await readTraceFile(`${src}.${r}.et`);
    await writeTraceFile(`${prefix}.${r}.et`, t.metadata, change(t.nodes));
  }
  return prefix;
}
const coll = (nodes: ChakraNode[]) => nodes.find((x) => x.type === NodeType.COMM_COLL_NODE)!;
const gemm = (attrs: ChakraNode['attrs']) => (nodes: ChakraNode[]) => {
  const c = emptyNode(300n, 'gemm', NodeType.COMP_NODE);
  c.durationMicros = 5n;
  c.attrs = attrs;
  return [...nodes, c];
};
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: unknown) => {
      expect(e).toBeInstanceOf(InputError);
      return (e as Error).message;
    },
  );

describe('validate refuses what replay refuses', () => {
  it.each([
    [
      'num_ops 2^53 + 1 (roofline)',
      gemm([makeAttr('num_ops', 'uint64_val', TOO_BIG), makeAttr('tensor_size', 'uint64_val', 4096n)]),
      roofline,
      /num_ops = 9007199254740993 is out of range/,
    ],
    [
      'tensor_size 2^53 + 1',
      gemm([makeAttr('num_ops', 'uint64_val', 5n), makeAttr('tensor_size', 'uint64_val', TOO_BIG)]),
      plain,
      /tensor_size = 9007199254740993 is out of range/,
    ],
    [
      'comm_size 2^53 + 1',
      (nodes: ChakraNode[]) => (setAttr(coll(nodes), makeAttr('comm_size', 'uint64_val', TOO_BIG)), nodes),
      plain,
      /comm_size = 9007199254740993 is out of range/,
    ],
    [
      'comm_size −5',
      (nodes: ChakraNode[]) => (setAttr(coll(nodes), makeAttr('comm_size', 'int64_val', -5n)), nodes),
      plain,
      /comm_size = -5 is out of range|a collective of -5 bytes/,
    ],
  ])('%s', async (_label, change, system, message) => {
    const trace = await variant(change);
    const v = await validateTrace(trace);
    expect(v.errors).toBe(4);
    expect(v.counts).toEqual({ 'value-out-of-range': 4 });
    expect(v.problems[0].message).toMatch(message);
    expect(await refusal(replayFiles({ trace, system, network: ring4 }))).toMatch(message);
  });

  it('the problem says the range and its unit', () => {
    expect(nodeValueProblem('comm_size', -5n)).toBe('comm_size = -5 is out of range (0 to 9007199254740991 bytes)');
    expect(nodeValueProblem('num_ops', TOO_BIG)).toBe(
      'num_ops = 9007199254740993 is out of range (0 to 9007199254740991 operations)',
    );
    expect(nodeValueProblem('comm_size', 2n ** 53n - 1n)).toBeNull();
  });

  it('rank files with a gap (.0, .2, .3): both name the missing rank', async () => {
    const trace = await variant((nodes) => nodes, [0, 2, 3]);
    const net3 = path.join(dir, 'Ring_3npus.yml');
    await writeFile(net3, 'topology: [ Ring ]\nnpus_count: [ 3 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n');
    const v = await validateTrace(trace);
    const missing = `rank files must be numbered 0..2; rank 1 is missing (found ${trace}.2.et as rank 2)`;
    expect(v.counts['rank-missing']).toBe(1);
    expect(v.problems.find((p) => p.code === 'rank-missing')?.message).toBe(missing);
    expect(await refusal(replayFiles({ trace, system: plain, network: net3 }))).toBe(missing);
    // A rank file named on its own is a trace of one rank.
    expect((await validateTrace(`${trace}.2.et`)).counts['rank-missing']).toBeUndefined();
  });

  it('an ALL_GATHER of 0 bytes: ASTRA-sim never finishes it; both refuse it', async () => {
    const ag = shipped('astra-sim', 'all_gather', '4npus_1MB', 'all_gather');
    const prefix = path.join(dir, `v${++n}`, 'ag');
    for (let r = 0; r < 4; r++) {
      const t = await readTraceFile(`${ag}.${r}.et`);
      setAttr(coll(t.nodes), makeAttr('comm_size', 'int64_val', 0n));
      await writeTraceFile(`${prefix}.${r}.et`, t.metadata, t.nodes);
    }
    const v = await validateTrace(prefix);
    expect(v.counts['collective-empty-all-gather']).toBe(4);
    expect(await refusal(replayFiles({ trace: prefix, system: plain, network: ring4 }))).toMatch(
      /ALL_GATHER of 0 bytes: ASTRA-sim makes no stream for it and never finishes it/,
    );
  });

  it('a send to a rank the trace does not have', async () => {
    const trace = await variant((nodes) => {
      const s = emptyNode(200n, 'send', NodeType.COMM_SEND_NODE);
      s.attrs = [
        makeAttr('comm_dst', 'int32_val', 9),
        makeAttr('comm_size', 'int64_val', 4096n),
        makeAttr('comm_tag', 'int32_val', 0),
      ];
      return [...nodes, s];
    });
    const v = await validateTrace(trace);
    expect(v.counts['p2p-peer-not-a-rank']).toBe(4);
    expect(v.problems.find((p) => p.code === 'p2p-peer-not-a-rank')?.message).toBe(
      'node 200: comm_dst 9 is not a rank of this trace (0..3)',
    );
    expect(await refusal(replayFiles({ trace, system: plain, network: ring4 }))).toMatch(
      /comm_dst 9 is not a rank of this trace \(0\.\.3\)/,
    );
  });
});

describe(
  'collectives that do not match across ranks: validate refuses what replay refuses ' + '(collective-sequence.ts)',
  () => {
    /** The 4 ranks with `change` applied to rank `rank` only. */
    const oneRank = (rank: number, change: (nodes: ChakraNode[]) => ChakraNode[]) => {
      let r = -1;
      return variant((nodes) => (++r === rank ? change(nodes) : nodes));
    };
    const second = (nodes: ChakraNode[]) => {
      const first = coll(nodes);
      const c = emptyNode(400n, first.name, NodeType.COMM_COLL_NODE);
      c.attrs = [...first.attrs];
      c.ctrlDeps = [first.id];
      return [...nodes, c];
    };
    it.each([
      [
        'rank 2 runs an ALL_GATHER where the others run the ALL_REDUCE',
        2,
        (nodes: ChakraNode[]) => (setAttr(coll(nodes), makeAttr('comm_type', 'int64_val', 2n)), nodes),
        /collective #0 of group "all ranks" differs between ranks: rank 0 node 0 is ALL_REDUCE of 1048576 B, rank 2 node 2 is ALL_GATHER of 1048576 B/,
      ],
      [
        'rank 1 runs it with twice the bytes',
        1,
        (nodes: ChakraNode[]) => (setAttr(coll(nodes), makeAttr('comm_size', 'uint64_val', 2097152n)), nodes),
        /collective #0 of group "all ranks" differs between ranks: rank 0 node 0 is ALL_REDUCE of 1048576 B, rank 1 node 1 is ALL_REDUCE of 2097152 B/,
      ],
    ])('%s', async (_label, rank, change, message) => {
      const trace = await oneRank(rank, change);
      const v = await validateTrace(trace);
      expect(v.counts).toEqual({ 'collective-mismatch': 1 });
      expect(v.problems[0]!.message).toMatch(message);
      expect(v.problems[0]!.file).toBe(`${trace}.${rank}.et`);
      expect(await refusal(replayFiles({ trace, system: plain, network: ring4 }))).toMatch(message);
      // export astra-sim, which also reads one rank at a time, refuses it in the same words (ASTRA-sim would stall).
      const out = path.join(dir, `export-${n}`);
      expect(await refusal(exportAstraSim({ trace, system: plain, network: ring4, out }))).toMatch(message);
      expect(existsSync(out)).toBe(false);
    });

    it('rank 3 runs one collective more than the others: replay stalls, validate says which is never reached', async () => {
      const trace = await oneRank(3, second);
      const v = await validateTrace(trace);
      expect(v.counts).toEqual({ 'collective-mismatch': 1 });
      expect(v.problems[0]!.message).toBe(
        'group "all ranks": rank 0 issues 1 collective(s), rank 3 issues 2: collective #1 (rank 3 node 400) is ' +
          'never reached by rank 0 (replay stalls)',
      );
      expect(await refusal(replayFiles({ trace, system: plain, network: ring4 }))).toMatch(
        /replay stalled .* collective ALL_REDUCE #1 of all ranks \(rank 3 node 400\) never reached by rank\(s\) 0, 1, 2/,
      );
    });

    const p2p =
      (type: number, peer: number, tag = 0) =>
      (nodes: ChakraNode[]) => {
        const m = emptyNode(200n, type === NodeType.COMM_SEND_NODE ? 'send' : 'recv', type);
        m.attrs = [
          makeAttr(type === NodeType.COMM_SEND_NODE ? 'comm_dst' : 'comm_src', 'int32_val', peer),
          makeAttr('comm_size', 'int64_val', 4096n),
          makeAttr('comm_tag', 'int32_val', tag),
        ];
        return [...nodes, m];
      };
    it("a receive no send matches: replay stalls on it, validate names it with replay's words", async () => {
      const trace = await oneRank(1, p2p(NodeType.COMM_RECV_NODE, 3));
      const v = await validateTrace(trace);
      expect(v.counts).toEqual({ 'message-never-sent': 1 });
      expect(v.problems[0]!.message).toBe(
        'rank 1 node 200 waits for a message 3>1#0 that is never sent (replay stalls)',
      );
      expect(await refusal(replayFiles({ trace, system: plain, network: ring4 }))).toMatch(
        /replay stalled .*rank 1 node 200 waits for a message 3>1#0 that is never sent/,
      );
      expect(
        await refusal(exportAstraSim({ trace, system: plain, network: ring4, out: path.join(dir, `export-${n}`) })),
      ).toBe(v.problems[0]!.message);
    });

    it('a send and its receive (same peers and tag): valid, and replay runs it; another tag is never sent', async () => {
      let r = -1;
      const paired = await variant((nodes) =>
        ++r === 3 ? p2p(NodeType.COMM_SEND_NODE, 1)(nodes) : r === 1 ? p2p(NodeType.COMM_RECV_NODE, 3)(nodes) : nodes,
      );
      expect((await validateTrace(paired)).errors).toBe(0);
      expect(await refusal(replayFiles({ trace: paired, system: plain, network: ring4 }))).toBe('accepted');
      r = -1;
      const otherTag = await variant((nodes) =>
        ++r === 3
          ? p2p(NodeType.COMM_SEND_NODE, 1, 7)(nodes)
          : r === 1
            ? p2p(NodeType.COMM_RECV_NODE, 3)(nodes)
            : nodes,
      );
      expect((await validateTrace(otherTag)).counts).toEqual({ 'message-never-sent': 1 });
      expect(await refusal(replayFiles({ trace: otherTag, system: plain, network: ring4 }))).toMatch(
        /waits for a message 3>1#0 that is never sent/,
      );
    });

    it('every rank running the same second collective, or none of the ranks changed: valid, and replay runs it', async () => {
      for (const trace of [await variant(second), await variant((nodes) => nodes)]) {
        expect((await validateTrace(trace)).errors).toBe(0);
        expect(await refusal(replayFiles({ trace, system: plain, network: ring4 }))).toBe('accepted');
      }
    });
  },
);

describe('what replay runs, validate does not call an error', () => {
  it('INVALID_NODE (type 0): ASTRA-sim skips it, replay gives it no time: a warning', async () => {
    const trace = await variant((nodes) => [
      ...nodes,
      Object.assign(emptyNode(300n, 'x', NodeType.INVALID_NODE), { durationMicros: 5n }),
    ]);
    const v = await validateTrace(trace);
    expect(v.errors).toBe(0);
    expect(v.counts['invalid-node']).toBe(4);
    expect(await refusal(replayFiles({ trace, system: plain, network: ring4 }))).toBe('accepted');
  });

  it('a send names its peer (comm_dst) and size; comm_src (its own rank) is optional, as ASTRA-sim reads it', async () => {
    const trace = await variant((nodes) => {
      const s = emptyNode(200n, 'send', NodeType.COMM_SEND_NODE);
      s.attrs = [
        makeAttr('comm_dst', 'int32_val', 1),
        makeAttr('comm_size', 'int64_val', 4096n),
        makeAttr('comm_tag', 'int32_val', 0),
      ];
      return [...nodes, s];
    });
    expect((await validateTrace(trace)).counts['p2p-missing-attribute']).toBeUndefined();
  });
});

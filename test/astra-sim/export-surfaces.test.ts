/**
 * `export astra-sim` keeps the contract on inputs found wanting (issue 26), each reproduced first:
 * - a node of type 0, 99 or 2^64 − 1, or is_cpu_op stored as a string, was written unchanged with "repairs: none",
 *   and `validate` on the exported folder exited 1: now repaired (or refused), and the folder validates;
 * - re-exporting into a folder that held another prefix's export left the old rank files beside the new ones;
 * - `energy --astra-sim-log` took any log with the right number of ranks (an all-reduce's log for an all-gather
 *   trace): run.sh now writes the export's fingerprint into the log, checked against the files given, and any log
 *   whose ranks finish before tracewatt's congestion-unaware replay of the trace is refused.
 * Real traces: the shipped ASTRA-sim microbenchmarks and their recorded ASTRA-sim output.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { energyFromAstraSimLog, exportAstraSim } from '../../src/engines/astra-sim/index.js';
import { replayFiles } from '../../src/engines/replay/index.js';
import { validateTrace } from '../../src/engines/trace/validate.js';
import {
  emptyNode,
  makeAttr,
  NodeType,
  readTraceFile,
  setAttr,
  writeTraceFile,
  type ChakraNode,
} from '../../src/formats/chakra/index.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const system = shipped('configs', 'sys_ring_pure.json');
const network = shipped('configs', 'Ring_4npus.yml');
const logs = path.join(repoRoot, 'test', 'fixtures', 'astra-sim', 'congestion-unaware');

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-export-surfaces-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function variant(kind: string, change: (nodes: ChakraNode[]) => ChakraNode[]): Promise<string> {
  const prefix = path.join(dir, `v${++n}`, kind);
  for (let r = 0; r < 4; r++) {
    const t = await readTraceFile(`${shipped('astra-sim', kind, '4npus_1MB', kind)}.${r}.et`);
    await writeTraceFile(`${prefix}.${r}.et`, t.metadata, change(t.nodes));
  }
  return prefix;
}
const extra =
  (type: number, attrs: ChakraNode['attrs'] = []) =>
  (nodes: ChakraNode[]) => {
    const x = emptyNode(300n, 'odd', type);
    x.durationMicros = 5n;
    x.attrs = attrs;
    return [...nodes, x];
  };
const coll = (nodes: ChakraNode[]) => nodes.find((x) => x.type === NodeType.COMM_COLL_NODE)!;

describe('what validate flags in the input, the export repairs: the exported folder validates', () => {
  it.each([
    ['node type 0 (INVALID_NODE)', extra(NodeType.INVALID_NODE), []],
    ['node type 99', extra(99), ['unknown-node-type-invalidated']],
    ['node type 2^64 − 1 (−1 as the int32 enum)', extra(-1), ['unknown-node-type-invalidated']],
    [
      'is_cpu_op as a string on a compute node',
      extra(NodeType.COMP_NODE, [makeAttr('is_cpu_op', 'string_val', 'true')]),
      ['is-cpu-op-as-bool'],
    ],
    [
      'is_cpu_op as a string on the collective',
      (nodes: ChakraNode[]) => (setAttr(coll(nodes), makeAttr('is_cpu_op', 'string_val', '1')), nodes),
      ['is-cpu-op-as-bool'],
    ],
    [
      'comm_tag as a string, pg_name as a number',
      extra(NodeType.COMP_NODE, [makeAttr('comm_tag', 'string_val', '7'), makeAttr('pg_name', 'int64_val', 3n)]),
      ['mistyped-attribute-dropped'],
    ],
  ])('%s', async (_label, change, codes) => {
    const trace = await variant('all_reduce', change);
    const out = path.join(dir, `out${n}`);
    const r = await exportAstraSim({ trace, out, system, network });
    expect(r.repairs.map((d) => d.code)).toEqual(codes);
    const v = await validateTrace(r.workload);
    expect(v.problems.filter((p) => p.severity === 'error')).toEqual([]);
    // ASTRA-sim now runs the nodes as replay does: the export replays as the input.
    const [a, b] = [
      await replayFiles({ trace, system, network }),
      await replayFiles({ trace: r.workload, system, network }),
    ];
    expect(b.ranks.map((x) => x.finishNs)).toEqual(a.ranks.map((x) => x.finishNs));
    expect(b.energyJ).toEqual(a.energyJ);
  });

  it('what cannot be repaired is refused with the words validate uses', async () => {
    const trace = await variant(
      'all_reduce',
      (nodes) => (setAttr(coll(nodes), makeAttr('comm_size', 'int64_val', -5n)), nodes),
    );
    await expect(exportAstraSim({ trace, out: path.join(dir, 'neg'), system, network })).rejects.toThrow(
      /node \d+ \("[^"]*", COMM_COLL_NODE\): comm_size = -5 is out of range \(0 to 9007199254740991 bytes\)/,
    );
  });
});

describe('re-exporting into a folder', () => {
  it("leaves only the new export: another prefix's rank files, and a comm-group.json it does not write, go", async () => {
    const out = path.join(dir, 'again');
    const groups = path.join(dir, 'groups.json');
    await writeFile(groups, JSON.stringify({ 1: [0, 1, 2, 3] }));
    await exportAstraSim({
      trace: shipped('astra-sim', 'all_gather', '4npus_1MB', 'all_gather'),
      out,
      system,
      network,
      commGroup: groups,
    });
    expect((await readdir(path.join(out, 'workload'))).sort()).toEqual([0, 1, 2, 3].map((r) => `all_gather.${r}.et`));
    const r = await exportAstraSim({
      trace: shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce'),
      out,
      system,
      network,
    });
    expect((await readdir(path.join(out, 'workload'))).sort()).toEqual(
      [0, 1, 2, 3].map((rank) => `all_reduce.${rank}.et`),
    );
    expect((await readdir(out)).sort()).toEqual([
      'export.json',
      'memory.json',
      'network.yml',
      'run.sh',
      'system.json',
      'workload',
    ]);
    expect((await validateTrace(path.join(out, 'workload'))).errors).toBe(0);
    expect(r.ranks).toBe(4);
  });
});

describe('energy --astra-sim-log checks that the log is of this trace', () => {
  it("refuses an all-reduce run's log for the all-gather trace (it finishes before the all-gather can)", async () => {
    const log = path.join(logs, 'all_reduce_4npus_1MB__sys_ring_pure__Ring_4npus.txt');
    const trace = shipped('astra-sim', 'all_gather', '4npus_1MB', 'all_gather');
    await expect(energyFromAstraSimLog({ trace, system, network, astraSimLog: log })).rejects.toThrow(
      /all_reduce_4npus_1MB__sys_ring_pure__Ring_4npus\.txt line \d+: sys\[\d\] finished at 32299 ns, but rank \d of .*all_gather on these configs takes at least 60097 ns .*: the log is of another run/,
    );
    // Its own log is taken, and gives replay's figures.
    const own = await energyFromAstraSimLog({
      trace,
      system,
      network,
      astraSimLog: path.join(logs, 'all_gather_4npus_1MB__sys_ring_pure__Ring_4npus.txt'),
    });
    expect(own.makespanNs).toBe((await replayFiles({ trace, system, network })).makespanNs);
  });

  it("a log run.sh wrote carries the export's fingerprint: the files it was run on, and no others, are taken", async () => {
    const out = path.join(dir, 'fp');
    const r = await exportAstraSim({
      trace: shipped('astra-sim', 'all_gather', '4npus_1MB', 'all_gather'),
      out,
      system,
      network,
    });
    // A stand-in ASTRA-sim binary that prints the recorded output of this very case.
    const bin = path.join(dir, 'bin');
    await mkdir(bin, { recursive: true });
    const recorded = path.join(logs, 'all_gather_4npus_1MB__sys_ring_pure__Ring_4npus.txt');
    await writeFile(path.join(bin, 'AstraSim_Analytical_Congestion_Unaware'), `#!/bin/sh\ntail -n +3 '${recorded}'\n`);
    await chmod(path.join(bin, 'AstraSim_Analytical_Congestion_Unaware'), 0o755);
    execFileSync(r.files.runScript, ['unaware'], { env: { ...process.env, ASTRA_SIM_BIN_DIR: bin }, stdio: 'pipe' });
    const log = path.join(out, 'astra-sim.unaware.log');
    expect((await readFile(log, 'utf8')).split('\n')[0]).toMatch(
      /^tracewatt export fingerprint \(sha256, first 16 hex digits\): workload=[0-9a-f]{16} system=[0-9a-f]{16} network=[0-9a-f]{16} memory=[0-9a-f]{16}$/,
    );
    const files = { system: r.files.system, network: r.files.network, memory: r.files.memory };
    const e = await energyFromAstraSimLog({ trace: r.workload, ...files, astraSimLog: log });
    expect(e.makespanNs).toBe(60097);
    // The same log with another system (same trace, same makespan: only the fingerprint can tell).
    const other = path.join(dir, 'sys-other.json');
    await writeFile(
      other,
      (await readFile(system, 'utf8')).replace('"endpoint-delay": 1,', '"endpoint-delay": 1, "trace-enabled": 0,'),
    );
    await expect(
      energyFromAstraSimLog({ trace: r.workload, ...files, system: other, astraSimLog: log }),
    ).rejects.toThrow(
      /astra-sim\.unaware\.log line 1: the log is of another export: the system of its run differs from the files given \(SHA-256\)/,
    );
    // And another trace: its rank files.
    await expect(
      energyFromAstraSimLog({
        trace: shipped('astra-sim', 'all_gather', '4npus_1MB', 'all_gather'),
        ...files,
        astraSimLog: log,
      }),
    ).resolves.toBeDefined();
    const moved = await variant('all_gather', (nodes) => nodes.map((x) => Object.assign(x, { name: `${x.name}!` })));
    await expect(energyFromAstraSimLog({ trace: moved, ...files, astraSimLog: log })).rejects.toThrow(
      /the workload of its run differs/,
    );
  });
});

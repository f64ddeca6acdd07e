/**
 * `export astra-sim`: what ASTRA-sim reads is written through the Chakra writer with every byte kept that no repair
 * changes; each repair is listed; the exported trace replays as the input does; what cannot be repaired is refused
 * and leaves nothing behind. Real traces: the shipped ASTRA-sim examples and ResNet-50, the reference cases and the
 * DLRM PyTorch conversion in ../shared (with ASTRA-sim's recorded output of the exported DLRM).
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { energyFromAstraSimLog, exportAstraSim, type AstraSimExport } from '../../src/engines/astra-sim/index.js';
import { replayFiles, type ReplayResult } from '../../src/engines/replay/index.js';
import { validateTrace } from '../../src/engines/trace/validate.js';
import { InputError } from '../../src/errors.js';
import {
  CollectiveCommType,
  emptyNode,
  makeAttr,
  NodeType,
  readTraceFile,
  setAttr,
  writeTraceFile,
  type ChakraNode,
  type GlobalMetadata,
} from '../../src/formats/chakra/index.js';
import { cli } from '../helpers/cli.js';
import { allCases } from '../helpers/astra-reference.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-export-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The frames of a .et file (varint length ‖ message), as byte strings. */
function frames(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let p = 0; p < buf.length; ) {
    let len = 0;
    let shift = 0;
    const start = p;
    for (;;) {
      const b = buf[p++];
      len += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) break;
    }
    out.push(buf.subarray(start, p + len));
    p += len;
  }
  return out;
}

/** A replay result without what names the files (label, file paths, diagnostics that quote them). */
// byName is the replay's alone (the ASTRA-sim log gives per-rank times, not each node's).
const comparable = (r: ReplayResult) => ({
  ...r,
  label: '',
  diagnostics: [],
  ranks: r.ranks.map((x) => ({ ...x, file: '' })),
  byName: undefined,
});

const rankFiles = async (prefix: string) =>
  (await readdir(path.dirname(prefix)))
    .filter((f) => f.startsWith(`${path.basename(prefix)}.`) && f.endsWith('.et'))
    .sort();

describe('export astra-sim of a clean trace (shipped ASTRA-sim example)', () => {
  let r: AstraSimExport;
  const trace = shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce');
  const system = shipped('configs', 'sys_ring_example.json');
  const network = shipped('configs', 'Switch_8npus.yml');
  beforeAll(async () => {
    r = await exportAstraSim({ trace, out: path.join(dir, 'ar8'), system, network });
  });

  it('writes every rank file byte for byte, and the configs as given', async () => {
    expect(r.repairs).toEqual([]);
    expect(r.unchangedRanks).toBe(8);
    expect(await rankFiles(r.workload)).toHaveLength(8);
    for (let i = 0; i < 8; i++)
      expect(await readFile(`${r.workload}.${i}.et`)).toEqual(await readFile(`${trace}.${i}.et`));
    expect(await readFile(r.files.system, 'utf8')).toBe(await readFile(system, 'utf8'));
    expect(await readFile(r.files.network, 'utf8')).toBe(await readFile(network, 'utf8'));
    expect(JSON.parse(await readFile(r.files.memory, 'utf8'))).toEqual({ 'memory-type': 'NO_MEMORY_EXPANSION' });
    expect(r.files.commGroup).toBeUndefined();
    expect(JSON.parse(await readFile(r.files.export, 'utf8'))).toEqual(JSON.parse(JSON.stringify(r)));
  });

  it('gives the command lines of both analytical backends and of the energy breakdown', () => {
    const out = path.join(dir, 'ar8');
    const flags =
      `--workload-configuration=${out}/workload/all_reduce --system-configuration=${out}/system.json ` +
      `--network-configuration=${out}/network.yml --remote-memory-configuration=${out}/memory.json ` +
      `--logging-folder=${out}/log`;
    expect(r.commands.congestionUnaware).toBe(
      `AstraSim_Analytical_Congestion_Unaware ${flags} > ${out}/astra-sim.unaware.log 2>&1`,
    );
    expect(r.commands.congestionAware).toBe(
      `AstraSim_Analytical_Congestion_Aware ${flags} > ${out}/astra-sim.aware.log 2>&1`,
    );
    expect(r.commands.energy).toBe(
      `npx tracewatt energy --astra-sim-log ${out}/astra-sim.unaware.log ${out}/workload/all_reduce --system ` +
        `${out}/system.json --network ${out}/network.yml --memory ${out}/memory.json`,
    );
  });

  it(
    "run.sh runs the chosen backend on the folder's files from anywhere and keeps its output (a stand-in binary " +
      'records its arguments)',
    async () => {
      const bin = path.join(dir, 'bin');
      await mkdir(bin, { recursive: true });
      for (const name of ['AstraSim_Analytical_Congestion_Unaware', 'AstraSim_Analytical_Congestion_Aware']) {
        await writeFile(
          path.join(bin, name),
          `#!/bin/sh\necho "${name} $*"\necho "sys[0] finished, 5 cycles, exposed communication 5 cycles."\n`,
        );
        await chmod(path.join(bin, name), 0o755);
      }
      const script = r.files.runScript;
      expect((await stat(script)).mode & 0o111).toBe(0o111);
      const abs = path.resolve(path.dirname(script));
      const run = (backend: string) =>
        execFileSync(script, [backend], {
          cwd: os.tmpdir(),
          env: { ...process.env, ASTRA_SIM_BIN_DIR: bin },
          encoding: 'utf8',
        });
      const flags =
        `--workload-configuration=${abs}/workload/all_reduce --system-configuration=${abs}/system.json ` +
        `--network-configuration=${abs}/network.yml --remote-memory-configuration=${abs}/memory.json ` +
        `--logging-folder=${abs}/log`;
      // The log starts with the export's fingerprint (what energy --astra-sim-log checks), then ASTRA-sim's output.
      const fingerprint = `tracewatt export fingerprint (sha256, first 16 hex digits): ${Object.entries(r.fingerprint)
        .map(([k, v]) => `${k}=${v.slice(0, 16)}`)
        .join(' ')}`;
      expect(Object.keys(r.fingerprint)).toEqual(['workload', 'system', 'network', 'memory']);
      expect(run('aware').split('\n').slice(0, 2)).toEqual([
        fingerprint,
        `AstraSim_Analytical_Congestion_Aware ${flags}`,
      ]);
      expect(run('unaware').split('\n').slice(0, 2)).toEqual([
        fingerprint,
        `AstraSim_Analytical_Congestion_Unaware ${flags}`,
      ]);
      expect(await readFile(path.join(abs, 'astra-sim.unaware.log'), 'utf8')).toContain('sys[0] finished, 5 cycles');
      expect(() => execFileSync(script, ['ns3'], { stdio: 'pipe' })).toThrow(/usage: .*run\.sh \[unaware\|aware\]/);
    },
  );

  it('the exported trace replays exactly as the input', async () => {
    expect(
      comparable(await replayFiles({ trace: r.workload, system: r.files.system, network: r.files.network })),
    ).toEqual(comparable(await replayFiles({ trace, system, network })));
  });

  it('the CLI lists what it wrote, that nothing was repaired, and how to run ASTRA-sim', async () => {
    const res = await cli([
      'export',
      'astra-sim',
      trace,
      '--system',
      system,
      '--network',
      network,
      '--out',
      path.join(dir, 'ar8-cli'),
    ]);
    expect(res.code).toBe(0);
    expect(res.out).toContain(
      `wrote ${path.join(dir, 'ar8-cli')}: 8 rank file(s) (${path.join(dir, 'ar8-cli')}` +
        `/workload/all_reduce.<rank>.et, 8 nodes; 8 byte-identical to the input), system.json, network.yml, ` +
        `memory.json, run.sh, export.json\nrepairs: none`,
    );
    expect(res.out).toContain(`  ${path.join(dir, 'ar8-cli')}/run.sh aware\n`);
  });
});

describe('export astra-sim of the shipped ResNet-50 data-parallel trace (no comm_size, involved_dim [true])', () => {
  const trace = shipped('astra-sim-history', 'resnet_dp', 'Resnet50_DataParallel');
  const fixtures = path.join(repoRoot, 'test', 'fixtures', 'astra-sim', 'resnet50-dp');
  const network = path.join(fixtures, 'Switch8_Ring8.yml');

  it('is refused without --comm-size, naming the node and the option, and leaves no folder behind', async () => {
    const out = path.join(dir, 'rn-refused');
    const err = await exportAstraSim({ trace, out, system: shipped('configs', 'sys2d_ring_pure.json'), network }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(
      /Resnet50_DataParallel\.0\.et: node 55 \("COMM_COLL_NODE_fc1000_ALLREDUCE", COMM_COLL_NODE\) has no comm_size: ASTRA-sim logs "Attribute comm_size not found" and stalls every rank\. Give --comm-size <bytes>/,
    );
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
  });

  it('with --comm-size: every collective gets it and an involved_dim per dimension; the result validates and ' +
    'replays', async () => {
    const r = await exportAstraSim({
      trace,
      out: path.join(dir, 'rn'),
      system: shipped('configs', 'sys2d_ring_pure.json'),
      network,
      commSizeBytes: 1048576n,
    });
    expect(r.repairs.map((d) => [d.code, d.count])).toEqual([
      ['comm-size-added', 3456],
      ['involved-dim-padded', 3456],
    ]);
    expect(r.repairs[1].samples[0].message).toMatch(/node 55 .*: involved_dim of 1 entry padded to \[true, true\]/);
    const v = await validateTrace(r.workload);
    expect(v.errors).toBe(0);
    const res = await replayFiles({ trace: r.workload, system: r.files.system, network: r.files.network });
    expect(res.ranks).toHaveLength(64);
    expect(res.bytesSentPerDim.every((b) => b > 0)).toBe(true);
    // ASTRA-sim ran the exported folder (recorded): every rank finished, and energy from its times is replay's exactly.
    const log = path.join(fixtures, 'Resnet50_DataParallel__sys2d_ring_pure__Switch8_Ring8.unaware.txt');
    const fromLog = await energyFromAstraSimLog({
      trace: r.workload,
      system: r.files.system,
      network: r.files.network,
      astraSimLog: log,
    });
    expect({ ...fromLog, label: '' }).toEqual({ ...res, label: '', byName: undefined });
  }, 60_000);
});

describe('repairs, one by one, on a real trace (shipped all_reduce 4npus) made faulty', () => {
  const src = shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce');
  const system = shipped('configs', 'sys_ring_example.json');
  const network = shipped('configs', 'Ring_4npus.yml');
  let n = 0;

  /** Writes the 4 ranks after `change` edits each rank's nodes / metadata; returns the prefix. */
  async function variant(
    change: (nodes: ChakraNode[], rank: number) => ChakraNode[],
    metadata?: (m: GlobalMetadata | null) => GlobalMetadata | null,
  ): Promise<string> {
    const prefix = path.join(dir, `variant${++n}`, 'ar');
    for (let r = 0; r < 4; r++) {
      const t = await readTraceFile(`${src}.${r}.et`);
      await writeTraceFile(`${prefix}.${r}.et`, metadata ? metadata(t.metadata) : t.metadata, change(t.nodes, r));
    }
    return prefix;
  }
  const run = (trace: string, extra: Partial<Parameters<typeof exportAstraSim>[0]> = {}) =>
    exportAstraSim({ trace, out: path.join(dir, `out${n}`), system, network, ...extra });
  const coll = (nodes: ChakraNode[]) => nodes.find((x) => x.type === NodeType.COMM_COLL_NODE)!;
  const codes = (r: AstraSimExport) => r.repairs.map((d) => [d.code, d.count]);

  it('no GlobalMetadata frame: one is added and every node frame stays as it was', async () => {
    const trace = await variant(
      (nodes) => nodes,
      () => null,
    );
    const r = await run(trace);
    expect(codes(r)).toEqual([['metadata-added', 4]]);
    for (let i = 0; i < 4; i++) {
      const out = frames(await readFile(`${r.workload}.${i}.et`));
      expect(Buffer.concat(out.slice(1))).toEqual(await readFile(`${trace}.${i}.et`));
      expect((await readTraceFile(`${r.workload}.${i}.et`)).metadata?.version).toBe('0.0.4');
    }
  });

  it(
    'a collective marked is_cpu_op, involved_dim as an integer list, a BROADCAST without comm_size, a dangling ' +
      'and a self dependency, an unknown node type',
    async () => {
      const trace = await variant((nodes) => {
        const c = coll(nodes);
        setAttr(c, makeAttr('is_cpu_op', 'bool_val', true));
        setAttr(c, makeAttr('involved_dim', 'int32_list', [1]));
        const bcast = emptyNode(100n, 'bcast', NodeType.COMM_COLL_NODE);
        bcast.durationMicros = 3n;
        bcast.attrs = [makeAttr('comm_type', 'int64_val', CollectiveCommType.BROADCAST)];
        bcast.dataDeps = [c.id, 777n, 100n];
        const odd = emptyNode(101n, 'odd', 12);
        odd.ctrlDeps = [100n];
        return [...nodes, bcast, odd];
      });
      const r = await run(trace);
      expect(codes(r)).toEqual([
        ['broadcast-comm-size-added', 4],
        ['comm-marked-cpu', 4],
        ['dangling-dependency-removed', 4],
        ['involved-dim-as-bool-list', 4],
        ['self-dependency-removed', 4],
        ['unknown-node-type-invalidated', 4],
      ]);
      expect(r.repairs.find((d) => d.code === 'dangling-dependency-removed')!.samples[0].message).toMatch(
        /variant\d+\/ar\.0\.et: node 100 \("bcast", COMM_COLL_NODE\): data dependency on absent node 777 removed/,
      );
      const [before, after] = [await readTraceFile(`${trace}.2.et`), await readTraceFile(`${r.workload}.2.et`)];
      const c = coll(after.nodes);
      expect(c.attrs.find((a) => a.name === 'is_cpu_op')).toMatchObject({ kind: 'bool_val', value: false });
      expect(c.attrs.find((a) => a.name === 'involved_dim')).toMatchObject({ kind: 'bool_list', value: [true] });
      expect(after.nodes.at(-2)!.dataDeps).toEqual([c.id]);
      expect(after.nodes.at(-1)!.type).toBe(NodeType.INVALID_NODE);
      // Nodes no repair touched keep their bytes: the frames before the collective are identical.
      const [fb, fa] = [frames(await readFile(`${trace}.2.et`)), frames(await readFile(`${r.workload}.2.et`))];
      const ci = before.nodes.findIndex((x) => x.type === NodeType.COMM_COLL_NODE) + 1;
      expect(fa.slice(0, ci)).toEqual(fb.slice(0, ci));
      expect((await validateTrace(r.workload)).counts).not.toHaveProperty('comm-marked-cpu');
      expect(comparable(await replayFiles({ trace: r.workload, system, network }))).toEqual(
        comparable(await replayFiles({ trace, system, network })),
      );
    },
  );

  it('a shorter involved_dim is padded on a 2-D network; send/receive without comm_tag get tag 0', async () => {
    const net2 = path.join(dir, 'Ring2_Ring2.yml');
    await writeFile(
      net2,
      'topology: [ Ring, Ring ]\nnpus_count: [ 2, 2 ]\nbandwidth: [ 50, 50 ]\nlatency: [ 500, 500 ]\n',
    );
    const trace = await variant((nodes, rank) => {
      coll(nodes).attrs.push(makeAttr('involved_dim', 'bool_list', [true]));
      const p2p = emptyNode(200n, 'p2p', rank % 2 === 0 ? NodeType.COMM_SEND_NODE : NodeType.COMM_RECV_NODE);
      p2p.attrs = [
        makeAttr(rank % 2 === 0 ? 'comm_dst' : 'comm_src', 'int32_val', rank ^ 1),
        makeAttr('comm_size', 'int64_val', 4096),
      ];
      return [...nodes, p2p];
    });
    const r = await run(trace, { system: shipped('configs', 'sys2d_ring_pure.json'), network: net2 });
    expect(codes(r)).toEqual([
      ['comm-tag-added', 4],
      ['involved-dim-padded', 4],
    ]);
    const res = await replayFiles({ trace: r.workload, system: r.files.system, network: r.files.network });
    expect(res.makespanNs).toBeGreaterThan(0);
  });

  it('refuses what cannot be repaired without guessing, naming file and node, and removes what it wrote', async () => {
    const refused = async (
      trace: string,
      message: RegExp,
      extra: Partial<Parameters<typeof exportAstraSim>[0]> = {},
    ) => {
      const out = path.join(dir, `out${n}`);
      await expect(run(trace, extra)).rejects.toThrow(message);
      await expect(stat(out)).rejects.toThrow(/ENOENT/);
    };
    await refused(
      await variant((nodes) => [...nodes, emptyNode(coll(nodes).id, 'again', NodeType.COMP_NODE)]),
      /ar\.0\.et: node id \d+ appears more than once/,
    );
    await refused(
      await variant((nodes) => {
        const [a, b] = [emptyNode(400n, 'a', NodeType.COMP_NODE), emptyNode(401n, 'b', NodeType.COMP_NODE)];
        a.dataDeps = [401n];
        b.ctrlDeps = [400n];
        return [...nodes, a, b];
      }),
      /ar\.0\.et: 2 node\(s\) can never run: dependency cycle 40[01] → 40[01] → 40[01]/,
    );
    await refused(
      await variant((nodes) => {
        coll(nodes).attrs = coll(nodes).attrs.map((a) =>
          a.name === 'comm_type' ? makeAttr('comm_type', 'int64_val', CollectiveCommType.BARRIER) : a,
        );
        return nodes;
      }),
      /node 0 \("[^"]*", COMM_COLL_NODE\): comm_type BARRIER is not simulated by ASTRA-sim's analytical backend/,
    );
    await refused(
      await variant((nodes) => {
        coll(nodes).attrs.push(makeAttr('pg_name', 'string_val', '7'));
        return nodes;
      }),
      /pg_name "7" is not defined \(no --comm-group file given\)/,
    );
    const comp = emptyNode(300n, 'gemm', NodeType.COMP_NODE);
    comp.attrs = [makeAttr('tensor_size', 'uint64_val', 4096)];
    await refused(
      await variant((nodes) => [...nodes, comp]),
      /node 300 \("gemm", COMP_NODE\) has no num_ops, which .*sys_roofline\.json \(roofline-enabled\) needs/,
      { system: shipped('configs', 'sys_roofline.json') },
    );
    const load = emptyNode(301n, 'load', NodeType.MEM_LOAD_NODE);
    load.attrs = [makeAttr('tensor_size', 'uint64_val', 4096)];
    await refused(
      await variant((nodes) => [...nodes, load]),
      /node 301 \("load", MEM_LOAD_NODE\) needs a remote memory model/,
    );
    // A rank count that does not match the network, and configs beside the trace when none are given.
    await expect(
      exportAstraSim({ trace: src, out: path.join(dir, 'x'), system, network: shipped('configs', 'Switch_8npus.yml') }),
    ).rejects.toThrow(/has 4 rank file\(s\) but .*Switch_8npus\.yml describes 8 NPUs/);
    await expect(exportAstraSim({ trace: src, out: path.join(dir, 'x') })).rejects.toThrow(
      /export astra-sim: give --system \(no .*all_reduce\.system\.json beside the trace\)/,
    );
  });
});

describe('export astra-sim of the reference traces (astra-sim-reference, vendored)', () => {
  it('every rank file of all 46 cases is written byte for byte, with nothing to repair, and replays the same', async () => {
    const cases = allCases();
    expect(cases).toHaveLength(46);
    for (const { c, files: input } of cases) {
      const r = await exportAstraSim({ ...input, out: path.join(dir, 'ref', c.name.replace(/\W+/g, '_')) });
      expect(r.repairs, c.name).toEqual([]);
      expect(r.unchangedRanks).toBe(r.ranks);
      for (let i = 0; i < r.ranks; i++)
        expect(await readFile(`${r.workload}.${i}.et`)).toEqual(await readFile(`${input.trace}.${i}.et`));
      expect(
        comparable(
          await replayFiles({
            trace: r.workload,
            system: r.files.system,
            network: r.files.network,
            memory: r.files.memory,
          }),
        ),
        c.name,
      ).toEqual(comparable(await replayFiles(input)));
    }
  }, 60_000);
});

describeShared('export astra-sim of a real PyTorch trace (DLRM, 8 ranks, Chakra conversion in ../shared)', () => {
  const trace = shared('traces', 'pytorch-real', 'et', 'dlrm');
  const system = shipped('configs', 'sys_ring_example.json');
  const network = path.join(repoRoot, 'test', 'fixtures', 'astra-sim', 'pytorch-dlrm', 'Ring_8npus.yml');
  const logs = (b: string) =>
    path.join(repoRoot, 'test', 'fixtures', 'astra-sim', 'pytorch-dlrm', `dlrm__sys_ring_example__Ring_8npus.${b}.txt`);
  let r: AstraSimExport;
  beforeAll(async () => {
    r = await exportAstraSim({ trace, out: path.join(dir, 'dlrm'), system, network });
  }, 60_000);

  it(
    'turns the 128 CPU-side collectives into CPU compute nodes and drops the 16 dependencies on the removed node ' +
      '0',
    async () => {
      expect(r.repairs.map((d) => [d.code, d.count])).toEqual([
        ['cpu-collective-to-compute', 128],
        ['dangling-dependency-removed', 16],
      ]);
      expect(r.nodes).toBe(15496);
      const v = await validateTrace(r.workload);
      expect(v.errors).toBe(0);
      // Every node frame but the repaired ones is the input's, byte for byte.
      for (let i = 0; i < 8; i++) {
        const [fin, fout] = [
          frames(await readFile(`${trace}.${i}.et`)),
          frames(await readFile(`${r.workload}.${i}.et`)),
        ];
        const [nin, nout] = [
          (await readTraceFile(`${trace}.${i}.et`)).nodes,
          (await readTraceFile(`${r.workload}.${i}.et`)).nodes,
        ];
        expect(fout).toHaveLength(fin.length);
        let changed = 0;
        nin.forEach((node, k) => {
          const repaired =
            (node.type === NodeType.COMM_COLL_NODE && !node.attrs.some((a) => a.name === 'comm_type')) ||
            node.ctrlDeps.includes(0n) ||
            node.dataDeps.includes(0n);
          if (repaired) changed++;
          else expect(fout[k + 1].equals(fin[k + 1])).toBe(true);
          expect(nout[k].id).toBe(node.id);
        });
        expect(changed).toBe(18);
      }
    },
  );

  it('the exported trace replays as the input does', async () => {
    expect(comparable(await replayFiles({ trace: r.workload, system, network }))).toEqual(
      comparable(await replayFiles({ trace, system, network })),
    );
  });

  it(
    "ASTRA-sim ran it (recorded, both backends): energy from its times has the replay's node energies; makespan " +
      'and total energy agree with replay',
    async () => {
      const replayed = await replayFiles({ trace: r.workload, system, network });
      for (const backend of ['unaware', 'aware']) {
        const e = await energyFromAstraSimLog({ trace: r.workload, system, network, astraSimLog: logs(backend) });
        // ASTRA-sim printed no statistics here: it throws "Only GPU and COMM types are supported for overlap
        // extraction"
        // on CPU nodes.
        expect(e.diagnostics.find((d) => d.code === 'astra-log.no-statistics')?.count).toBe(8);
        expect(e.makespanNs).toBe(replayed.makespanNs);
        expect(e.energyJ).toEqual(replayed.energyJ);
        expect(e.ranks.map((x) => x.energyJ.compute)).toEqual(replayed.ranks.map((x) => x.energyJ.compute));
      }
    },
  );

  // Ranks 0, 2 and 6 finish their last collective earlier than the others (they reach it first), in both.
  it("per-rank times equal replay's", async () => {
    const e = await energyFromAstraSimLog({ trace: r.workload, system, network, astraSimLog: logs('unaware') });
    const replayed = await replayFiles({ trace: r.workload, system, network });
    expect(e.ranks.map((x) => x.finishNs)).toEqual(replayed.ranks.map((x) => x.finishNs));
  });
});

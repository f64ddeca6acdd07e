/**
 * `replay --as-measured`: the replay rule on a small hand-made trace (start = latest ready dependency + delay; a
 * launching op is ready at its start + launch_offset_ns), refusal of traces without measured attributes, the power
 * log's energy over the measured iteration (the H200 run's nvidia-smi log), and the CLI's text and JSON (per rank
 * finishNs beside measuredIterationNs and the error; a modelled replay of an imported trace prints the measured
 * iteration beside its finish).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPytorch } from '../../src/engines/import/index.js';
import { replayFilesAsMeasured } from '../../src/engines/replay/as-measured.js';
import { resolvePower } from '../../src/engines/replay/index.js';
import { emptyNode, makeAttr, writeTraceFile, type ChakraNode } from '../../src/formats/chakra/index.js';
import { MEASURED_META_ATTRS, MEASURED_NODE_ATTRS } from '../../src/formats/chakra/measured.js';
import { asMeasuredText } from '../../src/report/measured-text.js';
import { cli } from '../helpers/cli.js';
import { shipped } from '../helpers/traces.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-as-measured-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A node with its measured attributes. */
function node(
  id: number,
  name: string,
  cpu: boolean,
  durNs: number,
  delayNs: number,
  deps: number[],
  o: { ctrl?: number; launchOffsetNs?: number } = {},
): ChakraNode {
  const n = emptyNode(BigInt(id), name, 4);
  n.dataDeps = deps.map(BigInt);
  if (o.ctrl !== undefined) n.ctrlDeps = [BigInt(o.ctrl)];
  n.attrs = [
    makeAttr('is_cpu_op', 'bool_val', cpu),
    makeAttr(MEASURED_NODE_ATTRS.durationNs, 'int64_val', BigInt(durNs)),
    makeAttr(MEASURED_NODE_ATTRS.delayNs, 'int64_val', BigInt(delayNs)),
    ...(o.launchOffsetNs !== undefined
      ? [makeAttr(MEASURED_NODE_ATTRS.launchOffsetNs, 'int64_val', BigInt(o.launchOffsetNs))]
      : []),
  ];
  return n;
}

describe('replay --as-measured: the rule', () => {
  it('host chain, launch offset, stream order and a synchronisation; the iteration and the error', async () => {
    // Host: op 0 [5, 105) launches kernel 2 at its start + 30 (ready 35; +5 delay: starts 40, runs 200 → 240).
    // Host op 1 after op 0 (+10: 115) launches kernel 3 at +20 (ready 135) but kernel 3 follows kernel 2 in its
    // stream (240; +2 → 242, runs 100 → 342). Host op 4 waits for kernel 3 (a sync) and starts 7 after: 349, 1 ns.
    const nodes = [
      node(0, 'aten::mm', true, 100, 5, []),
      node(1, 'aten::add', true, 50, 10, [0]),
      node(2, 'gemm', false, 200, 5, [], { ctrl: 0, launchOffsetNs: 30 }),
      node(3, 'add_kernel', false, 100, 2, [2], { ctrl: 1, launchOffsetNs: 20 }),
      node(4, 'aten::item', true, 1, 7, [1, 3]),
    ];
    const meta = {
      version: '0.0.4',
      attrs: [
        makeAttr(MEASURED_META_ATTRS.iterationNs, 'int64_val', 350n),
        makeAttr(MEASURED_META_ATTRS.step, 'string_val', 'ProfilerStep#1'),
      ],
    };
    await writeTraceFile(path.join(dir, 'hand.0.et'), meta, nodes);
    const res = await replayFilesAsMeasured({
      trace: path.join(dir, 'hand'),
      power: await resolvePower('h100-cluster'),
    });
    const r = res.ranks[0]!;
    expect(r.finishNs).toBe(350);
    expect(r.measuredIterationNs).toBe(350);
    expect(r.errorPct).toBe(0);
    expect(r.gpuComputeNs).toBe(300); // [40, 240) and [242, 342)
    expect(res.worstErrorPct).toBe(0);
    // Energy on that timeline: compute = active power × kernel time; the parts add up.
    const p = await resolvePower('h100-cluster');
    expect(res.energyJ.compute).toBeCloseTo(p.gpu.activePowerW * 300e-9, 12);
    expect(res.energyJ.total).toBeCloseTo(
      res.energyJ.compute + res.energyJ.memory + res.energyJ.network + res.energyJ.idle,
      12,
    );
    // The text prints every part of the ledger, so that the parts printed add up to the total printed.
    const text = asMeasuredText(res);
    for (const part of ['compute', 'memory', 'communication', 'network', 'idle', 'host', 'total'])
      expect(text).toMatch(new RegExp(`\\n${part} +[0-9]`));
  });

  it('a trace without measured attributes is refused, naming the node and what writes them', async () => {
    const r = await cli(['replay', shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce'), '--as-measured']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /has no measured_duration_ns: replay --as-measured reads traces written by import pytorch or import kineto/,
    );
    const both = await cli([
      'replay',
      path.join(dir, 'hand'),
      '--as-measured',
      '--system',
      shipped('configs', 'sys_ring_example.json'),
    ]);
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--system does not apply/);
    const neither = await cli(['replay', path.join(dir, 'hand')]);
    expect(neither.code).toBe(2);
    expect(neither.err).toMatch(/give --system and --network .* or --as-measured/);
  });
});

describe('replay --as-measured on an imported run', () => {
  it("H200 GPT: the iteration as measured, and the nvidia-smi log's energy over it beside the estimate", async () => {
    const run = shipped('pytorch-real', 'h200-gpt');
    await importPytorch({ dir: run, out: path.join(dir, 'h200') });
    const r = await cli([
      'replay',
      path.join(dir, 'h200'),
      '--as-measured',
      '--power-log',
      path.join(run, 'nvidia-smi.csv'),
      '--json',
    ]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.ranks[0].finishNs).toBe(j.ranks[0].measuredIterationNs);
    const logged = j.powerLog.ranks[0];
    // The log reads 127–199 W while the model trains (pytorch-h200.test.ts): the iteration's mean power lies there.
    expect(logged.meanPowerW).toBeGreaterThan(125);
    expect(logged.meanPowerW).toBeLessThan(200);
    expect(logged.energyJ).toBeCloseTo(logged.meanPowerW * j.ranks[0].measuredIterationNs * 1e-9, 9);
    const text = await cli([
      'replay',
      path.join(dir, 'h200'),
      '--as-measured',
      '--power-log',
      path.join(run, 'nvidia-smi.csv'),
    ]);
    expect(text.out).toMatch(/measured\s+iteration/);
    expect(text.out.replace(/\n\s+/g, ' ')).toMatch(
      /logged energy: .*nvidia-smi\.csv \(GPU 0\), [\d.]+ J over the measured iteration, beside [\d.]+ J estimated/,
    );
  });

  it('a modelled replay of an imported trace sets the measured iteration beside its finish', async () => {
    await importPytorch({ dir: shipped('pytorch-real', 'dlrm'), out: path.join(dir, 'dlrm') });
    const args = [
      path.join(dir, 'dlrm'),
      '--system',
      shipped('configs', 'sys_ring_example.json'),
      '--network',
      shipped('configs', 'Switch_8npus.yml'),
      '--power',
      'v100-cluster',
    ];
    const text = await cli(['replay', ...args]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/measured beside modelled/);
    // rank 1 began the step first: start offset 0 (the column the replay adds when it starts ranks as they ran)
    expect(text.out).toMatch(/\n1\s+0\s+19901000\s+\d+/);
    const j = JSON.parse((await cli(['replay', ...args, '--json'])).out);
    expect(j.ranks.map((x: { measuredIterationNs: number }) => x.measuredIterationNs)).toEqual([
      14455000, 19901000, 13017000, 19313000, 17979000, 17797000, 13091000, 12509000,
    ]);
  });
});

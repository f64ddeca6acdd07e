/**
 * What annotate writes for the energy ledger (issue 24): each node's DRAM part (energy_memory_j), the power
 * configuration's idle power from the calibration's idle figure and its power while only communication runs; and
 * the guards: a clock outside the device's range refused, a profile of another device warned of, figures outside
 * the physics bounds counted and warned. Real RTX 8000 kernels (NV-DVFS-Benchmark) beside a few made-up rows that
 * break a bound on purpose.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { annotateTrace, COMM_ACTIVE_SHARE, type AnnotateResult } from '../../src/engines/annotate/index.js';
import { ANNOTATION_ATTRS, UTIL_PREFIX } from '../../src/vocab/attributes.js';
import { DURATION_SOURCE } from '../../src/engines/annotate/plan.js';
import { loadCalibration, type Calibration } from '../../src/engines/calibrate/index.js';
import { parsePowerConfig } from '../../src/formats/astra/index.js';
import {
  attrNumber,
  attrString,
  emptyNode,
  makeAttr,
  NodeType,
  readTraceFile,
  writeTraceFile,
  type ChakraNode,
} from '../../src/formats/chakra/index.js';
import { idlePowerAt } from '../../src/model/idle-power.js';
import { componentPowersAt, modelPower } from '../../src/model/model-power.js';
import { PHYSICS_CODES } from '../../src/model/physics-checks.js';
import { cli } from '../helpers/cli.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';

const F = 1710;
const PJ = 7;
const HEADER =
  'DRAMA,FP16A,FP32A,FP64A,SMACT,SMOCC,TENSO,argNo,average_power,benchmark,core_frequency,kernel,memory_frequency,time';
/** Made-up kernels at 1710 MHz: 300 W (above the 260 W cap), 20 W (below idle), and a 1 µs kernel. */
const SYNTH = [
  '0.5,0,0.5,0,0.9,0.5,0,input000,300,synth,1710,hot,6500,0.01',
  '0.1,0,0.1,0,0.9,0.5,0,input000,20,synth,1710,cold,6500,0.01',
  '0.1,0,0.5,0,0.9,0.5,0,input000,150,synth,1710,tiny,6500,0.001',
];

describeShared('annotate: the DRAM part, idle and communication power, physics bounds', () => {
  let cal: Calibration;
  let dir: string;
  let res: AnnotateResult;
  let nodes: ChakraNode[];
  const realProfile = shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv');
  let synthProfile: string;

  beforeAll(async () => {
    cal = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-physics-'));
    synthProfile = path.join(dir, 'rtx8000-synthetic.csv');
    await writeFile(synthProfile, `${[HEADER, ...SYNTH].join('\n')}\n`);
    const list: ChakraNode[] = [];
    const add = (name: string, attrs: ChakraNode['attrs'] = []) => {
      const n = emptyNode(BigInt(list.length), name, NodeType.COMP_NODE);
      if (list.length) n.dataDeps = [BigInt(list.length - 1)];
      n.durationMicros = 40n;
      n.attrs = [makeAttr('is_cpu_op', 'bool_val', false), ...attrs];
      list.push(n);
    };
    add('BlackScholes/BlackScholesGPU/input000');
    add('matrixMulCUDA');
    add('roof_compute', [
      makeAttr('num_ops', 'int64_val', 2_000_000_000),
      makeAttr('tensor_size', 'uint64_val', 50_000_000),
    ]);
    add('roof_memory', [
      makeAttr('num_ops', 'int64_val', 1_000_000),
      makeAttr('tensor_size', 'uint64_val', 4_000_000_000),
    ]);
    add('not_profiled');
    add('synth/hot/input000');
    add('synth/cold/input000');
    add('synth/tiny/input000', [makeAttr('num_ops', 'int64_val', 1e15)]);
    await writeTraceFile(
      path.join(dir, 't.0.et'),
      { version: '', attrs: [makeAttr('schema', 'string_val', '1.0.2-chakra.0.0.4')] },
      list,
    );
    res = await annotateTrace({
      trace: path.join(dir, 't'),
      out: path.join(dir, 'a'),
      calibration: cal,
      profiles: [realProfile, synthProfile],
      frequenciesMHz: [F],
      referenceClockMHz: F,
      power: { memoryPjPerBit: PJ },
      workers: 1,
    });
    nodes = (await readTraceFile(res.ranks[0]!.perFrequency[0]!.file)).nodes;
  });

  const node = (name: string) => nodes.find((n) => n.name === name)!;
  const num = (n: ChakraNode, a: string) => attrNumber(n, a)!;

  it(
    'energy_memory_j of a profiled kernel: the dram_active component β·u of its modelled power, as a share of ' +
      'its energy',
    () => {
      const n = node('BlackScholes/BlackScholesGPU/input000');
      expect(attrString(n, ANNOTATION_ATTRS.estimatedFrom)).toBe('profile');
      // The utilizations the node carries (util_<component>) are those its power was modelled at.
      const u = Object.fromEntries(cal.components.map((c) => [c, num(n, UTIL_PREFIX + c)]));
      const share = (componentPowersAt(cal, F).coefficientsW.dram_active! * u.dram_active!) / modelPower(cal, F, u);
      expect(share).toBeGreaterThan(0.001);
      expect(num(n, ANNOTATION_ATTRS.energyMemoryJ)).toBeCloseTo(num(n, ANNOTATION_ATTRS.energyJ) * share, 12);
    },
  );

  it(
    'energy_memory_j of a roofline node: tensor_size × the memory pJ/bit, at most energy_j; 0 for a duration ' +
      'estimate, counted',
    () => {
      for (const name of ['roof_compute', 'roof_memory']) {
        const n = node(name);
        expect(attrString(n, ANNOTATION_ATTRS.estimatedFrom)).toBe('roofline');
        const bytes = Number(n.attrs.find((a) => a.name === 'tensor_size')!.value);
        expect(num(n, ANNOTATION_ATTRS.energyMemoryJ), name).toBeCloseTo(
          Math.min(num(n, ANNOTATION_ATTRS.energyJ), bytes * 8 * PJ * 1e-12),
          15,
        );
      }
      const d = node('not_profiled');
      expect(attrString(d, ANNOTATION_ATTRS.estimatedFrom)).toBe(DURATION_SOURCE);
      expect(num(d, ANNOTATION_ATTRS.energyMemoryJ)).toBe(0);
      expect(res.total.memorySplitUnknown).toBe(1);
      // The sum is reported: Σ energy_memory_j ≤ Σ energy_j.
      const o = res.outputs[0]!;
      const sum = (a: string) => nodes.reduce((acc, x) => acc + (attrNumber(x, a) ?? 0), 0);
      expect(o.memoryEnergyJ).toBeCloseTo(sum(ANNOTATION_ATTRS.energyMemoryJ), 12);
      expect(o.computeEnergyJ).toBeCloseTo(sum(ANNOTATION_ATTRS.energyJ), 12);
    },
  );

  it(
    "power.json: idle from the calibration's idle figure at the clock (with its source), communication power " +
      'stated',
    () => {
      const o = res.outputs[0]!;
      const doc = JSON.parse(readFileSync(o.powerFile, 'utf8'));
      const p = parsePowerConfig(o.powerFile, JSON.stringify(doc));
      const idle = idlePowerAt(cal, F)!;
      expect(p.gpu.idlePowerW).toBe(Number(idle.powerW.toPrecision(6)));
      expect(p.gpu.idlePowerW).not.toBeCloseTo(componentPowersAt(cal, F).interceptW, 0);
      expect(p.gpu.idleSource).toContain(idle.how);
      expect(p.gpu.idleSource).toContain('Quadro RTX 8000 in P0');
      expect(p.gpu.commPowerW).toBeCloseTo(
        p.gpu.idlePowerW + COMM_ACTIVE_SHARE * (p.gpu.activePowerW - p.gpu.idlePowerW),
        3,
      );
      expect(doc.assumptions.join('\n')).toMatch(/gpu\.commPowerW: .* idle \+ 0\.3 × \(active − idle\)/);
      expect(o.commPowerW).toBe(p.gpu.commPowerW);
    },
  );

  it('a modelled node above the cap, below idle or below the best energy per FLOP is counted and warned, by code', () => {
    expect(res.total.physics).toEqual({ aboveCap: 1, belowIdle: 1, belowBestEnergyPerFlop: 1 });
    const d = (code: string) => res.diagnostics.find((x) => x.code === code)!;
    expect(d(PHYSICS_CODES.aboveCap).samples[0]!.message).toMatch(
      /synth\/hot\/input000: modelled power 300 W at 1710 MHz is above the calibration's power cap 260 W/,
    );
    expect(d(PHYSICS_CODES.belowIdle).samples[0]!.message).toMatch(
      /synth\/cold\/input000: modelled power 20 W at 1710 MHz is below the device's idle power there/,
    );
    expect(d(PHYSICS_CODES.belowBestEnergyPerFlop).samples[0]!.message).toMatch(
      /synth\/tiny\/input000: .* pJ\/FLOP at 1710 MHz is below the device's best/,
    );
  });

  it(
    'the CLI: a clock outside the range is refused with it; a profile of another device is warned of unless ' +
      '--device-mismatch ok',
    async () => {
      const trace = path.join(dir, 't');
      const base = [
        'annotate',
        trace,
        '--calibration',
        path.join(repoRoot, 'calibration', 'rtx8000.json'),
        '--out',
        path.join(dir, 'c'),
      ];
      for (const f of ['50', '99999']) {
        const r = await cli([...base, '--frequency', f]);
        expect(r.code, f).toBe(2);
        expect(r.err).toMatch(
          new RegExp(`target clock ${f} MHz is outside the SM clock range of Quadro RTX 8000, 705–1770 MHz`),
        );
      }
      const v100Named = path.join(dir, 'v100-profile.csv');
      await writeFile(v100Named, `${[HEADER, ...SYNTH].join('\n')}\n`);
      const warned = await cli([...base, '--profile', v100Named, '--frequency', '1710', '--workers', '1']);
      expect(warned.code).toBe(0);
      expect(warned.err).toMatch(
        /warning: device-mismatch ×1: DEVICE MISMATCH: profile .*v100-profile\.csv was recorded on "Tesla V100-PCIE", the calibration is for "Quadro RTX 8000" \(another GPU model\)/,
      );
      const quiet = await cli([
        ...base,
        '--profile',
        v100Named,
        '--frequency',
        '1710',
        '--workers',
        '1',
        '--device-mismatch',
        'ok',
      ]);
      expect(quiet.err).not.toMatch(/device-mismatch/);
      // The physics warnings reach the CLI's stderr, with their counts.
      expect(quiet.err).toMatch(/warning: node-power-above-cap ×1: synth\/hot/);
    },
  );

  it('sweep gpu refuses the same clocks, with the same message', async () => {
    const r = await cli([
      'sweep',
      'gpu',
      path.join(dir, 't'),
      '--calibration',
      path.join(repoRoot, 'calibration', 'h100-datasheet.json'),
      '--frequencies',
      '50,1980',
      '--system',
      path.join(repoRoot, 'traces', 'configs', 'sys_roofline.json'),
      '--network',
      path.join(repoRoot, 'traces', 'configs', 'Ring_4npus.yml'),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/target clock 50 MHz is outside the SM clock range of NVIDIA H100 SXM5, 210–1980 MHz/);
  });
});

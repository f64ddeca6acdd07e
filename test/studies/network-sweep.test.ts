/**
 * Network DVFS sweep on ASTRA-sim's shipped traces: the energy per dimension follows bytes × pJ/bit × (V(s)/V(1))²,
 * each point's makespan equals a plain replay with the bandwidth scaled in network.yml, makespans do not fall as
 * bandwidth drops, and the dominated / marginal figures match their definitions. The record renders in the report.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadNetworkConfig,
  loadSystemConfig,
  parsePowerConfig,
  type PowerConfig,
} from '../../src/formats/astra/index.js';
import { presetPath, replayFiles } from '../../src/engines/replay/index.js';
import { sweepNetwork, type NetworkSweepOutput } from '../../src/engines/studies/index.js';
import { buildReport, parseResults } from '../../src/report/index.js';
import { sweepNetworkCommand } from '../../src/cli/commands/sweep.js';
import { shipped } from '../helpers/traces.js';

let dir: string;
let power: PowerConfig;
const net2d = (bw0: number, bw1: number) =>
  `topology: [ Switch, Ring ]\nnpus_count: [ 4, 4 ]\nbandwidth: [ ${bw0}, ${bw1} ]\nlatency: [ 500.0, 1000.0 ]\n`;
const SCALES = [0.5, 0.6, 0.75, 0.9, 1];
const trace = shipped('astra-sim', 'all_reduce', '16npus_1MB', 'all_reduce');
const system = shipped('configs', 'sys2d_ring_pure.json');

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-sweep-net-'));
  power = parsePowerConfig('h100', await readFile(presetPath('h100-cluster'), 'utf8'));
  await writeFile(path.join(dir, 'net.yml'), net2d(400, 50));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each([0, 1])('all-reduce, 16 NPUs on Switch(4)×Ring(4), sweeping dimension %i', (dim) => {
  let res: NetworkSweepOutput;
  beforeAll(async () => {
    res = await sweepNetwork({
      label: 'test',
      trace: { kind: 'files', trace },
      system: await loadSystemConfig(system),
      network: await loadNetworkConfig(path.join(dir, 'net.yml')),
      power,
      dimension: dim,
      scales: SCALES,
      threads: 1,
    });
  });

  it('network energy per dimension = bytes × 8 × pJ/bit × (V(s)/V(1))² on the swept one, unchanged on the other', async () => {
    const nominal = await replayFiles({ trace, system, network: path.join(dir, 'net.yml'), power: 'h100-cluster' });
    expect(nominal.bytesSentPerDim.every((b) => b > 0)).toBe(true);
    for (const p of res.record.points) {
      const v = 0.6 + 0.4 * p.scale; // the documented default curve
      p.networkByDimensionJ.forEach((j, d) => {
        const pj = power.network[d].energyPjPerBit * (d === dim ? v * v : 1);
        expect(j).toBeCloseTo(nominal.bytesSentPerDim[d] * 8 * pj * 1e-12, 15);
      });
      expect(p.networkByDimensionJ.reduce((a, b) => a + b, 0)).toBeCloseTo(p.energyJ.network, 15);
      expect(p.energyPerBitPJ).toBeCloseTo(power.network[dim].energyPjPerBit * v * v, 12);
      expect(p.voltageRatio).toBeCloseTo(v, 12);
    }
  });

  it('each point replays like network.yml with the bandwidth scaled', async () => {
    for (const p of res.record.points) {
      const f = path.join(dir, `net-${dim}-${p.scale}.yml`);
      await writeFile(f, net2d(dim === 0 ? 400 * p.scale : 400, dim === 1 ? 50 * p.scale : 50));
      const r = await replayFiles({ trace, system, network: f, power: 'h100-cluster' });
      expect(p.makespanNs).toBe(r.makespanNs);
      expect(p.bandwidthGBps).toBeCloseTo((dim === 0 ? 400 : 50) * p.scale, 9);
    }
  });

  it('makespan does not fall as the bandwidth drops, and rises over the sweep', () => {
    const pts = res.record.points;
    expect(pts.map((p) => p.scale)).toEqual(SCALES);
    for (let i = 1; i < pts.length; i++) expect(pts[i - 1].makespanNs).toBeGreaterThanOrEqual(pts[i].makespanNs);
    expect(pts[0].makespanNs).toBeGreaterThan(pts.at(-1)!.makespanNs);
  });

  it('marks dominated points and marginal efficiency by their definitions', () => {
    const pts = res.record.points;
    const te = pts.map((p) => ({ t: p.makespanNs * 1e-9, e: p.energyJ.total }));
    pts.forEach((p, i) => {
      const dominated = te.some(
        (q, j) => j !== i && q.t <= te[i].t && q.e <= te[i].e && (q.t < te[i].t || q.e < te[i].e),
      );
      expect(p.dominated).toBe(dominated);
      if (i === pts.length - 1) {
        expect(p.marginal).toBeNull();
        return;
      }
      const m = p.marginal!;
      expect(m.fromScale).toBe(pts[i + 1].scale);
      const dE = te[i].e - te[i + 1].e;
      const dT = te[i].t - te[i + 1].t;
      expect(m.deltaEnergyJ).toBeCloseTo(dE, 12);
      expect(m.deltaTimeS).toBeCloseTo(dT, 15);
      if (dT === 0) expect(m.energyPerTimeW).toBeNull();
      else expect(m.energyPerTimeW!).toBeCloseTo(dE / dT, 6);
      if (dT > 0) expect(m.energySavedPctPerSlowdownPct!).toBeCloseTo(-dE / te[i + 1].e / (dT / te[i + 1].t), 9);
    });
  });

  it('is a valid network-sweep record and renders in the report', async () => {
    const [r] = parseResults(JSON.parse(JSON.stringify(res.record)), 'sweep.json');
    expect(r.kind).toBe('network-sweep');
    const html = await buildReport([r]);
    expect(html).toContain('<svg');
    expect(html).toContain(res.record.label);
  });
});

describe('sweep network command', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return {
      out,
      err,
      io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), isTTY: false },
    };
  };
  const base = {
    system: shipped('configs', 'sys_ring_example.json'),
    network: shipped('configs', 'Ring_4npus.yml'),
    powerConfig: 'h100-cluster',
    dimension: 0,
    scale: '0.5:1:0.25',
  };

  it('prints JSON, CSV and a table with one row per scale', async () => {
    const t4 = shipped('astra-sim', 'all_gather', '4npus_1MB', 'all_gather');
    const a = io();
    expect(await sweepNetworkCommand.run([t4], { ...base, json: true, threads: 1 }, a.io)).toBe(0);
    const rec = JSON.parse(a.out.join(''));
    expect(rec.points.map((p: { scale: number }) => p.scale)).toEqual([0.5, 0.75, 1]);
    const b = io();
    await sweepNetworkCommand.run([t4], { ...base, csv: true, threads: 1 }, b.io);
    const lines = b.out.join('').trim().split('\n');
    expect(lines.length).toBe(4);
    expect(lines[0].split(',')).toContain('energySavedPctPerSlowdownPct');
    // CSV to 12 significant digits: the makespan column is the record's makespanNs in ms.
    const header = lines[0].split(',');
    expect(Number(lines[1].split(',')[header.indexOf('makespanMs')])).toBe(
      Number((rec.points[0].makespanNs / 1e6).toPrecision(12)),
    );
    const c = io();
    await sweepNetworkCommand.run([t4], { ...base, threads: 1 }, c.io);
    // Fitted to 100 columns: wrapped headers over a rule, rows in blocks that each start with the scale.
    const table = c.out.join('');
    const lines100 = table.split('\n');
    expect(Math.max(...lines100.slice(1).map((l) => l.length))).toBeLessThanOrEqual(100); // after the title line
    expect(table).toMatch(/makespan/);
    expect(table).toMatch(/dominated/);
    const firstBlock = table.split('\n\n')[0]!.split('\n');
    const rule = firstBlock.findIndex((l) => /^-+ /.test(l));
    expect(firstBlock.slice(rule + 1, rule + 4).map((l) => l.trim().split(/\s+/)[0])).toEqual(['0.5', '0.75', '1']);
    const d = io();
    await sweepNetworkCommand.run([t4], { ...base, threads: 1, wide: true }, d.io);
    const wide = d.out.join('').split('\n');
    expect(wide[1]!.split(/\s{2,}/)).toEqual(expect.arrayContaining(['scale', 'makespan (ms)', 'dominated']));
    expect(wide.slice(3, 6).map((l) => l.trim().split(/\s+/)[0])).toEqual(['0.5', '0.75', '1']);
  });

  it('rejects a dimension the network does not have and a scale outside the V–f curve', async () => {
    const t4 = shipped('astra-sim', 'all_gather', '4npus_1MB', 'all_gather');
    await expect(sweepNetworkCommand.run([t4], { ...base, dimension: 1 }, io().io)).rejects.toThrow(/--dimension 1/);
    await expect(sweepNetworkCommand.run([t4], { ...base, scale: '0.1,1' }, io().io)).rejects.toThrow(
      /outside the V–f curve/,
    );
  });
});

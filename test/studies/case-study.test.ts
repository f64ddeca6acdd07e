/**
 * The LLaMA-2-70B case study end to end on a reduced iteration (sequences of 512 tokens, a global batch of 64,
 * network scales 0.5 and 1.25, SM clocks 1380 and 1980 MHz): both layouts put traffic on the scale-out ring, the
 * full batch is an exact linear extrapolation, the shares are ratios of the nominal breakdown, the V–f rule holds,
 * the GPU knob uses the calibration's energies (not a fixed power), the best point is flagged at the range's
 * edge, and the command writes results that validate and a report with its five plots.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaseStudy, type CaseStudyOutput } from '../../src/engines/studies/index.js';
import { caseStudyCommand } from '../../src/cli/commands/case-study.js';
import { loadResults } from '../../src/report/index.js';

let dir: string;
let cs: CaseStudyOutput;
const small = { globalBatch: 64, seqLen: 512, scales: [0.5, 1.25], clocksMHz: [1380], threads: 1, map: false as const };
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-case-'));
  cs = await runCaseStudy(small);
}, 300_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const layout = (name: string) => cs.record.layouts.find((l) => l.name === name)!;
const knob = (name: string, id: string) => layout(name).knobs.find((k) => k.id === id)!;

describe('case study llama2-70b (reduced)', () => {
  it('has TP 8 × DP 4 and TP 8 × PP 4, both with traffic on the scale-out ring, at the whole global batch', () => {
    expect(cs.record.layouts.map((l) => [l.name, l.microBatches])).toEqual([
      ['TP 8 × DP 4', 16],
      ['TP 8 × PP 4', 64],
    ]);
    for (const l of cs.record.layouts) {
      expect(l.nominal.bytesSentPerDimGB[0]).toBeGreaterThan(0);
      expect(l.nominal.bytesSentPerDimGB[1]).toBeGreaterThan(0);
    }
    // The data-parallel gradient all-reduce puts far more bytes on the ring than the pipeline's sends.
    expect(layout('TP 8 × DP 4').nominal.bytesSentPerDimGB[1]).toBeGreaterThan(
      layout('TP 8 × PP 4').nominal.bytesSentPerDimGB[1],
    );
  });

  it('extrapolates linearly in the micro-batch count, exactly (checked against a third replay)', () => {
    for (const l of cs.record.layouts) {
      expect(Math.abs(l.extrapolation.makespanErrorPct), l.name).toBeLessThan(1e-6);
      expect(Math.abs(l.extrapolation.energyErrorPct), l.name).toBeLessThan(1e-6);
    }
  });

  it('shares are the ratios of the nominal breakdown', () => {
    for (const l of cs.record.layouts) {
      const e = l.nominal.energyJ;
      expect(l.nominal.shares.networkEnergy).toBeCloseTo(e.network / e.total, 12);
      expect(l.nominal.shares.idleEnergy).toBeCloseTo(e.idle / e.total, 12);
      expect(l.nominal.shares.communicationEnergy).toBeCloseTo(e.communication / e.total, 12);
      expect(l.nominal.shares.hiddenCommunication + l.nominal.shares.exposedCommunication).toBeCloseTo(1, 12);
      expect(l.nominal.shares.scaleOutEnergy).toBeCloseTo(l.nominal.networkByDimensionJ[1]! / e.total, 12);
      expect(e.compute + e.memory + e.communication + e.network + e.idle + e.host).toBeCloseTo(e.total, 3);
    }
  });

  it(
    'scale-out energy at s = 0.5 is nominal × 0.8² (same bytes), scale-up energy unchanged, and the point is ' +
      'slower',
    () => {
      for (const l of cs.record.layouts) {
        const k = l.knobs.find((x) => x.id === 'scale-out')!;
        const [low, nominal] = k.points;
        expect([low!.setting, nominal!.setting]).toEqual([0.5, 1]);
        expect(low!.networkByDimensionJ[1]! / nominal!.networkByDimensionJ[1]!).toBeCloseTo(0.64, 9);
        expect(low!.networkByDimensionJ[0]).toBeCloseTo(nominal!.networkByDimensionJ[0]!, 6);
        expect(low!.timeChangePct).toBeGreaterThan(0);
        expect(low!.energySavedPctPerSlowdownPct).toBeCloseTo(-low!.energyChangePct / low!.timeChangePct, 12);
        expect(nominal!.energyChangeBandPct).toEqual([0, 0]);
      }
    },
  );

  it(
    'the GPU knob takes kernel energies from the calibration: lower clocks change compute energy, not at a fixed ' +
      'power',
    () => {
      const k = knob('TP 8 × PP 4', 'gpu-clock');
      expect(k.points.map((p) => p.setting)).toEqual([1380, 1980]);
      const [slow, fast] = k.points;
      expect(slow!.timeChangePct).toBeGreaterThan(0);
      // A fixed active power would give compute energy ∝ busy time: more at the slower clock. The datasheet V–f model
      // saves.
      expect(slow!.energyJ.compute).toBeLessThan(fast!.energyJ.compute);
      expect(slow!.energyChangeBandPct[0]).toBeLessThan(slow!.energyChangePct);
      expect(slow!.energyChangeBandPct[1]).toBeGreaterThan(slow!.energyChangePct);
      expect(cs.record.system.join('\n')).toMatch(/h100-datasheet\.json \(datasheet defaults, not fitted\)/);
    },
  );

  it('flags a best point at the edge of the range and says so in the finding', () => {
    for (const l of cs.record.layouts) {
      for (const k of l.knobs) {
        const lowest = k.points.reduce((a, p) => (p.energyJ.total < a.energyJ.total ? p : a));
        expect(k.best.setting).toBe(lowest.setting);
        const edge =
          lowest.setting === k.nominalSetting
            ? null
            : lowest === k.points[k.points.length - 1]
              ? 'top'
              : lowest === k.points[0]
                ? 'bottom'
                : null;
        expect(k.best.atEdge, `${l.name} ${k.name}`).toBe(edge);
        if (edge) expect(l.finding).toContain(`the ${edge} of the range swept`);
      }
      const so = l.knobs.find((k) => k.id === 'scale-out')!;
      expect(l.reproducesPoster).toBe(so.best.setting > 1 && so.best.energyChangePct < 0);
      expect(l.finding).toMatch(
        l.reproducesPoster ? /reproduces the poster's finding/ : /does not reproduce the poster's finding/,
      );
      expect(l.finding).toContain(`${(100 * l.nominal.shares.communicationEnergy).toFixed(1)} %`);
    }
  });

  it('the command writes results that validate, a report with its five plots, and text within 100 columns', async () => {
    const out = path.join(dir, 'cs');
    const lines: string[] = [];
    const code = await caseStudyCommand.run(
      ['llama2-70b'],
      { out, globalBatch: '64', seq: '512', scale: '0.5,1.25', clocks: '1380', threads: '1', map: false },
      { out: (t) => void lines.push(t), err: () => undefined, isTTY: false },
    );
    expect(code).toBe(0);
    const results = await loadResults([path.join(out, 'results.json')]);
    expect(results.map((r) => r.kind)).toEqual(['case-study']);
    const html = await readFile(path.join(out, 'report.html'), 'utf8');
    const plots = [...html.matchAll(/data-plot="([^"]+)"/g)].map((m) => m[1]);
    expect(plots).toEqual(['case-knobs', 'case-shares', 'case-clock-front', 'case-network', 'case-ranks']);
    // A takeaway above every plot but the first, whose sentence is the page's headline.
    expect(html.match(/<p class="takeaway">/g)).toHaveLength(4);
    expect(html).toMatch(/<p class="headline">[^<]+ is the knob that matters: /);
    const text = lines.join('');
    // Every line but the two naming the files written (their length is the folder's).
    const body = text.split('\n').filter((l) => !l.startsWith('wrote '));
    expect(Math.max(...body.map((l) => [...l].length))).toBeLessThanOrEqual(100);
    expect(text).toMatch(/reproduce/);
    // The terms of the table are defined under it; a wrapped line never starts with a number's unit.
    expect(text).toContain('\nDefinitions:\n');
    expect(text).toMatch(/- Marginal efficiency: ΔE\/ΔT \(J\/s = W[^)]*\) and the energy saved per 1 %\s+slowdown/);
    expect(body.filter((l) => /^\s*%/.test(l))).toEqual([]);
  }, 300_000);

  it('--csv prints the knob table of both layouts, every number header with its unit, and no report text', async () => {
    const lines: string[] = [];
    const code = await caseStudyCommand.run(
      ['llama2-70b'],
      {
        out: path.join(dir, 'cs-csv'),
        globalBatch: '64',
        seq: '512',
        scale: '0.5,1.25',
        clocks: '1380',
        threads: '1',
        map: false,
        csv: true,
      },
      { out: (t) => void lines.push(t), err: () => undefined, isTTY: false },
    );
    expect(code).toBe(0);
    const [header, ...rows] = lines.join('').trimEnd().split('\n');
    expect(header).toBe(
      'layout,knob,setting,deltaTPct,deltaEPct,deltaEBandLoPct,deltaEBandHiPct,savedSlowdownPctPerPct,deltaEDeltaTW,note',
    );
    // 2 layouts × (scale-out 3 + scale-up 3 + GPU clock 2) settings.
    expect(rows).toHaveLength(16);
    expect(rows.filter((r) => r.endsWith(',nominal'))).toHaveLength(6);
    for (const r of rows) expect(r).toMatch(/^TP 8 × (DP|PP) 4,/);
    // Numbers at most 12 significant digits (no 15.999999999999998).
    for (const x of rows.join(',').match(/-?\d+\.\d+/g) ?? [])
      expect(x.replace(/^-?0\.0*|[-.]/g, '').length).toBeLessThanOrEqual(12);
  }, 300_000);

  it('rejects an unknown case study', async () => {
    await expect(
      caseStudyCommand.run(['gpt4'], {}, { out: () => undefined, err: () => undefined, isTTY: false }),
    ).rejects.toThrow(/llama2-70b/);
  });
});

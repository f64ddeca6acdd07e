/**
 * Issue 30, bands: 10–90 % bands honest on a GPU they were not fitted on. The band parameters (held-out inflation)
 * are fitted on one GPU's microbenchmarks; the GPU under test contributes only its own calibration's
 * leave-one-benchmark-out residual tables, each benchmark judged by a band made without its residuals; the 20 real
 * RTX 8000 kernels are judged by the calibration fitted on all RTX 8000 microbenchmarks. Each kernel is profiled
 * once at its highest clock. The coverage table is the one docs/accuracy.md prints.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { readProfile } from '../../src/formats/profiles/index.js';
import { readCalibrateInput, type CalibrateInput } from '../../src/engines/calibrate/calibrate.js';
import { collectResiduals, type ResidualSet } from '../../src/engines/calibrate/uncertainty.js';
import {
  transferAccuracy,
  transferFromResiduals,
  type TransferAccuracy,
} from '../../src/engines/calibrate/accuracy-transfer.js';
import type { ProfileTable } from '../../src/vocab/kernel-sample.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';

const nv = (f: string) => shared('profiles/nv-dvfs-benchmark', f);

/**
 * One row of the coverage table: band parameters from → GPU under test, kernels judged, clock, time / energy in band
 * (%).
 */
interface CoverageRow {
  from: string;
  to: string;
  judged: string;
  clockMHz: number;
  timePct: number;
  energyPct: number;
}

function rows(from: string, to: string, r: TransferAccuracy): CoverageRow[] {
  const sets = [r.leftOutBenchmarks, ...(r.heldOut ? [{ ...r.heldOut, label: 'real kernels' }] : [])];
  return sets.flatMap((s) =>
    s.frequencies.map((x) => ({
      from,
      to,
      judged: s.label,
      clockMHz: x.frequencyMHz,
      timePct: Math.round(x.timeCoveragePct!),
      energyPct: Math.round(x.energyCoveragePct!),
    })),
  );
}

/** The GPUs' highest clocks: the target holds at every clock ≥ half of it. */
const TOP: Record<string, number> = { 'RTX 8000': 1710, V100: 1380 };
const inTarget = (r: CoverageRow) => r.clockMHz >= TOP[r.to]! / 2;

describeShared('10–90 % bands on a GPU they were not fitted on (leave one GPU out)', () => {
  let rtx: CalibrateInput;
  let v100: CalibrateInput;
  let real: ProfileTable;
  let rtxSet: ResidualSet;
  let v100Set: ResidualSet;
  let table: CoverageRow[];
  let results: { from: string; to: string; r: TransferAccuracy }[];
  beforeAll(async () => {
    rtx = await readCalibrateInput(nv('rtx8000-dvfs-microbenchmark-profile.csv'));
    v100 = await readCalibrateInput(nv('v100-dvfs-microbenchmark-profile.csv'));
    real = await readProfile(nv('rtx8000-dvfs-real-profile.csv'));
    rtxSet = collectResiduals([rtx])!;
    v100Set = collectResiduals([v100])!;
    results = [
      { from: 'RTX 8000', to: 'V100', r: transferFromResiduals(rtxSet, v100Set, [v100], null) },
      { from: 'V100', to: 'RTX 8000', r: transferFromResiduals(v100Set, rtxSet, [rtx], real) },
      { from: 'V100', to: 'V100', r: transferFromResiduals(v100Set, v100Set, [v100], null) },
      { from: 'RTX 8000', to: 'RTX 8000', r: transferFromResiduals(rtxSet, rtxSet, [rtx], real) },
    ];
    table = results.flatMap((x) => rows(x.from, x.to, x.r));
  }, 300_000);

  const check = (r: CoverageRow) => {
    const at = `${r.from} → ${r.to} ${r.judged} ${r.clockMHz} MHz`;
    expect(r.timePct, `${at} time`).toBeGreaterThanOrEqual(70);
    expect(r.timePct, `${at} time`).toBeLessThanOrEqual(90);
    expect(r.energyPct, `${at} energy`).toBeGreaterThanOrEqual(70);
    expect(r.energyPct, `${at} energy`).toBeLessThanOrEqual(90);
  };

  it(
    'every GPU left out in turn: 70–90 % of the measured times and energies in their band at every clock ≥ 0.5× ' +
      'the profiled one',
    () => {
      const left = table.filter((r) => r.from !== r.to && inTarget(r));
      expect(left.filter((r) => r.to === 'V100')).toHaveLength(6);
      expect(left.filter((r) => r.to === 'RTX 8000')).toHaveLength(16);
      // Reached: RTX 8000 → V100 78–86 % (86 / 86 at 705 MHz, where half the kernels cross the memory ceiling);
      // V100 → RTX 8000 microbenchmarks 71–81 %, real kernels 75–90 %.
      for (const r of left) check(r);
    },
  );

  it("the GPU's own band model judged the same way: 70–90 % at every clock ≥ 0.5× the profiled one", () => {
    for (const r of table.filter((x) => x.from === x.to && inTarget(x))) check(r);
  });

  /** Coverage (%) of the left-out benchmarks' predictions at the target clocks whose regime names `part`. */
  const regimeCoverage = (from: string, to: string, part: string) => {
    const ks = results
      .find((x) => x.from === from && x.to === to)!
      .r.leftOutBenchmarks.kernelRegimes.filter((k) => k.regime.includes(part) && k.frequencyMHz >= TOP[to]! / 2);
    return {
      n: ks.length,
      timePct: (100 * ks.filter((k) => k.timeInBand).length) / ks.length,
      energyPct: (100 * ks.filter((k) => k.energyInBand).length) / ks.length,
    };
  };

  it(
    'kernels that cross the memory ceiling are judged by a band learned from those that did (V100), not one that ' +
      'holds them all',
    () => {
      // Reached: 82 % / 85 % of 114 predictions at 705–1237 MHz (the clock-bound reach held 89–100 %).
      for (const from of ['RTX 8000', 'V100']) {
        const c = regimeCoverage(from, 'V100', 'memory ceiling');
        expect(c.n).toBeGreaterThan(100);
        for (const v of [c.timePct, c.energyPct])
          expect(v, `${from} → V100`).toBeGreaterThanOrEqual(70), expect(v, `${from} → V100`).toBeLessThanOrEqual(90);
      }
    },
  );

  it(
    'kernels beyond the calibration set in counter space are no longer under-covered (RTX 8000: energy 40 % ' +
      'before)',
    () => {
      // Three of the six read half their 1605 MHz power at the profiled 1710 MHz: `power unexplained`, whose power
      // and energy bands reach the power model's figure. Reached: time 81 %, energy 100 % of 48 predictions.
      for (const from of ['RTX 8000', 'V100']) {
        const c = regimeCoverage(from, 'RTX 8000', 'counters beyond');
        expect(c.n).toBe(48);
        expect(c.timePct).toBeGreaterThanOrEqual(70);
        expect(c.energyPct).toBeGreaterThanOrEqual(70);
        expect(regimeCoverage(from, 'RTX 8000', 'power unexplained').n).toBeGreaterThan(0);
      }
    },
  );

  it('docs/accuracy.md prints this table', async () => {
    const doc = await readFile(path.join(repoRoot, 'docs', 'accuracy.md'), 'utf8');
    const printed = doc
      .split('\n')
      .map((l) =>
        /^\| (RTX 8000|V100) \| (RTX 8000|V100) \| ([a-z -]+) \| (\d+) \| [\d.]+ \| (\d+) \| (\d+) \|/.exec(l),
      )
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({
        from: m[1]!,
        to: m[2]!,
        judged: m[3]!,
        clockMHz: Number(m[4]),
        timePct: Number(m[5]),
        energyPct: Number(m[6]),
      }));
    expect(printed).toEqual(table.filter(inTarget));
  });

  it('a profile without kernel times (gpmTOOL Titan X) cannot judge time or energy bands, and says so', () => {
    // Checked through the library entry: the Titan X set has power and utilizations at 64 clock pairs, no times.
    return readCalibrateInput(shared('profiles/guerreiro-gpmtool/titanx_real_allFsPower_HPCAandCF.csv')).then(
      (titan) => {
        expect(() => transferAccuracy([rtx], [titan], null)).toThrow(
          /titanx_real_allFsPower_HPCAandCF\.csv: fewer than two benchmarks with kernels timed.*cannot judge time or energy bands/,
        );
        expect(() => transferAccuracy([titan], [rtx], null)).toThrow(/--bands-from: .*titanx/);
      },
    );
  });
});

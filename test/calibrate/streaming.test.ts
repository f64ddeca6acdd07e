/**
 * Profiles stream into the models (issue 14): readProfileMerged averages repeats of a kernel at one clock while the
 * file is read, so memory follows kernels × clocks, not rows. The merged read must give the models exactly what
 * every row gives them: the same calibration, predictions and accuracy tables, to the last bit. (Time and memory
 * on a 300,000-row profile are measured by scripts/bench-csv.mjs, not here.)
 */
import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { readProfile } from '../../src/formats/profiles/index.js';
import { fitCalibration, readProfileMerged, sha256File } from '../../src/engines/calibrate/calibrate.js';
import { accuracy } from '../../src/engines/calibrate/accuracy.js';
import { predictProfile } from '../../src/engines/calibrate/predict.js';
import { describeLocations, groupKernels, KernelGrouper } from '../../src/model/kernels.js';
import type { ProfileTable } from '../../src/vocab/kernel-sample.js';
import { describeShared, shared } from '../helpers/shared.js';
import { tmpFile } from '../profiles/helpers.js';

/** The real file with its data rows repeated `times` times, each repeat's numbers nudged so repeats really average. */
function repeated(file: string, times: number): string {
  const [head, ...rows] = readFileSync(file, 'utf8').trimEnd().split('\n');
  const out = [head];
  for (let k = 0; k < times; k++)
    for (const r of rows)
      out.push(
        k === 0 ? r : r.replace(/,(\d+\.\d+)$/, (_, t: string) => `,${(Number(t) * (1 + 0.01 * k)).toFixed(6)}`),
      );
  return `${out.join('\n')}\n`;
}

describeShared('merged profile reads give the models what every row gives them', () => {
  const micro = shared('profiles/nv-dvfs-benchmark/rtx8000-dvfs-microbenchmark-profile.csv');
  const real = shared('profiles/nv-dvfs-benchmark/rtx8000-dvfs-real-profile.csv');
  let microX3: string;
  let realX5: string;
  let all: ProfileTable;
  let merged: ProfileTable;
  beforeAll(async () => {
    microX3 = tmpFile('micro-x3.csv', repeated(micro, 3));
    realX5 = tmpFile('real-x5.csv', repeated(real, 5));
    all = await readProfile(realX5);
    merged = await readProfileMerged(realX5);
  });

  it('keeps one sample per kernel and clock, and counts the rows', () => {
    expect(all.samples).toHaveLength(1000);
    expect(merged.rows).toBe(1000);
    expect(merged.samples).toHaveLength(200);
    expect(merged.notes).toContain(
      '1000 rows read as 200 samples: repeats of a kernel at one SM clock averaged, as the models do',
    );
    // The same points to the last bit; a merged point stands for its rows with its first one.
    expect(groupKernels(merged.samples)).toEqual(
      groupKernels(all.samples).map((s) => ({
        ...s,
        points: s.points.map((p) => ({ ...p, count: 1, sources: p.sources.slice(0, 1) })),
      })),
    );
  });

  it('calibrate, predict and accuracy: identical results', async () => {
    const sha256 = await sha256File(microX3);
    const a = fitCalibration([{ file: microX3, sha256, table: await readProfile(microX3) }]).calibration;
    const mergedMicro = await readProfileMerged(microX3);
    const b = fitCalibration([{ file: microX3, sha256, table: mergedMicro }]).calibration;
    expect(b.provenance.inputs[0]!.rows).toBe(a.provenance.inputs[0]!.rows);
    // The sanity examples list rows: every row of a point, or its first one.
    const strip = (c: typeof a) => ({
      ...c,
      provenance: { ...c.provenance, createdAt: '' },
      sanity: c.sanity.map((f) => ({ code: f.code, count: f.count })),
    });
    expect(strip(b)).toEqual(strip(a));
    const opts = { referenceClocksMHz: [1710], targetClocksMHz: 'all' as const };
    expect(predictProfile(a, merged, opts)).toEqual(predictProfile(a, all, opts));
    expect(accuracy(a, merged, { referenceClocksMHz: [1710], label: 'x' })).toEqual(
      accuracy(a, all, { referenceClocksMHz: [1710], label: 'x' }),
    );
  });
});

it('describeLocations is linear: 200,000 rows of one file in one pass', () => {
  const locs = Array.from({ length: 200_000 }, (_, i) => ({ file: 'a.csv', row: i + 2 }));
  expect(describeLocations(locs)).toBe('a.csv: rows 2, 3, 4, … (200000 rows)');
  const g = new KernelGrouper(undefined, { keepSources: 1 });
  for (const l of locs)
    g.add({
      kernelName: 'k',
      invocation: null,
      smClockMHz: 1000,
      memClockMHz: null,
      durationNs: 1,
      powerW: 1,
      energyJ: null,
      utilization: {},
      source: { ...l, format: 'x' },
    });
  expect(g.series()[0]!.points[0]!.sources).toHaveLength(1);
  expect(g.series()[0]!.points[0]!.count).toBe(200_000);
});

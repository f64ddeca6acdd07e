/**
 * Issue 18: band coverage and advice reach the HTML report. `accuracy --json` on the 20 real RTX 8000 kernels
 * profiled at 1710 MHz (../shared) gives timeCoveragePct / energyCoveragePct per clock; the report shows them
 * beside the errors, and the advice under the table.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { buildReport, parseResults } from '../../src/report/index.js';
import { cli } from '../helpers/cli.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';

describeShared('accuracy band coverage in the HTML report (RTX 8000 real kernels)', () => {
  it('coverage columns per clock and the advice; files without coverage show neither', async () => {
    const t = await cli([
      'accuracy',
      '--calibration',
      path.join(repoRoot, 'calibration', 'rtx8000.json'),
      '--profile',
      shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'),
      '--reference-frequency',
      '1710',
      '--json',
    ]);
    expect(t.code).toBe(0);
    const json = JSON.parse(t.out);
    const [r] = parseResults(json, 'accuracy.json');
    const html = await buildReport([r!]);
    expect(html).toMatch(
      /<th class="num">time in 10–90 % band \(%\)<\/th><th class="num">energy in 10–90 % band \(%\)<\/th>/,
    );
    // One row per clock, the coverage as the JSON gives it.
    const f705 = json.frequencies.find((x: { frequencyMHz: number }) => x.frequencyMHz === 705);
    expect(html).toMatch(
      new RegExp(
        `<td class="num">705</td>(<td class="num">[^<]*</td>){4}<td class="num">${f705.timeCoveragePct}` +
          `</td><td class="num">${f705.energyCoveragePct}</td>`,
      ),
    );
    expect(html).toMatch(/<p>Advice: profile these 5 kernels at \d+ MHz too to cut the total's widest energy band/);
    for (const row of json.frequencies) delete row.timeCoveragePct, delete row.energyCoveragePct;
    delete json.advice;
    const plain = await buildReport(parseResults(json, 'accuracy.json'));
    expect(plain).not.toMatch(/in 10–90 % band|Advice:/);
    json.frequencies[0].timeCoveragePct = 'x';
    expect(() => parseResults(json, 'accuracy.json')).toThrow(/frequencies\[0\]\.timeCoveragePct/);
  });
});

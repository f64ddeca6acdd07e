/**
 * One decimal separator per file (issue 14): "163,05" → 163.05 but "163,052" → 163052 and "1,004" → 1004 made
 * `predict` on a profile written with three-decimal commas print 1149.6 ms and 153,242.7 W instead of 1.149 ms and
 * 153.3 W, exit 0, no note. Real profiles rewritten with decimal commas must read as the originals (rounded as
 * written).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNumberCell, readProfile } from '../../src/formats/profiles/index.js';
import { cliArgs as cli } from '../helpers/cli.js';
import { describeShared, shared } from '../helpers/shared.js';
import { expectFormatError, fixture, tmpFile } from './helpers.js';

/** The CSV with every decimal number rewritten with `decimals` digits and a decimal comma (quoted: "163,052"). */
function withDecimalCommas(text: string, decimals: number): string {
  return text
    .split(/\r?\n/)
    .map((line, i) =>
      i === 0
        ? line
        : line
            .split(',')
            .map((c) => (/^-?\d+\.\d+$/.test(c) ? `"${Number(c).toFixed(decimals).replace('.', ',')}"` : c))
            .join(','),
    )
    .join('\n');
}
/** The same numbers, written with a decimal point and `decimals` digits: what the comma file must read as. */
function rounded(text: string, decimals: number): string {
  return text
    .split(/\r?\n/)
    .map((line, i) =>
      i === 0
        ? line
        : line
            .split(',')
            .map((c) => (/^-?\d+\.\d+$/.test(c) ? Number(c).toFixed(decimals) : c))
            .join(','),
    )
    .join('\n');
}

describe('one decimal rule per file', () => {
  it('reads cells alone only when they tell: "1,004" alone is NaN, never 1004', () => {
    expect(parseNumberCell('163,05')).toBe(163.05);
    expect(parseNumberCell('1,234.5')).toBe(1234.5);
    expect(parseNumberCell('1.234,5')).toBe(1234.5);
    expect(parseNumberCell('1,004')).toBeNaN();
    expect(parseNumberCell('163,052')).toBeNaN();
  });

  it('reads a real profile written with three-decimal commas as the same numbers, and says so in a note', async () => {
    const src = readFileSync(fixture('accel-sim__accel-sim-framework__hw_power_validation_volta.csv'), 'utf8');
    const comma = tmpFile('accelwattch-comma3.csv', withDecimalCommas(src, 3));
    const dot = tmpFile('accelwattch-dot3.csv', rounded(src, 3));
    expect(readFileSync(comma, 'utf8').split('\n')[1]).toBe('backprop_k1,"219,798","0,267","0,071",5');
    const a = await readProfile(comma);
    const b = await readProfile(dot);
    expect(a.samples.map((s) => s.powerW)).toEqual(b.samples.map((s) => s.powerW));
    expect(a.samples[0]!.powerW).toBe(219.798);
    expect(a.notes.join('\n')).toMatch(
      /decimal comma.*one rule for the whole file, settled by row 2, column 'st_dev' \('0,267'\)/,
    );
    expect(b.notes.join('\n')).not.toMatch(/decimal/);
  });

  it(
    'a file whose first commas are ambiguous ("1,004") and whose later cells settle the comma is read again with ' +
      'it',
    async () => {
      const f = tmpFile(
        'late-settle.csv',
        [
          ',mean HW_power,st_dev,var,#samples',
          'a_k1,"1,004",1,1,5',
          'b_k1,"163,052",1,1,5',
          'c_k1,"163,05",1,1,5',
        ].join('\n'),
      );
      const t = await readProfile(f);
      expect(t.samples.map((s) => s.powerW)).toEqual([1.004, 163.052, 163.05]);
      expect(t.notes.join('\n')).toMatch(/decimal comma.*settled by row 4, column 'mean HW_power' \('163,05'\)/);
      const g = tmpFile(
        'late-settle-dot.csv',
        [',mean HW_power,st_dev,var,#samples', 'a_k1,"1,004",1,1,5', 'b_k1,"1,163,052",1,1,5'].join('\n'),
      );
      expect((await readProfile(g)).samples.map((s) => s.powerW)).toEqual([1004, 1163052]);
    },
  );

  it('a column of only ambiguous commas is an error naming file, row and column', async () => {
    const f = tmpFile(
      'ambiguous.csv',
      [',mean HW_power,st_dev,var,#samples', 'a_k1,"1,004",1,1,5', 'b_k1,"163,052",1,1,5'].join('\n'),
    );
    await expectFormatError(readProfile(f), f, {
      row: 2,
      column: 'mean HW_power',
      problem: /'1,004' could be 1\.004 \(decimal comma\) or 1004 \(thousands comma\)/,
    });
  });

  it('a file mixing a decimal point and a decimal comma is an error naming both cells', async () => {
    // Across columns too: a clock "1.41" and a duration "2,5" in one file (read silently before).
    const lab = tmpFile('lab-mixed.csv', 'bench;kernel;clk (GHz);t_ms\nresnet;conv1;1.41;2,5\n');
    const mapping = {
      delimiter: ';',
      columns: { kernelName: ['bench', 'kernel'], smClockMHz: 'clk (GHz)', durationNs: { column: 't_ms', unit: 'ms' } },
    };
    await expectFormatError(readProfile(lab, { mapping }), lab, {
      row: 2,
      column: 't_ms',
      problem:
        /'2,5' has a decimal comma but row 2, column 'clk \(GHz\)' \('1.41'\) has a decimal point: a file must use one decimal separator/,
    });
    const f = tmpFile(
      'mixed.csv',
      [',mean HW_power,st_dev,var,#samples', 'a_k1,163.05,1,1,5', 'b_k1,"163,05",1,1,5'].join('\n'),
    );
    await expectFormatError(readProfile(f), f, {
      row: 3,
      column: 'mean HW_power',
      problem: /'163,05' has a decimal comma but row 2, column 'mean HW_power' \('163.05'\) has a decimal point/,
    });
  });
});

describeShared('predict on a real profile written with three-decimal commas', () => {
  it('prints the same figures as on the decimal-point file, with a note, instead of 1000× durations and power', async () => {
    const src = readFileSync(shared('profiles/nv-dvfs-benchmark/rtx8000-dvfs-real-profile.csv'), 'utf8');
    const comma = tmpFile('rtx8000-real-comma3.csv', withDecimalCommas(src, 3));
    const dot = tmpFile('rtx8000-real-dot3.csv', rounded(src, 3));
    const args = [
      'predict',
      '--calibration',
      'calibration/rtx8000.json',
      '--reference-frequency',
      '1710',
      '--frequencies',
      '1110',
      '--csv',
      '--profile',
    ];
    const a = await cli(...args, comma);
    const b = await cli(...args, dot);
    expect(a.code).toBe(0);
    expect(a.out).toBe(b.out);
    expect(a.err).toMatch(/note: numbers read with a decimal comma/);
  });
});

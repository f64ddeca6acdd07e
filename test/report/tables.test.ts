import { describe, expect, it } from 'vitest';
import { fixed, formatCell, formatTable, toCsv, type Column } from '../../src/report/tables.js';

const columns: Column[] = [{ header: 'SM clock (MHz)' }, { header: 'energy (J, estimated)', format: fixed(2) }, { header: 'note' }];
const rows = [
  [1410, 612.3456, 'energy-optimal'],
  [1980, 668.1, ''],
  [210, null, 'not run'],
];

describe('formatTable', () => {
  it('aligns numbers right and text left, under the headers with their units', () => {
    expect(formatTable(columns, rows)).toBe(
      [
        'SM clock (MHz)  energy (J, estimated)  note',
        '--------------  ---------------------  --------------',
        '          1410                 612.35  energy-optimal',
        '          1980                 668.10',
        '           210                         not run',
        '',
      ].join('\n'),
    );
  });

  it('honours an explicit alignment and formats booleans as yes/no', () => {
    const out = formatTable([{ header: 'rank', align: 'left' }, { header: 'Pareto' }], [[3, true], [12, false]]);
    expect(out.split('\n')).toEqual(['rank  Pareto', '----  ------', '3     yes', '12    no', '']);
  });
});

describe('formatCell', () => {
  it('keeps integers, rounds others to 4 significant digits, switches to exponent for tiny values', () => {
    expect([formatCell(32), formatCell(0.123456), formatCell(12345.678), formatCell(2.5e-7), formatCell(undefined)]).toEqual([
      '32',
      '0.1235',
      '12350',
      '2.500e-7',
      '',
    ]);
  });
});

describe('toCsv', () => {
  it('writes full-precision numbers, empty nulls and RFC 4180 quoting', () => {
    const csv = toCsv([{ header: 'name' }, { header: 'energy (J, estimated)', format: fixed(1) }], [
      ['all-reduce, "big"', 612.3456],
      ['idle', null],
    ]);
    expect(csv).toBe('name,"energy (J, estimated)"\n"all-reduce, ""big""",612.3456\nidle,\n');
  });
});

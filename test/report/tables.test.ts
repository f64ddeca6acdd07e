import { describe, expect, it } from 'vitest';
import {
  csvKey,
  fixed,
  formatCell,
  formatTable,
  MAX_CELL_CHARS,
  toCsv,
  wrapText,
  type Column,
} from '../../src/report/tables.js';

const columns: Column[] = [
  { header: 'SM clock (MHz)' },
  { header: 'energy (J, estimated)', format: fixed(2) },
  { header: 'note' },
];
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
    const out = formatTable(
      [{ header: 'rank', align: 'left' }, { header: 'Pareto' }],
      [
        [3, true],
        [12, false],
      ],
    );
    expect(out.split('\n')).toEqual(['rank  Pareto', '----  ------', '3     yes', '12    no', '']);
  });
});

describe('formatCell', () => {
  it('keeps integers, rounds others to 4 significant digits, switches to exponent for tiny values', () => {
    expect([
      formatCell(32),
      formatCell(0.123456),
      formatCell(12345.678),
      formatCell(2.5e-7),
      formatCell(undefined),
    ]).toEqual(['32', '0.1235', '12350', '2.500e-7', '']);
  });
});

describe('formatTable width', () => {
  const wide: Column[] = [
    { header: 'scale' },
    ...Array.from({ length: 9 }, (_, i) => ({ header: `energy of dimension ${i} (J, est.)`, format: fixed(2) })),
  ];
  const wideRows = [
    [0.5, ...Array.from({ length: 9 }, (_, i) => 1000 * i + 0.25)],
    [1, ...Array.from({ length: 9 }, () => 1.5)],
  ];

  it('fits 100 columns: headers wrap to at most three lines, then blocks repeat the first column', () => {
    const text = formatTable(wide, wideRows);
    const lines = text.trimEnd().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
    const blocks = text.trimEnd().split('\n\n');
    expect(blocks.length).toBeGreaterThan(1);
    for (const b of blocks) {
      const rows = b.split('\n');
      const rule = rows.findIndex((l) => /^-+ /.test(l));
      expect(rule).toBeGreaterThan(0);
      expect(rule).toBeLessThanOrEqual(3);
      expect(rows.slice(rule + 1).map((l) => l.trim().split(/\s+/)[0])).toEqual(['0.5', '1']);
    }
    // Every figure is there once.
    for (let i = 0; i < 9; i++) expect(text).toContain((1000 * i + 0.25).toFixed(2));
  });

  it('leaves a table that fits alone, and width Infinity (--wide) keeps one line per row', () => {
    expect(formatTable(columns, rows)).toBe(formatTable(columns, rows, { width: Infinity }));
    const one = formatTable(wide, wideRows, { width: Infinity }).trimEnd().split('\n');
    expect(one).toHaveLength(4);
    expect(one[0]).toBe(wide.map((c) => c.header).join('  '));
  });

  it(
    'cuts a cell longer than 64 characters in the middle (a kernel name of 1,968 characters); --wide and CSV ' +
      'keep it whole',
    () => {
      const name =
        `void cutlass::Kernel<${'cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x256_64x3_tn_align8,'.repeat(28)}` +
        `>(Params)`;
      const t = formatTable([{ header: 'kernel' }, { header: 'time (µs)' }], [[name, 12.5]]);
      const line = t.split('\n')[2]!;
      expect(line.length).toBeLessThanOrEqual(MAX_CELL_CHARS + 2 + 'time (µs)'.length);
      expect(line).toMatch(/^void cutlass::Kernel<cutlass_80.*….*>\(Params\)\s+12\.5$/);
      expect(formatTable([{ header: 'kernel' }], [[name]], { width: Infinity })).toContain(name);
      expect(toCsv([{ header: 'kernel' }], [[name]])).toContain(name);
    },
  );
});

describe('toCsv', () => {
  it('writes camelCase keys with units, numbers without float noise, empty nulls and RFC 4180 quoting', () => {
    const csv = toCsv(
      [{ header: 'name' }, { header: 'energy (J, est.)', format: fixed(1) }, { header: 'n', key: 'kernels' }],
      [
        ['all-reduce, "big"', 612.3456, 3],
        ['idle', null, 9007199254740991],
        ['sum', 15.999999999999998, 0.1 + 0.2],
      ],
    );
    expect(csv).toBe('name,energyJ,kernels\n"all-reduce, ""big""",612.3456,3\nidle,,9007199254740991\nsum,16,0.3\n');
  });

  it('derives keys from headers by one rule', () => {
    const headers = [
      'SM clock (MHz)',
      'energy (J, est.)',
      'share (%)',
      'GPU compute (µs)',
      'bandwidth (GB/s)',
      'ΔT vs next scale (s, est.)',
      'micro-batch',
      'sent dim 0 (bytes)',
    ];
    expect(headers.map(csvKey)).toEqual([
      'smClockMHz',
      'energyJ',
      'sharePct',
      'gpuComputeUs',
      'bandwidthGBps',
      'deltaTVsNextScaleS',
      'microBatch',
      'sentDim0Bytes',
    ]);
  });
});

describe('wrapText (prose lines of the text output)', () => {
  const text =
    `${'word '.repeat(30)}ends at −0.03 % (band −0.04 % … −0.02 %), ${'a '.repeat(38)}makespan 88000 ns (0.088 ` +
    `ms), ${'x'.repeat(120)} done`;
  it('fits 100 columns, indents continuation lines, keeps a number with its % and a too-long word whole', () => {
    const lines = wrapText(text).split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) if (!l.includes('x'.repeat(120))) expect([...l].length).toBeLessThanOrEqual(100);
    for (const l of lines.slice(1)) expect(l).toMatch(/^ {2}\S/);
    expect(lines.some((l) => /^\s*(%|ns\b|ms\))/.test(l))).toBe(false);
    expect(lines).toContain(`  ${'x'.repeat(120)}`);
    expect(lines.join(' ').replace(/\s+/g, ' ')).toBe(text.replace(/\s+/g, ' ').trim());
  });
  it('leaves the line whole with --wide (width Infinity) and a short line as it is', () => {
    expect(wrapText(text, Infinity)).toBe(text);
    expect(wrapText('short line')).toBe('short line');
  });
});

/**
 * gpmTOOL (Guerreiro et al., hpc-ulisboa/gpupowermodel v2.0_TPDS2019) training/measurement tables:
 *   line 1: number of clock domains (2: core, memory)
 *   line 2: default frequency per domain (MHz), e.g. `975,3505`
 *   line 3: number of utilization components per domain, e.g. `7,1`
 *   line 4: component names, e.g. `SP,INT,DP,SFU,CF,L2,Shared,DRAM`
 *   rows:   [application,] power (W), core MHz, memory MHz, one utilization (0–1) per component
 * Utilizations were measured once at the default clocks and repeated on every clock row; there are no
 * times. Microbenchmark files have no application column: samples are named `micro<N>` by distinct
 * utilization vector, in order of first appearance.
 */
import { newSample, type Component, type KernelSample, type ProfileTable } from '../../vocab/kernel-sample.js';
import { FormatError } from '../../errors.js';
import { Header, streamedTable, isBlankRow, numberCell, readCsvRows } from './csv.js';
import { checkUtilization } from './sample.js';
import type { ReaderContext } from './types.js';

export const GPMTOOL_FORMAT = 'gpmtool';

/** gpmTOOL component name → canonical component. */
export const GPMTOOL_COMPONENTS: Readonly<Record<string, Component>> = {
  SP: 'fp32_active',
  'SP ADD': 'fp32_add_active',
  'SP MUL': 'fp32_mul_active',
  'SP FMA': 'fp32_fma_active',
  DP: 'fp64_active',
  'DP ADD': 'fp64_add_active',
  'DP MUL': 'fp64_mul_active',
  'DP FMA': 'fp64_fma_active',
  INT: 'int_active',
  SFU: 'sfu_active',
  CF: 'cf_active',
  L2: 'l2_active',
  Shared: 'shared_active',
  DRAM: 'dram_active',
  TENSOR: 'tensor_active',
  HP: 'fp16_active',
};

const DEVICES: [RegExp, string][] = [
  [/^titanx/i, 'GeForce GTX TITAN X'],
  [/^titanv/i, 'TITAN V'],
];

const INT_LIST = /^\s*\d+(\s*,\s*\d+)*\s*,?\s*$/;

/** True when the first four lines have the gpmTOOL layout. */
export function looksLikeGpmtool(lines: string[]): boolean {
  return (
    lines.length >= 4 &&
    /^\s*\d+\s*,?\s*$/.test(lines[0]!) &&
    INT_LIST.test(lines[1]!) &&
    INT_LIST.test(lines[2]!) &&
    /[A-Za-z]/.test(lines[3]!)
  );
}

function component(name: string): Component {
  return GPMTOOL_COMPONENTS[name] ?? `${name.toLowerCase().replace(/[^a-z0-9]+/g, '_')}_active`;
}

export async function readGpmtool(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  const { diagnostics } = ctx;
  const head: string[][] = [];
  let names: string[] = [];
  let domains = 0;
  let defaults: number[] = [];
  let perDomain: number[] = [];
  let header: Header | null = null;
  let hasApp = false;
  const microNames = new Map<string, string>();
  for await (const row of readCsvRows(file, { trim: true })) {
    if (head.length < 4) {
      head.push(row.fields.filter((f, i) => f !== '' || i === 0));
      if (head.length < 4) continue;
      const ints = (r: string[], line: string) =>
        r.map((f) => {
          const v = Number(f);
          if (!Number.isInteger(v))
            throw new FormatError(file, line, `expected integers (gpmTOOL header), got '${r.join(',')}'`);
          return v;
        });
      domains = ints(head[0]!, 'row 1')[0]!;
      defaults = ints(head[1]!, 'row 2');
      perDomain = ints(head[2]!, 'row 3');
      names = head[3]!.map((n) => n.trim());
      if (defaults.length !== domains)
        throw new FormatError(file, 'row 2', `${defaults.length} default frequencies for ${domains} domains`);
      if (perDomain.length !== domains)
        throw new FormatError(file, 'row 3', `${perDomain.length} component counts for ${domains} domains`);
      const total = perDomain.reduce((a, b) => a + b, 0);
      if (total !== names.length)
        throw new FormatError(file, 'row 4', `${names.length} component names but row 3 announces ${total}`);
      header = new Header(file, ['power', 'core_frequency', 'memory_frequency', ...names], row.line);
      continue;
    }
    if (isBlankRow(row)) {
      diagnostics.add('blank-row', { file, message: `row ${row.line} is blank` });
      continue;
    }
    const expected = 1 + domains + names.length;
    let fields = row.fields;
    let app: string | null = null;
    if (fields.length === expected + 1 || (fields.length > expected && Number.isNaN(Number(fields[0])))) {
      app = fields[0]!.trim();
      fields = fields.slice(1);
      hasApp = true;
    }
    if (fields.length < expected)
      throw new FormatError(
        file,
        `row ${row.line}`,
        `${fields.length} values, expected ${expected} (power, ${domains} clocks, ${names.length} utilizations)`,
      );
    if (fields.length > expected)
      diagnostics.add('extra-fields', {
        file,
        message: `row ${row.line}: ${fields.length - expected} extra fields ignored`,
      });
    const h = header!;
    const r = { fields, line: row.line };
    const powerW = numberCell(file, r, h, 0, { required: true, nonNegative: true })!;
    const smClockMHz = numberCell(file, r, h, 1, { required: true, positive: true })!;
    const memClockMHz = domains >= 2 ? numberCell(file, r, h, 2, { required: true, positive: true })! : null;
    const utilization: KernelSample['utilization'] = {};
    const utilValues: number[] = [];
    names.forEach((n, k) => {
      const v = numberCell(file, r, h, 1 + domains + k, { required: true });
      utilValues.push(v!);
      utilization[component(n)] = checkUtilization(file, row.line, n, v!, diagnostics);
    });
    if (app === null) {
      const key = utilValues.join(',');
      app = microNames.get(key) ?? `micro${microNames.size}`;
      microNames.set(key, app);
    }
    ctx.sink.add(
      newSample(
        app,
        { file, row: row.line, format: GPMTOOL_FORMAT },
        {
          smClockMHz,
          memClockMHz,
          utilization,
          powerW,
        },
      ),
    );
  }
  if (!header) throw new FormatError(file, '', 'truncated gpmTOOL header (needs 4 lines)');
  return streamedTable(GPMTOOL_FORMAT, file, DEVICES, [
    `default clocks ${defaults.join(', ')} MHz (${['core', 'memory'].slice(0, domains).join(', ')}); ` +
      `utilizations measured at the default clocks and repeated on every clock row`,
    `components: ${names.map((n) => `${n}→${component(n)}`).join(', ')}`,
    hasApp
      ? 'kernelName is the application name'
      : 'no application column: kernelName micro<N> numbers distinct utilization vectors',
    'no durations: power only',
  ]);
}

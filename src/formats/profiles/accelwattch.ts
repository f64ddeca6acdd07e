/**
 * AccelWattch (accel-sim, util/accelwattch) measured power per validation kernel:
 * `hw_power_validation_volta.csv` — `,mean HW_power,st_dev,var,#samples` (empty first header cell, CRLF,
 * no final newline). Rows `<bench>_k<N>`: mean board power (W) while the kernel ran in a loop, its
 * standard deviation and the number of samples. One clock (the default), no durations in this file.
 */
import { newSample, type ProfileTable } from '../../vocab/kernel-sample.js';
import { FormatError } from '../../errors.js';
import { Header, deviceFromFileName, isBlankRow, numberCell, readCsvRows } from './csv.js';
import type { ReaderContext } from './types.js';

export const ACCELWATTCH_FORMAT = 'accelwattch';

export function looksLikeAccelWattch(fields: string[]): boolean {
  return fields.length >= 2 && fields[0]!.trim() === '' && fields[1]!.trim() === 'mean HW_power';
}

export async function readAccelWattch(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  const { diagnostics } = ctx;
  let header: Header | null = null;
  let iMean = -1,
    iSd = -1,
    iN = -1;
  for await (const row of readCsvRows(file)) {
    if (!header) {
      header = new Header(file, row.fields, row.line);
      iMean = header.require('mean HW_power');
      iSd = header.find('st_dev');
      iN = header.find('#samples');
      continue;
    }
    if (isBlankRow(row)) {
      diagnostics.add('blank-row', { file, message: `row ${row.line} is blank` });
      continue;
    }
    const name = row.fields[0]?.trim() ?? '';
    if (!name) throw new FormatError(file, `row ${row.line}, column 1`, 'missing kernel name');
    const powerW = numberCell(file, row, header, iMean, { required: true, nonNegative: true })!;
    const extra: Record<string, number> = {};
    const sd = iSd >= 0 ? numberCell(file, row, header, iSd, { nonNegative: true }) : null;
    if (sd !== null) extra.powerStdDevW = sd;
    const n = iN >= 0 ? numberCell(file, row, header, iN, { nonNegative: true }) : null;
    if (n !== null) extra.powerSamples = n;
    ctx.sink.add(
      newSample(
        name,
        { file, row: row.line, format: ACCELWATTCH_FORMAT },
        {
          powerW,
          extra,
        },
      ),
    );
  }
  if (!header) throw new FormatError(file, '', 'empty file (no header)');
  return {
    format: ACCELWATTCH_FORMAT,
    device: deviceFromFileName(file, [[/volta/i, 'Volta QV100']]),
    samples: [],
    notes: [
      'measured mean board power per validation kernel at the default clock (AccelWattch NVML profiler); no durations or counters in this file',
    ],
  };
}

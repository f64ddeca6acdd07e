/**
 * AccelWattch (accel-sim, util/accelwattch) measured power per validation kernel:
 * `hw_power_validation_volta.csv` — `,mean HW_power,st_dev,var,#samples` (empty first header cell, CRLF,
 * no final newline). Rows `<bench>_k<N>`: mean board power (W) while the kernel ran in a loop, its
 * standard deviation and the number of samples. One clock (the default), no durations in this file.
 */
import { newSample, type ProfileTable } from '../../vocab/kernel-sample.js';
import { FormatError } from '../../errors.js';
import { streamedTable, forEachCsvRecord, type Header, numberCell } from './csv.js';
import type { ReaderContext } from './types.js';

export const ACCELWATTCH_FORMAT = 'accelwattch';

export function looksLikeAccelWattch(fields: string[]): boolean {
  return fields.length >= 2 && fields[0]!.trim() === '' && fields[1]!.trim() === 'mean HW_power';
}

export async function readAccelWattch(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  const columns = (header: Header) => ({
    mean: header.require('mean HW_power'),
    sd: header.find('st_dev'),
    n: header.find('#samples'),
  });
  await forEachCsvRecord(file, ctx.diagnostics, columns, (row, header, c) => {
    const name = row.fields[0]?.trim() ?? '';
    if (!name) throw new FormatError(file, `row ${row.line}, column 1`, 'missing kernel name');
    const powerW = numberCell(file, row, header, c.mean, { required: true, nonNegative: true })!;
    const extra: Record<string, number> = {};
    const sd = c.sd >= 0 ? numberCell(file, row, header, c.sd, { nonNegative: true }) : null;
    if (sd !== null) extra.powerStdDevW = sd;
    const n = c.n >= 0 ? numberCell(file, row, header, c.n, { nonNegative: true }) : null;
    if (n !== null) extra.powerSamples = n;
    ctx.sink.add(newSample(name, { file, row: row.line, format: ACCELWATTCH_FORMAT }, { powerW, extra }));
  });
  return streamedTable(
    ACCELWATTCH_FORMAT,
    file,
    [[/volta/i, 'Volta QV100']],
    [
      'measured mean board power per validation kernel at the default clock (AccelWattch NVML profiler); no ' +
        'durations or counters in this file',
    ],
  );
}

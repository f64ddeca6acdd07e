/**
 * Preset `perseus`: per-stage frequency sweeps of Perseus (SOSP'24, ml-energy/zeus branch kronos,
 * sosp24_data/emulation/stage_profile/*.csv). Header (real files): `stage,instruction,frequency,time,energy`
 * — pipeline stage index, `forward`/`backward`, SM clock (MHz), time (s), energy (J, NVML energy counter).
 * No counters: utilization is empty. powerW = energy / time.
 * Energies include power drawn while blocked on pipeline communication.
 */
import { newSample, type KernelSample, type ProfileTable } from '../../vocab/kernel-sample.js';
import { FormatError } from '../../errors.js';
import { streamedTable, forEachCsvRecord, type Header, numberCell, where } from './csv.js';
import { completePowerEnergy } from './sample.js';
import type { ReaderContext } from './types.js';

export const PERSEUS_FORMAT = 'perseus';

const DEVICES: [RegExp, string][] = [
  [/\+a40/i, 'NVIDIA A40'],
  [/\+a100/i, 'NVIDIA A100'],
  [/\+h100/i, 'NVIDIA H100'],
];

export function looksLikePerseus(fields: string[]): boolean {
  const s = fields.map((f) => f.trim()).join(',');
  return /^stage,instruction,frequency,time,energy$/i.test(s);
}

export async function readPerseus(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  const { diagnostics } = ctx;
  const columns = (header: Header) => ({
    stage: header.require('stage'),
    instr: header.require('instruction'),
    freq: header.require('frequency'),
    time: header.require('time'),
    energy: header.require('energy'),
  });
  await forEachCsvRecord(file, diagnostics, columns, (row, header, c) => {
    const stage = row.fields[c.stage]?.trim() ?? '';
    const instr = row.fields[c.instr]?.trim() ?? '';
    if (!stage) throw new FormatError(file, where(row.line, 'stage'), 'missing value');
    if (!instr) throw new FormatError(file, where(row.line, 'instruction'), 'missing value');
    const timeS = numberCell(file, row, header, c.time, { required: true, nonNegative: true })!;
    const energyJ = numberCell(file, row, header, c.energy, { required: true, nonNegative: true })!;
    const smClockMHz = numberCell(file, row, header, c.freq, { required: true, positive: true })!;
    if (timeS === 0) diagnostics.add('zero-duration', { file, message: `${where(row.line, 'time')}: 0` });
    const s: KernelSample = newSample(
      `stage${stage}/${instr}`,
      { file, row: row.line, format: PERSEUS_FORMAT },
      { smClockMHz, durationNs: timeS * 1e9, energyJ, extra: { stage, instruction: instr } },
    );
    completePowerEnergy(s);
    ctx.sink.add(s);
  });
  return streamedTable(PERSEUS_FORMAT, file, DEVICES, [
    'kernelName is stage<N>/<instruction>; time in s and energy in J (NVML energy counter) per stage ' +
      'execution; powerW = energy / time',
    'no hardware counters: utilization is empty',
    'energies include power drawn while blocked on pipeline communication',
  ]);
}

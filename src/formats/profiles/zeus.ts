/**
 * Zeus (NSDI'23, ml-energy/zeus) tables.
 * - `zeus`: power-limit sweeps `summary_power_<gpu>.csv` (examples/research_reproducibility/zeus_nsdi23/trace):
 *   `dataset,network,batch_size,optimizer,power_limit,time_per_epoch,average_power` — one training epoch per
 *   row at a power limit (W); time per epoch (s); average power (W). No clocks, no counters.
 * - `zeus-profile`: the power-limit optimizer's profile windows (tests/profile_data/*.csv):
 *   `start_time,window_name,elapsed_time,gpu<N>_energy…` — window name `…_<powerLimitW>`, elapsed (s),
 *   energy per GPU (J). One sample per (window, GPU), kernelName = window name without the limit.
 */
import { newSample, type KernelSample, type ProfileTable } from '../../vocab/kernel-sample.js';
import { FormatError } from '../../errors.js';
import {
  type CsvRow,
  deviceFromFileName,
  forEachCsvRecord,
  type Header,
  numberCell,
  streamedTable,
  where,
} from './csv.js';
import { completePowerEnergy, numberInvocations } from './sample.js';
import type { ReaderContext } from './types.js';

export const ZEUS_FORMAT = 'zeus';
export const ZEUS_PROFILE_FORMAT = 'zeus-profile';

const DEVICES: [RegExp, string][] = [
  [/_v100\b|_v100\./i, 'Tesla V100'],
  [/_a40\b|_a40\./i, 'NVIDIA A40'],
  [/_p100\b|_p100\./i, 'Tesla P100'],
  [/_rtx6000\b|_rtx6000\./i, 'Quadro RTX 6000'],
  [/^A40\+/, 'NVIDIA A40'],
  [/^A100\+/, 'NVIDIA A100'],
  [/^V100\+/, 'Tesla V100'],
];

export function looksLikeZeus(fields: string[]): boolean {
  const s = new Set(fields.map((f) => f.trim()));
  return s.has('power_limit') && s.has('time_per_epoch') && s.has('average_power');
}
export function looksLikeZeusProfile(fields: string[]): boolean {
  const s = fields.map((f) => f.trim());
  return s.includes('window_name') && s.includes('elapsed_time') && s.some((f) => /^gpu\d+_energy$/.test(f));
}

export async function readZeus(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  const columns = (header: Header) => ({
    limit: header.require('power_limit'),
    time: header.require('time_per_epoch'),
    power: header.require('average_power'),
    key: ['dataset', 'network', 'batch_size', 'optimizer'].map((c) => [c, header.require(c)] as [string, number]),
  });
  await forEachCsvRecord(file, ctx.diagnostics, columns, (row, header, c) => {
    const key = c.key.map(([name, i]) => {
      const v = row.fields[i]?.trim() ?? '';
      if (!v) throw new FormatError(file, where(row.line, name), 'missing value');
      return v;
    });
    const timeS = numberCell(file, row, header, c.time, { required: true, nonNegative: true })!;
    const powerW = numberCell(file, row, header, c.power, { required: true, nonNegative: true })!;
    const powerLimitW = numberCell(file, row, header, c.limit, { required: true, positive: true })!;
    const s: KernelSample = newSample(
      `${key[0]}/${key[1]}/bs${key[2]}/${key[3]}`,
      { file, row: row.line, format: ZEUS_FORMAT },
      {
        durationNs: timeS * 1e9,
        powerW,
        powerLimitW,
        extra: { dataset: key[0]!, network: key[1]!, batchSize: Number(key[2]), optimizer: key[3]! },
      },
    );
    completePowerEnergy(s);
    ctx.sink.add(s);
  });
  return streamedTable(ZEUS_FORMAT, file, DEVICES, [
    'one sample per training epoch at a power limit: durationNs = time_per_epoch, powerW = average_power, ' +
      'energyJ = their product',
    'kernelName is dataset/network/bs<batch_size>/optimizer; no clocks or counters (power-limit sweep, not ' +
      'clock sweep)',
  ]);
}

export async function readZeusProfile(file: string, ctx: ReaderContext): Promise<ProfileTable> {
  const { diagnostics } = ctx;
  const samples: KernelSample[] = [];
  const columns = (header: Header, row: CsvRow) => {
    const win = header.require('window_name');
    const elapsed = header.require('elapsed_time');
    const gpus = header.names.flatMap((n, i) => {
      const m = /^gpu(\d+)_energy$/.exec(n);
      return m ? [[m[1]!, i] as [string, number]] : [];
    });
    if (!gpus.length) throw new FormatError(file, `row ${row.line}`, "missing column 'gpu<N>_energy'");
    return { win, elapsed, gpus };
  };
  await forEachCsvRecord(file, diagnostics, columns, (row, header, c) => {
    const win = row.fields[c.win]?.trim() ?? '';
    if (!win) throw new FormatError(file, where(row.line, 'window_name'), 'missing value');
    const m = /^(.*?)_(\d+(?:\.\d+)?)$/.exec(win);
    const elapsedS = numberCell(file, row, header, c.elapsed, { required: true, nonNegative: true })!;
    for (const [gpu, i] of c.gpus) {
      const energyJ = numberCell(file, row, header, i, { nonNegative: true });
      if (energyJ === null) {
        diagnostics.add('missing-energy', { file, message: `${where(row.line, header.name(i))}: no value` });
        continue;
      }
      const s: KernelSample = newSample(
        m ? m[1]! : win,
        { file, row: row.line, format: ZEUS_PROFILE_FORMAT },
        {
          durationNs: elapsedS * 1e9,
          energyJ,
          powerLimitW: m ? Number(m[2]) : null,
          extra: { gpu: Number(gpu), window: win },
        },
      );
      completePowerEnergy(s);
      samples.push(s);
    }
  });
  numberInvocations(samples);
  return {
    format: ZEUS_PROFILE_FORMAT,
    device: deviceFromFileName(file, DEVICES),
    samples,
    notes: [
      'one sample per (profiling window, GPU): energy of that GPU over the window; power limit parsed from the ' +
        'window name suffix',
    ],
  };
}

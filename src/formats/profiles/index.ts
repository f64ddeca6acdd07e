/**
 * Profiler-output readers: every producer's file becomes one canonical ProfileTable
 * (vocab/kernel-sample.ts). `readProfile` sniffs the format from the header unless `format` forces it.
 */
import { Diagnostics } from '../../diagnostics.js';
import type { KernelSample, ProfileTable } from '../../vocab/kernel-sample.js';
import { FormatError, InputError } from '../../errors.js';
import { readHead } from '../file-chunks.js';
import { binaryOffset } from '../text-file.js';
import { readAccelWattch } from './accelwattch.js';
import { readDecided } from './decimal.js';
import { detectFormat, isSniffed } from './detect.js';
import { readGeneric } from './generic.js';
import { readGpmtool } from './gpmtool.js';
import { readKineto } from './kineto.js';
import { readNcuCsv, readNcuRaw } from './ncu.js';
import { readNsysGpuTrace, readNsysKernSum } from './nsys.js';
import { readNvDvfs } from './nv-dvfs.js';
import { readPerseus } from './perseus.js';
import {
  PROFILE_FORMATS,
  type ProfileFormat,
  type ProfileReader,
  type ReadProfileOptions,
  type SampleSink,
} from './types.js';
import { readZeus, readZeusProfile } from './zeus.js';

export { PROFILE_FORMATS, POWER_FORMATS } from './types.js';
export type { ProfileFormat, ReadProfileOptions, SampleSink } from './types.js';
export { detectFormat } from './detect.js';
export { integratePower, estimateSensorPeriodNs, readPowerSeries } from './power.js';
export { NCU_METRIC_MAP } from './ncu.js';
export { loadColumnMapping } from './generic.js';
export { parseNumberCell } from './csv.js';

interface FormatEntry {
  read: ProfileReader;
  description: string;
}

const READERS: Record<ProfileFormat, FormatEntry> = {
  'ncu-csv': {
    read: readNcuCsv,
    description: 'Nsight Compute `ncu --csv` long format (old and new headers), one row per metric',
  },
  'ncu-raw': {
    read: readNcuRaw,
    description: 'Nsight Compute `--page raw --csv`, one row per kernel with a units row',
  },
  'nsys-gpu-trace': {
    read: readNsysGpuTrace,

    description:
      'Nsight Systems cuda_gpu_trace CSV (or GUI events export); joined with a power log (--power-log) for ' +
      'per-kernel energy',
  },
  'nsys-kern-sum': {
    read: readNsysKernSum,
    description: 'Nsight Systems cuda_gpu_kern_sum CSV: mean duration per kernel name',
  },
  'nv-dvfs-benchmark': {
    read: readNvDvfs,
    description: 'NV-DVFS-Benchmark tables: DCGM ratios, core_frequency, time, average_power per kernel and clock',
  },
  perseus: {
    read: readPerseus,
    description: 'Perseus stage profiles: stage, instruction, frequency, time (s), energy (J); no counters',
  },
  gpmtool: {
    read: readGpmtool,
    description: 'gpmTOOL tables: power per (core, memory) clock pair with utilizations measured at default clocks',
  },
  zeus: { read: readZeus, description: 'Zeus power-limit sweeps: time per epoch and average power per power limit' },
  'zeus-profile': {
    read: readZeusProfile,
    description: 'Zeus power-limit optimizer profile windows: energy per GPU per window',
  },
  accelwattch: {
    read: readAccelWattch,
    description: 'AccelWattch measured mean power per validation kernel (one clock)',
  },
  kineto: {
    read: readKineto,

    description:
      'Kineto / PyTorch profiler trace (.json, .json.gz): one sample per kernel, memcpy and memset; counters ' +
      'from CUPTI ranges; joined with a power log (--power-log)',
  },
  generic: { read: readGeneric, description: 'any CSV, with a column mapping file (JSON or YAML, --mapping)' },
};

/** The formats readProfile understands, with a one-line description (for --help and the README). */
export function listProfileFormats(): { format: ProfileFormat; description: string; autoDetected: boolean }[] {
  return PROFILE_FORMATS.map((format) => ({
    format,
    description: READERS[format].description,
    autoDetected: isSniffed(format),
  }));
}

/**
 * Reads one profile file into the canonical table. Throws InputError (unreadable file, unknown or
 * undetectable format) or FormatError (file, row, column: missing columns, unknown units, NaN or
 * negative durations/power). Odd-but-usable rows are counted in `options.diagnostics`.
 */
export async function readProfile(file: string, options: ReadProfileOptions = {}): Promise<ProfileTable> {
  const { table, sink } = await readProfileInto(file, options, () => {
    const samples: KernelSample[] = [];
    return { samples, add: (s: KernelSample) => void samples.push(s) };
  });
  return { ...table, samples: sink.samples };
}

/**
 * Reads one profile, streaming its samples into a sink made by `makeSink` instead of keeping them: memory is then
 * what the sink keeps (readProfile keeps every sample; a consumer that merges repeats keeps one per kernel and
 * clock). A file read twice (decimal.ts) gets a fresh sink for the second read. The table returned has no samples.
 */
export async function readProfileInto<S extends SampleSink>(
  file: string,
  options: ReadProfileOptions,
  makeSink: () => S,
): Promise<{ table: ProfileTable; sink: S }> {
  const diagnostics = options.diagnostics ?? new Diagnostics();
  let format = options.format;
  if (format !== undefined && !(PROFILE_FORMATS as readonly string[]).includes(format)) {
    throw new InputError(`unknown profile format '${format}' (known: ${PROFILE_FORMATS.join(', ')})`);
  }
  if (!format && options.mapping) format = 'generic';
  if (!format) {
    const d = await detectFormat(file);
    if (!d) {
      await refuseEmptyOrBinary(file);
      throw new InputError(
        `${file}: cannot tell the profile format from its header; pass --format (${PROFILE_FORMATS.join(', ')}` +
          `) or --mapping for a generic CSV`,
      );
    }
    if (d.kind === 'pytorch-et') {
      throw new InputError(
        `${file}: this is a PyTorch execution trace, not a kernel profile; convert it with its Kineto trace: ` +
          `tracewatt import pytorch --et ${file} --kineto <trace.json> --out <prefix>`,
      );
    }
    if (d.kind === 'power') {
      throw new InputError(
        `${file}: this is a power log (${d.format}), not a kernel profile; pass it as the power series of an ` +
          `Nsight Systems cuda_gpu_trace (--power-log)`,
      );
    }
    format = d.format;
  }
  // One decimal separator per file, decided from the whole file: a file read provisionally against the rule its end
  // settled is read again (decimal.ts), and only the last read's diagnostics are kept.
  const reader = READERS[format].read;
  let last = new Diagnostics();
  let sink = makeSink();
  const { result, notes } = await readDecided(async () => {
    last = new Diagnostics();
    sink = makeSink();
    const table = await reader(file, { diagnostics: last, options: { ...options, diagnostics: last }, sink });
    for (const s of table.samples) sink.add(s);
    return table;
  });
  diagnostics.merge(last);
  return { table: { ...result, samples: [], notes: [...result.notes, ...notes] }, sink };
}

/**
 * Why a file whose format could not be told is no profile at all: empty, or binary data (named as such, never
 * decoded into a message). Returns when it is text (its header is then what was not recognised).
 */
async function refuseEmptyOrBinary(file: string): Promise<void> {
  let head: Buffer;
  try {
    head = (await readHead(file, 64 * 1024)).bytes;
  } catch {
    return; // unreadable: the caller's message stands
  }
  if (head.length === 0) throw new FormatError(file, '', 'empty file, not a profile');
  const bad = binaryOffset(head);
  if (bad >= 0)
    throw new FormatError(
      file,
      '',
      `binary data (byte ${bad} is 0x${head[bad]!.toString(16).padStart(2, '0')}), not a profile (CSV or JSON text)`,
    );
}

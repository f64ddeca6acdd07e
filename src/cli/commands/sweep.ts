/**
 * `tracewatt sweep network` and `tracewatt sweep gpu`: what-if sweeps over a network dimension's V–f and the SM clock.
 */
import { toJson } from '../../formats/json.js';
import { DEFAULT_POWER_PRESET, POWER_PRESETS } from '../../engines/replay/index.js';
import {
  mergeSweep,
  parseShard,
  runGpuSweep,
  runNetworkSweep,
  type GpuClockSweepRecord,
  type NetworkSweepRecord,
  type SweepRun,
} from '../../engines/studies/index.js';
import type { ProfileFormat } from '../../formats/profiles/index.js';
import { gpuSweepRows, gpuSweepText, networkSweepRows, networkSweepText } from '../../report/text.js';
import { shardWrittenRows, shardWrittenText, sweepNoticesText } from '../../report/text/sweep-run.js';
import { defineCommand, type CommandIO, type OptionSpec, TRACE_ARG } from '../command.js';
import { clusterFiles, emit, powerConfigOption, tableLayout, tableOptions } from '../io.js';
import { progressFor } from '../progress.js';

/** The options both sweeps have: the cluster, how to read its bandwidths, threads, shard, --out, the output format. */
type SweepOptions = {
  readonly system: string;
  readonly network: string;
  readonly memory?: string;
  readonly commGroup?: string;
  readonly powerConfig?: string;
  readonly plainBandwidth: boolean;
  readonly threads?: number;
  readonly json?: boolean;
  readonly csv?: boolean;
  readonly shard?: string;
  readonly out?: string;
};

/**
 * Runs one sweep (whole or one shard) of the trace `args[0]` with what both sweeps take from the command line
 * besides their own options (the cluster, bandwidth unit, threads, shard, --out, the one progress bar: on a
 * terminal, not with --json or --csv, removed when it ends), and prints what it gave.
 */
async function runAndPrint(
  io: CommandIO,
  args: readonly string[],
  opts: SweepOptions,
  what: string,
  run: (common: ReturnType<typeof sweepCommon>) => Promise<SweepRun>,
): Promise<number> {
  const bar = await progressFor(io, opts, `${what} [{bar}] {value}/{total}`);
  let result: SweepRun;
  try {
    result = await run(sweepCommon(args, opts, (done, total) => bar?.update(done, total)));
  } finally {
    bar?.stop();
  }
  return printSweep(result, opts, io);
}

function sweepCommon(args: readonly string[], opts: SweepOptions, onPoint: (done: number, total: number) => void) {
  return {
    trace: args[0]!,
    ...clusterFiles(opts),
    bandwidthUnit: opts.plainBandwidth ? ('GBps' as const) : ('astra-sim' as const),
    threads: opts.threads,
    onPoint,
    shard: opts.shard === undefined ? undefined : parseShard(opts.shard),
    out: opts.out,
  };
}

const DEFAULT_SCALES = '0.5:1.0:0.05';

/** Options every sweep has for running as shards (a job array) and writing its JSON to a file. */
const SHARD_OPTIONS = [
  {
    name: 'shard',
    type: 'string',
    value: 'i/N',
    description:
      'compute only shard i of N (every N-th point, from point i) and write a partial result for `tracewatt merge`',
  },
  {
    name: 'out',
    type: 'string',
    value: 'file',
    description: 'write the JSON (the record, or the partial with --shard) to this file, atomically',
  },
] as const satisfies readonly OptionSpec[];

/** A sweep's record as JSON, CSV or text. */
function printSweepRecord(
  record: NetworkSweepRecord | GpuClockSweepRecord,
  opts: Record<string, unknown>,
  io: CommandIO,
) {
  const network = record.kind === 'network-sweep';
  emit(io, opts, record, {
    table: () => (network ? networkSweepRows(record) : gpuSweepRows(record)),
    text: () => (network ? networkSweepText(record, tableLayout(opts)) : gpuSweepText(record, tableLayout(opts))),
  });
}

/**
 * A sweep's output: its record; or a shard's partial, which is itself the output (JSON, as merge reads it) unless
 * --out took it, then what was written. Then the notes and warnings on stderr.
 */
function printSweep(run: SweepRun, opts: Record<string, unknown>, io: CommandIO): number {
  if (run.kind === 'record') printSweepRecord(run.record, opts, io);
  else if (!run.written) io.out(`${toJson(run.partial)}\n`);
  else {
    const w = run.written;
    emit(io, opts, w, { table: () => shardWrittenRows(w), text: () => shardWrittenText(w) });
  }
  const notices = sweepNoticesText(run.profileNotes, run.diagnostics);
  if (notices) io.err(notices);
  return 0;
}

const DEFAULT_CLOCKS = '210:1980:15';

const PLAIN_BANDWIDTH = {
  name: 'plain-bandwidth',
  type: 'boolean',
  description: 'read network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s)',
} as const satisfies OptionSpec;

export const sweepNetworkCommand = defineCommand({
  name: 'sweep network',
  summary:
    'network DVFS what-if: replay at each frequency scale of one dimension (bandwidth × s, pJ/bit × (V(s)/V(1))²)',
  args: [TRACE_ARG],
  options: [
    { name: 'system', type: 'string', value: 'file', description: 'ASTRA-sim system.json', required: true },
    { name: 'network', type: 'string', value: 'file', description: 'ASTRA-sim network.yml', required: true },
    {
      ...powerConfigOption(`power.json, or a preset name: ${POWER_PRESETS.join(', ')}`),
      default: DEFAULT_POWER_PRESET,
    },
    {
      name: 'memory',
      type: 'string',
      value: 'file',
      description: 'ASTRA-sim remote memory JSON (needed for MEM_LOAD/STORE nodes)',
    },
    { name: 'comm-group', type: 'string', value: 'file', description: 'ASTRA-sim comm-group JSON (pg_name → ranks)' },
    {
      name: 'dimension',
      type: 'int',
      min: 0,
      value: 'n',
      description: 'network dimension to scale (0 = first in network.yml)',
      default: 1,
    },
    {
      name: 'scale',
      type: 'range',
      value: 'a:b:step',
      description: 'frequency scales, start:stop:step or a comma list (1 = nominal)',
      default: DEFAULT_SCALES,
    },
    {
      name: 'vf-curve',
      type: 'string',
      value: 'file',
      description: 'V–f curve JSON {"points":[{"scale","voltage"}…]} (default: the SerDes curve in the README)',
    },
    PLAIN_BANDWIDTH,
    {
      name: 'threads',
      type: 'int',
      value: 'n',
      description: 'worker threads replaying points (default: available cores)',
    },
    ...tableOptions('one row per frequency scale'),
    ...SHARD_OPTIONS,
  ],
  example:
    'tracewatt sweep network traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system ' +
    'traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power-config h100-cluster ' +
    '--dimension 0 --scale 0.5:1.0:0.1',
  async run(args, opts, io) {
    return runAndPrint(io, args, opts, 'replaying scales', (common) =>
      runNetworkSweep({ ...common, vfCurve: opts.vfCurve, dimension: opts.dimension, scales: opts.scale }),
    );
  },
});

export const sweepGpuCommand = defineCommand({
  name: 'sweep gpu',
  summary:
    'GPU clock what-if: annotate at each SM clock, replay, and report the U-curve, Pareto front and optimal clocks',
  args: [TRACE_ARG],
  options: [
    {
      name: 'calibration',
      type: 'string',
      value: 'file',
      description: 'calibration JSON (tracewatt calibrate)',
      required: true,
    },
    {
      name: 'profile',
      type: 'string',
      value: 'file',
      description:
        'profile of the traced kernels at the reference clock (repeatable); without one, nodes with ' +
        'num_ops/tensor_size get roofline estimates',
      repeatable: true,
    },
    { name: 'format', type: 'string', value: 'F', description: 'force the profile format' },
    {
      name: 'frequencies',
      type: 'range',
      value: 'a:b:step',
      description: 'SM clocks in MHz, start:stop:step or a comma list',
      default: DEFAULT_CLOCKS,
    },
    {
      name: 'reference-frequency',
      type: 'number',
      positive: true,
      unit: 'MHz',
      value: 'MHz',
      description: "SM clock the trace durations were recorded at (default: the calibration's highest)",
    },
    { name: 'system', type: 'string', value: 'file', description: 'ASTRA-sim system.json', required: true },
    { name: 'network', type: 'string', value: 'file', description: 'ASTRA-sim network.yml', required: true },
    { name: 'memory', type: 'string', value: 'file', description: 'ASTRA-sim remote memory JSON' },
    { name: 'comm-group', type: 'string', value: 'file', description: 'ASTRA-sim comm-group JSON' },
    {
      name: 'power-preset',
      type: 'string',
      value: 'name|file',
      description:
        `memory and network pJ/bit from a preset (${POWER_PRESETS.join(', ')}) or power.json (default: by ` + `device)`,
    },
    {
      name: 'select',
      type: 'string',
      value: 'selector',
      description: 'min-energy, min-time, max-slowdown:<pct> or cost:<η>:<P_max W> (repeatable)',
      repeatable: true,
    },
    {
      name: 'keep',
      type: 'string',
      value: 'dir',
      description: 'keep the annotated traces in this folder (default: a temporary folder, removed)',
    },
    PLAIN_BANDWIDTH,
    { name: 'threads', type: 'int', value: 'n', description: 'worker threads (default: available cores)' },
    ...tableOptions('one row per SM clock'),
    ...SHARD_OPTIONS,
  ],
  exampleSetup: ['tracewatt generate llm --model llama2-7b --tp 2 --pp 2 --global-batch 4 --seq 512 --out out/llm'],
  example:
    'tracewatt sweep gpu out/llm --calibration calibration/h100-datasheet.json --frequencies 1110:1980:145 ' +
    '--system out/llm.system.json --network out/llm.network.yml --select max-slowdown:5',
  async run(args, opts, io) {
    return runAndPrint(io, args, opts, 'replaying clocks', (common) =>
      runGpuSweep({
        ...common,
        calibration: opts.calibration,
        profiles: opts.profile,
        profileFormat: opts.format as ProfileFormat | undefined,
        frequenciesMHz: opts.frequencies,
        referenceClockMHz: opts.referenceFrequency,
        powerPreset: opts.powerPreset,
        keep: opts.keep,
        selectors: opts.select,
      }),
    );
  },
});

export const mergeCommand = defineCommand({
  name: 'merge',
  summary:
    'merge the partial results of a sharded sweep (sweep … --shard i/N) into the record the unsharded sweep gives',
  args: [{ name: 'partials', description: 'the partial results JSON of every shard, in any order', variadic: true }],
  options: [
    { name: 'out', type: 'string', value: 'file', description: 'also write the record JSON to this file, atomically' },
    ...tableOptions('one row per point'),
  ],
  exampleSetup: [
    'tracewatt sweep network traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system ' +
      'traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power-config h100-cluster ' +
      '--dimension 0 --scale 0.5:1.0:0.1 --shard 1/2 --out out/parts/net-1.json',
    'tracewatt sweep network traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system ' +
      'traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power-config h100-cluster ' +
      '--dimension 0 --scale 0.5:1.0:0.1 --shard 2/2 --out out/parts/net-2.json',
  ],
  example: 'tracewatt merge out/parts/net-1.json out/parts/net-2.json --out out/sweep-network.json',
  async run(args, opts, io) {
    printSweepRecord(await mergeSweep(args, opts.out), opts, io);
    return 0;
  },
});

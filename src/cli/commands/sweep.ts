/** `tracewatt sweep network` and `tracewatt sweep gpu`: what-if sweeps over a network dimension's V–f and the SM clock. */
import { Diagnostics } from '../../diagnostics.js';
import { toJson } from '../../formats/json.js';
import { DEFAULT_POWER_PRESET, loadClusterConfigs, POWER_PRESETS, presetPath } from '../../engines/replay/index.js';
import {
  DEFAULT_SERDES_VF_CURVE,
  gpuSweepPoints,
  gpuSweepRecord,
  inputDigests,
  loadVfCurve,
  makePartial,
  networkSweepPoints,
  networkSweepRecord,
  mergeSweepFiles,
  parseSelector,
  parseShard,
  shardIndices,
  sweepClocks,
  type GpuClockSweepRecord,
  type GpuSweepRecordOptions,
  type NetworkSweepRecord,
  type NetworkSweepRecordOptions,
  type Shard,
  type SweepKind,
} from '../../engines/studies/index.js';
import { writeFileAtomic } from '../../formats/output.js';
import type { ProfileFormat } from '../../formats/profiles/index.js';
import { gpuSweepRows, gpuSweepText, networkSweepRows, networkSweepText } from '../../report/text.js';
import type { CommandIO, CommandSpec, OptionSpec } from '../command.js';
import { emit, int, num, rangeList, str, tableLayout, tableOptions } from '../io.js';

/** Progress on a terminal's stderr. */
export function progress(io: CommandIO, what: string) {
  return (done: number, total: number) => {
    if (io.isTTY) io.err(`\r${what}: ${done}/${total}${done === total ? '\n' : ''}`);
  };
}

const DEFAULT_SCALES = '0.5:1.0:0.05';

/** Options every sweep has for running as shards (a job array) and writing its JSON to a file. */
const SHARD_OPTIONS: OptionSpec[] = [
  {
    name: 'shard',
    value: 'i/N',
    description:
      'compute only shard i of N (every N-th point, from point i) and write a partial result for `tracewatt merge`',
  },
  {
    name: 'out',
    value: 'file',
    description: 'write the JSON (the record, or the partial with --shard) to this file, atomically',
  },
];

/** A sweep's record as JSON, CSV or text; with --out also as JSON in that file. */
export async function printSweepRecord(
  record: NetworkSweepRecord | GpuClockSweepRecord,
  opts: Record<string, unknown>,
  io: CommandIO,
): Promise<void> {
  const out = str(opts, 'out');
  if (out) await writeFileAtomic(out, `${toJson(record)}\n`);
  const network = record.kind === 'network-sweep';
  emit(io, opts, record, {
    table: () => (network ? networkSweepRows(record) : gpuSweepRows(record)),
    text: () => (network ? networkSweepText(record, tableLayout(opts)) : gpuSweepText(record, tableLayout(opts))),
  });
}

/** Writes a shard's partial result (to --out, or stdout). */
async function writePartial<P>(
  sweep: SweepKind,
  shard: Shard,
  identity: { inputs: Record<string, string>; options: object },
  indices: number[],
  total: number,
  points: P[],
  opts: Record<string, unknown>,
  io: CommandIO,
): Promise<void> {
  const partial = makePartial(
    sweep,
    shard,
    { inputs: identity.inputs, options: { ...identity.options } },
    total,
    indices.map((index, i) => ({ index, point: points[i] })),
  );
  const out = str(opts, 'out');
  if (!out) {
    io.out(`${toJson(partial)}\n`);
    return;
  }
  await writeFileAtomic(out, `${toJson(partial)}\n`);
  io.out(
    opts.json
      ? `${toJson({ out, shard, points: indices.length, totalPoints: total })}\n`
      : `wrote ${out}: shard ${shard.index}/${shard.count}, ${indices.length} of ${total} points\n`,
  );
}
const DEFAULT_CLOCKS = '210:1980:15';

export const sweepNetworkCommand: CommandSpec = {
  name: 'sweep network',
  summary:
    'network DVFS what-if: replay at each frequency scale of one dimension (bandwidth × s, pJ/bit × (V(s)/V(1))²)',
  args: [{ name: 'trace', description: '<prefix> of <prefix>.<rank>.et files, a directory, or one .et file' }],
  options: [
    { name: 'system', value: 'file', description: 'ASTRA-sim system.json', required: true },
    { name: 'network', value: 'file', description: 'ASTRA-sim network.yml', required: true },
    {
      name: 'power',
      value: 'file',
      description: `power.json, or a preset name: ${POWER_PRESETS.join(', ')}`,
      default: DEFAULT_POWER_PRESET,
    },
    { name: 'memory', value: 'file', description: 'ASTRA-sim remote memory JSON (needed for MEM_LOAD/STORE nodes)' },
    { name: 'comm-group', value: 'file', description: 'ASTRA-sim comm-group JSON (pg_name → ranks)' },
    { name: 'dimension', value: 'n', description: 'network dimension to scale (0 = first in network.yml)', default: 1 },
    {
      name: 'scale',
      value: 'a:b:step',
      description: 'frequency scales, start:stop:step or a comma list (1 = nominal)',
      default: DEFAULT_SCALES,
    },
    {
      name: 'vf-curve',
      value: 'file',
      description: 'V–f curve JSON {"points":[{"scale","voltage"}…]} (default: the SerDes curve in the README)',
    },
    { name: 'plain-bandwidth', description: 'read network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s)' },
    { name: 'threads', value: 'n', description: 'worker threads replaying points (default: available cores)' },
    ...tableOptions('one row per frequency scale'),
    ...SHARD_OPTIONS,
  ],
  example:
    'tracewatt sweep network traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power h100-cluster --dimension 0 --scale 0.5:1.0:0.1',
  async run(args, opts, io) {
    const dimension = int(opts, 'dimension', { min: 0 }) ?? 1;
    const diagnostics = new Diagnostics();
    const cluster = await loadClusterConfigs(
      {
        system: String(opts.system),
        network: String(opts.network),
        memory: str(opts, 'memory'),
        commGroup: str(opts, 'commGroup'),
        power: str(opts, 'power'),
      },
      diagnostics,
    );
    const vfFile = str(opts, 'vfCurve');
    const vfCurve = vfFile ? await loadVfCurve(vfFile) : undefined;
    const shard = opts.shard === undefined ? undefined : parseShard(String(opts.shard));
    const record: NetworkSweepRecordOptions = {
      label: `${args[0]} on ${String(opts.network)}: dimension ${dimension} DVFS`,
      dimension,
      vfCurve: (vfCurve ?? DEFAULT_SERDES_VF_CURVE).name,
    };
    const scales = rangeList(opts, 'scale', DEFAULT_SCALES);
    const input = {
      label: record.label,
      trace: { kind: 'files' as const, trace: args[0] },
      ...cluster,
      bandwidthUnit: opts.plainBandwidth ? ('GBps' as const) : ('astra-sim' as const),
      dimension,
      scales,
      vfCurve,
      threads: int(opts, 'threads'),
      onPoint: progress(io, 'replaying scales'),
    };
    const indices = shard ? shardIndices(scales.length, shard) : undefined;
    const run = await networkSweepPoints(input, indices);
    if (shard) {
      const inputs = await inputDigests(
        {
          system: cluster.system.file,
          network: cluster.network.file,
          memory: cluster.memory?.file,
          commGroup: cluster.commGroups?.file,
          power: cluster.power.file,
          vfCurve: vfFile,
        },
        args[0],
      );
      await writePartial(
        'network',
        shard,
        { inputs, options: { ...record, scales: run.scales, bandwidthUnit: input.bandwidthUnit } },
        indices!,
        run.scales.length,
        run.points,
        opts,
        io,
      );
    } else {
      await printSweepRecord(networkSweepRecord(record.label, dimension, record.vfCurve, run.points), opts, io);
    }
    const diags = [...diagnostics.summary(), ...(run.replays[0]?.diagnostics ?? [])];
    for (const d of diags) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
    return 0;
  },
};

export const sweepGpuCommand: CommandSpec = {
  name: 'sweep gpu',
  summary:
    'GPU clock what-if: annotate at each SM clock, replay, and report the U-curve, Pareto front and optimal clocks',
  args: [{ name: 'trace', description: '<prefix> of <prefix>.<rank>.et files, a directory, or one .et file' }],
  options: [
    { name: 'calibration', value: 'file', description: 'calibration JSON (tracewatt calibrate)', required: true },
    {
      name: 'profile',
      value: 'file',
      description:
        'profile of the traced kernels at the reference clock (repeatable); without one, nodes with num_ops/tensor_size get roofline estimates',
      repeatable: true,
    },
    { name: 'format', value: 'F', description: 'force the profile format' },
    {
      name: 'frequencies',
      value: 'a:b:step',
      description: 'SM clocks in MHz, start:stop:step or a comma list',
      default: DEFAULT_CLOCKS,
    },
    {
      name: 'reference-frequency',
      value: 'MHz',
      description: "SM clock the trace durations were recorded at (default: the calibration's highest)",
    },
    { name: 'system', value: 'file', description: 'ASTRA-sim system.json', required: true },
    { name: 'network', value: 'file', description: 'ASTRA-sim network.yml', required: true },
    { name: 'memory', value: 'file', description: 'ASTRA-sim remote memory JSON' },
    { name: 'comm-group', value: 'file', description: 'ASTRA-sim comm-group JSON' },
    {
      name: 'power-preset',
      value: 'name|file',
      description: `memory and network pJ/bit from a preset (${POWER_PRESETS.join(', ')}) or power.json (default: by device)`,
    },
    {
      name: 'select',
      value: 'selector',
      description: 'min-energy, min-time, max-slowdown:<pct> or cost:<η>:<P_max W> (repeatable)',
      repeatable: true,
    },
    {
      name: 'keep',
      value: 'dir',
      description: 'keep the annotated traces in this folder (default: a temporary folder, removed)',
    },
    { name: 'plain-bandwidth', description: 'read network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s)' },
    { name: 'threads', value: 'n', description: 'worker threads (default: available cores)' },
    ...tableOptions('one row per SM clock'),
    ...SHARD_OPTIONS,
  ],
  exampleSetup: ['tracewatt generate llm --model llama2-7b --tp 2 --pp 2 --global-batch 4 --seq 512 --out out/llm'],
  example:
    'tracewatt sweep gpu out/llm --calibration calibration/h100-datasheet.json --frequencies 1110:1980:145 --system out/llm.system.json --network out/llm.network.yml --select max-slowdown:5',
  async run(args, opts, io) {
    const diagnostics = new Diagnostics();
    const { power: _power, ...cluster } = await loadClusterConfigs(
      {
        system: String(opts.system),
        network: String(opts.network),
        memory: str(opts, 'memory'),
        commGroup: str(opts, 'commGroup'),
      },
      diagnostics,
    );
    const powerPreset = str(opts, 'powerPreset');
    const selectors = ((opts.select as unknown[] | undefined) ?? []).map(String);
    const shard = opts.shard === undefined ? undefined : parseShard(String(opts.shard));
    const record: GpuSweepRecordOptions = { label: `${args[0]}: SM clock sweep`, selectors };
    const profiles = ((opts.profile as unknown[] | undefined) ?? []).map(String);
    const input = {
      label: record.label,
      trace: args[0],
      calibration: String(opts.calibration),
      profiles,
      profileFormat: str(opts, 'format') as ProfileFormat | undefined,
      frequenciesMHz: rangeList(opts, 'frequencies', DEFAULT_CLOCKS),
      referenceClockMHz: num(opts, 'referenceFrequency', { positive: true, unit: 'MHz' }),
      power: powerPreset ? { preset: powerPreset } : undefined,
      ...cluster,
      bandwidthUnit: opts.plainBandwidth ? ('GBps' as const) : ('astra-sim' as const),
      workDir: str(opts, 'keep'),
      selectors: selectors.map((t) => parseSelector(t)),
      threads: int(opts, 'threads'),
      onPoint: progress(io, 'replaying clocks'),
    };
    const clocks = sweepClocks(input.frequenciesMHz);
    const indices = shard ? shardIndices(clocks.length, shard) : undefined;
    const run = await gpuSweepPoints(input, indices);
    if (shard) {
      const presetFile =
        powerPreset && (POWER_PRESETS as readonly string[]).includes(powerPreset)
          ? presetPath(powerPreset)
          : powerPreset;
      const inputs = await inputDigests(
        {
          system: cluster.system.file,
          network: cluster.network.file,
          memory: cluster.memory?.file,
          commGroup: cluster.commGroups?.file,
          calibration: input.calibration,
          profile: profiles,
          powerPreset: presetFile,
        },
        args[0],
      );
      const options = {
        ...record,
        frequenciesMHz: clocks,
        referenceClockMHz: input.referenceClockMHz ?? null,
        profileFormat: input.profileFormat ?? null,
        bandwidthUnit: input.bandwidthUnit,
      };
      await writePartial('gpu', shard, { inputs, options }, indices!, clocks.length, run.points, opts, io);
    } else {
      await printSweepRecord(gpuSweepRecord(record.label, run.points, input.selectors), opts, io);
    }
    for (const p of run.annotate.profileNotes) for (const n of p.notes) io.err(`${p.profile}: note: ${n}\n`);
    for (const d of [...diagnostics.summary(), ...run.annotate.diagnostics])
      io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
    return 0;
  },
};

export const mergeCommand: CommandSpec = {
  name: 'merge',
  summary:
    'merge the partial results of a sharded sweep (sweep … --shard i/N) into the record the unsharded sweep gives',
  args: [{ name: 'partials', description: 'the partial results JSON of every shard, in any order', variadic: true }],
  options: [
    { name: 'out', value: 'file', description: 'also write the record JSON to this file, atomically' },
    ...tableOptions('one row per point'),
  ],
  exampleSetup: [
    'tracewatt sweep network traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power h100-cluster --dimension 0 --scale 0.5:1.0:0.1 --shard 1/2 --out out/parts/net-1.json',
    'tracewatt sweep network traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power h100-cluster --dimension 0 --scale 0.5:1.0:0.1 --shard 2/2 --out out/parts/net-2.json',
  ],
  example: 'tracewatt merge out/parts/net-1.json out/parts/net-2.json --out out/sweep-network.json',
  async run(args, opts, io) {
    await printSweepRecord(await mergeSweepFiles(args), opts, io);
    return 0;
  },
};

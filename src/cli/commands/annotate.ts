import { annotateTrace, type AnnotateResult, type RooflinePrecision } from '../../engines/annotate/index.js';
import { POWER_PRESETS } from '../../engines/replay/index.js';
import { InputError } from '../../errors.js';
import { outputErrorUnder } from '../../formats/output.js';
import type { ProfileFormat } from '../../formats/profiles/index.js';
import { fixed, formatTable, type Cell, type Column, type TableOptions } from '../../report/tables.js';
import type { CommandSpec } from '../command.js';
import { progressBar } from '../progress.js';
import { choice, emit, int, num, numberList, str, tableLayout, tableOptions } from '../io.js';
import { PROFILE_OPTIONS, profileReadOptions } from './profile-options.js';

const pct = (x: number | null) => (x === null ? null : 100 * x);

/** One row per rank (all, or the first and last 8 of many) and a total row. */
function rankRows(r: AnnotateResult, all: boolean): { columns: Column[]; rows: Cell[][] } {
  const freqs = r.outputs.map((o) => o.frequencyMHz);
  const columns: Column[] = [
    { header: 'rank', align: 'left' },
    { header: 'nodes' },
    { header: 'GPU compute nodes' },
    { header: 'matched' },
    { header: 'memcpy/set' },
    { header: 'match rate (%)', format: (v: Cell) => (v === null ? '-' : fixed(1)(v)), align: 'right' },
    { header: 'unmatched' },
    { header: 'roofline' },
    { header: 'estimated' },
    { header: 'untouched' },
    { header: 'host ops' },
    ...freqs.map((f) => ({
      header: `compute energy @${f} MHz (J, est.)`,
      key: `computeEnergyJAt${f}MHz`,
      format: fixed(4),
    })),
  ];
  const matched = (x: { matched: Record<string, number> }) => Object.values(x.matched).reduce((a, b) => a + b, 0);
  const shown = r.ranks.length > 16 && !all ? [...r.ranks.slice(0, 8), ...r.ranks.slice(-8)] : r.ranks;
  const rows: Cell[][] = shown.map((x) => [
    x.rank,
    x.nodes,
    x.gpuCompNodes,
    matched(x),
    x.memcpy,
    pct(x.matchRate),
    x.unmatched,
    x.roofline,
    x.estimated,
    x.untouched,
    x.cpuOps,
    ...x.perFrequency.map((p) => p.computeEnergyJ),
  ]);
  const t = r.total;
  rows.push([
    'total',
    t.nodes,
    t.gpuCompNodes,
    matched(t),
    t.memcpy,
    pct(t.matchRate),
    t.unmatched,
    t.roofline,
    t.estimated,
    t.untouched,
    t.cpuOps,
    ...r.outputs.map((o) => o.computeEnergyJ),
  ]);
  return { columns, rows };
}

function summary(r: AnnotateResult, layout: TableOptions): string {
  const t = r.total;
  const table = rankRows(r, false);
  const lines = [
    `annotated ${r.ranks.length} rank(s) of ${r.trace} with ${r.calibration.device} (${r.calibration.kind} calibration), ${r.profileKernels} profiled kernel(s); ` +
      `reference clock ${r.referenceClockMHz} MHz; ${r.parallelism.mode === 'workers' ? `${r.parallelism.threads} threads (this one and ${r.parallelism.threads - 1} worker${r.parallelism.threads === 2 ? '' : 's'})` : `in-process (${r.parallelism.reason})`}`,
    `matched by: exact ${t.matched.exact}, normalized ${t.matched.normalized}, base name ${t.matched.base}, op ${t.matched.op}` +
      (t.byInvocation ? ` (${t.byInvocation} picked by invocation order)` : ''),
    '',
    formatTable(table.columns, table.rows, layout).trimEnd(),
    "memcpy/set: of the matched, memcpy and memset nodes; estimated: from the node's own duration and the",
    "calibration's assumed power (no counters or power for it)",
  ];
  if (r.ranks.length > 16) lines.push(`… ${r.ranks.length - 16} more ranks (use --csv or --json)`);
  if (t.unmatchedNames.length) {
    lines.push('', 'most frequent unmatched GPU kernels:');
    for (const n of t.unmatchedNames.slice(0, 5))
      lines.push(`  ${String(n.count).padStart(7)}  ${n.name.length > 110 ? `${n.name.slice(0, 107)}...` : n.name}`);
  }
  lines.push('', 'written (energies are estimates):');
  for (const o of r.outputs) {
    lines.push(
      `  ${o.frequencyMHz} MHz: ${o.prefix}.<rank>.et, ${o.powerFile} (active ${o.activePowerW} W, idle ${o.idlePowerW} W, communication ${o.commPowerW} W; DRAM part ${fixed(4)(o.memoryEnergyJ)} of ${fixed(4)(o.computeEnergyJ)} J)`,
    );
  }
  const annotated = t.gpuCompNodes - t.untouched;
  if (t.memorySplitUnknown)
    lines.push(
      `energy_memory_j (the DRAM part of energy_j): unknown for ${t.memorySplitUnknown} of ${annotated} annotated node(s), written 0 (duration estimates, or no DRAM counter / component)`,
    );
  return `${lines.join('\n')}\n`;
}

export const annotateCommand: CommandSpec = {
  name: 'annotate',
  summary:
    'Write per-node utilization, duration and energy at target SM clocks into a Chakra trace (estimates), plus a replay power config',
  args: [{ name: 'trace', description: '<prefix> of <prefix>.<rank>.et files, a directory, or one .et file' }],
  options: [
    {
      name: 'calibration',
      value: 'file',
      description: 'calibration JSON (tracewatt calibrate, or calibration/*.json)',
      required: true,
    },
    {
      name: 'profile',
      value: 'file',
      description:
        'kernel profile(s) to match trace nodes against (repeatable); without one, nodes with num_ops/tensor_size get roofline estimates',
      repeatable: true,
    },
    { name: 'profile-format', value: 'F', description: 'force the profile format' },
    ...PROFILE_OPTIONS.filter((o) => o.name !== 'format').map((o) =>
      o.name === 'mapping'
        ? { ...o, description: o.description.replace('--format', '--profile-format') }
        : o.name === 'power'
          ? {
              ...o,
              description:
                'power log joined with the profile (an Nsight Systems cuda_gpu_trace or a Kineto trace) for per-kernel power and energy',
            }
          : o,
    ),
    {
      name: 'bands',
      description:
        "write each node's 10–90 % band (energy_j_p10/p90, duration_ns_p10/p90) where the calibration's band model gives one",
    },
    {
      name: 'frequency',
      value: 'MHz',
      description: 'target SM clock: writes <out>.<rank>.et and <out>.power.json (default: the reference clock)',
    },
    {
      name: 'frequencies',
      value: 'list',
      description:
        'target SM clocks, comma-separated: writes <out>.<F>MHz.<rank>.et and <out>.<F>MHz.power.json per clock',
    },
    { name: 'out', value: 'prefix', description: 'output prefix', required: true },
    {
      name: 'reference-frequency',
      value: 'MHz',
      description:
        "SM clock the trace's durations were recorded at (default: a Kineto profile's assumed clock — its GPU's maximum boost clock — else the calibration's highest clock; profile samples without a clock are taken at it; a note says which)",
    },
    {
      name: 'scaling',
      value: 'ratio|offset',
      description: 'how a kernel keeps its measured power at other clocks',
      default: 'ratio',
    },
    {
      name: 'roofline-precision',
      value: 'P',
      description: 'peak FLOP/s used for unmatched nodes: fp16Tensor, fp32 or fp64',
      default: 'fp16Tensor',
    },
    {
      name: 'power-preset',
      value: 'name|file',
      description: `memory/network pJ/bit from a preset (${POWER_PRESETS.join(', ')}) or power.json; default: by device`,
    },
    { name: 'memory-pj-per-bit', value: 'pJ', description: 'memory energy per bit (overrides the preset)' },
    {
      name: 'network-pj-per-bit',
      value: 'list',
      description: 'network energy per bit per dimension, comma-separated (overrides the preset)',
    },
    {
      name: 'idle-power',
      value: 'W',
      description:
        "GPU idle power (default: the calibration's idle figure at the clock, a measurement or published figure)",
    },
    {
      name: 'comm-power',
      value: 'W',
      description:
        'GPU power while only communication runs (default: idle + 0.3 × (active − idle), a stated assumption)',
    },
    {
      name: 'device-mismatch',
      value: 'ok',
      description:
        "say nothing when a profile names a device other than the calibration's (default: a warning naming both)",
    },
    {
      name: 'workers',
      value: 'n',
      description: 'threads annotating ranks in parallel, this one included; 1 = in-process (default: one per CPU)',
    },
    ...tableOptions('one row per rank and a total row'),
  ],
  exampleSetup: ['tracewatt import pytorch --dir traces/pytorch-real/dlrm --out out/dlrm'],
  example:
    'tracewatt annotate out/dlrm --calibration calibration/v100.json --profile traces/pytorch-real/dlrm/worker0_step_12.1694128201545.pt.trace.json.gz --frequency 1200 --out out/dlrm-1200',
  async run(args, opts, io) {
    if (opts.frequency !== undefined && opts.frequencies !== undefined)
      throw new InputError('give --frequency or --frequencies, not both');
    // Neither given: the engine annotates at the reference clock (and says so).
    const freqs =
      opts.frequency === undefined && opts.frequencies === undefined
        ? []
        : (numberList(opts, opts.frequency !== undefined ? 'frequency' : 'frequencies', 'MHz') ?? []);
    if (opts.frequency !== undefined && freqs.length !== 1)
      throw new InputError('--frequency takes one clock; use --frequencies for several');
    const scaling = choice(opts, 'scaling', ['ratio', 'offset'] as const) ?? 'ratio';
    const precision =
      choice<RooflinePrecision>(opts, 'rooflinePrecision', ['fp16Tensor', 'fp32', 'fp64']) ?? 'fp16Tensor';
    const workers = int(opts, 'workers', { min: 0 });
    const profiles =
      opts.profile === undefined ? [] : (Array.isArray(opts.profile) ? opts.profile : [opts.profile]).map(String);
    const { format: profileFormat, ...profileOptions } = profileReadOptions({ ...opts, format: opts.profileFormat });
    if (profiles.length === 0 && Object.keys(profileOptions).length)
      throw new InputError('--mapping and --power apply to a profile: pass it with --profile');

    const bar =
      io.isTTY && !opts.json
        ? await progressBar('annotate [{bar}] {percentage}% | {ranksDone}/{ranks} ranks | {mb}/{totalMb} MB')
        : null;
    let started = false;
    let result: AnnotateResult;
    try {
      result = await annotateTrace({
        trace: args[0],
        out: String(opts.out),
        calibration: String(opts.calibration),
        profiles,
        profileFormat: profileFormat as ProfileFormat | undefined,
        profileOptions,
        bands: opts.bands === true,
        frequenciesMHz: freqs,
        perFrequencyOutputs: opts.frequencies !== undefined,
        referenceClockMHz: num(opts, 'referenceFrequency', { positive: true, unit: 'MHz' }),
        scaling,
        rooflinePrecision: precision,
        power: {
          preset: str(opts, 'powerPreset'),
          memoryPjPerBit: num(opts, 'memoryPjPerBit', { min: 0, unit: 'pJ/bit' }),
          networkPjPerBit: numberList(opts, 'networkPjPerBit', 'pJ/bit'),
          idlePowerW: num(opts, 'idlePower', { min: 0, unit: 'W' }),
          commPowerW: num(opts, 'commPower', { min: 0, unit: 'W' }),
        },
        deviceMismatch: choice(opts, 'deviceMismatch', ['ok'] as const),
        workers,
        onProgress: bar
          ? (p) => {
              const payload = {
                ranksDone: p.ranksDone,
                ranks: p.ranks,
                mb: (p.bytesDone / 1e6).toFixed(1),
                totalMb: (p.bytesTotal / 1e6).toFixed(1),
              };
              if (!started) {
                started = true;
                bar.start(p.bytesTotal, p.bytesDone, payload);
              } else bar.update(p.bytesDone, payload);
            }
          : undefined,
      });
    } catch (e) {
      throw outputErrorUnder(String(opts.out), e);
    } finally {
      if (started) bar?.stop();
    }
    emit(io, opts, result, { table: () => rankRows(result, true), text: () => summary(result, tableLayout(opts)) });
    for (const p of result.profileNotes) for (const n of p.notes) io.err(`${p.profile}: note: ${n}\n`);
    for (const n of result.notes) io.err(`note: ${n}\n`);
    for (const d of result.diagnostics) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
    for (const w of result.warnings) io.err(`WARNING: ${w}\n`);
    return 0;
  },
};

/** `tracewatt sweep network` and `tracewatt sweep gpu`: what-if sweeps over a network dimension's V–f and the SM clock. */
import { readFile } from 'node:fs/promises';
import { COMMON_OPTIONS, type CommandSpec, type CommandIO } from '../command.js';
import { InputError } from '../../errors.js';
import { loadCommGroupConfig, loadNetworkConfig, loadPowerConfig, loadRemoteMemoryConfig, loadSystemConfig, parsePowerConfig } from '../../formats/astra/index.js';
import { Diagnostics } from '../../core/diagnostics.js';
import { POWER_PRESETS, presetPath, DEFAULT_POWER_PRESET } from '../../engines/replay/index.js';
import { loadVfCurve, parseRange, parseSelector, sweepGpu, sweepNetwork, type GpuClockSweepRecord, type NetworkSweepRecord } from '../../engines/studies/index.js';
import type { ProfileFormat } from '../../formats/profiles/index.js';
import { table } from '../io.js';

function progress(io: CommandIO, what: string) {
  return (done: number, total: number) => {
    if (io.isTTY) io.err(`\r${what}: ${done}/${total}${done === total ? '\n' : ''}`);
  };
}

export async function loadPower(spec: string) {
  return (POWER_PRESETS as readonly string[]).includes(spec) ? parsePowerConfig(presetPath(spec), await readFile(presetPath(spec), 'utf8')) : loadPowerConfig(spec);
}

export function threadsOption(opts: Record<string, unknown>): number | undefined {
  if (opts.threads === undefined) return undefined;
  const t = Number(opts.threads);
  if (!Number.isInteger(t) || t < 1) throw new InputError(`--threads must be a positive integer, got ${String(opts.threads)}`);
  return t;
}

const f = (x: number | null, d: number) => (x === null ? '-' : x.toFixed(d));
/** Significant digits, for energies that range from mJ to MJ. */
const g = (x: number | null) => (x === null ? '-' : Number(x.toPrecision(5)).toString());

export function networkSweepTable(r: NetworkSweepRecord): string {
  const dims = r.points[0].networkByDimensionJ.map((_, i) => `net d${i} J`);
  return `${r.label} (estimated; ${r.vfCurve})\n` + table(
    ['scale', 'GB/s', 'pJ/bit', 'V/V1', 'makespan ms', 'total J', 'compute J', 'memory J', ...dims, 'idle J', 'ΔE/ΔT W', 'saved %/slow %', 'dominated'],
    r.points.map((p) => [p.scale, f(p.bandwidthGBps, 1), f(p.energyPerBitPJ, 2), f(p.voltageRatio, 3), g(p.makespanNs / 1e6), g(p.energyJ.total),
      g(p.energyJ.compute), g(p.energyJ.memory), ...p.networkByDimensionJ.map(g), g(p.energyJ.idle),
      g(p.marginal?.energyPerTimeW ?? null), f(p.marginal?.energySavedPctPerSlowdownPct ?? null, 3), p.dominated ? 'yes' : '']),
  );
}

export function networkSweepCsv(r: NetworkSweepRecord): string {
  const dims = r.points[0].networkByDimensionJ.map((_, i) => `networkDim${i}J`);
  const head = ['scale', 'bandwidthGBps', 'energyPerBitPJ', 'voltageRatio', 'makespanNs', 'computeJ', 'memoryJ', 'networkJ', ...dims, 'idleJ', 'totalJ',
    'deltaEnergyJ', 'deltaTimeS', 'energyPerTimeW', 'energySavedPctPerSlowdownPct', 'dominated'];
  const rows = r.points.map((p) => [p.scale, p.bandwidthGBps, p.energyPerBitPJ, p.voltageRatio, p.makespanNs, p.energyJ.compute, p.energyJ.memory, p.energyJ.network,
    ...p.networkByDimensionJ, p.energyJ.idle, p.energyJ.total, p.marginal?.deltaEnergyJ ?? '', p.marginal?.deltaTimeS ?? '', p.marginal?.energyPerTimeW ?? '',
    p.marginal?.energySavedPctPerSlowdownPct ?? '', p.dominated]);
  return [head, ...rows].map((x) => x.join(',')).join('\n') + '\n';
}

export const sweepNetworkCommand: CommandSpec = {
  name: 'sweep network',
  summary: 'network DVFS what-if: replay at each frequency scale of one dimension (bandwidth × s, pJ/bit × (V(s)/V(1))²)',
  args: [{ name: 'trace', description: '<prefix> of <prefix>.<rank>.et files, a directory, or one .et file' }],
  options: [
    { name: 'system', value: 'file', description: 'ASTRA-sim system.json', required: true },
    { name: 'network', value: 'file', description: 'ASTRA-sim network.yml', required: true },
    { name: 'power', value: 'file', description: `power.json, or a preset name: ${POWER_PRESETS.join(', ')}`, default: DEFAULT_POWER_PRESET },
    { name: 'memory', value: 'file', description: 'ASTRA-sim remote memory JSON (needed for MEM_LOAD/STORE nodes)' },
    { name: 'comm-group', value: 'file', description: 'ASTRA-sim comm-group JSON (pg_name → ranks)' },
    { name: 'dimension', value: 'n', description: 'network dimension to scale (0 = first in network.yml)', default: 1 },
    { name: 'scale', value: 'a:b:step', description: 'frequency scales, start:stop:step or a comma list (1 = nominal)', default: '0.5:1.0:0.05' },
    { name: 'vf-curve', value: 'file', description: 'V–f curve JSON {"points":[{"scale","voltage"}…]} (default: the SerDes curve in the README)' },
    { name: 'plain-bandwidth', description: 'read network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s)' },
    { name: 'threads', value: 'n', description: 'worker threads replaying points (default: available cores)' },
    { name: 'csv', description: 'print one CSV row per scale' },
    ...COMMON_OPTIONS,
  ],
  example: 'tracewatt sweep network traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power h100-cluster --dimension 0 --scale 0.5:1.0:0.1',
  async run(args, opts, io) {
    const dimension = Number(opts.dimension ?? 1);
    const diagnostics = new Diagnostics();
    const network = await loadNetworkConfig(String(opts.network));
    const res = await sweepNetwork({
      label: `${args[0]} on ${String(opts.network)}: dimension ${dimension} DVFS`,
      trace: { kind: 'files', trace: args[0] },
      system: await loadSystemConfig(String(opts.system), diagnostics),
      network,
      power: await loadPower(String(opts.power ?? DEFAULT_POWER_PRESET)),
      memory: opts.memory ? await loadRemoteMemoryConfig(String(opts.memory)) : undefined,
      commGroups: opts.commGroup ? await loadCommGroupConfig(String(opts.commGroup), network.dims.reduce((a, d) => a * d.npus, 1)) : undefined,
      bandwidthUnit: opts.plainBandwidth ? 'GBps' : 'astra-sim',
      dimension,
      scales: parseRange(String(opts.scale ?? '0.5:1.0:0.05'), '--scale'),
      vfCurve: opts.vfCurve ? await loadVfCurve(String(opts.vfCurve)) : undefined,
      threads: threadsOption(opts),
      onPoint: progress(io, 'replaying scales'),
    });
    if (opts.json) io.out(JSON.stringify(res.record, null, 2) + '\n');
    else if (opts.csv) io.out(networkSweepCsv(res.record));
    else io.out(networkSweepTable(res.record));
    const diags = [...diagnostics.summary(), ...(res.replays[0]?.diagnostics ?? [])];
    for (const d of diags) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
    return 0;
  },
};

export function gpuSweepTable(r: GpuClockSweepRecord): string {
  let out = `${r.label} (estimated)\n` + table(
    ['clock MHz', 'time s', 'total J', 'compute J', 'memory J', 'network J', 'idle J', 'pareto'],
    r.points.map((p) => [p.clockMHz, g(p.timeS), g(p.energyJ.total), g(p.energyJ.compute), g(p.energyJ.memory), g(p.energyJ.network), g(p.energyJ.idle), p.pareto ? 'yes' : '']),
  );
  out += `energy-optimal clock ${r.energyOptimalMHz} MHz, time-optimal clock ${r.timeOptimalMHz} MHz\n`;
  for (const s of r.selections) out += `selector ${s.selector}: ${s.clockMHz} MHz\n`;
  out += '\nenergy saved vs runtime penalty (Pareto points, against the fastest):\n' + table(
    ['clock MHz', 'time s', 'energy J', 'energy saved %', 'runtime penalty %'],
    r.tradeoff.map((t) => [t.clockMHz, g(t.timeS), g(t.energyJ), f(t.energySavedPct, 2), f(t.runtimePenaltyPct, 2)]),
  );
  return out;
}

export function gpuSweepCsv(r: GpuClockSweepRecord): string {
  const head = ['clockMHz', 'timeS', 'computeJ', 'memoryJ', 'networkJ', 'idleJ', 'totalJ', 'pareto'];
  const rows = r.points.map((p) => [p.clockMHz, p.timeS, p.energyJ.compute, p.energyJ.memory, p.energyJ.network, p.energyJ.idle, p.energyJ.total, p.pareto]);
  return [head, ...rows].map((x) => x.join(',')).join('\n') + '\n';
}

export const sweepGpuCommand: CommandSpec = {
  name: 'sweep gpu',
  summary: 'GPU clock what-if: annotate at each SM clock, replay, and report the U-curve, Pareto front and optimal clocks',
  args: [{ name: 'trace', description: '<prefix> of <prefix>.<rank>.et files, a directory, or one .et file' }],
  options: [
    { name: 'calibration', value: 'file', description: 'calibration JSON (tracewatt calibrate)', required: true },
    { name: 'profile', value: 'file', description: 'profile of the traced kernels at the reference clock (repeatable); without one, nodes with num_ops/tensor_size get roofline estimates', repeatable: true },
    { name: 'format', value: 'F', description: 'force the profile format' },
    { name: 'frequencies', value: 'a:b:step', description: 'SM clocks in MHz, start:stop:step or a comma list', default: '210:1980:15' },
    { name: 'reference-frequency', value: 'MHz', description: 'SM clock the trace durations were recorded at (default: the calibration\'s highest)' },
    { name: 'system', value: 'file', description: 'ASTRA-sim system.json', required: true },
    { name: 'network', value: 'file', description: 'ASTRA-sim network.yml', required: true },
    { name: 'memory', value: 'file', description: 'ASTRA-sim remote memory JSON' },
    { name: 'comm-group', value: 'file', description: 'ASTRA-sim comm-group JSON' },
    { name: 'power-preset', value: 'name|file', description: `memory and network pJ/bit from a preset (${POWER_PRESETS.join(', ')}) or power.json (default: by device)` },
    { name: 'select', value: 'selector', description: 'min-energy, min-time, max-slowdown:<pct> or cost:<η>:<P_max W> (repeatable)', repeatable: true },
    { name: 'keep', value: 'dir', description: 'keep the annotated traces in this folder (default: a temporary folder, removed)' },
    { name: 'plain-bandwidth', description: 'read network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s)' },
    { name: 'threads', value: 'n', description: 'worker threads (default: available cores)' },
    { name: 'csv', description: 'print one CSV row per clock' },
    ...COMMON_OPTIONS,
  ],
  example: 'tracewatt sweep gpu traces/mine/t --calibration calibration/rtx8000.json --profile rtx8000-dvfs-real-profile.csv --frequencies 705:1710:15 --system sys.json --network net.yml --select max-slowdown:5',
  async run(args, opts, io) {
    const diagnostics = new Diagnostics();
    const network = await loadNetworkConfig(String(opts.network));
    const ref = opts.referenceFrequency === undefined ? undefined : Number(opts.referenceFrequency);
    if (ref !== undefined && !(ref > 0)) throw new InputError(`--reference-frequency must be a positive clock in MHz, got ${String(opts.referenceFrequency)}`);
    const selects = (opts.select as string[] | undefined) ?? [];
    const res = await sweepGpu({
      label: `${args[0]}: SM clock sweep`,
      trace: args[0],
      calibration: String(opts.calibration),
      profiles: opts.profile === undefined ? [] : (opts.profile as string[]).map(String),
      profileFormat: opts.format as ProfileFormat | undefined,
      frequenciesMHz: parseRange(String(opts.frequencies ?? '210:1980:15'), '--frequencies'),
      referenceClockMHz: ref,
      power: opts.powerPreset ? { preset: String(opts.powerPreset) } : undefined,
      system: await loadSystemConfig(String(opts.system), diagnostics),
      network,
      memory: opts.memory ? await loadRemoteMemoryConfig(String(opts.memory)) : undefined,
      commGroups: opts.commGroup ? await loadCommGroupConfig(String(opts.commGroup), network.dims.reduce((a, d) => a * d.npus, 1)) : undefined,
      bandwidthUnit: opts.plainBandwidth ? 'GBps' : 'astra-sim',
      workDir: opts.keep ? String(opts.keep) : undefined,
      selectors: selects.map((t) => parseSelector(t)),
      threads: threadsOption(opts),
      onPoint: progress(io, 'replaying clocks'),
    });
    if (opts.json) io.out(JSON.stringify(res.record, null, 2) + '\n');
    else if (opts.csv) io.out(gpuSweepCsv(res.record));
    else io.out(gpuSweepTable(res.record));
    for (const d of [...diagnostics.summary(), ...res.annotate.diagnostics]) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
    return 0;
  },
};

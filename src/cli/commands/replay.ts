/** `tracewatt replay`: replay all ranks on an ASTRA-sim-described cluster and report time and energy. */
import { COMMON_OPTIONS, type CommandSpec } from '../command.js';
import { InputError } from '../../errors.js';
import { TraceEventWriter } from '../../formats/trace-event/index.js';
import { POWER_PRESETS, replayFiles, TimelineRecorder, type ReplayResult } from '../../engines/replay/index.js';
import { loadPowerConfig } from '../../formats/astra/index.js';
import { presetPath, DEFAULT_POWER_PRESET } from '../../engines/replay/index.js';

export const replayCommand: CommandSpec = {
  name: 'replay',
  summary: 'replay a multi-rank Chakra trace like ASTRA-sim (analytical backend) and break down its energy',
  args: [{ name: 'trace', description: '<prefix> of <prefix>.<rank>.et files, a directory, or one .et file' }],
  options: [
    { name: 'system', value: 'file', description: 'ASTRA-sim system.json', required: true },
    { name: 'network', value: 'file', description: 'ASTRA-sim network.yml', required: true },
    { name: 'memory', value: 'file', description: 'ASTRA-sim remote memory JSON (needed for MEM_LOAD/STORE nodes)' },
    { name: 'comm-group', value: 'file', description: 'ASTRA-sim comm-group JSON (pg_name → ranks)' },
    { name: 'power', value: 'file', description: `power.json, or a preset name: ${POWER_PRESETS.join(', ')}`, default: DEFAULT_POWER_PRESET },
    { name: 'plain-bandwidth', description: 'read network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s; times then differ from ASTRA-sim)' },
    { name: 'window', value: 'nodes', description: 'unfinished nodes held in memory per rank', default: 65536 },
    { name: 'csv', description: 'print one CSV row per rank (and a total row)' },
    { name: 'timeline', value: 'out.json', description: 'write a Chrome/Perfetto trace-event timeline (µs; a track per rank × slot, estimated power counters)' },
    ...COMMON_OPTIONS,
  ],
  example: 'tracewatt replay ../shared/astra-sim-reference/traces/ar32/ar --system sys.json --network Switch8_Ring4.yml --power h100-cluster',
  async run(args, opts, io) {
    const window = opts.window === undefined ? undefined : Number(opts.window);
    if (window !== undefined && !(Number.isInteger(window) && window > 0)) throw new InputError(`--window must be a positive integer, found ${String(opts.window)}`);
    const power = (opts.power as string | undefined) ?? DEFAULT_POWER_PRESET;
    let timeline: { writer: TraceEventWriter; rec: TimelineRecorder } | undefined;
    if (opts.timeline) {
      const idle = (await loadPowerConfig((POWER_PRESETS as readonly string[]).includes(power) ? presetPath(power) : power)).gpu.idlePowerW;
      const writer = new TraceEventWriter(String(opts.timeline));
      timeline = { writer, rec: new TimelineRecorder(writer, idle) };
    }
    let res: ReplayResult;
    try {
      res = await replayFiles({
        trace: args[0], system: String(opts.system), network: String(opts.network),
        memory: opts.memory as string | undefined, commGroup: opts.commGroup as string | undefined, power,
        bandwidthUnit: opts.plainBandwidth ? 'GBps' : 'astra-sim', windowNodes: window, onSlice: timeline?.rec.slice,
      });
      timeline?.rec.finish(res.ranks.length);
    } finally {
      await timeline?.writer.close();
    }
    if (opts.json) io.out(JSON.stringify(res, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2) + '\n');
    else if (opts.csv) io.out(toCsv(res));
    else io.out(toTable(res));
    for (const d of res.diagnostics) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
    return 0;
  },
};

function toCsv(res: ReplayResult): string {
  const dims = res.bytesSentPerDim.map((_, i) => `bytesSentDim${i}`);
  const head = ['rank', 'finishNs', 'exposedCommNs', 'gpuComputeNs', 'commNs', 'overlapNs', ...dims, 'computeJ', 'memoryJ', 'networkJ', 'idleJ', 'totalJ'];
  const rows: (string | number)[][] = res.ranks.map((r) => [r.rank, r.finishNs, r.exposedCommNs, r.gpuComputeNs, r.commNs, r.overlapNs, ...r.bytesSentPerDim,
    r.energyJ.compute, r.energyJ.memory, r.energyJ.network, r.energyJ.idle, r.energyJ.total]);
  rows.push(['total', res.makespanNs, '', '', '', '', ...res.bytesSentPerDim, res.energyJ.compute, res.energyJ.memory, res.energyJ.network, res.energyJ.idle, res.energyJ.total]);
  return [head, ...rows].map((r) => r.join(',')).join('\n') + '\n';
}

function toTable(res: ReplayResult): string {
  const e = res.energyJ;
  const pct = (x: number) => (e.total > 0 ? `${((100 * x) / e.total).toFixed(1)}%` : '-');
  const j = (x: number) => x.toPrecision(4);
  const lines = [
    `makespan ${res.makespanNs} ns (${(res.makespanNs / 1e6).toFixed(3)} ms), ${res.ranks.length} ranks, ${res.nodes} nodes`,
    `energy (estimated, power preset ${res.settings.powerPreset}):`,
    `  compute  ${j(e.compute).padStart(10)} J  ${pct(e.compute)}`,
    `  memory   ${j(e.memory).padStart(10)} J  ${pct(e.memory)}`,
    `  network  ${j(e.network).padStart(10)} J  ${pct(e.network)}`,
    `  idle     ${j(e.idle).padStart(10)} J  ${pct(e.idle)}`,
    `  total    ${j(e.total).padStart(10)} J`,
    `bytes sent per dimension: ${res.bytesSentPerDim.join(', ')}`,
    '',
    'rank  finish_ns  exposed_comm_ns  gpu_ns  overlap_ns  energy_J (est.)',
  ];
  const shown = res.ranks.length > 16 ? [...res.ranks.slice(0, 8), ...res.ranks.slice(-8)] : res.ranks;
  for (const r of shown) {
    lines.push(`${String(r.rank).padStart(4)}  ${String(r.finishNs).padStart(9)}  ${String(r.exposedCommNs).padStart(15)}  ${String(r.gpuComputeNs).padStart(6)}  ${String(r.overlapNs).padStart(10)}  ${j(r.energyJ.total)}`);
    if (res.ranks.length > 16 && r === res.ranks[7]) lines.push(`  … ${res.ranks.length - 16} more ranks (use --json or --csv)`);
  }
  return lines.join('\n') + '\n';
}

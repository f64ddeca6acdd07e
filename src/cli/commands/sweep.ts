/** `tracewatt sweep network` and `tracewatt sweep gpu`: what-if sweeps over a network dimension's V–f and the SM clock. */
import { Diagnostics } from '../../diagnostics.js';
import { toJson } from '../../core/json.js';
import { DEFAULT_POWER_PRESET, loadClusterConfigs, POWER_PRESETS } from '../../engines/replay/index.js';
import { loadVfCurve, parseSelector, sweepGpu, sweepNetwork } from '../../engines/studies/index.js';
import type { ProfileFormat } from '../../formats/profiles/index.js';
import { gpuSweepRows, gpuSweepText, networkSweepRows, networkSweepText } from '../../report/text.js';
import type { CommandIO, CommandSpec } from '../command.js';
import { int, rangeList, rowsText, num, str } from '../io.js';

/** Progress on a terminal's stderr. */
export function progress(io: CommandIO, what: string) {
  return (done: number, total: number) => {
    if (io.isTTY) io.err(`\r${what}: ${done}/${total}${done === total ? '\n' : ''}`);
  };
}

const DEFAULT_SCALES = '0.5:1.0:0.05';
const DEFAULT_CLOCKS = '210:1980:15';

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
    { name: 'scale', value: 'a:b:step', description: 'frequency scales, start:stop:step or a comma list (1 = nominal)', default: DEFAULT_SCALES },
    { name: 'vf-curve', value: 'file', description: 'V–f curve JSON {"points":[{"scale","voltage"}…]} (default: the SerDes curve in the README)' },
    { name: 'plain-bandwidth', description: 'read network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s)' },
    { name: 'threads', value: 'n', description: 'worker threads replaying points (default: available cores)' },
    { name: 'csv', description: 'print one CSV row per scale' },
  ],
  example: 'tracewatt sweep network traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power h100-cluster --dimension 0 --scale 0.5:1.0:0.1',
  async run(args, opts, io) {
    const dimension = int(opts, 'dimension', { min: 0 }) ?? 1;
    const diagnostics = new Diagnostics();
    const cluster = await loadClusterConfigs(
      { system: String(opts.system), network: String(opts.network), memory: str(opts, 'memory'), commGroup: str(opts, 'commGroup'), power: str(opts, 'power') },
      diagnostics,
    );
    const vfCurve = str(opts, 'vfCurve');
    const res = await sweepNetwork({
      label: `${args[0]} on ${String(opts.network)}: dimension ${dimension} DVFS`,
      trace: { kind: 'files', trace: args[0] },
      ...cluster,
      bandwidthUnit: opts.plainBandwidth ? 'GBps' : 'astra-sim',
      dimension,
      scales: rangeList(opts, 'scale', DEFAULT_SCALES),
      vfCurve: vfCurve ? await loadVfCurve(vfCurve) : undefined,
      threads: int(opts, 'threads'),
      onPoint: progress(io, 'replaying scales'),
    });
    if (opts.json) io.out(toJson(res.record) + '\n');
    else if (opts.csv) {
      const t = networkSweepRows(res.record);
      io.out(rowsText(opts, t.columns, t.rows));
    } else io.out(networkSweepText(res.record));
    const diags = [...diagnostics.summary(), ...(res.replays[0]?.diagnostics ?? [])];
    for (const d of diags) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
    return 0;
  },
};

export const sweepGpuCommand: CommandSpec = {
  name: 'sweep gpu',
  summary: 'GPU clock what-if: annotate at each SM clock, replay, and report the U-curve, Pareto front and optimal clocks',
  args: [{ name: 'trace', description: '<prefix> of <prefix>.<rank>.et files, a directory, or one .et file' }],
  options: [
    { name: 'calibration', value: 'file', description: 'calibration JSON (tracewatt calibrate)', required: true },
    { name: 'profile', value: 'file', description: 'profile of the traced kernels at the reference clock (repeatable); without one, nodes with num_ops/tensor_size get roofline estimates', repeatable: true },
    { name: 'format', value: 'F', description: 'force the profile format' },
    { name: 'frequencies', value: 'a:b:step', description: 'SM clocks in MHz, start:stop:step or a comma list', default: DEFAULT_CLOCKS },
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
  ],
  example: 'tracewatt sweep gpu traces/mine/t --calibration calibration/rtx8000.json --profile rtx8000-dvfs-real-profile.csv --frequencies 705:1710:15 --system sys.json --network net.yml --select max-slowdown:5',
  async run(args, opts, io) {
    const diagnostics = new Diagnostics();
    const { power: _power, ...cluster } = await loadClusterConfigs(
      { system: String(opts.system), network: String(opts.network), memory: str(opts, 'memory'), commGroup: str(opts, 'commGroup') },
      diagnostics,
    );
    const powerPreset = str(opts, 'powerPreset');
    const res = await sweepGpu({
      label: `${args[0]}: SM clock sweep`,
      trace: args[0],
      calibration: String(opts.calibration),
      profiles: ((opts.profile as unknown[] | undefined) ?? []).map(String),
      profileFormat: str(opts, 'format') as ProfileFormat | undefined,
      frequenciesMHz: rangeList(opts, 'frequencies', DEFAULT_CLOCKS),
      referenceClockMHz: num(opts, 'referenceFrequency', { positive: true, unit: 'MHz' }),
      power: powerPreset ? { preset: powerPreset } : undefined,
      ...cluster,
      bandwidthUnit: opts.plainBandwidth ? 'GBps' : 'astra-sim',
      workDir: str(opts, 'keep'),
      selectors: ((opts.select as unknown[] | undefined) ?? []).map((t) => parseSelector(String(t))),
      threads: int(opts, 'threads'),
      onPoint: progress(io, 'replaying clocks'),
    });
    if (opts.json) io.out(toJson(res.record) + '\n');
    else if (opts.csv) {
      const t = gpuSweepRows(res.record);
      io.out(rowsText(opts, t.columns, t.rows));
    } else io.out(gpuSweepText(res.record));
    for (const d of [...diagnostics.summary(), ...res.annotate.diagnostics]) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
    return 0;
  },
};

import { fitNetwork } from '../../engines/netfit/index.js';
import { writeFileAtomic } from '../../formats/output.js';
import { networkFitKindRows, networkFitText, networkFitYaml } from '../../report/netfit-text.js';
import type { CommandSpec } from '../command.js';
import { emit, numberList, str, tableLayout, tableOptions } from '../io.js';

export const fitNetworkCommand: CommandSpec = {
  name: 'fit network',
  summary:
    "fit each network dimension's bandwidth and latency to the measured collective times of an imported run; write the network.yml",
  args: [
    {
      name: 'trace',
      description:
        "<prefix> of an imported run's <prefix>.<rank>.et files (import pytorch), collectives with their measured durations",
    },
  ],
  options: [
    {
      name: 'system',
      value: 'file',
      description: 'ASTRA-sim system.json: the collective algorithms the fit models',
      required: true,
    },
    {
      name: 'network',
      value: 'file',
      description: 'ASTRA-sim network.yml the run ran on: topology and NPUs per dimension, and the starting point',
      required: true,
    },
    {
      name: 'out',
      value: 'file',
      description: 'write the fitted network.yml here (its comments hold the error per collective type)',
      required: true,
    },
    { name: 'comm-group', value: 'file', description: 'ASTRA-sim comm-group JSON (pg_name → ranks)' },
    { name: 'keep-latency', value: 'dims', description: 'dimensions (comma list) whose latency stays as in --network' },
    {
      name: 'keep-bandwidth',
      value: 'dims',
      description: 'dimensions (comma list) whose bandwidth stays as in --network',
    },
    {
      name: 'plain-bandwidth',
      description: 'read and write network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s)',
    },
    ...tableOptions('one row per collective type'),
  ],
  exampleSetup: ['tracewatt import pytorch --dir traces/pytorch-real/dlrm --out out/dlrm'],
  example:
    'tracewatt fit network out/dlrm --system traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --out out/dlrm-fitted.yml',
  async run([trace], opts, io) {
    const out = String(opts.out);
    const r = await fitNetwork({
      trace,
      system: String(opts.system),
      network: String(opts.network),
      commGroup: str(opts, 'commGroup'),
      bandwidthUnit: opts.plainBandwidth ? 'GBps' : 'astra-sim',
      keepLatency: numberList(opts, 'keepLatency', 'dimension'),
      keepBandwidth: numberList(opts, 'keepBandwidth', 'dimension'),
    });
    await writeFileAtomic(out, networkFitYaml(r));
    emit(
      io,
      opts,
      { ...r, out },
      { table: () => networkFitKindRows(r), text: () => `${networkFitText(r, tableLayout(opts))}wrote ${out}\n` },
    );
    for (const d of r.diagnostics) io.err(`warning: ${d.code} ×${d.count}: ${d.samples[0]?.message ?? ''}\n`);
    return 0;
  },
};

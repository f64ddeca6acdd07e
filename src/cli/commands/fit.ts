import { fitNetwork } from '../../engines/netfit/index.js';
import { writeFileAtomic } from '../../formats/output.js';
import { networkFitKindRows, networkFitText, networkFitYaml } from '../../report/netfit-text.js';
import { defineCommand } from '../command.js';
import { emit, printSaid, tableLayout, tableOptions } from '../io.js';

export const fitNetworkCommand = defineCommand({
  name: 'fit network',
  summary:
    "fit each network dimension's bandwidth and latency to the measured collective times of an imported run; " +
    'write the network.yml',
  args: [
    {
      name: 'trace',
      description:
        "<prefix> of an imported run's <prefix>.<rank>.et files (import pytorch), collectives with their " +
        'measured durations',
    },
  ],
  options: [
    {
      name: 'system',
      type: 'string',
      value: 'file',
      description: 'ASTRA-sim system.json: the collective algorithms the fit models',
      required: true,
    },
    {
      name: 'network',
      type: 'string',
      value: 'file',
      description: 'ASTRA-sim network.yml the run ran on: topology and NPUs per dimension, and the starting point',
      required: true,
    },
    {
      name: 'out',
      type: 'string',
      value: 'file',
      description: 'a file: write the fitted network.yml there (its comments hold the error per collective type)',
      required: true,
    },
    { name: 'comm-group', type: 'string', value: 'file', description: 'ASTRA-sim comm-group JSON (pg_name → ranks)' },
    {
      name: 'keep-latency',
      type: 'list',
      unit: 'dimension',
      value: 'dims',
      description: 'dimensions (comma list) whose latency stays as in --network',
    },
    {
      name: 'keep-bandwidth',
      type: 'list',
      unit: 'dimension',
      value: 'dims',
      description: 'dimensions (comma list) whose bandwidth stays as in --network',
    },
    {
      name: 'plain-bandwidth',
      type: 'boolean',
      description: 'read and write network.yml bandwidth as GB/s (ASTRA-sim reads it as GiB/s)',
    },
    ...tableOptions('one row per collective type'),
  ],
  exampleSetup: ['tracewatt import pytorch --dir traces/pytorch-real/dlrm --out out/dlrm'],
  example:
    'tracewatt fit network out/dlrm --system traces/configs/sys_ring_example.json --network ' +
    'traces/configs/Switch_8npus.yml --out out/dlrm-fitted.yml',
  async run([trace], opts, io) {
    const out = opts.out;
    const r = await fitNetwork({
      trace,
      system: opts.system,
      network: opts.network,
      commGroup: opts.commGroup,
      bandwidthUnit: opts.plainBandwidth ? 'GBps' : 'astra-sim',
      keepLatency: opts.keepLatency,
      keepBandwidth: opts.keepBandwidth,
    });
    await writeFileAtomic(out, networkFitYaml(r));
    emit(
      io,
      opts,
      { ...r, out },
      { table: () => networkFitKindRows(r), text: () => `${networkFitText(r, tableLayout(opts))}wrote ${out}\n` },
    );
    printSaid(io, { diagnostics: r.diagnostics });
    return 0;
  },
});

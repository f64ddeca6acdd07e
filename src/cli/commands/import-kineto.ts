import { importKineto } from '../../engines/import/kineto.js';
import { kinetoImportRankRows, kinetoImportText } from '../../report/text/import-kineto.js';
import { defineCommand } from '../command.js';
import { emit, tableLayout, tableOptions } from '../io.js';
import { runImport } from './import.js';

export const importKinetoCommand = defineCommand({
  name: 'import kineto',
  summary:
    'Convert Kineto / PyTorch profiler traces alone (one per rank, no execution trace) into Chakra traces with ' +
    'their measured timeline',
  args: [
    {
      name: 'traces',
      description: 'the Kineto trace (.json or .json.gz) of each rank',
      variadic: true,
      optional: true,
    },
  ],
  options: [
    {
      name: 'dir',
      type: 'string',
      value: 'folder',
      description: 'a folder holding the Kineto trace of every rank (instead of listing them)',
    },
    {
      name: 'out',
      type: 'string',
      value: 'prefix',
      description: "a prefix: writes <prefix>.<rank>.et (rank from the trace's distributedInfo)",
      required: true,
    },
    {
      name: 'step',
      type: 'string',
      value: 'name',
      description: 'the ProfilerStep to take as the measured iteration, e.g. ProfilerStep#12 (default: the longest)',
    },
    {
      name: 'window',
      type: 'string',
      value: 'start:end',
      description:
        'instead of a step: the span to take, µs as the trace writes "ts" (for a trace without ProfilerStep)',
    },
    {
      name: 'partial',
      type: 'boolean',
      description:
        'import the ranks given although the run had more (said; replay --as-measured works on them, a ' +
        'modelled replay needs every rank)',
    },
    ...tableOptions('one row per rank'),
  ],
  example: 'tracewatt import kineto --dir traces/pytorch-real/dlrm --out out/dlrm-kineto',
  async run(args, opts, io) {
    const r = await runImport(opts, (common) => importKineto({ traces: args, ...common }));
    emit(io, opts, r, {
      table: () => kinetoImportRankRows(r),
      text: () => kinetoImportText(r, tableLayout(opts)),
    });
    return 0;
  },
});

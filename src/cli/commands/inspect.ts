import { inspectTrace } from '../../engines/trace/inspect.js';
import { inspectRows, inspectText } from '../../report/text/inspect.js';
import { defineCommand } from '../command.js';
import { emit, tableLayout, tableOptions } from '../io.js';

export const inspectCommand = defineCommand({
  name: 'inspect',
  summary: 'Count nodes, compute work, collectives and dependencies per rank of a Chakra trace',
  args: [{ name: 'path', description: 'a .et file, a <prefix> of <prefix>.<rank>.et files, or a directory' }],
  options: tableOptions('the per-rank table and a total row'),
  example: 'tracewatt inspect traces/astra-sim/all_reduce/8npus_1MB/all_reduce',
  async run([target], opts, io) {
    const r = await inspectTrace(target);
    emit(io, opts, r, { table: () => inspectRows(r), text: () => inspectText(r, tableLayout(opts)) });
    return 0;
  },
});

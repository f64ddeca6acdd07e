import { convertTrace } from '../../engines/trace/convert.js';
import { defineCommand } from '../command.js';
import { emit } from '../io.js';

export const convertCommand = defineCommand({
  name: 'convert',
  summary: 'Convert one trace file between .et (binary) and .json (one JSON document), by extension',
  args: [
    { name: 'in', description: 'input .et, .et.gz or .json file' },
    { name: 'out', description: 'output .json, .et or .et.gz file' },
  ],
  options: [],
  example: 'tracewatt convert traces/astra-sim/all_reduce/8npus_1MB/all_reduce.0.et out/all_reduce.0.json',
  async run([input, output], opts, io) {
    const r = await convertTrace(input, output);
    emit(
      io,
      opts,
      { input, output, ...r },
      { text: () => `wrote ${output}: ${r.nodes} nodes (${r.from} → ${r.to})\n` },
    );
    return 0;
  },
});

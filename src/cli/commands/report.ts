/** `tracewatt report`: results JSON files in, one self-contained HTML page out. */
import { InputError } from '../../errors.js';
import { writeFileAtomic } from '../../formats/output.js';
import { buildReport } from '../../report/html.js';
import { loadResults } from '../../report/validate.js';
import { defineCommand } from '../command.js';
import { emit } from '../io.js';

export const reportCommand = defineCommand({
  name: 'report',
  summary: 'write one self-contained HTML page (tables and SVG plots) from results JSON files',
  args: [
    {
      name: 'results',
      description:
        "results JSON files written by replay, sweep, plan, accuracy or case-study (--json); an imported run's " +
        'replay --as-measured and modelled replays are set side by side with its measurement',
      variadic: true,
    },
  ],
  options: [
    {
      name: 'out',
      type: 'string',
      value: 'file',
      description: 'a file: the HTML page to write (atomically: <file>.tmp, then renamed)',
      default: 'report.html',
    },
    { name: 'title', type: 'string', value: 'text', description: 'page title', default: 'tracewatt report' },
  ],
  exampleSetup: [
    'tracewatt sweep network traces/astra-sim/all_reduce/8npus_1MB/all_reduce --system ' +
      'traces/configs/sys_ring_example.json --network traces/configs/Switch_8npus.yml --power h100-cluster ' +
      '--dimension 0 --scale 0.5:1.0:0.1 --out out/sweep-network.json',
  ],
  example: 'tracewatt report out/sweep-network.json --out out/report.html',
  async run(args, opts, io) {
    if (args.length === 0) throw new InputError('report: give at least one results JSON file');
    const out = opts.out;
    const results = await loadResults(args);
    const html = await buildReport(results, { title: opts.title });
    await writeFileAtomic(out, html);
    const bytes = Buffer.byteLength(html);
    emit(
      io,
      opts,
      { out, results: results.length, bytes },
      {
        text: () =>
          `wrote ${out}: ${results.length} result${results.length === 1 ? '' : 's'} (` +
          `${(bytes / 1024).toFixed(0)} KiB)\n`,
      },
    );
    return 0;
  },
});

/** `tracewatt report`: results JSON files in, one self-contained HTML page out. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../errors.js';
import { buildReport } from '../../report/html.js';
import { loadResults } from '../../report/validate.js';
import type { CommandSpec } from '../command.js';

export const reportCommand: CommandSpec = {
  name: 'report',
  summary: 'write one self-contained HTML page (tables and SVG plots) from results JSON files',
  args: [{ name: 'results', description: 'results JSON files written by replay, sweep, calibrate or case-study (--json)', variadic: true }],
  options: [
    { name: 'out', value: 'file', description: 'HTML file to write', default: 'report.html' },
    { name: 'title', value: 'text', description: 'page title', default: 'tracewatt report' },
  ],
  example: 'tracewatt report replay.json sweep-gpu.json sweep-network.json --out report.html',
  async run(args, opts, io) {
    if (args.length === 0) throw new InputError('report: give at least one results JSON file');
    const out = String(opts.out ?? 'report.html');
    const results = await loadResults(args);
    const html = await buildReport(results, { title: typeof opts.title === 'string' ? opts.title : undefined });
    await mkdir(path.dirname(path.resolve(out)), { recursive: true });
    await writeFile(out, html, 'utf8');
    if (opts.json) io.out(JSON.stringify({ out, results: results.length, bytes: Buffer.byteLength(html) }) + '\n');
    else io.out(`wrote ${out}: ${results.length} result${results.length === 1 ? '' : 's'} (${(html.length / 1024).toFixed(0)} KiB)\n`);
    return 0;
  },
};

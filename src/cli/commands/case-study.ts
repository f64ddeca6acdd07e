/** `tracewatt case-study llama2-70b`: the scale-out network DVFS case study, end to end, with an HTML report. */
import path from 'node:path';
import { toJson } from '../../core/json.js';
import { CASE_STUDY_DEFAULTS, loadVfCurve, runCaseStudy } from '../../engines/studies/index.js';
import { InputError } from '../../errors.js';
import { writeFileAtomic } from '../../formats/output.js';
import { buildReport } from '../../report/html.js';
import { networkSweepRows, networkSweepText } from '../../report/text.js';
import type { CommandSpec } from '../command.js';
import { int, rangeList, rowsText, str, tableLayout, tableOptions } from '../io.js';
import { progress } from './sweep.js';

const DEFAULT_SCALES = '0.5:1.25:0.125';

export const caseStudyCommand: CommandSpec = {
  name: 'case-study',
  summary: 'LLaMA-2-70B on 32 H100s (Switch(8)×Ring(4)): energy breakdown and scale-out network DVFS, results JSON + HTML report',
  args: [{ name: 'name', description: 'the case study: llama2-70b' }],
  options: [
    { name: 'out', value: 'dir', description: 'folder for results.json, report.html, network.yml, system.json', default: 'case-study' },
    { name: 'micro-batches', value: 'n', description: 'micro-batches of one iteration (1 sequence each)', default: CASE_STUDY_DEFAULTS.microBatches },
    { name: 'seq', value: 'tokens', description: 'sequence length', default: CASE_STUDY_DEFAULTS.seqLen },
    { name: 'scale', value: 'a:b:step', description: 'scale-out frequency scales, below and above nominal (1 is always included)', default: DEFAULT_SCALES },
    { name: 'vf-curve', value: 'file', description: 'V–f curve JSON (default: the SerDes curve in the README)' },
    { name: 'threads', value: 'n', description: 'worker threads replaying points (default: available cores)' },
    ...tableOptions('the scale-out sweep, one row per frequency scale'),
  ],
  example: 'tracewatt case-study llama2-70b --out out/case-study',
  async run(args, opts, io) {
    if (args[0] !== 'llama2-70b') throw new InputError(`unknown case study "${args[0] ?? ''}": the one shipped is llama2-70b`);
    const out = str(opts, 'out') ?? 'case-study';
    const vfCurve = str(opts, 'vfCurve');
    const started = Date.now();
    const r = await runCaseStudy({
      microBatches: int(opts, 'microBatches'), seqLen: int(opts, 'seq'), scales: rangeList(opts, 'scale', DEFAULT_SCALES),
      vfCurve: vfCurve ? await loadVfCurve(vfCurve) : undefined, threads: int(opts, 'threads'),
      onPoint: progress(io, 'replaying scale-out scales'),
    });
    const html = await buildReport(r.records, { title: 'tracewatt case study: LLaMA-2-70B, scale-out network DVFS (estimated)' });
    const files = {
      results: path.join(out, 'results.json'), report: path.join(out, 'report.html'),
      network: path.join(out, 'network.yml'), system: path.join(out, 'system.json'),
    };
    await writeFileAtomic(files.results, toJson(r.records) + '\n');
    await writeFileAtomic(files.report, html);
    await writeFileAtomic(files.network, r.networkYaml);
    await writeFileAtomic(files.system, r.systemJson);
    if (opts.json) {
      io.out(toJson({ files, summary: r.summary, parallelism: r.sweep.parallelism, seconds: (Date.now() - started) / 1e3 }) + '\n');
      return 0;
    }
    if (opts.csv) {
      const t = networkSweepRows(r.sweep.record);
      io.out(rowsText(opts, t.columns, t.rows));
      return 0;
    }
    const s = r.summary;
    const e = r.replay.energyJ;
    const pct = (x: number) => `${((100 * x) / e.total).toFixed(2)}%`;
    io.out(`${s.label}\n${s.system.map((l) => `  ${l}\n`).join('')}`);
    io.out(`nominal: makespan ${(r.replay.makespanNs / 1e6).toFixed(1)} ms; energy ${e.total.toFixed(0)} J (estimated): compute ${pct(e.compute)}, memory ${pct(e.memory)}, network ${pct(e.network)}, idle ${pct(e.idle)}\n`);
    io.out(`shares: network energy ${(100 * s.shares.networkEnergyShare).toFixed(2)}%, compute–communication overlap ${(100 * s.shares.overlap).toFixed(1)}%, idle energy ${(100 * s.shares.idleEnergyShare).toFixed(1)}%\n\n`);
    io.out(networkSweepText(r.sweep.record, tableLayout(opts)));
    io.out(`\n${s.finding}\n\nwrote ${files.results}, ${files.report} in ${((Date.now() - started) / 1e3).toFixed(1)} s\n`);
    return 0;
  },
};

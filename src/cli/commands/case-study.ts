/** `tracewatt case-study llama2-70b`: the scale-out network DVFS case study, end to end, with an HTML report. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { COMMON_OPTIONS, type CommandSpec } from '../command.js';
import { InputError } from '../../errors.js';
import { CASE_STUDY_DEFAULTS, loadVfCurve, parseRange, runCaseStudy } from '../../engines/studies/index.js';
import { buildReport } from '../../report/html.js';
import type { ReportResult } from '../../report/types.js';
import { networkSweepTable, threadsOption } from './sweep.js';

export const caseStudyCommand: CommandSpec = {
  name: 'case-study',
  summary: 'LLaMA-2-70B on 32 H100s (Switch(8)×Ring(4)): energy breakdown and scale-out network DVFS, results JSON + HTML report',
  args: [{ name: 'name', description: 'the case study: llama2-70b' }],
  options: [
    { name: 'out', value: 'dir', description: 'folder for results.json, report.html, network.yml, system.json', default: 'case-study' },
    { name: 'micro-batches', value: 'n', description: 'micro-batches of one iteration (1 sequence each)', default: CASE_STUDY_DEFAULTS.microBatches },
    { name: 'seq', value: 'tokens', description: 'sequence length', default: CASE_STUDY_DEFAULTS.seqLen },
    { name: 'scale', value: 'a:b:step', description: 'scale-out frequency scales, below and above nominal (1 is always included)', default: '0.5:1.25:0.125' },
    { name: 'vf-curve', value: 'file', description: 'V–f curve JSON (default: the SerDes curve in the README)' },
    { name: 'threads', value: 'n', description: 'worker threads replaying points (default: available cores)' },
    ...COMMON_OPTIONS,
  ],
  example: 'tracewatt case-study llama2-70b --out case-study',
  async run(args, opts, io) {
    if (args[0] !== 'llama2-70b') throw new InputError(`unknown case study "${args[0] ?? ''}": the one shipped is llama2-70b`);
    const out = String(opts.out ?? 'case-study');
    const mb = Number(opts.microBatches ?? CASE_STUDY_DEFAULTS.microBatches);
    const seq = Number(opts.seq ?? CASE_STUDY_DEFAULTS.seqLen);
    if (!Number.isInteger(seq) || seq < 1) throw new InputError(`--seq must be a positive integer, got ${String(opts.seq)}`);
    const started = Date.now();
    const r = await runCaseStudy({
      microBatches: mb, seqLen: seq, scales: parseRange(String(opts.scale ?? '0.5:1.25:0.125'), '--scale'),
      vfCurve: opts.vfCurve ? await loadVfCurve(String(opts.vfCurve)) : undefined, threads: threadsOption(opts),
      onPoint: (done, total) => { if (io.isTTY) io.err(`\rreplaying scale-out scales: ${done}/${total}${done === total ? '\n' : ''}`); },
    });
    await mkdir(out, { recursive: true });
    const results: ReportResult[] = r.records;
    const html = await buildReport(results, { title: 'tracewatt case study: LLaMA-2-70B, scale-out network DVFS (estimated)' });
    const files = {
      results: path.join(out, 'results.json'), report: path.join(out, 'report.html'),
      network: path.join(out, 'network.yml'), system: path.join(out, 'system.json'),
    };
    await writeFile(files.results, JSON.stringify(r.records, null, 2) + '\n');
    await writeFile(files.report, html);
    await writeFile(files.network, r.networkYaml);
    await writeFile(files.system, r.systemJson);
    if (opts.json) {
      io.out(JSON.stringify({ files, summary: r.summary, parallelism: r.sweep.parallelism, seconds: (Date.now() - started) / 1e3 }, null, 2) + '\n');
      return 0;
    }
    const s = r.summary;
    const e = r.replay.energyJ;
    const pct = (x: number) => `${((100 * x) / e.total).toFixed(2)}%`;
    io.out(`${s.label}\n${s.system.map((l) => `  ${l}\n`).join('')}`);
    io.out(`nominal: makespan ${(r.replay.makespanNs / 1e6).toFixed(1)} ms; energy ${e.total.toFixed(0)} J (estimated): compute ${pct(e.compute)}, memory ${pct(e.memory)}, network ${pct(e.network)}, idle ${pct(e.idle)}\n`);
    io.out(`shares: network energy ${(100 * s.shares.networkEnergyShare).toFixed(2)}%, compute–communication overlap ${(100 * s.shares.overlap).toFixed(1)}%, idle energy ${(100 * s.shares.idleEnergyShare).toFixed(1)}%\n\n`);
    io.out(networkSweepTable(r.sweep.record));
    io.out(`\n${s.finding}\n\nwrote ${files.results}, ${files.report} in ${((Date.now() - started) / 1e3).toFixed(1)} s\n`);
    return 0;
  },
};

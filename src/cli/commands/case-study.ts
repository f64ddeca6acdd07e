/**
 * `tracewatt case-study llama2-70b`: the AstraWattch case study end to end — two layouts at LLaMA-2's global batch,
 * three energy knobs (scale-out DVFS, scale-up DVFS, GPU SM clock) with their marginal efficiency and bands —
 * written as results.json and a self-contained report.html. `npm start` runs it.
 */
import path from 'node:path';
import { toJson } from '../../core/json.js';
import { CASE_STUDY_DEFAULTS, loadVfCurve, runCaseStudy } from '../../engines/studies/index.js';
import { InputError } from '../../errors.js';
import { OutputSet } from '../../formats/output.js';
import { caseStudyRows, caseStudyText } from '../../report/case-study-text.js';
import { buildReport } from '../../report/html.js';
import type { CommandSpec } from '../command.js';
import { progressBar } from '../progress.js';
import { int, numberList, rangeList, rowsText, str, tableOptions } from '../io.js';

const DEFAULT_SCALES = CASE_STUDY_DEFAULTS.scales.join(',');

export const caseStudyCommand: CommandSpec = {
  name: 'case-study',
  summary: 'LLaMA-2-70B on 32 H100s (Switch(8)×Ring(4)), TP 8 × DP 4 and TP 8 × PP 4 at the full batch: scale-out DVFS, scale-up DVFS and SM clock as energy knobs; results JSON + HTML report',
  args: [{ name: 'name', description: 'the case study: llama2-70b' }],
  options: [
    { name: 'out', value: 'dir', description: 'folder for results.json and report.html', default: 'case-study' },
    { name: 'global-batch', value: 'sequences', description: 'sequences per iteration (LLaMA-2: 1024 of 4096 tokens)', default: CASE_STUDY_DEFAULTS.globalBatch },
    { name: 'seq', value: 'tokens', description: 'sequence length', default: CASE_STUDY_DEFAULTS.seqLen },
    { name: 'scale', value: 'list', description: 'network frequency scales of both network knobs, a:b:step or a,b,… (1 is always included)', default: DEFAULT_SCALES },
    { name: 'clocks', value: 'MHz,…', description: 'SM clocks of the GPU knob (the highest clock is always included)', default: CASE_STUDY_DEFAULTS.clocksMHz.join(',') },
    { name: 'calibration', value: 'file', description: 'calibration for kernel times and energies (default: calibration/h100-datasheet.json)' },
    { name: 'band-calibration', value: 'file', description: 'fitted calibration whose error bands stand in when --calibration has none (default: calibration/a40.json)' },
    { name: 'vf-curve', value: 'file', description: 'network V–f curve JSON (default: the SerDes curve in the README)' },
    { name: 'threads', value: 'n', description: 'worker threads replaying points (default: available cores)' },
    ...tableOptions('the knob table, one row per layout × knob × setting'),
  ],
  example: 'tracewatt case-study llama2-70b --out out/case-study',
  async run(args, opts, io) {
    if (args[0] !== 'llama2-70b') throw new InputError(`unknown case study "${args[0] ?? ''}": the one shipped is llama2-70b`);
    const out = str(opts, 'out') ?? 'case-study';
    const vfCurve = str(opts, 'vfCurve');
    const started = Date.now();
    const bar = io.isTTY && !opts.json && !opts.csv
      ? await progressBar('case study [{bar}] {percentage}% | {value}/{total} replays | {duration}s')
      : null;
    const files = { results: path.join(out, 'results.json'), report: path.join(out, 'report.html') };
    // Both files appear together when both are written, or not at all; the folder is locked meanwhile.
    const r = await OutputSet.write(out, async (set) => {
      let r;
      try {
        r = await runCaseStudy({
          globalBatch: int(opts, 'globalBatch', { min: 1 }), seqLen: int(opts, 'seq', { min: 1 }),
          scales: rangeList(opts, 'scale', DEFAULT_SCALES), clocksMHz: numberList(opts, 'clocks', 'MHz'),
          calibration: str(opts, 'calibration'), bandCalibration: str(opts, 'bandCalibration'),
          vfCurve: vfCurve ? await loadVfCurve(vfCurve) : undefined, threads: int(opts, 'threads', { min: 1 }),
          onPoint: bar ? (done, total) => (done === 1 ? bar.start(total, 1) : bar.update(done)) : undefined,
        });
      } finally {
        bar?.stop();
      }
      const html = await buildReport([r.record], { title: 'tracewatt case study: LLaMA-2-70B on 32 H100s, three energy knobs (estimated)' });
      await set.put(files.results, toJson([r.record]) + '\n');
      await set.put(files.report, html);
      return r;
    }, { folder: true });
    const seconds = (Date.now() - started) / 1e3;
    if (opts.json) {
      io.out(toJson({ files, record: r.record, parallelism: r.parallelism, replays: r.replays, seconds }) + '\n');
      return 0;
    }
    if (opts.csv) {
      const t = caseStudyRows(r.record);
      io.out(rowsText(opts, t.columns, t.rows));
      return 0;
    }
    io.out(caseStudyText(r.record));
    io.out(`\n${r.replays} replays in ${seconds.toFixed(1)} s\nwrote ${files.results}\nwrote ${files.report}\n`);
    return 0;
  },
};

import { toJson } from '../../core/json.js';
import { accuracy, calibrationOnlyAccuracy, describeAdvice, loadCalibration, sha256File, type AccuracyResult } from '../../engines/calibrate/index.js';
import { InputError } from '../../errors.js';
import { formatTable } from '../../report/tables.js';
import type { CommandSpec } from '../command.js';
import { parseClockList } from './predict.js';
import { PROFILE_OPTIONS, readProfiles } from './profile-options.js';

const cols = (...headers: string[]) => headers.map((header) => ({ header, align: 'right' as const }));

function render(r: AccuracyResult): string {
  const f = (v: number | null) => (v === null ? '' : v.toFixed(2));
  let out = `${r.label} (${r.mode}${r.referenceClocksMHz ? `, reference ${r.referenceClocksMHz.join('+')} MHz, ${r.scaling} scaling` : ''}${r.fitClocksMHz ? `, fitted at ${r.fitClocksMHz.join(', ')} MHz` : ''})\n`;
  const banded = r.frequencies.some((x) => x.timeCoveragePct !== null);
  const pct = (v: number | null) => (v === null ? '' : v.toFixed(0));
  out += formatTable(
    cols('frequencyMHz', 'timeErrorPct', 'powerErrorPct', 'energyErrorPct', 'total time err %', 'total energy err %', 'n', ...(banded ? ['time in band %', 'energy in band %'] : [])),
    r.frequencies.map((x) => [x.frequencyMHz, f(x.timeErrorPct), f(x.powerErrorPct), f(x.energyErrorPct), f(x.totalTimeErrorPct), f(x.totalEnergyErrorPct), x.n, ...(banded ? [pct(x.timeCoveragePct), pct(x.energyCoveragePct)] : [])]),
  );
  if (banded) out += 'in band: share of kernels whose measured time / energy lies in the predicted 10–90 % band (aim: about 80%)\n';
  const u = r.upperFitBand;
  if (u) out += `between the two highest fitted clocks (${u.fromMHz}–${u.toMHz} MHz, ${u.clocks} clocks): time ${u.timeErrorPct.toFixed(2)}%, energy ${u.energyErrorPct.toFixed(2)}% (worst clock ${u.maxEnergyErrorPct.toFixed(2)}%)\n`;
  if (r.energyOptimal) out += `energy-optimal clock: mean deviation ${r.energyOptimal.meanDeviationMHz.toFixed(1)} MHz, max ${r.energyOptimal.maxDeviationMHz} MHz over ${r.energyOptimal.kernels.length} kernels; measured energy at the predicted clock is ${r.energyOptimal.meanExcessEnergyPct.toFixed(2)}% above the measured optimum on average (max ${r.energyOptimal.maxExcessEnergyPct.toFixed(2)}%)\n`;
  if (r.leaveOneFrequencyOut) out += 'leave-one-frequency-out power error:\n' + formatTable(cols('frequencyMHz', 'powerErrorPct', 'n'), r.leaveOneFrequencyOut.map((x) => [x.frequencyMHz, x.powerErrorPct.toFixed(2), x.n]));
  if (r.advice) out += `advice: ${describeAdvice(r.advice)}\n`;
  for (const n of r.notes) out += `note: ${n}\n`;
  if (r.alternativeScaling) out += `with ${r.alternativeScaling.scaling} scaling, power/energy error %: ${r.alternativeScaling.frequencies.map((x) => `${x.frequencyMHz}: ${f(x.powerErrorPct)}/${f(x.energyErrorPct)}`).join(', ')}\n`;
  return out;
}

export const accuracyCommand: CommandSpec = {
  name: 'accuracy',
  summary: 'Compare modelled time, power and energy with measurements, per SM clock',
  args: [],
  options: [
    { name: 'calibration', value: 'file', description: 'calibration JSON (not needed with --calibration-only)' },
    { name: 'profile', value: 'file', description: 'measured profile at several clocks (with --calibration-only: the calibration inputs)', required: true, repeatable: true },
    ...PROFILE_OPTIONS,
    { name: 'reference-frequency', value: 'MHz', description: 'clock(s) used as input, comma-separated; all other clocks are ground truth' },
    { name: 'fit-frequencies', value: 'list', description: 'counter-free sweeps: clocks the per-stage t(f), P(f) are fitted on' },
    { name: 'scaling', value: 'ratio|offset', description: 'reference-clock power correction', default: 'ratio' },
    { name: 'calibration-only', description: 'leave-one-frequency-out and leave-one-kernel-out errors of a calibration fitted on --profile' },
  ],
  example: 'tracewatt accuracy --calibration calibration/rtx8000.json --profile ../shared/profiles/nv-dvfs-benchmark/rtx8000-dvfs-real-profile.csv --reference-frequency 1710',
  async run(_args, opts, io) {
    const files = ([] as string[]).concat(opts.profile as string | string[]);
    let r: AccuracyResult;
    if (opts.calibrationOnly) {
      const inputs = [];
      for (const p of await readProfiles(files, opts, io)) inputs.push({ ...p, sha256: await sha256File(p.file) });
      r = calibrationOnlyAccuracy(inputs, { maxKernels: 40 });
    } else {
      if (!opts.calibration) throw new InputError('--calibration is required (or use --calibration-only)');
      if (opts.referenceFrequency && opts.fitFrequencies) throw new InputError('give either --reference-frequency or --fit-frequencies, not both');
      if (files.length > 1) throw new InputError(`--profile: compare one measured profile with --calibration (got ${files.length}); several profiles go with --calibration-only`);
      const cal = await loadCalibration(String(opts.calibration));
      const refs = opts.referenceFrequency ? parseClockList(opts.referenceFrequency, 'reference-frequency') : undefined;
      const fit = opts.fitFrequencies ? parseClockList(opts.fitFrequencies, 'fit-frequencies') : undefined;
      if (refs === 'all' || fit === 'all') throw new InputError('give the clocks in MHz, not "all"');
      const scaling = String(opts.scaling ?? 'ratio');
      if (scaling !== 'ratio' && scaling !== 'offset') throw new InputError(`--scaling: expected ratio or offset, got "${scaling}"`);
      const table = (await readProfiles(files, opts, io))[0]!.table;
      r = accuracy(cal, table, { referenceClocksMHz: refs, fitClocksMHz: fit, scaling, label: `${cal.device.name}: ${files[0]}` });
    }
    io.out(opts.json ? toJson(r) + '\n' : render(r));
    return 0;
  },
};

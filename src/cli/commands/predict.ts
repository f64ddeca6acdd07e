import { toJson } from '../../core/json.js';
import { readProfile, type ProfileFormat } from '../../formats/profiles/index.js';
import { loadCalibration, predictProfile } from '../../engines/calibrate/index.js';
import { InputError } from '../../errors.js';
import type { CommandSpec } from '../command.js';
import { table } from '../io.js';

/** "1710" or "870,1710" → numbers; "all" → 'all'. */
export function parseClockList(value: unknown, option: string): number[] | 'all' {
  const s = String(value ?? '').trim();
  if (s === 'all') return 'all';
  const list = s.split(',').map((x) => Number(x.trim()));
  if (!s || list.some((x) => !(x > 0))) throw new InputError(`--${option}: expected MHz values separated by commas${option === 'frequencies' ? " or 'all'" : ''}, got "${s}"`);
  return list;
}

export const predictCommand: CommandSpec = {
  name: 'predict',
  summary: 'Predict every kernel of a profile at other SM clocks (time, power, energy; estimates)',
  args: [],
  options: [
    { name: 'calibration', value: 'file', description: 'calibration JSON (tracewatt calibrate, or calibration/*.json)', required: true },
    { name: 'profile', value: 'file', description: 'profile with the kernels to predict', required: true },
    { name: 'format', value: 'F', description: 'force the profile format' },
    { name: 'reference-frequency', value: 'MHz', description: 'clock(s) the profile was taken at, comma-separated', required: true },
    { name: 'frequencies', value: 'list', description: "target clocks, comma-separated, or 'all' (the calibrated clocks)", default: 'all' },
    { name: 'csv', description: 'print CSV instead of a table' },
  ],
  example: 'tracewatt predict --calibration calibration/rtx8000.json --profile ../shared/profiles/nv-dvfs-benchmark/rtx8000-dvfs-real-profile.csv --reference-frequency 1710',
  async run(_args, opts, io) {
    const cal = await loadCalibration(String(opts.calibration));
    const profile = await readProfile(String(opts.profile), { format: opts.format as ProfileFormat | undefined });
    const refs = parseClockList(opts.referenceFrequency, 'reference-frequency');
    if (refs === 'all') throw new InputError('--reference-frequency: give the clock(s) in MHz');
    const r = predictProfile(cal, profile, { referenceClocksMHz: refs, targetClocksMHz: parseClockList(opts.frequencies ?? 'all', 'frequencies') });
    if (opts.json) io.out(toJson(r) + '\n');
    else if (opts.csv) {
      io.out('kernel,frequencyMHz,effectiveClockMHz,durationNs,powerW,energyJ,capped\n');
      for (const x of r.rows) io.out(`"${x.kernel.replace(/"/g, '""')}",${x.frequencyMHz},${x.effectiveClockMHz.toFixed(1)},${x.durationNs.toFixed(0)},${x.powerW.toFixed(2)},${x.energyJ.toPrecision(6)},${x.capped}\n`);
    } else {
      io.out(table(['kernel', 'SM clock (MHz)', 'time (ms, est.)', 'power (W, est.)', 'energy (J, est.)', 'capped'], r.rows.map((x) => [x.kernel, x.frequencyMHz, (x.durationNs / 1e6).toFixed(4), x.powerW.toFixed(1), x.energyJ.toPrecision(4), x.capped ? 'yes' : ''])));
      for (const s of r.skipped) io.err(`skipped ${s}\n`);
    }
    return 0;
  },
};

import { toJson } from '../../core/json.js';
import { readProfile } from '../../formats/profiles/index.js';
import type { ProfileFormat } from '../../formats/profiles/index.js';
import { fitCalibration, provenanceFor } from '../../engines/calibrate/index.js';
import { saveCalibration } from '../../model/calibration.js';
import { InputError } from '../../errors.js';
import type { CommandSpec } from '../command.js';
import { table } from '../io.js';

export const calibrateCommand: CommandSpec = {
  name: 'calibrate',
  summary: 'Fit per-clock power models, a time model, V–f model and power cap from GPU profiles',
  args: [{ name: 'profiles', description: 'profile files of one GPU (microbenchmarks at several SM clocks)', variadic: true }],
  options: [
    { name: 'format', value: 'F', description: 'force the profile format instead of detecting it' },
    { name: 'out', value: 'file', description: 'calibration JSON to write', required: true },
    { name: 'device', value: 'name', description: 'device name when the profile does not say it' },
  ],
  example: 'tracewatt calibrate ../shared/profiles/nv-dvfs-benchmark/rtx8000-dvfs-microbenchmark-profile.csv --out rtx8000.json',
  async run(files, opts, io) {
    if (!files.length) throw new InputError('calibrate needs at least one profile file');
    const inputs = [];
    for (const file of files) inputs.push({ file, table: await readProfile(file, { format: opts.format as ProfileFormat | undefined }) });
    const command = ['tracewatt calibrate', ...files, ...(opts.format ? ['--format', String(opts.format)] : []), '--out', String(opts.out)].join(' ');
    const { calibration } = fitCalibration(inputs, { device: opts.device as string | undefined, command }, await provenanceFor(inputs));
    await saveCalibration(String(opts.out), calibration);
    if (opts.json) io.out(toJson(calibration) + '\n');
    else {
      io.out(`${calibration.device.name}: ${calibration.power.perClock.length} clock models → ${opts.out}\n`);
      io.out(table(['SM clock (MHz)', 'P0 (W)', 'n', 'R²', 'MAPE (%)', 'dropped'], calibration.power.perClock.map((m) => [m.smClockMHz, m.interceptW.toFixed(1), m.fit.n, m.fit.r2.toFixed(3), m.fit.mapePct.toFixed(1), m.dropped.filter((d) => d.reason !== 'absent').map((d) => d.component).join(' ')])));
      io.out(`power cap: ${calibration.powerCap.evidence}\n`);
      for (const s of calibration.sanity) io.out(`${s.count} × ${s.code} (e.g. ${s.examples[0]})\n`);
    }
    return 0;
  },
};

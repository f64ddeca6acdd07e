import { shortName } from '../../report/by-name-text.js';
import { toJson } from '../../formats/json.js';
import { checkTargetClock, describeAdvice, loadCalibration, predictProfile } from '../../engines/calibrate/index.js';
import { excerpt, InputError } from '../../errors.js';
import { fixed, formatCell, formatTable, toCsv, type Column } from '../../report/tables.js';
import type { CommandSpec } from '../command.js';
import { choice, tableLayout, tableOptions } from '../io.js';
import { namingProfile, PROFILE_OPTIONS, readProfiles } from './profile-options.js';

/** "1710" or "870,1710" → numbers; "all" → 'all'. */
export function parseClockList(value: unknown, option: string): number[] | 'all' {
  const s = String(value ?? '').trim();
  if (s === 'all') return 'all';
  const list = s.split(',').map((x) => Number(x.trim()));
  if (!s || list.some((x) => !(x > 0) || !Number.isFinite(x)))
    throw new InputError(
      `--${option}: expected MHz values separated by commas${option === 'frequencies' ? " or 'all'" : ''}, got "${excerpt(s)}"`,
    );
  return list;
}

export const predictCommand: CommandSpec = {
  name: 'predict',
  summary: 'Predict every kernel of a profile at other SM clocks (time, power, energy; estimates)',
  args: [],
  options: [
    {
      name: 'calibration',
      value: 'file',
      description: 'calibration JSON (tracewatt calibrate, or calibration/*.json)',
      required: true,
    },
    { name: 'profile', value: 'file', description: 'profile with the kernels to predict', required: true },
    ...PROFILE_OPTIONS,
    {
      name: 'reference-frequency',
      value: 'MHz',
      description: 'clock(s) the profile was taken at, comma-separated',
      required: true,
    },
    {
      name: 'frequencies',
      value: 'list',
      description:
        "target clocks, comma-separated, or 'all' (the calibrated clocks); within the device's SM clock range",
      default: 'all',
    },
    {
      name: 'device-mismatch',
      value: 'ok',
      description:
        "say nothing when the profile names a device other than the calibration's (default: a warning naming both)",
    },
    ...tableOptions('one row per kernel and clock, times in ns, with the 10–90 % bands'),
  ],
  example:
    'tracewatt predict --calibration calibration/a40.json --profile calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv --reference-frequency 1740 --frequencies 1200,1500',
  async run(_args, opts, io) {
    const cal = await loadCalibration(String(opts.calibration));
    const refs = parseClockList(opts.referenceFrequency, 'reference-frequency');
    if (refs === 'all') throw new InputError('--reference-frequency: give the clock(s) in MHz');
    const targets = parseClockList(opts.frequencies ?? 'all', 'frequencies');
    if (targets !== 'all') for (const f of targets) checkTargetClock(cal, f);
    // One reference clock is also the clock of profiles that record none (a Kineto trace).
    const profile = (
      await readProfiles([String(opts.profile)], opts, io, {
        referenceClockMHz: refs.length === 1 ? refs[0] : undefined,
      })
    )[0]!.table;
    const r = namingProfile(String(opts.profile), () =>
      predictProfile(cal, profile, {
        referenceClocksMHz: refs,
        targetClocksMHz: targets,
        deviceMismatch: choice(opts, 'deviceMismatch', ['ok'] as const),
        profileName: String(opts.profile),
      }),
    );
    for (const n of r.notes) io.err(`note: ${n}\n`);
    for (const w of r.warnings) io.err(`WARNING: ${w}\n`);
    if (opts.json) io.out(`${toJson(r)}\n`);
    else if (opts.csv) {
      const keys = [
        'kernel',
        'frequencyMHz',
        'effectiveClockMHz',
        'durationNs',
        'powerW',
        'energyJ',
        'capped',
        'durationNsP10',
        'durationNsP90',
        'powerWP10',
        'powerWP90',
        'energyJP10',
        'energyJP90',
        'bandMode',
        'basis',
      ] as const;
      // The record's field names, but the SM clock named as in every other table.
      const csvNames: Partial<Record<(typeof keys)[number], string>> = {
        frequencyMHz: 'smClockMHz',
        effectiveClockMHz: 'effectiveSmClockMHz',
      };
      const cols: Column[] = keys.map((k) => ({ header: k, key: csvNames[k] ?? k }));
      io.out(
        toCsv(
          cols,
          r.rows.map((x) => keys.map((k) => (k === 'capped' ? String(x.capped) : x[k]))),
        ),
      );
    } else {
      io.out(
        formatTable(
          [
            // Kernel names run to thousands of characters: cut in the middle (--csv and --json keep them whole).
            { header: 'kernel' },
            { header: 'SM clock (MHz)' },
            { header: 'time (ms, est.)', format: fixed(4) },
            { header: 'power (W, est.)', format: fixed(1) },
            { header: 'energy (J, est.)' },
            { header: 'energy 10–90 % (J)', align: 'right' },
            { header: 'capped' },
          ],
          r.rows.map((x) => [
            shortName(x.kernel),
            x.frequencyMHz,
            x.durationNs / 1e6,
            x.powerW,
            x.energyJ,
            x.energyJP10 === null ? 'no band' : `${formatCell(x.energyJP10)}–${formatCell(x.energyJP90)}`,
            x.capped ? 'yes' : '',
          ]),
          tableLayout(opts),
        ),
      );
      const kernels = new Set(r.rows.map((x) => x.kernel)).size;
      const sumAt = (f: number) => r.rows.filter((x) => x.frequencyMHz === f).reduce((a, x) => a + x.energyJ, 0);
      const totals = r.totals.length
        ? r.totals.map((t) =>
            t.kernelsWithoutBand >= kernels
              ? `${t.frequencyMHz} MHz ${formatCell(t.energyJ.p50)} (no band: no kernel has one)`
              : `${t.frequencyMHz} MHz ${formatCell(t.energyJ.p50)} (${formatCell(t.energyJ.p10)}–${formatCell(t.energyJ.p90)}, ±${t.halfWidthPct.toFixed(1)}%${t.kernelsWithoutBand ? `; ${t.kernelsWithoutBand} kernel(s) without a band left out of it` : ''})`,
          )
        : [...new Set(r.rows.map((x) => x.frequencyMHz))].map(
            (f) => `${f} MHz ${formatCell(sumAt(f))} (no band: the calibration has no band model)`,
          );
      io.out(
        `total energy of these kernels (J, est.; 10–90 % band, kernel errors taken as independent): ${totals.join('; ')}\n`,
      );
      if (r.advice) io.out(`advice: ${describeAdvice(r.advice)}\n`);
      for (const s of r.skipped) io.err(`skipped ${s}\n`);
    }
    return 0;
  },
};

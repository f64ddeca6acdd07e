/**
 * `tracewatt calibrate`: fit a device calibration from profile tables (per-clock power models, memory ceiling and
 * time share, V–f model, power cap, sanity findings, provenance).
 */
import path from 'node:path';
import type { ProfileTable } from '../../vocab/kernel-sample.js';
import { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import { fileDigest } from '../../formats/digest.js';
import { readProfileInto, type ReadProfileOptions } from '../../formats/profiles/index.js';
import {
  CALIBRATION_SCHEMA,
  CALIBRATION_VERSION,
  type Calibration,
  type PowerCap,
  type SanityFinding,
} from '../../model/calibration.js';
import { datasheetFor } from '../../model/datasheets.js';
import {
  describeLocations,
  formatLocation,
  groupKernels,
  KernelGrouper,
  sanityCheck,
  type KernelSeries,
  type SampleLocation,
} from '../../model/kernels.js';
import { CAP_BAND, detectPowerCap } from '../../model/power-cap.js';
import { fitClockPower, type ClockPowerModel, type PowerPoint } from '../../model/power-model.js';
import { fitMemoryCeiling, fitTimeShare, type TimeFitKernel } from '../../model/time-model.js';
import { fitRoofExponent } from '../../model/multi-clock-time.js';
import { fitVf, referenceCurve } from '../../model/vf-model.js';
import { idleFromProfile, idleRows, measuredIdle, publishedIdle, type IdleMeasurement } from './idle.js';

/** Launch overhead per kernel, ns: a hardware-independent constant (a few µs of launch latency). */
export const DEFAULT_LAUNCH_OVERHEAD_NS = 3000;

export interface CalibrateInput {
  table: ProfileTable;
  /** The profile file the table was read from (named in provenance and messages). */
  file: string;
  /** SHA-256 of the file's bytes, 64 lowercase hex digits (see {@link readCalibrateInput}). */
  sha256: string;
}

export interface CalibrateOptions {
  device?: string;
  command?: string;
  /** Keys of series to leave out (leave-one-kernel-out). */
  excludeKernels?: Set<string>;
  /** SM clocks to leave out of the per-clock fits (leave-one-frequency-out). */
  excludeClocksMHz?: Set<number>;
  /** An idle measurement (--idle), with the SHA-256 of its file: the calibration's idle block comes from it. */
  idle?: IdleMeasurement & { sha256: string };
}

/** SHA-256 of a file's bytes (one implementation: formats/digest.ts). */
export const sha256File = fileDigest;

/**
 * Reads a profile for the models: repeats of a kernel at one SM clock are averaged while the file streams
 * (KernelGrouper), so memory is bounded by kernels × clocks, not rows; samples with no clock are kept as they are.
 * Grouping the table's samples again gives the same series as grouping every row. `table.rows` counts the rows.
 */
export async function readProfileMerged(file: string, options: ReadProfileOptions = {}): Promise<ProfileTable> {
  const diagnostics = options.diagnostics ?? new Diagnostics();
  let merging = new Diagnostics();
  const { table, sink } = await readProfileInto(file, { ...options, diagnostics }, () => {
    merging = new Diagnostics();
    return new KernelGrouper(merging, { keepSources: 1, keepUnclocked: true });
  });
  diagnostics.merge(merging);
  const samples = sink.samples();
  const notes =
    samples.length < sink.rows
      ? [
          `${sink.rows} rows read as ${samples.length} samples: repeats of a kernel at one SM clock averaged, ` +
            `as the models do`,
        ]
      : [];
  return { ...table, samples, rows: sink.rows, notes: [...table.notes, ...notes] };
}

/** Reads one profile (merged as the models use it) and hashes its bytes: a calibration input with real provenance. */
export async function readCalibrateInput(file: string, options: ReadProfileOptions = {}): Promise<CalibrateInput> {
  const table = await readProfileMerged(file, options);
  return { file, table, sha256: await sha256File(file) };
}

/** The memory clock most samples ran at: per-clock models are taken there when several were swept. */
export function mainMemClock(series: KernelSeries[]): number | null {
  const counts = new Map<number, number>();
  for (const s of series)
    for (const p of s.points)
      if (p.memClockMHz !== null) counts.set(p.memClockMHz, (counts.get(p.memClockMHz) ?? 0) + 1);
  let best: number | null = null;
  for (const [m, n] of counts) if (best === null || n > counts.get(best)!) best = m;
  return best;
}

/**
 * The kernel series of calibration inputs. Kernels are identified per input file: the same name in two files is two
 * kernels.
 */
export function calibrationSeries(inputs: CalibrateInput[], diagnostics?: Diagnostics): KernelSeries[] {
  return inputs.flatMap((inp) =>
    groupKernels(inp.table.samples, diagnostics).map((s) =>
      inputs.length > 1 ? { ...s, key: `${path.basename(inp.file)}:${s.key}` } : s,
    ),
  );
}

export function fitCalibration(
  inputs: CalibrateInput[],
  options: CalibrateOptions = {},
): { calibration: Calibration; diagnostics: Diagnostics } {
  if (inputs.length === 0) throw new InputError('calibrate needs at least one profile');
  for (const i of inputs)
    if (typeof i.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(i.sha256))
      throw new InputError(
        `${i.file}: calibration input needs the SHA-256 of the file (64 lowercase hex digits) for provenance, ` +
          `got ${JSON.stringify(i.sha256)}; use readCalibrateInput()`,
      );
  const diagnostics = new Diagnostics();
  const samples = inputs.flatMap((i) => i.table.samples);
  let series = calibrationSeries(inputs, diagnostics);
  if (options.excludeKernels) series = series.filter((s) => !options.excludeKernels!.has(s.key));
  const unreliable = sanityCheck(series, diagnostics);
  const memMain = mainMemClock(series);
  const components = [...new Set(series.flatMap((s) => s.points.flatMap((p) => Object.keys(p.utilization))))].sort();
  const counterFree = components.length === 0;

  // Per-clock power models (at the main memory clock, or per (SM, memory) pair when memory clocks were swept).
  const byClock = new Map<string, { sm: number; mem: number | null; pts: PowerPoint[]; rows: SampleLocation[] }>();
  for (const s of series)
    for (const p of s.points) {
      if (p.powerW === null) continue;
      if (options.excludeClocksMHz?.has(p.smClockMHz)) continue;
      if (unreliable.has(`power:${s.key}@${p.smClockMHz}`)) continue;
      const k = `${p.smClockMHz}/${p.memClockMHz}`;
      const e = byClock.get(k) ?? { sm: p.smClockMHz, mem: p.memClockMHz, pts: [], rows: [] };
      e.pts.push({
        utilization: p.utilization,
        powerW: p.powerW,
        label: `${s.key}@${p.smClockMHz}MHz (${formatLocation(p.sources[0]!)})`,
      });
      e.rows.push(...p.sources);
      byClock.set(k, e);
    }
  const perClock: ClockPowerModel[] = [];
  for (const e of [...byClock.values()].sort((a, b) => a.sm - b.sm || (a.mem ?? 0) - (b.mem ?? 0))) {
    // Where the rows of this clock came from ("file: rows 5, 9, 13, …"), so a message can name them.
    const rowsHere = describeLocations(e.rows);
    if (e.pts.length < 2) {
      diagnostics.add('CLOCK_TOO_FEW_ROWS', {
        message:
          `${e.sm} MHz: ${e.pts.length} row with power, a power model needs at least 2; no model fitted at this ` +
          `clock (other clocks are interpolated through the V–f model)`,
        file: rowsHere,
      });
      continue;
    }
    const m = fitClockPower(e.pts, components, { smClockMHz: e.sm, memClockMHz: e.mem });
    const unknowns =
      1 + Object.keys(m.coefficientsW).length + m.dropped.filter((d) => d.reason === 'too-few-rows').length;
    for (const d of m.dropped) {
      if (d.reason === 'absent') continue;
      const why =
        d.reason === 'too-few-rows'
          ? `${e.pts.length} rows for ${unknowns} coefficients (intercept + ${unknowns - 1} components; a fit ` +
            `needs one row more than it has coefficients): field ${d.component} dropped, the most variable ` +
            `components are kept`
          : d.reason === 'collinear'
            ? `field ${d.component} dropped: collinear with ${d.with} (|correlation| > 0.995 over ${e.pts.length} rows)`
            : `field ${d.component} dropped: constant over ${e.pts.length} rows`;
      diagnostics.add(`COMPONENT_${d.reason.toUpperCase().replace(/-/g, '_')}`, {
        message: `${e.sm} MHz: ${why}`,
        file: rowsHere,
      });
    }
    for (const o of m.outliers)
      diagnostics.add('POWER_OUTLIER', {
        message: `${o}: power reading far from the fit, left out (glitched reading?)`,
      });
    perClock.push(m);
  }
  if (perClock.length === 0) {
    const pts = series.flatMap((s) => s.points);
    const withPower = pts.filter((p) => p.powerW !== null).length;
    throw new InputError(
      `${inputs.map((i) => i.file).join(', ')}: no clock has enough rows with power to fit a power model: each ` +
        `SM clock needs at least 2 kernels with ` +
        `an SM clock and a power reading (a power column, or energy and duration columns); found ${pts.length} ` +
        `kernel-clock points, ${withPower} with power` +
        (inputs.length === 1 ? ` (read as ${inputs[0]!.table.format})` : ''),
    );
  }
  const mainModels = perClock.filter((m) => m.memClockMHz === memMain || memMain === null);

  // A cap seen in the data (detected, or reported by the profile): points at it ran below their nominal clock, so
  // the roofline exponent and the V–f model leave them out.
  const deviceName = options.device ?? inputs.find((i) => i.table.device)?.table.device ?? 'unknown GPU';
  const ds = datasheetFor(deviceName);
  const seenCap = detectPowerCap(
    series.map((s) => ({
      label: s.key,
      points: s.points
        .filter((p) => p.durationNs !== null && p.powerW !== null)
        .map((p) => ({ smClockMHz: p.smClockMHz, durationNs: p.durationNs!, powerW: p.powerW! })),
    })),
    samples.reduce<number | null>((acc, s) => (s.powerLimitW ? Math.min(acc ?? Infinity, s.powerLimitW) : acc), null),
  );
  const belowSeenCap = (powerW: number | null) =>
    seenCap.powerW === null || powerW === null || powerW < CAP_BAND * seenCap.powerW;

  // Time model.
  const timeKernels: TimeFitKernel[] = [];
  const ceilingPts: { smClockMHz: number; memClockMHz: number | null; dramActive: number }[] = [];
  for (const s of series) {
    const byC = new Map<number, { durationNs: number; dramActive: number }>();
    for (const p of s.points) {
      if (p.durationNs === null || (memMain !== null && p.memClockMHz !== memMain)) continue;
      if (unreliable.has(`${s.key}@${p.smClockMHz}`)) continue;
      const dram = p.utilization.dram_active ?? 0;
      byC.set(p.smClockMHz, { durationNs: p.durationNs, dramActive: dram });
      if (p.utilization.dram_active !== undefined)
        ceilingPts.push({ smClockMHz: p.smClockMHz, memClockMHz: p.memClockMHz, dramActive: dram });
    }
    if (byC.size >= 2) timeKernels.push({ byClock: byC });
  }
  const ceiling = fitMemoryCeiling(ceilingPts);
  const time = fitTimeShare(timeKernels, ceiling, DEFAULT_LAUNCH_OVERHEAD_NS);
  const roof = fitRoofExponent(
    series.map((s) =>
      s.points
        .filter(
          (p) =>
            p.durationNs !== null &&
            (memMain === null || p.memClockMHz === memMain) &&
            !unreliable.has(`${s.key}@${p.smClockMHz}`) &&
            belowSeenCap(p.powerW),
        )
        .map((p) => ({ smClockMHz: p.smClockMHz, durationNs: p.durationNs! })),
    ),
  );
  if (roof) time.roofExponent = roof;

  // V–f model on the modelled power of the mean utilization mix.
  const meanU: Record<string, number> = {};
  const allPts = series.flatMap((s) => s.points);
  for (const c of components)
    meanU[c] = allPts.reduce((acc, p) => acc + (p.utilization[c] ?? 0), 0) / Math.max(1, allPts.length);
  const vf = fitVf(referenceCurve(mainModels, meanU).filter((q) => belowSeenCap(q.powerW)));

  // No cap seen in the data: the datasheet TDP bounds predicted power (a board cannot draw past its limit).
  const powerCap: PowerCap =
    seenCap.powerW === null && ds
      ? {
          detected: false,
          powerW: ds.facts.tdpW,
          source: 'datasheet',
          evidence: `${seenCap.evidence}; the datasheet TDP ${ds.facts.tdpW} W of ${ds.name} is taken as the cap`,
        }
      : seenCap;
  // Idle power: the measurement given, else idle rows of the inputs, else the device's published figure.
  const ownIdle = inputs.find((i) => idleRows(i.table).length > 0);
  const idle = options.idle
    ? measuredIdle(options.idle, memMain)
    : ownIdle
      ? measuredIdle(idleFromProfile(ownIdle.file, ownIdle.table), memMain)
      : ds
        ? publishedIdle(ds)
        : undefined;
  if (!idle)
    diagnostics.add('NO_IDLE_FIGURE', {
      message:
        `${deviceName}: no idle measurement given (--idle), no idle rows in the profiles and no published ` +
        `figure: annotate needs --idle-power`,
    });
  const sanity: SanityFinding[] = diagnostics.summary().map((d) => ({
    code: d.code,
    count: d.count,
    examples: d.samples.map((s) => (s.file ? `${s.file}: ${s.message}` : s.message)),
  }));
  const calibration: Calibration = {
    schema: CALIBRATION_SCHEMA,
    version: CALIBRATION_VERSION,
    device: {
      name: deviceName,
      kind: 'fitted',
      note: 'coefficients fitted from measured profiles; predictions made with them are estimates',
    },
    clocks: {
      smClocksMHz: [...new Set(perClock.map((m) => m.smClockMHz))].sort((a, b) => a - b),
      memClocksMHz: [...new Set(perClock.map((m) => m.memClockMHz).filter((m): m is number => m !== null))].sort(
        (a, b) => a - b,
      ),
    },
    components: counterFree ? [] : components,
    counterFree,
    power: { perClock },
    time,
    vf,
    powerCap,
    datasheet: ds ? { ...ds.facts } : null,
    ...(idle ? { idle } : {}),
    sanity,
    provenance: {
      inputs: [
        ...inputs.map((i) => ({
          file: path.relative(process.cwd(), i.file) || i.file,
          sha256: i.sha256,
          format: i.table.format,
          rows: i.table.rows ?? i.table.samples.length,
        })),
        ...(options.idle
          ? [
              {
                file: path.relative(process.cwd(), options.idle.file) || options.idle.file,
                sha256: options.idle.sha256,
                format: `${options.idle.format} (idle)`,
                rows: options.idle.rows,
              },
            ]
          : []),
      ],
      command: options.command ?? 'tracewatt calibrate',
      createdAt: new Date().toISOString(),
      tool: 'tracewatt',
    },
  };
  return { calibration, diagnostics };
}

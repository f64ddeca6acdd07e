/**
 * The calibration file: a versioned JSON document holding everything fitted for one device. See
 * calibration/README.md for the field-by-field description. {@link validateCalibration} checks a parsed
 * document and names the first offending field; {@link loadCalibration} reads and validates a file.
 */
import { parseJsonText, readTextFile } from '../formats/text-file.js';
import { FormatError, InputError } from '../errors.js';
import type { ClockPowerModel } from './power-model.js';
import type { VfModel } from './vf-model.js';
import type { TimeModel } from './time-model.js';
import { BAND_MODES, BAND_QUANTITIES, type UncertaintyModel } from './uncertainty.js';
import { writeFileAtomic } from '../formats/output.js';

export const CALIBRATION_SCHEMA = 'tracewatt-calibration';
export const CALIBRATION_VERSION = 1;

export const POWER_CAP_SOURCES = ['detected', 'profile', 'datasheet', 'none'] as const;

export interface PowerCap {
  detected: boolean;
  /** Board power the GPU is held at, W; null when none was seen. */
  powerW: number | null;
  /** detected in the data > power limit reported by the profile > datasheet TDP > none. */
  source: (typeof POWER_CAP_SOURCES)[number];
  /** One sentence saying what the detection saw. */
  evidence: string;
}

/** Datasheet-level numbers (not fitted). Peak rates at the maximum SM clock. */
export interface DatasheetFacts {
  tdpW: number;
  /** The device's idle draw at its maximum SM clock, W: the idle figure of src/model/datasheets.ts (see `idle`). */
  idlePowerW: number;
  activePowerW: number;
  maxSmClockMHz: number;
  /** Lowest SM clock of the device's clock table, MHz (absent where no table was at hand: the lowest calibrated clock bounds). */
  minSmClockMHz?: number;
  memoryBandwidthBytesPerS: number;
  peakFlopsPerS: { fp16Tensor?: number; fp32: number; fp64: number };
  source: string;
}

export const IDLE_BASES = ['measured', 'published'] as const;

/** Idle power measured at one SM clock (and memory clock, when the source has one). */
export interface IdlePoint {
  smClockMHz: number;
  memClockMHz: number | null;
  powerW: number;
  /** Samples behind the figure (a power log's samples, a profile's idle rows). */
  samples: number;
}

/**
 * What the GPU draws while it computes nothing, held at a clock (a job's GPU between kernels): from an idle
 * measurement or a published figure, never from the active power fit at zero utilization. Other clocks follow
 * static ∝ V (the calibration's V–f model) between and beyond the points: model/idle-power.ts.
 */
export interface IdleFacts {
  /** Idle power at `smClockMHz`, W. */
  powerW: number;
  smClockMHz: number;
  /** Every clock the figure was measured at (one entry for a single figure). */
  perClock: IdlePoint[];
  basis: (typeof IDLE_BASES)[number];
  /** One sentence: where the figure comes from and what was assumed. */
  source: string;
}

export interface SanityFinding {
  code: string;
  count: number;
  examples: string[];
}

export interface Calibration {
  schema: typeof CALIBRATION_SCHEMA;
  version: typeof CALIBRATION_VERSION;
  device: { name: string; kind: 'fitted' | 'datasheet'; note?: string };
  /** All SM clocks with a fitted power model, ascending; memory clocks seen. */
  clocks: { smClocksMHz: number[]; memClocksMHz: number[] };
  /** Components the power and time models use. */
  components: string[];
  /** True when the inputs had no utilization counters (per-clock intercepts only). */
  counterFree: boolean;
  power: { perClock: ClockPowerModel[] };
  time: TimeModel;
  vf: VfModel | null;
  powerCap: PowerCap;
  datasheet: DatasheetFacts | null;
  /** Idle power (absent in files written before it existed: the datasheet's idle figure stands in, said so). */
  idle?: IdleFacts;
  sanity: SanityFinding[];
  /**
   * Band model from leave-one-benchmark-out residuals (model/uncertainty.ts). Absent in files written before it
   * existed, null when the inputs allowed none (no kernel with two clocks): predictions then carry no band.
   */
  uncertainty?: UncertaintyModel | null;
  provenance: {
    inputs: { file: string; sha256: string; format: string; rows: number }[];
    command: string;
    createdAt: string;
    tool: string;
  };
}

type Json = unknown;

function fail(file: string, field: string, problem: string): never {
  throw new FormatError(file, `field ${field}`, problem);
}

/** A value as a message shows it: `missing` for an absent key, never "undefined". */
function shown(v: Json): string {
  return v === undefined ? 'missing' : JSON.stringify(v).slice(0, 40);
}

function isObj(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(
  file: string,
  obj: Record<string, Json>,
  key: string,
  path: string,
  opts: { nullable?: boolean; min?: number } = {},
): void {
  const v = obj[key];
  if (v === null && opts.nullable) return;
  if (typeof v !== 'number' || !Number.isFinite(v))
    fail(file, `${path}.${key}`, `expected a finite number${opts.nullable ? ' or null' : ''}, got ${shown(v)}`);
  if (opts.min !== undefined && v < opts.min) fail(file, `${path}.${key}`, `must be ≥ ${opts.min}, got ${v}`);
}

function numArray(file: string, v: Json, path: string): void {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'number' || !Number.isFinite(x)))
    fail(file, path, 'expected an array of finite numbers');
}

function obj(file: string, v: Json, path: string): Record<string, Json> {
  if (!isObj(v)) fail(file, path, `expected an object, got ${shown(v)}`);
  return v;
}

/** Checks a parsed calibration document; throws FormatError naming the field. */
export function validateCalibration(doc: Json, file = '<calibration>'): Calibration {
  const root = obj(file, doc, '(root)');
  if (root.schema !== CALIBRATION_SCHEMA)
    fail(file, 'schema', `expected "${CALIBRATION_SCHEMA}", got ${shown(root.schema)}`);
  if (root.version !== CALIBRATION_VERSION)
    fail(
      file,
      'version',
      `this tracewatt reads calibration schema version ${CALIBRATION_VERSION}, the file has ${shown(root.version)}; re-run tracewatt calibrate`,
    );
  const device = obj(file, root.device, 'device');
  if (typeof device.name !== 'string' || !device.name) fail(file, 'device.name', 'expected a non-empty string');
  if (device.kind !== 'fitted' && device.kind !== 'datasheet')
    fail(file, 'device.kind', 'expected "fitted" or "datasheet"');
  const clocks = obj(file, root.clocks, 'clocks');
  numArray(file, clocks.smClocksMHz, 'clocks.smClocksMHz');
  numArray(file, clocks.memClocksMHz, 'clocks.memClocksMHz');
  if (!Array.isArray(root.components) || root.components.some((c) => typeof c !== 'string'))
    fail(file, 'components', 'expected an array of strings');
  if (typeof root.counterFree !== 'boolean') fail(file, 'counterFree', 'expected true or false');
  const power = obj(file, root.power, 'power');
  if (!Array.isArray(power.perClock) || power.perClock.length === 0)
    fail(file, 'power.perClock', 'expected a non-empty array');
  power.perClock.forEach((pc, i) => {
    const path = `power.perClock[${i}]`;
    const o = obj(file, pc, path);
    num(file, o, 'smClockMHz', path, { min: 1 });
    num(file, o, 'memClockMHz', path, { nullable: true });
    num(file, o, 'interceptW', path);
    const co = obj(file, o.coefficientsW, `${path}.coefficientsW`);
    for (const k of Object.keys(co)) num(file, co, k, `${path}.coefficientsW`, { min: 0 });
    if (!Array.isArray(o.dropped)) fail(file, `${path}.dropped`, 'expected an array');
    const fit = obj(file, o.fit, `${path}.fit`);
    for (const k of ['n', 'r2', 'mapePct', 'rmseW']) num(file, fit, k, `${path}.fit`);
  });
  const time = obj(file, root.time, 'time');
  if (!Array.isArray(time.memoryCeiling)) fail(file, 'time.memoryCeiling', 'expected an array');
  time.memoryCeiling.forEach((m, i) => {
    const o = obj(file, m, `time.memoryCeiling[${i}]`);
    num(file, o, 'smClockMHz', `time.memoryCeiling[${i}]`, { min: 1 });
    num(file, o, 'dramActiveMax', `time.memoryCeiling[${i}]`, { min: 0 });
  });
  const share = obj(file, time.share, 'time.share');
  num(file, share, 'w0', 'time.share');
  num(file, share, 'w1', 'time.share');
  num(file, time, 'launchOverheadNs', 'time', { min: 0 });
  if (time.roofExponent !== undefined) {
    const roof = obj(file, time.roofExponent, 'time.roofExponent');
    num(file, roof, 'exponent', 'time.roofExponent', { min: 1 });
    for (const k of ['mapePct', 'additiveMapePct', 'n']) num(file, roof, k, 'time.roofExponent', { min: 0 });
  }
  if (root.vf !== null) {
    const vf = obj(file, root.vf, 'vf');
    for (const k of ['kneeMHz', 'slopePerGHz', 'constW', 'staticW', 'dynamicWPerGHz']) num(file, vf, k, 'vf');
  }
  const cap = obj(file, root.powerCap, 'powerCap');
  if (typeof cap.detected !== 'boolean') fail(file, 'powerCap.detected', 'expected true or false');
  num(file, cap, 'powerW', 'powerCap', { nullable: true, min: 0 });
  if (!POWER_CAP_SOURCES.includes(cap.source as PowerCap['source']))
    fail(file, 'powerCap.source', `expected one of ${POWER_CAP_SOURCES.join(', ')}, got ${shown(cap.source)}`);
  if ((cap.source === 'none') !== (cap.powerW === null))
    fail(
      file,
      'powerCap.powerW',
      `source "${String(cap.source)}" ${cap.source === 'none' ? 'has no cap: powerW must be null' : 'needs a cap in W'}`,
    );
  if (root.datasheet !== null) {
    const ds = obj(file, root.datasheet, 'datasheet');
    for (const k of ['tdpW', 'idlePowerW', 'activePowerW', 'maxSmClockMHz', 'memoryBandwidthBytesPerS'])
      num(file, ds, k, 'datasheet', { min: 0 });
    if (ds.minSmClockMHz !== undefined) num(file, ds, 'minSmClockMHz', 'datasheet', { min: 1 });
    const pf = obj(file, ds.peakFlopsPerS, 'datasheet.peakFlopsPerS');
    num(file, pf, 'fp32', 'datasheet.peakFlopsPerS', { min: 0 });
  }
  if (root.idle !== undefined) validateIdle(file, obj(file, root.idle, 'idle'));
  if (!Array.isArray(root.sanity)) fail(file, 'sanity', 'expected an array');
  if (root.uncertainty !== undefined && root.uncertainty !== null)
    validateUncertainty(file, obj(file, root.uncertainty, 'uncertainty'));
  const prov = obj(file, root.provenance, 'provenance');
  if (!Array.isArray(prov.inputs)) fail(file, 'provenance.inputs', 'expected an array');
  prov.inputs.forEach((inp, i) => {
    const o = obj(file, inp, `provenance.inputs[${i}]`);
    if (typeof o.file !== 'string') fail(file, `provenance.inputs[${i}].file`, 'expected a string');
    if (typeof o.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(o.sha256))
      fail(file, `provenance.inputs[${i}].sha256`, 'expected 64 hex digits');
  });
  if (typeof prov.createdAt !== 'string') fail(file, 'provenance.createdAt', 'expected an ISO date string');
  return doc as Calibration;
}

function validateIdle(file: string, idle: Record<string, Json>): void {
  num(file, idle, 'powerW', 'idle', { min: 0 });
  num(file, idle, 'smClockMHz', 'idle', { min: 1 });
  if (!(IDLE_BASES as readonly unknown[]).includes(idle.basis))
    fail(file, 'idle.basis', `expected one of ${IDLE_BASES.join(', ')}, got ${shown(idle.basis)}`);
  if (typeof idle.source !== 'string' || !idle.source.trim())
    fail(file, 'idle.source', 'expected a sentence saying where the idle figure comes from');
  if (!Array.isArray(idle.perClock) || idle.perClock.length === 0)
    fail(file, 'idle.perClock', 'expected a non-empty array');
  idle.perClock.forEach((p, i) => {
    const path = `idle.perClock[${i}]`;
    const o = obj(file, p, path);
    num(file, o, 'smClockMHz', path, { min: 1 });
    num(file, o, 'memClockMHz', path, { nullable: true, min: 1 });
    num(file, o, 'powerW', path, { min: 0 });
    num(file, o, 'samples', path, { min: 1 });
  });
}

function validateUncertainty(file: string, u: Record<string, Json>): void {
  if (u.method !== 'leave-one-benchmark-out')
    fail(file, 'uncertainty.method', `expected "leave-one-benchmark-out", got ${shown(u.method)}`);
  for (const k of ['groups', 'folds', 'kernels']) num(file, u, k, 'uncertainty', { min: 0 });
  if (u.twoClockDistance !== undefined && u.twoClockDistance !== 'product' && u.twoClockDistance !== 'harmonic')
    fail(
      file,
      'uncertainty.twoClockDistance',
      `expected "product" or "harmonic", got ${JSON.stringify(u.twoClockDistance)}`,
    );
  if (u.roofExponentRange !== undefined && u.roofExponentRange !== null) {
    const r = obj(file, u.roofExponentRange, 'uncertainty.roofExponentRange');
    for (const k of ['p10', 'p90']) num(file, r, k, 'uncertainty.roofExponentRange', { min: 1 });
    num(file, r, 'kernels', 'uncertainty.roofExponentRange', { min: 0 });
    if ((r.p90 as number) < (r.p10 as number)) fail(file, 'uncertainty.roofExponentRange.p90', 'expected p90 ≥ p10');
  }
  if (u.counterSpace !== null) {
    const cs = obj(file, u.counterSpace, 'uncertainty.counterSpace');
    const comps = cs.components;
    if (!Array.isArray(comps) || comps.some((c) => typeof c !== 'string'))
      fail(file, 'uncertainty.counterSpace.components', 'expected an array of strings');
    numArray(file, cs.scale, 'uncertainty.counterSpace.scale');
    if ((cs.scale as number[]).length !== comps.length || (cs.scale as number[]).some((x) => !(x > 0)))
      fail(file, 'uncertainty.counterSpace.scale', 'expected one positive number per component');
    if (!Array.isArray(cs.points)) fail(file, 'uncertainty.counterSpace.points', 'expected an array');
    cs.points.forEach((p, i) => {
      numArray(file, p, `uncertainty.counterSpace.points[${i}]`);
      if ((p as number[]).length !== comps.length)
        fail(file, `uncertainty.counterSpace.points[${i}]`, `expected ${comps.length} numbers (one per component)`);
    });
    num(file, cs, 'neighbours', 'uncertainty.counterSpace', { min: 1 });
  }
  const modes = obj(file, u.modes, 'uncertainty.modes');
  for (const [mode, table] of Object.entries(modes)) {
    if (!(BAND_MODES as readonly string[]).includes(mode))
      fail(file, `uncertainty.modes.${mode}`, `unknown mode; expected one of ${BAND_MODES.join(', ')}`);
    validateBandTable(file, table, `uncertainty.modes.${mode}`);
  }
  if (u.memoryCeiling !== undefined && u.memoryCeiling !== null)
    validateBandTable(file, u.memoryCeiling, 'uncertainty.memoryCeiling');
  if (u.powerMisfitMax !== undefined) num(file, u, 'powerMisfitMax', 'uncertainty', { min: 0 });
}

function validateBandTable(file: string, table: Json, at: string): void {
  const t = obj(file, table, at);
  for (const q of BAND_QUANTITIES) {
    const path = `${at}.${q}`;
    const b = obj(file, t[q], path);
    for (const k of ['distance', 'q10', 'q90']) numArray(file, b[k], `${path}.${k}`);
    const n = (b.distance as number[]).length;
    if (n === 0 || (b.q10 as number[]).length !== n || (b.q90 as number[]).length !== n)
      fail(file, `${path}.q10`, 'expected q10, q90 and distance of one non-zero length');
    if ((b.distance as number[]).some((x, i, a) => i > 0 && !(x > a[i - 1]!)))
      fail(file, `${path}.distance`, 'expected ascending distances');
    if ((b.q10 as number[]).some((x) => x > 0) || (b.q90 as number[]).some((x) => x < 0))
      fail(file, path, 'expected q10 ≤ 0 ≤ q90');
    num(file, b, 'widening', path, { min: 0 });
    num(file, b, 'maxCounterDistance', path, { min: 0 });
    num(file, b, 'n', path, { min: 0 });
  }
}

export async function loadCalibration(file: string): Promise<Calibration> {
  return validateCalibration(parseJsonText(file, await readTextFile(file)) as Json, file);
}

/** Writes the calibration by the output discipline: complete under its name, or not at all (error naming the file). */
export async function saveCalibration(file: string, cal: Calibration): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(cal, null, 2)}\n`);
}

/**
 * The highest SM clock the device can run: the datasheet's maximum, or the highest calibrated clock when there is
 * no datasheet (or when the profiles ran higher than the datasheet says, since a measured clock was reachable).
 */
export function maxSmClock(cal: Calibration): { mhz: number; source: 'datasheet' | 'calibrated' } {
  const calibrated = Math.max(...cal.clocks.smClocksMHz, ...cal.power.perClock.map((m) => m.smClockMHz));
  const ds = cal.datasheet?.maxSmClockMHz;
  if (ds !== undefined && ds > 0 && ds >= calibrated) return { mhz: ds, source: 'datasheet' };
  return { mhz: calibrated, source: 'calibrated' };
}

/** The SM clocks a prediction may target: the device's clock table where known, else the calibrated range. */
export interface ClockRange {
  minMHz: number;
  maxMHz: number;
  /** Where each end comes from, in words. */
  minSource: string;
  maxSource: string;
}

export function clockRange(cal: Calibration): ClockRange {
  const max = maxSmClock(cal);
  const calibratedMin = Math.min(...cal.clocks.smClocksMHz, ...cal.power.perClock.map((m) => m.smClockMHz));
  const tableMin = cal.datasheet?.minSmClockMHz;
  const fromTable = tableMin !== undefined && tableMin > 0 && tableMin < calibratedMin;
  return {
    minMHz: fromTable ? tableMin : calibratedMin,
    maxMHz: max.mhz,
    minSource: fromTable
      ? 'the lowest clock of its clock table, datasheet minSmClockMHz'
      : 'the lowest calibrated clock',
    maxSource:
      max.source === 'datasheet'
        ? 'datasheet maxSmClockMHz'
        : 'the highest calibrated clock; the calibration has no datasheet',
  };
}

/** "405–1380 MHz (lowest: …; highest: …)": the range as messages show it. */
export function describeClockRange(r: ClockRange): string {
  return `${r.minMHz}–${r.maxMHz} MHz (lowest: ${r.minSource}; highest: ${r.maxSource})`;
}

/**
 * Throws InputError when `targetClockMHz` is not a clock of the device's range ({@link clockRange}): the models
 * do not extrapolate to clocks the GPU cannot run, nor below what was calibrated where no clock table says more.
 * The one check of every path that predicts at a clock (predict, annotate, sweep gpu, generate, roofline).
 */
export function checkTargetClock(cal: Calibration, targetClockMHz: number): void {
  if (!(targetClockMHz > 0) || !Number.isFinite(targetClockMHz))
    throw new InputError(`target clock must be a positive number of MHz, got ${targetClockMHz}`);
  const r = clockRange(cal);
  if (targetClockMHz > r.maxMHz + 0.5 || targetClockMHz < r.minMHz - 0.5)
    throw new InputError(
      `target clock ${targetClockMHz} MHz is outside the SM clock range of ${cal.device.name}, ${describeClockRange(r)}; the models do not extrapolate to clocks the GPU cannot run or that were not calibrated`,
    );
}

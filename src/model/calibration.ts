/**
 * The calibration file: a versioned JSON document holding everything fitted for one device. See
 * calibration/README.md for the field-by-field description. {@link validateCalibration} checks a parsed
 * document and names the first offending field; {@link loadCalibration} reads and validates a file.
 */
import { parseJsonText, readTextFile } from '../formats/text-file.js';
import { InputError } from '../errors.js';
import { describeJson, jsonPath, JsonShape, type JsonObject } from '../formats/json-shape.js';
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
  /**
   * Lowest SM clock of the device's clock table, MHz (absent where no table was at hand: the lowest calibrated clock
   * bounds).
   */
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

/** A list of numbers at `path` (given as the value, for lists that are not a field of a checked object). */
function numberArray(c: JsonShape, v: Json, path: string): number[] {
  if (!Array.isArray(v)) c.expected(path, 'a list of numbers', v);
  return (v as unknown[]).map((x, i) => c.numberValue(x, jsonPath(path, i)));
}

/** Checks a parsed calibration document; throws FormatError naming the field's JSON path. */
export function validateCalibration(doc: Json, file = '<calibration>'): Calibration {
  const c = new JsonShape(file);
  const root = c.object(doc, '', 'a calibration (a JSON object)');
  c.oneOf(root, 'schema', '', [CALIBRATION_SCHEMA]);
  if (root.version !== CALIBRATION_VERSION)
    c.fail(
      'version',
      `this tracewatt reads calibration schema version ${CALIBRATION_VERSION}, found ` +
        `${describeJson(root.version)}; re-run tracewatt calibrate`,
    );
  const device = c.child(root, 'device', '');
  c.string(device, 'name', 'device', { nonEmpty: true });
  c.oneOf(device, 'kind', 'device', ['fitted', 'datasheet']);
  const clocks = c.child(root, 'clocks', '');
  c.numberList(clocks, 'smClocksMHz', 'clocks');
  c.numberList(clocks, 'memClocksMHz', 'clocks');
  c.stringList(root, 'components', '');
  c.boolean(root, 'counterFree', '');
  const power = c.child(root, 'power', '');
  c.each(power, 'perClock', 'power', 1, (o, path) => {
    c.number(o, 'smClockMHz', path, { min: 1 });
    c.maybeNumber(o, 'memClockMHz', path, { nullable: true });
    c.number(o, 'interceptW', path);
    const co = c.child(o, 'coefficientsW', path);
    c.numbers(co, Object.keys(co), jsonPath(path, 'coefficientsW'), { min: 0 });
    c.list(o, 'dropped', path);
    c.numbers(c.child(o, 'fit', path), ['n', 'r2', 'mapePct', 'rmseW'], jsonPath(path, 'fit'));
  });
  const time = c.child(root, 'time', '');
  c.each(time, 'memoryCeiling', 'time', 0, (o, path) => {
    c.number(o, 'smClockMHz', path, { min: 1 });
    c.number(o, 'dramActiveMax', path, { min: 0 });
  });
  c.numbers(c.child(time, 'share', 'time'), ['w0', 'w1'], 'time.share');
  c.number(time, 'launchOverheadNs', 'time', { min: 0 });
  if (time.roofExponent !== undefined) {
    const roof = c.child(time, 'roofExponent', 'time');
    c.number(roof, 'exponent', 'time.roofExponent', { min: 1 });
    c.numbers(roof, ['mapePct', 'additiveMapePct', 'n'], 'time.roofExponent', { min: 0 });
  }
  if (root.vf !== null)
    c.numbers(c.child(root, 'vf', ''), ['kneeMHz', 'slopePerGHz', 'constW', 'staticW', 'dynamicWPerGHz'], 'vf');
  const cap = c.child(root, 'powerCap', '');
  c.boolean(cap, 'detected', 'powerCap');
  c.maybeNumber(cap, 'powerW', 'powerCap', { nullable: true, min: 0 });
  c.oneOf(cap, 'source', 'powerCap', POWER_CAP_SOURCES);
  if ((cap.source === 'none') !== (cap.powerW === null))
    c.fail(
      'powerCap.powerW',
      `source "${String(cap.source)}" ` +
        (cap.source === 'none' ? 'has no cap: powerW must be null' : 'needs a cap in W'),
    );
  if (root.datasheet !== null) {
    const ds = c.child(root, 'datasheet', '');
    c.numbers(ds, ['tdpW', 'idlePowerW', 'activePowerW', 'maxSmClockMHz', 'memoryBandwidthBytesPerS'], 'datasheet', {
      min: 0,
    });
    c.maybeNumber(ds, 'minSmClockMHz', 'datasheet', { optional: true, min: 1 });
    c.number(c.child(ds, 'peakFlopsPerS', 'datasheet'), 'fp32', 'datasheet.peakFlopsPerS', { min: 0 });
  }
  if (root.idle !== undefined) validateIdle(c, c.child(root, 'idle', ''));
  c.list(root, 'sanity', '');
  if (root.uncertainty !== undefined && root.uncertainty !== null)
    validateUncertainty(c, c.child(root, 'uncertainty', ''));
  const prov = c.child(root, 'provenance', '');
  c.each(prov, 'inputs', 'provenance', 0, (o, path) => {
    c.string(o, 'file', path);
    if (typeof o.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(o.sha256))
      c.expected(jsonPath(path, 'sha256'), '64 hex digits', o.sha256);
  });
  c.string(prov, 'createdAt', 'provenance', { what: 'an ISO date string' });
  return doc as Calibration;
}

function validateIdle(c: JsonShape, idle: JsonObject): void {
  c.number(idle, 'powerW', 'idle', { min: 0 });
  c.number(idle, 'smClockMHz', 'idle', { min: 1 });
  c.oneOf(idle, 'basis', 'idle', IDLE_BASES);
  c.string(idle, 'source', 'idle', { what: 'a sentence saying where the idle figure comes from', nonEmpty: true });
  c.each(idle, 'perClock', 'idle', 1, (o, path) => {
    c.number(o, 'smClockMHz', path, { min: 1 });
    c.maybeNumber(o, 'memClockMHz', path, { nullable: true, min: 1 });
    c.number(o, 'powerW', path, { min: 0 });
    c.number(o, 'samples', path, { min: 1 });
  });
}

function validateUncertainty(c: JsonShape, u: JsonObject): void {
  const at = 'uncertainty';
  c.oneOf(u, 'method', at, ['leave-one-benchmark-out']);
  c.numbers(u, ['groups', 'folds', 'kernels'], at, { min: 0 });
  if (u.twoClockDistance !== undefined) c.oneOf(u, 'twoClockDistance', at, ['product', 'harmonic']);
  if (u.roofExponentRange !== undefined && u.roofExponentRange !== null) {
    const path = jsonPath(at, 'roofExponentRange');
    const r = c.child(u, 'roofExponentRange', at);
    const [p10, p90] = ['p10', 'p90'].map((k) => c.number(r, k, path, { min: 1 })) as [number, number];
    c.number(r, 'kernels', path, { min: 0 });
    if (p90 < p10) c.fail(jsonPath(path, 'p90'), `expected p90 ≥ p10 (${p10}), found ${p90}`);
  }
  if (u.counterSpace !== null) {
    const path = jsonPath(at, 'counterSpace');
    const cs = c.child(u, 'counterSpace', at);
    const comps = c.stringList(cs, 'components', path);
    const scale = c.numberList(cs, 'scale', path);
    if (scale.length !== comps.length || scale.some((x) => !(x > 0)))
      c.fail(jsonPath(path, 'scale'), `expected one positive number per component (${comps.length})`);
    c.list(cs, 'points', path).forEach((p, i) => {
      const pp = jsonPath(jsonPath(path, 'points'), i);
      if (numberArray(c, p, pp).length !== comps.length)
        c.fail(pp, `expected ${comps.length} numbers (one per component), found ${(p as unknown[]).length}`);
    });
    c.number(cs, 'neighbours', path, { min: 1 });
  }
  const modes = c.child(u, 'modes', at);
  for (const [mode, table] of Object.entries(modes)) {
    const path = jsonPath(jsonPath(at, 'modes'), mode);
    if (!(BAND_MODES as readonly string[]).includes(mode))
      c.fail(path, `unknown mode; expected one of ${BAND_MODES.join(', ')}`);
    validateBandTable(c, table, path);
  }
  if (u.memoryCeiling !== undefined && u.memoryCeiling !== null)
    validateBandTable(c, u.memoryCeiling, jsonPath(at, 'memoryCeiling'));
  if (u.powerMisfitMax !== undefined) c.number(u, 'powerMisfitMax', at, { min: 0 });
}

function validateBandTable(c: JsonShape, table: Json, at: string): void {
  const t = c.object(table, at);
  for (const q of BAND_QUANTITIES) {
    const path = jsonPath(at, q);
    const b = c.child(t, q, at);
    const [distance, q10, q90] = ['distance', 'q10', 'q90'].map((k) => c.numberList(b, k, path)) as [
      number[],
      number[],
      number[],
    ];
    const n = distance.length;
    if (n === 0 || q10.length !== n || q90.length !== n)
      c.fail(jsonPath(path, 'q10'), 'expected q10, q90 and distance of one non-zero length');
    if (distance.some((x, i, a) => i > 0 && !(x > a[i - 1]!)))
      c.fail(jsonPath(path, 'distance'), 'expected ascending distances');
    if (q10.some((x) => x > 0) || q90.some((x) => x < 0)) c.fail(path, 'expected q10 ≤ 0 ≤ q90');
    c.numbers(b, ['widening', 'maxCounterDistance', 'n'], path, { min: 0 });
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
      `target clock ${targetClockMHz} MHz is outside the SM clock range of ${cal.device.name}, ` +
        `${describeClockRange(r)}; the models do not extrapolate to clocks the GPU cannot run or that were not ` +
        `calibrated`,
    );
}
